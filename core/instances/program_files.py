"""The files a target needs, laid out as the finished program will have them.

`repository_sources` reads a repository's source files once. `gather_files` (or a
`FileGatherer`, which keeps each file's import resolution for the next start file) follows the
start file's imports inside the repository and maps each needed file to its program path:
- Python: `import a.b`, `from a.b import c` (c may be a module), relative imports, and the
  `__init__.py` of every package on the way. A file's source root is the folder above its
  top-most package; absolute imports are looked up there, then at the repository root, then in
  `src/`. A file's program path is its path below the root it was found under
  (`src/textstats/counts.py` -> `textstats/counts.py`). An import that is neither the
  repository's nor in `sys.stdlib_module_names` is THIRD_PARTY, unless it is optional: inside
  a `try:` whose handler catches ImportError, ModuleNotFoundError, Exception or everything, or
  under `if TYPE_CHECKING:`. An optional import of a repository module is still followed.
- JavaScript: `require('./x')`, `import ... from './x'`, `export ... from './x'` and
  `import('./x')` with a literal, tried as `x`, `x.js`, `x.mjs`, `x.cjs`, `x.json`,
  `x/index.js`; required `.json` files are part of the program. Node core modules are fine;
  any other bare specifier is THIRD_PARTY (unless the call is inside a `try` block, like an
  optional Python import). Program paths are relative to the deepest folder holding every
  gathered file; when the start file's nearest package.json says `"type": "module"`, it is
  added as the program's `package.json`.
- Java: the files declaring every type the start file refers to (same package, single-type,
  on-demand and static imports, fully qualified names), transitively. A JDK import is fine;
  an import of a package the repository does not declare is THIRD_PARTY. Program path =
  `<package folders>/<File>.java`.
A file that does not parse, an import of a repository module that is not there, two files
with one program path, or more than `max_files` files: EXTRACTION_FAILED.
Each language's resolver is a module of its own (`python_imports`, `javascript_imports`,
`java_imports`, sharing `import_resolution`).
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from core.instances.import_resolution import Dependency, Imports, Problem
from core.instances.records import EXTRACTION_FAILED
from core.languages import get
from core.safe_files import read_text
from core.symbols.parsing import Source

DEFAULT_MAX_FILES = 20
MAX_SOURCE_BYTES = 200_000
SKIPPED_DIRS = frozenset({"node_modules", "vendor", "third_party", "build", "dist", "target", "out", "venv", "env",
                          "__pycache__", "site-packages"})
TEST_DIRS = frozenset({"test", "tests", "__tests__", "spec"})
# require('module').builtinModules of Node 20 (`node:`-prefixed specifiers are always core modules)


@dataclass(frozen=True)
class FileSet:
    """A target's files: program path -> repository path (start file first), or why there are none."""

    files: dict[str, str] = field(default_factory=dict)
    reason: str = ""  # "" when fine, else EXTRACTION_FAILED | THIRD_PARTY
    detail: str = ""  # one line naming the file and the problem

    @property
    def ok(self) -> bool:
        return not self.reason


# -- reading a repository ------------------------------------------------------------------


def repository_sources(repo: Path, language: str) -> dict[str, str]:
    """Repository-relative '/'-separated path -> text of every source file of `language`, by path.

    For JavaScript, `.json` files are read too (a program may `require` them as data).
    Skipped: hidden folders, dependency/build/virtualenv folders (SKIPPED_DIRS), test folders
    (TEST_DIRS, which covers `src/test`), test files (`test_*.py`, `*_test.py`, `conftest.py`,
    `*.test.js`, `*.spec.js` and their .mjs/.cjs spellings, `*Test.java`, `*Tests.java`), files
    over 200 kB, files that are not UTF-8, symlinks to files outside the repository, and
    symlinked folders (their targets inside the repository are read where they are).
    """
    root = repo.resolve()
    described = get(language)
    suffixes = described.suffixes + described.data_suffixes
    is_test_file = imports_of(language).is_test_file
    found: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(name for name in dirnames if _walkable_dir(name))
        folder = Path(dirpath)
        for name in filenames:
            if name.endswith(suffixes) and not is_test_file(name):
                text = _read_source(folder / name, root)
                if text is not None:
                    found[(folder / name).relative_to(root).as_posix()] = text
    return dict(sorted(found.items()))


