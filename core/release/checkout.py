"""The user's own checkout of the TraceEval release: where it is, and the prompt wording in it.

The release (the authors' repository, Apache-2.0) is never copied into this project. Its prompt
templates are the authors' sentences, read at run time from the user's checkout; its scripts are
run only by `traceeval parity`, in the tracer sandbox (`core.release.parity`). A checkout looks like

    TraceEva/scripts/run_llm.py (+ compute_metrics.py, normalize_edges.py)
    TraceEva/data/benchmark/<language>/<id>/     or data/traceeval.zip, which extracts to it
    TraceEva/data/traceeval_split/

Where it is found, first hit wins: the path given (`--release DIR`, the window's field), the
`TRACEEVAL_RELEASE` variable, then next to the dataset (the dataset `TraceEva/data` has its
release in `TraceEva`; a corpus extracted from the release's archive remembers its checkout).
A path may name the checkout, its `scripts/` folder or `run_llm.py` itself. A release the user named (the
first two) is theirs; one found next to the dataset is used only once the user confirmed it
(`usable_release`, remembered by its scripts' sha256 in `core.release.confirmed`), so a downloaded dataset
cannot bring its own prompt wording or parity scripts unasked.

`run_llm.py` is parsed with `ast`, never imported or executed here: the five template constants
are taken as the literal strings they are, and the file's sha256 goes with every prompt made
from them (`PromptWording.tag`).
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from core.errors import ReleaseError, UnconfirmedRelease
from core.languages import languages
from core.llm.prompt_wording import RELEASE, STUDIO_WORDING, SYSTEM_FIELDS, USER_FIELDS, PromptWording, checked_fields
from core.release.archive import CHECKOUT_NOTE, is_extracted_corpus
from core.release.confirmed import ScriptsDigest, is_confirmed, remember, scripts_digest
from core.safe_files import MAX_NOTE_BYTES, MAX_SCRIPT_BYTES, read_bytes, why_unreadable

RELEASE_ENV = "TRACEEVAL_RELEASE"
SCRIPT = "run_llm.py"


@dataclass(frozen=True)
class ReleaseLocation:
    script: Path  # the release's run_llm.py
    found: bool  # found next to the dataset rather than named by the user: used only once confirmed

    @property
    def scripts(self) -> Path:
        """The folder of the release's scripts: what parity runs and what a confirmation covers."""
        return self.script.parent


@dataclass(frozen=True)
class Release:
    """A release a command may use: named by the user, or found and confirmed."""

    script: Path
    digest: ScriptsDigest


# Asked when a found release is not confirmed yet: True when the user confirms it now.
Confirm = Callable[[ReleaseLocation, ScriptsDigest], bool]


def locate_release(given: str | Path | None = None, dataset_root: Path | None = None) -> ReleaseLocation | None:
    """Where the release is (see the module's docstring), or None when there is none (then the studio wording is
    used); ReleaseError when a path given names no release."""
    if given:
        return ReleaseLocation(_script_at(Path(given).expanduser(), f"{given}"), found=False)
    if os.environ.get(RELEASE_ENV):
        return ReleaseLocation(_script_at(Path(os.environ[RELEASE_ENV]).expanduser(),
                                          f"{os.environ[RELEASE_ENV]} (from ${RELEASE_ENV})"), found=False)
    if dataset_root is not None:
        for folder in (dataset_root, dataset_root.parent, extracted_from(dataset_root)):
            if folder is not None:
                script = folder / "scripts" / SCRIPT
                if script.is_file():
                    return ReleaseLocation(script.resolve(), found=True)
    return None


def usable_release(given: str | Path | None = None, dataset_root: Path | None = None,
                   confirm: Confirm | None = None) -> Release | None:
    """The release to use, or None when there is none. A found release not confirmed before is offered to
    `confirm` and remembered when confirmed; when there is no one to ask, or they decline, UnconfirmedRelease says
    how to confirm it. (A release the user names is theirs: the front end remembers it, `remember`, when they do.)"""
    location = locate_release(given, dataset_root)
    if location is None:
        return None
    digest = scripts_digest(location.scripts)
    if location.found and not is_confirmed(digest):
        if not (confirm and confirm(location, digest)):
            checkout = release_checkout(location.script)
            raise UnconfirmedRelease(f"{checkout}: a TraceEval release found next to the dataset, not confirmed "
                                     f"(scripts sha256 {digest.sha256[:16]}): its wording and scripts are not used "
                                     f"until you confirm it: give --release {checkout}, or answer yes when asked on "
                                     "a terminal or in the window", str(checkout), digest.sha256)
        remember(digest)
    return Release(location.script, digest)


