"""Python: `main.py` starts a program; names are dotted module paths plus `co_qualname`."""
from core.languages.language import Language

LANGUAGE = Language(
    name="python",
    title="Python",
    suffixes=(".py",),
    order=1,
    aliases=("py",),
    entry_files=("main.py",),
    entry_missing="main.py not found",
    paper_suffix=".py",
    init_module="__init__",
    fence_tag="python",
    fence_names=("python", "py", "python3"),
    release_example="PYTHON_EXAMPLE",
    studio_example="core.llm.prompt_examples:PYTHON",
    paper_normalisation="core.scoring.normalise_paper:python",
    studio_normalisation="core.scoring.normalise_studio:python",
    lexer="python",
    grammar="tree_sitter_python:language",
    symbols="core.symbols.python:SYMBOLS",
    imports="core.instances.python_imports:PythonImports",
    dedup_tokens=("string",),
    tracer="tracers.python:TRACER",
)
