"""JavaScript (Node): `main.js` (or `.mjs`, `.cjs`) starts a program; names are dotted module paths."""
from core.languages.language import Language

LANGUAGE = Language(
    name="javascript",
    title="JavaScript",
    suffixes=(".js", ".mjs", ".cjs"),
    order=2,
    aliases=("js", "node"),
    entry_files=("main.js", "main.mjs", "main.cjs"),
    entry_missing="main.js not found and more than one .js file",
    paper_suffix=".js",
    init_module="index",
    fence_tag="javascript",
    fence_names=("javascript", "js", "node", "mjs", "cjs"),
    release_example="JS_EXAMPLE",
    studio_example="core.llm.prompt_examples:JAVASCRIPT",
    paper_normalisation="core.scoring.normalise_paper:javascript",
    studio_normalisation="core.scoring.normalise_studio:javascript",
    lexer="javascript",
    grammar="tree_sitter_javascript:language",
    symbols="core.symbols.javascript:SYMBOLS",
    imports="core.instances.javascript_imports:JavaScriptImports",
    data_suffixes=(".json",),  # what `require` loads besides code
    dedup_tokens=("string", "template_string"),
    tracer="tracers.javascript:TRACER",
)
