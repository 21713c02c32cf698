"""The user's folders: the platform's own, the ones this project always used on Linux, each overridable."""
import sys
from pathlib import Path

import pytest

from core.dataset.workspace import default_workspace_path
from core.user_folders import cache_dir, config_dir, data_dir, workspace_dir

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
