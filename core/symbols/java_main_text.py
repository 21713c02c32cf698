"""Java's entry file read off the text in the plain common case, without parsing (indexing parsed one file per Java
program for it: about a quarter of the time of indexing 10k programs).

`plain_main_file(sources)` is the file `java_main_file` gives (the file of the first `main(java.lang.String[])`
method, a `Main.java` first), or None when the text alone cannot settle it; then the parser decides
(`core.symbols.java_main`). It settles only a compiled program's usual form:

    package app;
    public class Main {
        public static void main(String[] args) { ... }

that is, a `void main(String[] name)` or `main(String... name)` with only modifier keywords before it and a body
after it, the first thing after a `{`, `}` or `;` directly inside the body of a top-level `class` whose header is
only modifiers, annotations without arguments, the name, `extends` and `implements` (so no type variable can be
called `String`), in a file whose comments and literals end where they start (no text block, Unicode escape, lone
carriage return or control character) and whose brackets are as many opened as closed; `String` is java.lang's
(no file the parser would read for it, those that say `main`, has `String` where a type's declaration could name
it); and every file ordered before the answer does not say `main` at all.

A file with syntax errors is the one difference: the text cannot tell, and tree-sitter's error recovery may lose
a method far from the error, so the text may name the file of a `main` the parser's reading of a broken program
misses. tests/test_java_entry_points.py compares the two on the corpus, the demo, synthetic and hostile programs,
and on randomly damaged programs that still parse.
"""
from __future__ import annotations

import re
from collections.abc import Mapping

# `main` where the identifier tokens of the grammar could make it a whole identifier: no ASCII identifier character
# before (a digit may end a number literal) or after; any other neighbour is let through, to err on the safe side
MAIN_WORD = re.compile(r"(?<![A-Za-z_$])main(?![A-Za-z0-9_$])")
# comments and literals as tree-sitter's Java lexer reads them; an unterminated one is the bare quote or `/*`
# (text blocks, Unicode escapes, a lone carriage return and control characters, which `\s` may take for spaces,
# are left to the parser)
_LEXEMES = re.compile(r"""//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|["']|/\*""", re.DOTALL)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_LONE_CR = re.compile(r"\r(?!\n)")
_IDENTIFIER = r"[A-Za-z_$][A-Za-z0-9_$]*"
_MAIN_DECLARATION = re.compile(
    r"(?:(?:public|protected|private|static|final|synchronized|strictfp)\s+)*void\s+main\s*\(\s*(?:final\s+)?"
    rf"String\s*(?:\[\s*\]|\.\.\.)\s*{_IDENTIFIER}\s*\)\s*(?:throws\s+[\w$.]+(?:\s*,\s*[\w$.]+)*\s*)?\{{")
_CLASS_HEADER = re.compile(
    rf"\s*(?:@[\w$.]+\s+)*(?:(?:public|abstract|final|strictfp)\s+)*class\s+{_IDENTIFIER}"
    r"(?:\s+(?:extends|implements)\s+[\w$.]+(?:\s*,\s*[\w$.]+)*)*\s*")
_WORD_END = r"(?![A-Za-z0-9_$])"
# `String` followed by what cannot continue a type's use (`String[]`, `String.format`, `(String)`, `String s`, ...):
# the start of a declaration of an own `String`, or something to look at closer (a pattern starting with the
# word itself is searched many times faster than one starting with a look-behind)
_STRING_NOT_IN_USE = re.compile(rf"String{_WORD_END}(?!\s*(?:\[|\.|\)|,|>|::|"
                                rf"(?!(?:extends|implements|permits){_WORD_END})[A-Za-z_$]))")
# a type declared as `String` (also after a longer word such as `subclass`: more cautious, and faster to search)
_STRING_DECLARED = tuple(re.compile(rf"{keyword}\s+String{_WORD_END}")
                         for keyword in ("class", "interface", "enum", "record"))
