"""docs/cli-reference.md is the generator's output, and it covers every command and option; the user guide's
command table names every command.

The parsers are walked here independently of the generator, so a command it skipped would be noticed.
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path

from traceeval_gui import app_options as app
from traceeval_gui.cli import main as cli
from traceeval_gui.cli import reference

ROOT = Path(__file__).resolve().parent.parent
DOCUMENT = ROOT / reference.DOCUMENT
GUIDE = ROOT / "docs" / "user-guide.md"
UPDATE = "python -m traceeval_gui.cli.reference --update"
HEADING = reference.HEADING + " "


def subcommands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """`(("audit", "new"), its parser)` for every subcommand, nested ones included."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, subparser in action.choices.items():
                yield path + (name,), subparser
                yield from subcommands(subparser, path + (name,))


COMMANDS = list(subcommands(cli.build_parser()))


def section(text: str, heading: str) -> str:
    """The reference text under `## heading`, up to the next heading."""
    start = text.index(f"{HEADING}{heading}\n")
    end = text.find(f"\n{HEADING}", start + 1)
    return text[start:] if end < 0 else text[start:end]


def argument_cells(text: str) -> list[str]:
    """The first cell of every table row: `-o, --output FILE`."""
    return [re.split(r"(?<!\\)\|", row)[1].strip().strip("`") for row in text.splitlines()
            if row.startswith("| `")]


def test_reference_document_is_current():
    region = reference.extract(DOCUMENT.read_text(encoding="utf-8"))
    assert region is not None, f"{reference.DOCUMENT} lost its reference markers; put them back and run {UPDATE}"
    assert region == reference.block(reference.render()), f"{reference.DOCUMENT} is stale: run {UPDATE}"


def test_update_without_a_file_writes_the_reference_document(tmp_path, monkeypatch, capsys):
    """The documented regeneration command, run from a copy of the repository folder with a stale reference."""
    stale = tmp_path / reference.DOCUMENT
    stale.parent.mkdir()
    stale.write_text(f"# Command reference\n\n{reference.START}\nold\n{reference.END}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert reference.main(UPDATE.split()[3:]) == 0
    assert reference.extract(stale.read_text(encoding="utf-8")) == reference.block(reference.render())
    assert "updated" in capsys.readouterr().err


def test_reference_has_every_command_and_option():
    text = reference.render()
    headings = [line[len(HEADING):] for line in text.splitlines() if line.startswith(HEADING)]
    assert headings[:2] == ["traceeval-gui", "traceeval"]
    assert len(COMMANDS) >= 30  # 20 commands and 11 audit actions when this was written
    parsers = [(("-gui",), app.build_parser()), ((), cli.build_parser()), *COMMANDS]
    for path, parser in parsers:
        heading = "traceeval-gui" if path == ("-gui",) else " ".join(("traceeval", *path))
        assert heading in headings, f"no section for {heading}"
        cells = argument_cells(section(text, heading))
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            for option in action.option_strings:
                assert any(re.search(rf"(^|, ){re.escape(option)}( |,|$)", cell) for cell in cells), \
                    f"{heading}: {option} is not in the reference"
            if not action.option_strings:
                assert any(cell.startswith((action.metavar or action.dest, "{"))
                           for cell in cells), f"{heading}: {action.metavar or action.dest} is not in the reference"
    assert len(headings) == len(parsers)


def test_every_argument_has_a_meaning():
    rows = [row for row in reference.render().splitlines() if row.startswith("| `")]
    blank = [row for row in rows if re.fullmatch(r"\| `.*` \|\s*\|", row)]
    assert rows and not blank


def test_generator_refuses_an_option_without_help(monkeypatch, capsys):
    def parser_with_a_gap():
        parser = argparse.ArgumentParser(prog="traceeval")
        parser.add_argument("--mystery")
        return parser

    monkeypatch.setattr(cli, "build_parser", parser_with_a_gap)
    assert reference.main([]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--mystery" in err and "no help" in err


def test_summary_table_lists_every_command():
    text = GUIDE.read_text(encoding="utf-8")
    summary = text.split("\n## Command line\n", 1)[1].split("\n## ", 1)[0]
    rows = [row for row in summary.splitlines() if row.startswith("| `traceeval ")]
    first_cells = [re.split(r"(?<!\\)\|", row)[1] for row in rows]
    for path, _ in COMMANDS:
        if len(path) == 1:
            assert any(re.match(rf" `traceeval {re.escape(path[0])}[ `]", row[1:]) for row in rows), \
                f"no row for traceeval {path[0]} in the user guide's command table"
        else:
            parent = " ".join(path[:-1])
            assert any(cell.startswith(f" `traceeval {parent}") and re.search(rf"(?<![\w-]){path[-1]}(?![\w-])", cell)
                       for cell in first_cells), f"traceeval {' '.join(path)} is not in the user guide's command table"


def test_module_prints_the_reference_and_imports_no_qt():
    code = ("import sys, runpy; sys.argv = ['reference']; "
            "sys.modules['PySide6'] = None; "  # any Qt import would now fail
            "runpy.run_module('traceeval_gui.cli.reference', run_name='__main__')")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                            check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout == reference.render()


def test_update_replaces_only_the_marked_region(tmp_path, capsys):
    target = tmp_path / "guide.md"
    before = f"# Guide\n\nThe lines {reference.START} and {reference.END} mark the reference.\n\n"
    after = "\n\n## Next\n\nuntouched\n"
    target.write_text(f"{before}{reference.START}\nold text\n\n{reference.END}{after}", encoding="utf-8")
    assert reference.main(["--update", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == before + reference.block(reference.render()) + after
    assert "updated" in capsys.readouterr().err
    assert reference.main(["--update", str(target)]) == 0
    assert "already current" in capsys.readouterr().err


def test_update_without_markers_fails_in_one_line(tmp_path, capsys):
    target = tmp_path / "guide.md"
    text = f"# Guide\n\nmentions {reference.START} and {reference.END} but not as lines\n"
    target.write_text(text, encoding="utf-8")
    assert reference.main(["--update", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("reference: error: ") and err.count("\n") == 1 and str(target) in err
    assert target.read_text(encoding="utf-8") == text
    assert reference.main(["--update", str(tmp_path / "missing.md")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
