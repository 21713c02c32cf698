"""Describing a repository for provenance: name, git origin (without credentials), commit, licence."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from core.errors import BuildError
from core.instances.repository import describe_repository, recognise_licence_text, sanitise_repo_name, strip_credentials

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture(autouse=True)
def _isolated_git(tmp_path, monkeypatch):
    """Commits work on a fresh machine, the user's git config is not read, and no checkout above tmp_path is found."""
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Trace Eval")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "traceeval@example.com")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.resolve().parent))


def git(folder: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=60, check=True)
    return done.stdout.strip()


def make_checkout(folder: Path, *remotes: tuple[str, str], files: dict[str, str] | None = None) -> Path:
    """A git repository with one commit of `files` and the given (name, url) remotes."""
    for relative, text in (files or {"src/app.py": "def main():\n    return 1\n"}).items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text, encoding="utf-8")
    git(folder, "init", "-q")
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "first")
    for remote, url in remotes:
        git(folder, "remote", "add", remote, url)
    return folder


# --- folders and checkouts ----------------------------------------------------------------------

def test_a_plain_folder_is_described_by_its_file_url(tmp_path):
    folder = tmp_path / "geomkit"
    folder.mkdir()
    info = describe_repository(folder)
    assert info.name == "geomkit"
    assert info.path == str(folder.resolve())
    assert info.url == folder.resolve().as_uri() and info.url.startswith("file://")
    assert (info.commit, info.dirty, info.licence, info.licence_file) == ("", False, "", "")


@needs_git
def test_a_checkout_with_credentials_in_its_remote_url_loses_them(tmp_path):
    folder = make_checkout(tmp_path / "work", ("origin", "https://alice:ghp_SECRET123@github.com/acme/widget.git"))
    info = describe_repository(folder)
    assert info.url == "https://github.com/acme/widget.git"
    assert "SECRET" not in repr(info) and "alice" not in repr(info)
    assert info.name == "widget"
    assert info.commit == git(folder, "rev-parse", "HEAD") and len(info.commit) == 40
    assert info.dirty is False
    assert info.path == str(folder.resolve())


@needs_git
def test_dirty_means_changed_or_untracked_files(tmp_path):
    folder = make_checkout(tmp_path / "repo", ("origin", "https://github.com/acme/widget"))
    assert describe_repository(folder).dirty is False
    (folder / "notes.txt").write_text("untracked\n", encoding="utf-8")
    assert describe_repository(folder).dirty is True
    (folder / "notes.txt").unlink()
    (folder / "src" / "app.py").write_text("def main():\n    return 2\n", encoding="utf-8")
    assert describe_repository(folder).dirty is True
    git(folder, "commit", "-q", "-am", "second")
    info = describe_repository(folder)
    assert info.dirty is False and info.commit == git(folder, "rev-parse", "HEAD")


@needs_git
def test_a_subfolder_of_a_checkout_has_the_checkouts_origin_and_its_own_path(tmp_path):
    folder = make_checkout(tmp_path / "mono", ("origin", "git@github.com:acme/monorepo.git"),
                           files={"packages/parser/index.js": "module.exports = 1;\n", "LICENSE": "MIT License\n"})
    info = describe_repository(folder / "packages" / "parser")
    assert info.url == "git@github.com:acme/monorepo.git"  # scp-like: kept as written
    assert info.name == "monorepo"
    assert info.path == str((folder / "packages" / "parser").resolve())
    assert info.commit == git(folder, "rev-parse", "HEAD")
    assert info.subdir == "packages/parser" and info.original_path("index.js") == "packages/parser/index.js"
    assert info.licence_file == ""  # only the top of the folder given is searched


@needs_git
def test_a_checkout_without_a_remote_is_described_by_its_top_level_folder(tmp_path):
    folder = make_checkout(tmp_path / "local tool")
    info = describe_repository(folder)
    assert info.url == folder.resolve().as_uri()
    assert info.name == "local-tool"
    assert len(info.commit) == 40
    assert info.subdir == "" and info.original_path("a.py") == "a.py"
    sub = describe_repository(folder / "src")
    assert sub.url == folder.resolve().as_uri()  # the checkout, not the subfolder
    assert sub.name == "src" and sub.subdir == "src"


@needs_git
def test_origin_is_preferred_and_otherwise_the_first_remote_is_used(tmp_path):
    both = make_checkout(tmp_path / "both", ("upstream", "https://example.org/up/first.git"),
                         ("origin", "https://example.org/me/second.git"))
    assert describe_repository(both).url == "https://example.org/me/second.git"
    only = make_checkout(tmp_path / "only", ("zeta", "https://example.org/z/zeta.git"),
                         ("alpha", "https://example.org/a/alpha.git/"))
    info = describe_repository(only)
    assert info.url == "https://example.org/a/alpha.git/" and info.name == "alpha"