def _walkable_dir(name: str) -> bool:
    return not name.startswith(".") and name not in SKIPPED_DIRS and name not in TEST_DIRS


def _read_source(path: Path, root: Path) -> str | None:
    """The text of a source file of the repository; None for one it cannot give (a link out of `root`, not a
    regular file, too large, not UTF-8)."""
    try:
        return read_text(path, MAX_SOURCE_BYTES, root)
    except OSError:
        return None


# -- gathering -----------------------------------------------------------------------------


def gather_files(sources: Mapping[str, str], language: str, start_file: str,
                 max_files: int = DEFAULT_MAX_FILES) -> FileSet:
    """The files `start_file` needs (see the module docstring), or why they cannot be gathered."""
    return FileGatherer(sources, language).gather(start_file, max_files)


class FileGatherer:
    """Gathers file sets of many start files of one repository; each file's imports are resolved once.

    `parsed` may hold trees already parsed (Java: path -> Source) so no file is parsed twice.
    """

    def __init__(self, sources: Mapping[str, str], language: str,
                 parsed: Mapping[str, Source] | None = None) -> None:
        self.sources = sources
        self.language = language
        self._imports: Imports = imports_of(language)(sources, parsed or {})
        self._dependencies: dict[str, list[Dependency] | Problem] = {}
        self._closures: dict[str, list[Dependency] | Problem] = {}

    def gather(self, start_file: str, max_files: int = DEFAULT_MAX_FILES) -> FileSet:
        if start_file not in self.sources:
            return FileSet({}, EXTRACTION_FAILED, f"{start_file} is not a readable source file of the repository")
        closure = self.closure(start_file)
        if isinstance(closure, Problem):
            return FileSet({}, closure.reason, closure.detail)
        if len(closure) > max_files:
            return FileSet({}, EXTRACTION_FAILED,
                           f"{start_file} needs {len(closure)} files, more than --max-files {max_files}")
        laid_out = self._imports.layout(closure)
        if isinstance(laid_out, Problem):
            return FileSet({}, laid_out.reason, laid_out.detail)
        return FileSet(laid_out)

    def closure(self, start_file: str) -> list[Dependency] | Problem:
        """Every file the start file needs, itself first, in discovery (breadth-first) order."""
        if start_file not in self._closures:
            self._closures[start_file] = self._walk(start_file)
        return self._closures[start_file]

    def _walk(self, start_file: str) -> list[Dependency] | Problem:
        first = Dependency(start_file, self._imports.own_root(start_file))
        seen = {start_file: first}
        queue = [first]
        for current in queue:  # grows while iterating: breadth-first
            found = self.dependencies(current.path)
            if isinstance(found, Problem):
                return found
            for dependency in found:
                if dependency.path not in seen:
                    seen[dependency.path] = dependency
                    queue.append(dependency)
        return queue

    def dependencies(self, path: str) -> list[Dependency] | Problem:
        if path not in self._dependencies:
            self._dependencies[path] = self._imports.dependencies(path)
        return self._dependencies[path]


def imports_of(language: str) -> type[Imports]:
    """The language's import resolver and program layout rules (`Language.imports`)."""
    imports: type[Imports] = get(language).part("imports")
    return imports


# -- the harness's place -------------------------------------------------------------------


def harness_path(language: str, target_file: str, sources_by_program_path: Mapping[str, str]) -> str:
    """Where the program's entry file goes: `main.py` / `main.js` at the program root, or
    `<package folders>/Main.java` in the target file's package (so it can use package-private code)."""
    return imports_of(language).harness_path(target_file, sources_by_program_path)


def entry_clash(language: str, files: Mapping[str, str], harness_path: str) -> str:
    """"" when the harness can be the program's entry point, else one line saying what is in the way
    (ENTRY_NAME_TAKEN): a gathered file already has its path; Java: a gathered `Main.java` declares
    `main`, or a file of the default package does while the harness is there too."""
    if harness_path in files:
        return f"the program already has {harness_path}"
    return imports_of(language).entry_clash(files, harness_path)
