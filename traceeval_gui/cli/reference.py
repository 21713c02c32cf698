"""The command-line reference as Markdown, generated from the real parsers so it cannot drift from them.

`python -m traceeval_gui.cli.reference` prints it; `--update` rewrites the text between the
`<!-- cli-reference:start -->` and `<!-- cli-reference:end -->` lines of docs/cli-reference.md (run from the
repository folder), `--update FILE` those of FILE. Usage lines are formatted at a fixed width, so the text is the
same on every terminal and in CI. Only `argparse` is needed: no Qt is imported.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

START = "<!-- cli-reference:start -->"
END = "<!-- cli-reference:end -->"
WIDTH = 100  # usage lines are wrapped as argparse does at this terminal width
HEADING = "##"  # one section per command under docs/cli-reference.md's "# Command reference"
DOCUMENT = Path("docs/cli-reference.md")  # where the reference is kept, relative to the repository folder
_REGION = re.compile(rf"^{re.escape(START)}$.*?^{re.escape(END)}$", re.MULTILINE | re.DOTALL)


def render() -> str:
    """The whole reference: `traceeval-gui`, the `traceeval` common options, then every command in parser order."""
    from traceeval_gui import app_options
    from traceeval_gui.cli import main as cli

    parsers = [(app_options.build_parser(), None), *walk(cli.build_parser())]
    return "\n".join(_section(parser, short_help) for parser, short_help in parsers)


def walk(parser: argparse.ArgumentParser, short_help: str | None = None):
    """`(parser, its help= line)`, then the same for each subcommand, depth first in the order they were added."""
    yield parser, short_help
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            # argparse keeps a subcommand's help= on a pseudo-action, not on its parser
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, subparser in action.choices.items():
                if subparser.prog.rsplit(" ", 1)[-1] == name:  # skip aliases: they map to the same parser
                    yield from walk(subparser, helps.get(name))


def _section(parser: argparse.ArgumentParser, short_help: str | None) -> str:
    lines = [f"{HEADING} {parser.prog}", ""]
    about = parser.description or _sentence(short_help)
    if about:
        lines += [_escape(about), ""]
    lines += ["```text", usage(parser), "```", ""]
    rows = [_row(parser, action) for action in parser._actions if not isinstance(action, argparse._HelpAction)]
    if rows:
        lines += ["| argument | meaning |", "| --- | --- |", *rows, ""]
    return "\n".join(lines)


def usage(parser: argparse.ArgumentParser) -> str:
    """The usage argparse prints, without `usage: `, wrapped at WIDTH as Python 3.11's argparse wraps it (options
    first, positionals on their own lines), except that an option keeps its metavar on its line. Done here because
    argparse 3.13 wraps differently, and the reference must not depend on the Python version."""
    if parser.usage:
        return parser.usage % {"prog": parser.prog}
    optionals = _parts(parser, [action for action in parser._actions if action.option_strings])
    positionals = _parts(parser, [action for action in parser._actions if not action.option_strings])
    if len(" ".join([parser.prog, *optionals, *positionals])) <= WIDTH:
        return " ".join([parser.prog, *optionals, *positionals])
    indent = " " * (len(parser.prog) + 1)
    if not optionals:
        return "\n".join(_fill([parser.prog, *positionals], indent, first=True))
    return "\n".join(_fill([parser.prog, *optionals], indent, first=True) + _fill(positionals, indent))


def _parts(parser: argparse.ArgumentParser, actions: list[argparse.Action]) -> list[str]:
    """The usage of `actions` in pieces that are never split: `[...]` and `(...)` groups, `--opt METAVAR`."""
    formatter = argparse.HelpFormatter(prog=parser.prog, width=10 ** 6)
    formatter.add_usage(None, actions, parser._mutually_exclusive_groups, prefix="")
    text = formatter.format_help().strip()[len(parser.prog):]
    parts, depth = [""], 0
    for char in text:
        if char == " " and depth == 0:
            parts.append("")
            continue
        depth += (char in "[(") - (char in "])")
        parts[-1] += char
    parts = [part for part in parts if part]
    for i in range(len(parts) - 1, 0, -1):  # a required option and its argument: `--model MODEL`
        if parts[i - 1].startswith("-") and not parts[i].startswith(("-", "[", "(")):
            parts[i - 1:i + 1] = [f"{parts[i - 1]} {parts[i]}"]
    return parts


def _fill(parts: list[str], indent: str, first: bool = False) -> list[str]:
    """argparse's greedy line filling: every line but a `first` one starts with `indent`."""
    lines: list[list[str]] = [[]]
    length = -1 if first else len(indent) - 1
    for part in parts:
        if lines[-1] and length + 1 + len(part) > WIDTH:
            lines.append([])
            length = len(indent) - 1
        lines[-1].append(part)
        length += len(part) + 1
    text = [indent + " ".join(line) for line in lines if line]
    if first:
        text[0] = text[0][len(indent):]
    return text