@needs_git
def test_a_repository_without_commits_has_no_commit(tmp_path):
    folder = tmp_path / "fresh"
    folder.mkdir()
    git(folder, "init", "-q")
    info = describe_repository(folder)
    assert (info.commit, info.dirty, info.url) == ("", False, folder.resolve().as_uri())


@needs_git
def test_without_git_on_the_path_a_checkout_is_a_plain_folder(tmp_path, monkeypatch):
    folder = make_checkout(tmp_path / "repo", ("origin", "https://github.com/acme/widget.git"))
    empty_bin = tmp_path / "bin"
    empty_bin.mkdir()
    monkeypatch.setenv("PATH", str(empty_bin))
    info = describe_repository(folder)
    assert (info.url, info.commit, info.dirty, info.name) == (folder.resolve().as_uri(), "", False, "repo")


def test_a_given_name_wins_and_is_sanitised(tmp_path):
    folder = tmp_path / "whatever"
    folder.mkdir()
    assert describe_repository(folder, "my lib/v2").name == "my-lib-v2"


def test_missing_paths_and_files_are_refused_with_one_line(tmp_path):
    with pytest.raises(BuildError, match="no such repository folder") as missing:
        describe_repository(tmp_path / "nope")
    assert str(tmp_path / "nope") in str(missing.value) and "\n" not in str(missing.value)
    (tmp_path / "file.txt").write_text("x", encoding="utf-8")
    with pytest.raises(BuildError, match="not a folder"):
        describe_repository(tmp_path / "file.txt")


@pytest.mark.parametrize("text, expected", [
    ("Activiti", "Activiti"), ("a_b-c.d", "a_b-c.d"), ("my repo!", "my-repo-"), ("über", "-ber"),
    (".github", "github"), ("", "repo"), ("...", "repo"), ("a/b\\c:d", "a-b-c-d"),
])
def test_repository_names_are_sanitised(text, expected):
    assert sanitise_repo_name(text) == expected


@pytest.mark.parametrize("url, expected", [
    ("https://user:token@github.com/a/b.git", "https://github.com/a/b.git"),
    ("https://oauth2:glpat-x@gitlab.example.com:8443/group/b", "https://gitlab.example.com:8443/group/b"),
    ("http://token@host/b?x=1", "http://host/b?x=1"),
    ("https://github.com/a/b.git", "https://github.com/a/b.git"),
    ("git@github.com:a/b.git", "git@github.com:a/b.git"),
    ("/srv/git/b.git", "/srv/git/b.git"),
])
def test_credentials_are_stripped_from_urls(url, expected):
    assert strip_credentials(url) == expected


# --- licences -----------------------------------------------------------------------------------

MIT = """MIT License

Copyright (c) 2024 Acme

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
"""
APACHE = """
                                 Apache License
                           Version 2.0, January 2004
                        http://www.apache.org/licenses/
"""
BSD_2 = """Copyright (c) 2020, Acme
All rights reserved.

Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the following conditions are met:

1. Redistributions of source code must retain the above copyright notice.
2. Redistributions in binary form must reproduce the above copyright notice.
"""
BSD_3 = BSD_2 + """3. Neither the name of the copyright holder nor the names of its
   contributors may be used to endorse or promote products derived from
   this software without specific prior written permission.
"""
BSD_4 = BSD_3 + """4. All advertising materials mentioning features or use of this software
   must display the following acknowledgement.
"""
GPL_3 = """                    GNU GENERAL PUBLIC LICENSE
                       Version 3, 29 June 2007
 Copyright (C) 2007 Free Software Foundation, Inc. <https://fsf.org/>
  13. Use with the GNU Affero General Public License.
"""
GPL_2_NOTICE = """This program is free software; you can redistribute it and/or modify
it under the terms of the GNU General Public License as published by
the Free Software Foundation; either version 2 of the License, or
(at your option) any later version.
"""
LGPL_21 = "GNU LESSER GENERAL PUBLIC LICENSE\n Version 2.1, February 1999\n"
AGPL = "GNU AFFERO GENERAL PUBLIC LICENSE\n Version 3, 19 November 2007\n"
ISC = """ISC License

Copyright (c) 2004-2010 by Internet Systems Consortium, Inc. ("ISC")

Permission to use, copy, modify, and/or distribute this software for any
purpose with or without fee is hereby granted, provided that the above
copyright notice and this permission notice appear in all copies.
"""
MPL_NOTICE = """This Source Code Form is subject to the terms of the Mozilla Public
License, v. 2.0. If a copy of the MPL was not distributed with this
file, You can obtain one at http://mozilla.org/MPL/2.0/.
"""
UNLICENSE = "This is free and unencumbered software released into the public domain.\n"
CC0 = "Creative Commons Legal Code\n\nCC0 1.0 Universal\n\n    CREATIVE COMMONS CORPORATION IS NOT A LAW FIRM\n"


