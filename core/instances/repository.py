"""Where a repository came from (name, URL, commit, licence), for the README provenance of built programs.

Git is asked, never required: a folder that is not inside a git work tree (or a machine without
git, or a git that refuses the folder, e.g. for "dubious ownership") is described by its file://
URL. Licences are recognised from a licence file at the top of the folder by characteristic
phrases (see `_PHRASES`), else from the title line of that file, else from package.json,
pyproject.toml or pom.xml.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit
from xml.etree import ElementTree

from core.errors import BuildError
from core.instances.records import RepoInfo
from core.safe_files import parse_json, read_text

GIT_TIMEOUT = 30  # seconds per git command
MAX_MANIFEST_BYTES = 512 * 1024  # a licence or manifest file larger than this is not read
_FALLBACK_NAME = "repo"

# --- name ---------------------------------------------------------------------------------------


def sanitise_repo_name(text: str) -> str:
    """Letters and digits (ASCII), `-`, `.` and `_` kept, anything else -> `-`; leading dots dropped (no hidden
    program folders); never empty ("repo")."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "-", text).lstrip(".")
    return cleaned or _FALLBACK_NAME


def _name_from_url(url: str) -> str:
    """Last path segment without `.git`: https://host/a/b.git, git@host:a/b.git and /srv/b.git all give "b"."""
    segment = re.split(r"[/:\\]", url.rstrip("/\\"))[-1]
    return segment[:-4] if segment.lower().endswith(".git") else segment


# --- git ----------------------------------------------------------------------------------------