def _row(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    formatter = argparse.HelpFormatter(prog=parser.prog, width=WIDTH)
    if isinstance(action, argparse._SubParsersAction):
        names = ", ".join(f"`{name}`" for name in action.choices)
        return f"| `{action.metavar or action.dest.upper()}` | {_cell('one of ' + names + ' (each below)')} |"
    if action.option_strings:
        argument = ", ".join(action.option_strings)
        if action.nargs != 0:
            argument += " " + formatter._format_args(action, action.dest.upper())
    else:
        argument = formatter._format_action_invocation(action)
    help_text = formatter._expand_help(action) if action.help else ""
    if not help_text:
        raise ValueError(f"{parser.prog} {argument}: no help text (add help= to the parser)")
    notes = []
    if action.required and action.option_strings:
        notes.append("required")
    for group in parser._mutually_exclusive_groups:
        if group.required and action in group._group_actions:
            notes.append("required: one of " + ", ".join(_name(member) for member in group._group_actions))
    if action.choices is not None and action.metavar is not None:  # the metavar hides them
        notes.append("one of " + ", ".join(f"`{choice}`" for choice in action.choices))
    if _shows_default(action) and "default" not in help_text.lower():
        notes.append(f"default: `{action.default}`")
    meaning = _escape(help_text) + "".join(f"; {note}" for note in notes)
    return f"| `{_cell(argument)}` | {_cell(meaning)} |"


def _name(action: argparse.Action) -> str:
    return f"`{action.option_strings[-1] if action.option_strings else action.metavar or action.dest}`"


def _sentence(text: str | None) -> str | None:
    """A subcommand's short help as a description: capitalised, with a full stop."""
    if not text:
        return text
    return text[0].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


def _shows_default(action: argparse.Action) -> bool:
    default = action.default
    return default is not None and default is not argparse.SUPPRESS and default is not False \
        and default not in ([], "")


def _escape(text: str) -> str:
    """Markdown text from plain text: `<language>` must not read as an HTML tag, `*` or a `_` at a word's edge
    (`<model>_<language>`) not as emphasis."""
    text = " ".join(text.split()).replace("<", "\\<").replace("*", "\\*")
    return re.sub(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])", r"\\_", text)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def block(markdown: str) -> str:
    """The marked region as it stands in DOCUMENT: both markers and the reference between them."""
    return f"{START}\n\n{markdown}\n{END}"


def extract(text: str) -> str | None:
    """The marked region of `text`, from the start marker line to the end marker line, or None without both."""
    found = _REGION.search(text)
    return found.group(0) if found else None


def update(path: Path, markdown: str) -> bool:
    """Replace the marked region of `path` with `block(markdown)`; True if the file changed.
    LookupError when the file lacks the marker lines."""
    text = path.read_text(encoding="utf-8")
    found = _REGION.search(text)
    if found is None:
        raise LookupError(f"{path}: no '{START}' and '{END}' lines to put the reference between")
    new = text[:found.start()] + block(markdown) + text[found.end():]
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m traceeval_gui.cli.reference",
                                     description="Print the command-line reference as Markdown.")
    parser.add_argument("--update", metavar="FILE", nargs="?", const=str(DOCUMENT),
                        help=f"replace the text between {START} and {END} in FILE (default: {DOCUMENT})")
    args = parser.parse_args(argv)
    try:
        markdown = render()
    except ValueError as error:
        print(f"reference: error: {error}", file=sys.stderr)
        return 2
    if not args.update:
        sys.stdout.write(markdown)
        return 0
    try:
        changed = update(Path(args.update), markdown)
    except (OSError, UnicodeDecodeError, LookupError) as error:
        print(f"reference: error: {error}", file=sys.stderr)
        return 2
    print(f"{args.update}: {'updated' if changed else 'already current'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
