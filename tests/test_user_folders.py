"""The user's folders: the platform's own, the ones this project always used on Linux, each overridable; a cache
where the home folder cannot be written."""
import os
import sys
import tempfile
from pathlib import Path

import pytest

from core.dataset.workspace import default_workspace_path
from core.user_folders import cache_dir, config_dir, data_dir, workspace_dir, writable_cache_dir

FOLDER_VARIABLES = ("TRACEEVAL_CACHE_DIR", "TRACEEVAL_CONFIG_DIR", "TRACEEVAL_WORKSPACE_DIR", "XDG_CACHE_HOME",
                    "XDG_CONFIG_HOME", "XDG_DATA_HOME")


@pytest.fixture
def bare(monkeypatch, tmp_path):
    """No override and no XDG variable; the home folder is the test's."""
    for name in FOLDER_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the XDG folders are Linux's")
def test_on_linux_the_folders_are_the_xdg_defaults_users_already_have(bare, monkeypatch):
    assert cache_dir() == bare / ".cache" / "traceeval-studio"
    assert config_dir() == bare / ".config" / "traceeval-studio"
    assert data_dir() == bare / ".local" / "share" / "traceeval-studio"
    assert workspace_dir() == data_dir() / "workspaces"
    for variable, folder in (("XDG_CACHE_HOME", cache_dir), ("XDG_CONFIG_HOME", config_dir),
                             ("XDG_DATA_HOME", data_dir)):
        monkeypatch.setenv(variable, str(bare / variable))
        assert folder() == bare / variable / "traceeval-studio"


def test_each_override_wins(bare, monkeypatch):
    for variable, folder in (("TRACEEVAL_CACHE_DIR", cache_dir), ("TRACEEVAL_CONFIG_DIR", config_dir),
                             ("TRACEEVAL_WORKSPACE_DIR", workspace_dir)):
        monkeypatch.setenv(variable, str(bare / variable))
        assert folder() == bare / variable
    dataset = bare / "datasets" / "demo"
    dataset.mkdir(parents=True)
    assert default_workspace_path(dataset).parent == bare / "TRACEEVAL_WORKSPACE_DIR"


def test_an_empty_override_is_no_override(bare, monkeypatch):
    monkeypatch.setenv("TRACEEVAL_CACHE_DIR", "")
    assert cache_dir().name == "traceeval-studio" and cache_dir() != Path("")


def test_a_cache_where_the_home_folder_cannot_be_written_is_a_private_temporary_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("TRACEEVAL_CACHE_DIR", "/proc/no-such-home/cache")  # (not even root can make it)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert writable_cache_dir() == tmp_path / f"traceeval-studio-{os.getuid()}"
    assert writable_cache_dir().stat().st_mode & 0o777 == 0o700


def test_a_link_or_anyone_elses_folder_in_the_fallbacks_place_is_never_used(monkeypatch, tmp_path):
    for planted in ("link", "open"):
        monkeypatch.setenv("TRACEEVAL_CACHE_DIR", f"/proc/no-such-home/{planted}")
        place = tmp_path / planted
        place.mkdir()
        monkeypatch.setattr(tempfile, "tempdir", str(place))
        fallback = place / f"traceeval-studio-{os.getuid()}"
        if planted == "link":
            (tmp_path / "elsewhere").mkdir()
            fallback.symlink_to(tmp_path / "elsewhere")
        else:
            fallback.mkdir(mode=0o777)
            fallback.chmod(0o777)
        chosen = writable_cache_dir()
        assert chosen.parent == place and chosen != fallback and not chosen.is_symlink()
