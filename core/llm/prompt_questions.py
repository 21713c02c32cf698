"""How a prompt asks about each ground-truth key, in the benchmark's two styles (`Language.questions`
names one): module questions (Python, JavaScript: a key is a function in a file, or the file's module
itself) and class questions (Java: a key is a method of a class). Each style asks as the release does
(`paper`) and as the studio rule set does (`studio`); the questions come unnumbered, in key order."""
from __future__ import annotations

from collections.abc import Sequence

from core.languages import Language


class ModuleQuestions:
    def paper(self, language: Language, keys: Sequence[str], map_files: Sequence[str]) -> list[str]:
        """`map_files` in walk order, listing order within a folder (the first module name that is a plain
        prefix of a key picks its file)."""
        file_map: dict[str, str] = {}
        for path in map_files:
            file_map[paper_module_name(path)] = path
        init = language.init_module or "__init__"
        default = file_map.get("main", next(iter(file_map.values()), "main.py"))
        asked = []
        for key in keys:
            path = file_map.get(key) or next((p for module, p in file_map.items() if key.startswith(module)), None) \
                or file_map.get(f"{key}.{init}") or default
            module = paper_module_name(path)
            if key == module or f"{key}.{init}" == module:
                asked.append(f'What are the module-level function calls in the file "{path}"?')
            else:
                asked.append(f'What are the function calls inside the "{key}" function in the file "{path}"?')
        return asked

    def studio(self, language: Language, keys: Sequence[str], files: Sequence[str]) -> list[str]:
        """The longest dotted module prefix of a key names its file (module names from the symbol extractor)."""
        module_name = language.part("symbols").module_name  # tree-sitter: imported only here
        modules = sorted(((module_name(path), path) for path in files), key=lambda pair: -len(pair[0]))
        out = []
        for key in keys:
            module, path = _module_of(key, modules, files)
            if key == module:
                out.append(f'What are the module-level function calls in the file "{path}"?')
            else:
                out.append(f'What are the function calls inside the "{key}" function in the file "{path}"?')
        return out


class ClassQuestions:
    def paper(self, language: Language, keys: Sequence[str], map_files: Sequence[str]) -> list[str]:
        """Only the keys holding a ':', naming the whole owner."""
        return [f"What are the target functions invoked by {key} in the {key.split(':')[0]} class?"
                for key in keys if ":" in key]

    def studio(self, language: Language, keys: Sequence[str], files: Sequence[str]) -> list[str]:
        """One question per key, naming the simple class."""
        return [f"What are the target functions invoked by {key} in the {java_class(key)} class?" for key in keys]


MODULE_QUESTIONS = ModuleQuestions()
CLASS_QUESTIONS = ClassQuestions()


def paper_module_name(path: str) -> str:
    """`pkg/mod.py` -> `pkg.mod`, `a.b/c.py` -> `a.b.c`: separators become dots, the last suffix goes."""
    return path.replace("\\", ".").replace("/", ".").rsplit(".", 1)[0]


def java_class(key: str) -> str:
    """`pkg.Outer.Inner:m(int)` -> `Inner`: the simple name of the declaring class."""
    owner = key.split(":", 1)[0]
    return owner.rsplit(".", 1)[-1].split("$")[-1]


def _module_of(key: str, modules: Sequence[tuple[str, str]], files: Sequence[str]) -> tuple[str, str]:
    """The (module, file) whose module name is the longest prefix of `key` at a dot."""
    for module, path in modules:
        if key == module or key.startswith(module + "."):
            return module, path
    return "", (files[0] if files else "")