def release_checkout(script: Path) -> Path:
    """The checkout folder of a release's `run_llm.py` (the folder holding `scripts/`)."""
    return script.parent.parent if script.parent.name == "scripts" else script.parent


def prompt_wording(given: str | Path | None = None, dataset_root: Path | None = None) -> PromptWording:
    """The usable release's wording (see `usable_release`: a found one must be confirmed before), else the
    studio's; UnconfirmedRelease when a found one is not."""
    release = usable_release(given, dataset_root)
    return STUDIO_WORDING if release is None else read_release_wording(release.script)


def read_release_wording(script: Path) -> PromptWording:
    """The five templates of `run_llm.py` as literal strings, without running a line of it."""
    try:
        data = read_bytes(script, MAX_SCRIPT_BYTES)
    except OSError as error:
        raise ReleaseError(f"{script}: {why_unreadable(error)}") from None
    try:
        tree = ast.parse(data, filename=str(script))
    except (SyntaxError, ValueError) as error:
        raise ReleaseError(f"{script}: not Python the templates can be read from ({error})") from None
    except (RecursionError, MemoryError):
        raise ReleaseError(f"{script}: nested too deeply to read") from None
    templates = release_templates()
    found: dict[str, str] = {}
    for node in tree.body:  # module level only; a later assignment replaces an earlier one, as running it would
        target, value = _assignment(node)
        if target in templates and value is not None:  # (a target always comes with its value)
            try:
                text = ast.literal_eval(value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                text = None
            if not isinstance(text, str):
                raise ReleaseError(f"{script}: {target} is not a plain string literal; the templates are read, "
                                   "never run")
            found[target] = text
    missing = [name for name in templates if name not in found]
    if missing:
        raise ReleaseError(f"{script}: no {', '.join(missing)} at module level; is this the TraceEval release's "
                           f"{SCRIPT}?")
    checked_fields("SYSTEM_PROMPT", found["SYSTEM_PROMPT"], SYSTEM_FIELDS, str(script))
    checked_fields("USER_PROMPT", found["USER_PROMPT"], USER_FIELDS, str(script))
    texts = {templates[name]: text for name, text in found.items()}
    return PromptWording(system=texts.pop("system"), user=texts.pop("user"), examples=texts, source=RELEASE,
                         path=str(script), sha256=hashlib.sha256(data).hexdigest())


def release_templates() -> dict[str, str]:
    """The release's module-level template constants -> "system", "user" or the language whose worked example
    it is (`Language.release_example`)."""
    examples = {language.release_example: language.name for language in languages() if language.release_example}
    return {"SYSTEM_PROMPT": "system", "USER_PROMPT": "user", **examples}


def extracted_from(dataset_root: Path) -> Path | None:
    """The checkout a corpus was extracted from (`core.release.archive` writes the note), or None."""
    note = dataset_root / CHECKOUT_NOTE
    if not is_extracted_corpus(dataset_root) or not note.is_file():
        return None
    try:
        checkout = json.loads(read_bytes(note, MAX_NOTE_BYTES, root=dataset_root)).get("checkout")
    except (OSError, ValueError, AttributeError, RecursionError):
        return None
    return Path(checkout) if isinstance(checkout, str) else None


def _script_at(path: Path, shown: str) -> Path:
    for candidate in (path, path / "scripts" / SCRIPT, path / SCRIPT):
        if candidate.name == SCRIPT and candidate.is_file():
            return candidate.resolve()
    raise ReleaseError(f"{shown}: no TraceEval release here (expected scripts/{SCRIPT} in a checkout of it)")


def _assignment(node: ast.stmt) -> tuple[str | None, ast.expr | None]:
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return node.targets[0].id, node.value
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
        return node.target.id, node.value
    return None, None