_NEW = re.compile(r"(?<![A-Za-z0-9_$])new\s*$")  # `new String(...)`
_QUALIFIED = re.compile(r"\.\s*$")  # `import java.lang.String;`
_BRACKETS = re.compile(r"[][(){}]")
_PAIRS = {")": "(", "]": "[", "}": "{"}


def plain_main_file(sources: Mapping[str, str]) -> str | None:
    """The entry file (relative path, "" for none), or None when the parser must decide."""
    candidates = {path: text for path, text in sources.items() if "main" in text and path.endswith(".java")}
    if not candidates:
        return ""
    code = {path: _code(text) for path, text in candidates.items()}
    if any(text is None or not _string_is_java_lang(text) for text in code.values()):
        return None
    for path in sorted(candidates, key=lambda path: (path.rsplit("/", 1)[-1] != "Main.java", path)):
        if not MAIN_WORD.search(candidates[path]):
            continue  # no `main` the parser could see: not looked at there either
        return path if _declares_plain_main(code[path] or "") else None
    return ""


def _declares_plain_main(code: str) -> bool:
    if any(code.count(opening) != code.count(closing) for opening, closing in ("()", "[]", "{}")):
        return False
    for found in _MAIN_DECLARATION.finditer(code):
        start = found.start()
        before = code[:start].rstrip()
        if not before or before[-1] not in "{};":
            continue
        body = _top_level_body(code, start)
        if body < 0:
            continue
        header_start = max(code.rfind(";", 0, body), code.rfind("}", 0, body)) + 1
        if _CLASS_HEADER.fullmatch(code, header_start, body):
            return True
    return False


def _code(text: str) -> str | None:
    """`text` with comments blanked and literals reduced to `0`, or None when that is not plain to do."""
    if '"""' in text or "\\u" in text or _CONTROL.search(text) or ("\r" in text and _LONE_CR.search(text)):
        return None
    pieces, kept, at = [], 0, 0
    while True:  # from one `/`, `"` or `'` to the next (found by str.find, many times faster than by the pattern)
        starts = [start for start in (text.find("/", at), text.find('"', at), text.find("'", at)) if start >= 0]
        if not starts:
            break
        at = min(starts)
        lexeme = _LEXEMES.match(text, at)
        if lexeme is None:  # a division
            at += 1
            continue
        token = lexeme.group()
        if token in ('"', "'", "/*"):
            return None  # unterminated
        pieces += [text[kept:at], " " if token[0] == "/" else " 0 "]
        kept = at = lexeme.end()
    pieces.append(text[kept:])
    code = "".join(pieces)
    return code if code.isascii() else None


def _top_level_body(code: str, end: int) -> int:
    """Where the `{` opens that is the only bracket open at `end` (a top-level body), else -1 (also when the
    brackets before `end` do not match)."""
    stack: list[int] = []
    for bracket in _BRACKETS.finditer(code, 0, end):
        char = bracket.group()
        if char in "([{":
            stack.append(bracket.start())
        elif not stack or code[stack.pop()] != _PAIRS[char]:
            return -1
    return stack[0] if len(stack) == 1 and code[stack[0]] == "{" else -1


def _string_is_java_lang(code: str) -> bool:
    """Whether no `String` in `code` can be the name of a type being declared (a class, interface, enum, record or
    annotation type; a type variable outside the main's class header does not matter)."""
    if any(declared.search(code) for declared in _STRING_DECLARED):
        return False
    for found in _STRING_NOT_IN_USE.finditer(code):
        if found.start() > 0 and (code[found.start() - 1].isalnum() or code[found.start() - 1] in "_$"):
            continue  # part of a longer word
        follows = code[found.end():].lstrip()[:1]
        before = (code, max(0, found.start() - 20), found.start())
        if not ((follows == "(" and _NEW.search(*before)) or (follows == ";" and _QUALIFIED.search(*before))):
            return False
    return True