def _git(folder: Path, *args: str) -> str | None:
    """Stripped stdout of a git command in `folder`, or None when git is missing, fails or hangs.

    The repository is hostile: its own config can name commands git runs (an fsmonitor hook, filter drivers, the
    same in its submodules). Every such setting is overridden on the command line, which wins over any config."""
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR")}
    environment.update(GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0")  # never prompt, never write the index
    try:
        done = subprocess.run(["git", *_NOTHING_RUNS, *_filters_off(folder, environment), "-C", str(folder), *args],
                              check=False, capture_output=True, text=True, errors="replace", timeout=GIT_TIMEOUT,
                              env=environment, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


# Settings under which git runs a command of the repository's during the commands used here (`status` above all).
_NOTHING_RUNS = ("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "submodule.recurse=false",
                 "-c", "diff.ignoreSubmodules=all", "-c", "status.submoduleSummary=false", "-c", "core.pager=cat")
_FILTER_KEY = re.compile(r"^filter\.(.+)\.(?:clean|smudge|process|required)$", re.I)


def _filters_off(folder: Path, environment: dict[str, str]) -> list[str]:
    """`-c filter.NAME.clean=` (and the others) for every filter driver the repository's config names: git runs no
    filter whose commands are empty. Reading the config runs nothing."""
    try:
        done = subprocess.run(["git", "-C", str(folder), "config", "--name-only", "--get-regexp", r"^filter\."],
                              check=False, capture_output=True, text=True, errors="replace", timeout=GIT_TIMEOUT,
                              env=environment, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return []
    names = {match.group(1) for line in done.stdout.splitlines() if (match := _FILTER_KEY.match(line.strip()))}
    return [item for name in sorted(names) for key in ("clean", "smudge", "process", "required")
            for item in ("-c", f"filter.{name}.{key}=" if key != "required" else f"filter.{name}.{key}=false")]


def _remote_url(folder: Path) -> str:
    """URL of `origin`, else of the first remote git lists, else ""."""
    remotes = (_git(folder, "remote") or "").split()
    if not remotes:
        return ""
    return _git(folder, "remote", "get-url", "origin" if "origin" in remotes else remotes[0]) or ""


def strip_credentials(url: str) -> str:
    """`https://user:token@host/a.git` -> `https://host/a.git`; scp-like `git@host:a.git` and paths are kept."""
    if "://" not in url:
        return url
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def _is_dirty(folder: Path) -> bool:
    """Uncommitted changes, untracked files included. When git cannot tell, say dirty: the commit is then
    not known to match the files."""
    status = _git(folder, "status", "--porcelain", "--ignore-submodules=all")
    return status is None or bool(status)


# --- the description ----------------------------------------------------------------------------

@dataclass(frozen=True)
class _Origin:
    url: str
    commit: str = ""
    dirty: bool = False
    remote: bool = False  # `url` is a git remote's (so it names the repository)
    subdir: str = ""  # the folder's path inside the checkout


def describe_repository(path: Path, name: str | None = None) -> RepoInfo:
    """Name, origin and licence of the repository in `path` (a folder, possibly a subfolder of a checkout).

    The name is `name` when given, else the remote's last path segment, else the folder's name; sanitised.
    """
    folder = _existing_folder(Path(path))
    origin = _origin(folder)
    licence, licence_file = detect_licence(folder)
    chosen = name or (_name_from_url(origin.url) if origin.remote else folder.name)
    return RepoInfo(name=sanitise_repo_name(chosen), path=str(folder), url=origin.url, commit=origin.commit,
                    dirty=origin.dirty, licence=licence, licence_file=licence_file, subdir=origin.subdir)


def _origin(folder: Path) -> _Origin:
    """A checkout (or a folder inside one) by its remote, else by its top-level folder; other folders by themselves."""
    top = _git(folder, "rev-parse", "--show-toplevel")
    if top is None:
        return _Origin(folder.as_uri())
    remote = strip_credentials(_remote_url(folder))
    subdir = folder.relative_to(Path(top).resolve()).as_posix()
    return _Origin(url=remote or Path(top).resolve().as_uri(), commit=_git(folder, "rev-parse", "HEAD") or "",
                   dirty=_is_dirty(folder), remote=bool(remote), subdir="" if subdir == "." else subdir)


def _existing_folder(path: Path) -> Path:
    if not path.exists():
        raise BuildError(f"{path}: no such repository folder")
    if not path.is_dir():
        raise BuildError(f"{path}: not a folder (expected a repository folder)")
    return path.resolve()


# --- licences -----------------------------------------------------------------------------------

_LICENCE_STEMS = ("license", "licence", "copying", "unlicense")  # in order of preference
_LICENCE_SUFFIXES = ("", ".md", ".txt", ".rst")

# Characteristic phrases, matched in lower case with whitespace collapsed. The licence whose phrase
# comes FIRST in the file wins, so a licence followed by third-party notices, or GPL-3.0's own
# mention of the Affero licence, is read as the licence at the top. BSD and GNU licences need
# more than one phrase: see `_bsd_match` and `_gnu_match`.
_PHRASES: tuple[tuple[str, str], ...] = (
    ("MIT", r"permission is hereby granted, free of charge, to any person obtaining a copy"),
    ("Apache-2.0", r"apache license,? version 2\.0"),
    ("MPL-2.0", r"mozilla public license,? (?:version |v\. ?)2\.0"),
    ("ISC", (r"permission to use, copy, modify, and(?:/or)? distribute this software for any purpose with or without "
             r"fee is hereby granted, provided that the above copyright notice and this permission notice appear")),
    ("Unlicense", r"this is free and unencumbered software released into the public domain"),
    ("CC0-1.0", r"\bcc0 1\.0 universal\b"),
)
# BSD: the redistribution clause, plus the no-endorsement clause for BSD-3-Clause (either wording: "neither
# the name of X nor ... may be used" or "the name of the author may not be used"). The advertising clause
# makes it BSD-4-Clause, which is not one we name.
_BSD_REDISTRIBUTION = "redistribution and use in source and binary forms, with or without modification, are permitted"
_BSD_ENDORSEMENT = re.compile(r"may (?:not )?be used to endorse or promote products derived from this software")
_BSD_ADVERTISING = "all advertising materials mentioning features"
# GNU licences: the family comes from the title, the version from the first "version N" after it.
_GNU_TITLE = re.compile(r"gnu (affero |lesser |library )?general public licen[cs]e")
_GNU_VERSION = re.compile(r"version (\d+(?:\.\d+)?)")
_GNU_IDS = {("affero", "3"): "AGPL-3.0", ("lesser", "2.1"): "LGPL-2.1", ("lesser", "3"): "LGPL-3.0",
            ("", "2"): "GPL-2.0", ("", "3"): "GPL-3.0"}

KNOWN_LICENCES = ("MIT", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "GPL-2.0", "GPL-3.0", "LGPL-2.1", "LGPL-3.0",
                  "AGPL-3.0", "MPL-2.0", "ISC", "Unlicense", "CC0-1.0")
# Names people write in manifests and licence titles, reduced by `_name_key`.
_ALIASES = {
    "mit": "MIT", "expat": "MIT", "apache 2": "Apache-2.0", "asl 2": "Apache-2.0",
    "bsd 3": "BSD-3-Clause", "new bsd": "BSD-3-Clause", "modified bsd": "BSD-3-Clause", "revised bsd": "BSD-3-Clause",
    "bsd 2": "BSD-2-Clause", "simplified bsd": "BSD-2-Clause", "freebsd": "BSD-2-Clause",
    "gpl 2": "GPL-2.0", "gplv2": "GPL-2.0", "gnu general public 2": "GPL-2.0",
    "gpl 3": "GPL-3.0", "gplv3": "GPL-3.0", "gnu general public 3": "GPL-3.0",
    "lgpl 2 1": "LGPL-2.1", "lgplv2 1": "LGPL-2.1", "gnu lesser general public 2 1": "LGPL-2.1",
    "lgpl 3": "LGPL-3.0", "lgplv3": "LGPL-3.0", "gnu lesser general public 3": "LGPL-3.0",
    "agpl 3": "AGPL-3.0", "agplv3": "AGPL-3.0", "gnu affero general public 3": "AGPL-3.0",
    "mpl 2": "MPL-2.0", "mozilla public 2": "MPL-2.0", "isc": "ISC", "unlicense": "Unlicense",
    "cc0": "CC0-1.0", "cc0 1": "CC0-1.0", "cc0 1 universal": "CC0-1.0", "creative commons zero 1": "CC0-1.0",
}
_NOISE_WORDS = {"the", "license", "licence", "software", "version", "v", "clause", "only"}


def detect_licence(folder: Path) -> tuple[str, str]:
    """(SPDX id or "", licence file relative to `folder` or "")."""
    licence_file = _licence_file(folder)
    licence = recognise_licence_text(_read_text(folder / licence_file)) if licence_file else ""
    return licence or _manifest_licence(folder), licence_file


def _licence_file(folder: Path) -> str:
    """The preferred licence file at the top of `folder`, any case: LICENSE, LICENCE, COPYING, UNLICENSE,
    each bare or with .md/.txt/.rst."""
    found: list[tuple[int, int, str]] = []
    try:
        entries = list(folder.iterdir())
    except OSError as error:
        raise BuildError(f"{folder}: cannot list the folder ({error.strerror or error})") from None
    for entry in entries:
        stem, suffix = _split_licence_name(entry.name.lower())
        if stem in _LICENCE_STEMS and suffix in _LICENCE_SUFFIXES and entry.is_file():
            found.append((_LICENCE_STEMS.index(stem), _LICENCE_SUFFIXES.index(suffix), entry.name))
    return min(found)[2] if found else ""


def _split_licence_name(name: str) -> tuple[str, str]:
    stem, dot, suffix = name.partition(".")
    return stem, dot + suffix


def recognise_licence_text(text: str) -> str:
    """SPDX id of a licence text (full text, header notice or a title line such as "BSD 3-Clause License"), or ""."""
    flat = " ".join(text.lower().split())
    found = [_gnu_match(flat), _bsd_match(flat), *(_phrase_match(flat, spdx, p) for spdx, p in _PHRASES)]
    matches = [match for match in found if match]
    return min(matches)[1] if matches else _licence_from_name(_first_line(text))


def _phrase_match(flat: str, spdx: str, pattern: str) -> tuple[int, str] | None:
    match = re.search(pattern, flat)
    return (match.start(), spdx) if match else None


def _bsd_match(flat: str) -> tuple[int, str] | None:
    position = flat.find(_BSD_REDISTRIBUTION)
    if position < 0 or _BSD_ADVERTISING in flat:
        return None
    return position, "BSD-3-Clause" if _BSD_ENDORSEMENT.search(flat, position) else "BSD-2-Clause"


def _gnu_match(flat: str) -> tuple[int, str] | None:
    """Earliest GNU licence title followed (within 300 characters) by a version we name."""
    for title in _GNU_TITLE.finditer(flat):
        version = _GNU_VERSION.search(flat, title.end(), title.end() + 300)
        if version is None:
            continue
        number = version.group(1).removesuffix(".0")
        spdx = _GNU_IDS.get(((title.group(1) or "").strip(), number))
        if spdx:
            return title.start(), spdx
    return None


def _first_line(text: str) -> str:
    return next((line.strip(" #=*-\t") for line in text.splitlines() if line.strip(" #=*-\t")), "")


def _licence_from_name(value: str) -> str:
    """A known SPDX id for a licence name ("MIT License", "The Apache Software License, Version 2.0"), else ""."""
    for known in KNOWN_LICENCES:
        if value.strip().lower() == known.lower():
            return known
    return _ALIASES.get(_name_key(value), "")


def _name_key(value: str) -> str:
    """Lower case, ".0" and a "v" before a version dropped, punctuation to spaces, noise and repeated words dropped:
    "Apache-2.0" -> "apache 2", "GNU Lesser General Public License v2.1" -> "gnu lesser general public 2 1"."""
    text = re.sub(r"\bv(?=\d)", "", re.sub(r"(\d)\.0\b", r"\1", value.lower()))
    words = re.sub(r"[^a-z0-9]+", " ", text).split()
    return " ".join(w for i, w in enumerate(words) if w not in _NOISE_WORDS and w not in words[:i])  # "MIT ... (MIT)"


# --- manifests ----------------------------------------------------------------------------------

def _manifest_licence(folder: Path) -> str:
    """The licence a manifest declares: a known id when recognised, else the value as written (one line)."""
    readers: tuple[tuple[str, Callable[[str], str]], ...] = (
        ("package.json", _package_json_licence), ("pyproject.toml", _pyproject_licence), ("pom.xml", _pom_licence))
    for file_name, reader in readers:
        manifest = folder / file_name
        if not manifest.is_file():
            continue
        value = " ".join(reader(_read_text(manifest)).split())
        if value:
            return _licence_from_name(value) or recognise_licence_text(value) or value
    return ""


def _package_json_licence(text: str) -> str:
    try:
        data = parse_json(text)
    except json.JSONDecodeError:
        return ""
    value = data.get("license", "") if isinstance(data, dict) else ""
    if isinstance(value, dict):  # the old {"type": "MIT", "url": ...} form
        value = value.get("type", "")
    return value if isinstance(value, str) else ""


def _pyproject_licence(text: str) -> str:
    try:
        project = tomllib.loads(text).get("project", {})
    except (tomllib.TOMLDecodeError, RecursionError):  # arrays nested past the parser's recursion
        return ""
    value = project.get("license", "") if isinstance(project, dict) else ""
    if isinstance(value, dict):  # {text = "..."}; {file = "..."} names a file, not a licence
        value = value.get("text", "")
    return value if isinstance(value, str) else ""


def _pom_licence(text: str) -> str:
    """The first <licenses><license><name>, namespace or not."""
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError:
        return ""
    for licenses in _children(root, "licenses"):
        for licence in _children(licenses, "license"):
            for name in _children(licence, "name"):
                if name.text and name.text.strip():
                    return name.text
    return ""


def _children(element: ElementTree.Element, tag: str) -> list[ElementTree.Element]:
    return [child for child in element if _local(child.tag) == tag]


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def _read_text(path: Path) -> str:
    try:
        return read_text(path, MAX_MANIFEST_BYTES, root=path.parent, errors="replace")
    except OSError:
        return ""
