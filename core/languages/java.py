"""Java: the class declaring `public static void main(String[])` starts a program; names are JVM-style
`pkg.Class:method(types)` signatures, asked about per class."""
from core.languages.language import Language

LANGUAGE = Language(
    name="java",
    title="Java",
    suffixes=(".java",),
    order=3,
    entry_point="core.dataset.entry_points:java_main_file",
    entry_missing="no class declares public static void main",
    self_edges_allowed=True,  # the released Java data records recursion; Python and JS do not
    paper_suffix=".java",
    fence_tag="java",
    fence_names=("java",),
    release_example="JAVA_EXAMPLE",
    studio_example="core.llm.prompt_examples:JAVA",
    questions="core.llm.prompt_questions:CLASS_QUESTIONS",
    paper_normalisation="core.scoring.normalise_paper:java",
    studio_normalisation="core.scoring.normalise_studio:java",
    lexer="java",
    grammar="tree_sitter_java:language",
    symbols="core.symbols.java:SYMBOLS",
    imports="core.instances.java_imports:JavaImports",
    dedup_tokens=("string_literal", "text_block", "character_literal"),
    tracer="tracers.java:TRACER",
)