@pytest.mark.parametrize("text, expected", [
    (MIT, "MIT"), (APACHE, "Apache-2.0"), (BSD_2, "BSD-2-Clause"), (BSD_3, "BSD-3-Clause"), (BSD_4, ""),
    (GPL_3, "GPL-3.0"), (GPL_2_NOTICE, "GPL-2.0"), (LGPL_21, "LGPL-2.1"), (AGPL, "AGPL-3.0"), (ISC, "ISC"),
    (MPL_NOTICE, "MPL-2.0"), (UNLICENSE, "Unlicense"), (CC0, "CC0-1.0"),
    (MIT + "\n\nThird-party notices:\n" + GPL_2_NOTICE, "MIT"), (GPL_2_NOTICE + "\n" + MIT, "GPL-2.0"),
    ("BSD 3-Clause License\n\nSee the project website.\n", "BSD-3-Clause"),
    ("All rights reserved. Do not copy.\n", ""),
])
def test_licence_texts_are_recognised_by_their_characteristic_phrases(text, expected):
    assert recognise_licence_text(text) == expected


@pytest.mark.parametrize("file_name, text, licence", [
    ("LICENSE", MIT, "MIT"), ("LICENCE.md", APACHE, "Apache-2.0"), ("copying.txt", GPL_3, "GPL-3.0"),
    ("License.RST", BSD_3, "BSD-3-Clause"), ("UNLICENSE", UNLICENSE, "Unlicense"), ("LICENSE.txt", ISC, "ISC"),
])
def test_licence_files_are_found_at_the_top_in_any_case(tmp_path, file_name, text, licence):
    (tmp_path / file_name).write_text(text, encoding="utf-8")
    info = describe_repository(tmp_path)
    assert (info.licence, info.licence_file) == (licence, file_name)


def test_licence_is_preferred_over_copying_and_other_names_are_ignored(tmp_path):
    (tmp_path / "COPYING").write_text(GPL_3, encoding="utf-8")
    (tmp_path / "LICENSE.md").write_text(MPL_NOTICE, encoding="utf-8")
    (tmp_path / "LICENSE-MIT").write_text(MIT, encoding="utf-8")
    assert describe_repository(tmp_path).licence_file == "LICENSE.md"
    assert describe_repository(tmp_path).licence == "MPL-2.0"
    other = tmp_path / "other"
    (other / "LICENSE").mkdir(parents=True)  # a folder, not a licence
    (other / "LICENSE-APACHE").write_text(APACHE, encoding="utf-8")
    assert (describe_repository(other).licence, describe_repository(other).licence_file) == ("", "")


def test_an_unrecognised_licence_file_is_named_without_an_id(tmp_path):
    (tmp_path / "LICENSE").write_text("Proprietary. All rights reserved.\n", encoding="utf-8")
    info = describe_repository(tmp_path)
    assert (info.licence, info.licence_file) == ("", "LICENSE")


@pytest.mark.parametrize("manifest, text, licence", [
    ("package.json", json.dumps({"name": "x", "license": "MIT"}), "MIT"),
    ("package.json", json.dumps({"license": {"type": "ISC", "url": "http://x"}}), "ISC"),
    ("package.json", json.dumps({"license": "(MIT OR Apache-2.0)"}), "(MIT OR Apache-2.0)"),
    ("package.json", json.dumps({"license": "UNLICENSED"}), "UNLICENSED"),
    ("package.json", "{not json", ""),
    ("pyproject.toml", '[project]\nname = "x"\nlicense = "apache-2.0"\n', "Apache-2.0"),
    ("pyproject.toml", '[project]\nlicense = {text = "BSD 3-Clause License"}\n', "BSD-3-Clause"),
    ("pyproject.toml", '[project]\nlicense = {text = "Proprietary"}\n', "Proprietary"),
    ("pyproject.toml", '[tool.other]\nlicense = "MIT"\n', ""),
    ("pom.xml", """<?xml version="1.0"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <name>not this one</name>
  <licenses><license><name>The Apache Software License, Version 2.0</name></license></licenses>
</project>""", "Apache-2.0"),
    ("pom.xml", ("<project><licenses><license><name>Eclipse Public License - v 2.0</name></license></licenses>"
                 "</project>"), "Eclipse Public License - v 2.0"),
    ("pom.xml", "<project><licenses>", ""),
])
def test_manifests_declare_the_licence_when_no_file_does(tmp_path, manifest, text, licence):
    (tmp_path / manifest).write_text(text, encoding="utf-8")
    info = describe_repository(tmp_path)
    assert (info.licence, info.licence_file) == (licence, "")


def test_a_recognised_licence_file_beats_the_manifest_and_an_unrecognised_one_does_not(tmp_path):
    (tmp_path / "package.json").write_text(json.dumps({"license": "ISC"}), encoding="utf-8")
    (tmp_path / "LICENSE").write_text(MIT, encoding="utf-8")
    assert describe_repository(tmp_path).licence == "MIT"
    (tmp_path / "LICENSE").write_text("See package.json\n", encoding="utf-8")
    info = describe_repository(tmp_path)
    assert (info.licence, info.licence_file) == ("ISC", "LICENSE")
