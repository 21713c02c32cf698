"""An absurd model answer in the window (issue #18, item 4): one answer naming 10^6 callees, imported with the real
`traceeval import-results`, opened in the real main window and selected as a user would. The graph, the edge
table, the compare list, the source view's marks and the answer's text hold a bounded part and say how much
they leave out; every score the window shows counts all 10^6 edges, the same numbers as `traceeval score`."""
import json
import time

import pytest

pytest.importorskip("PySide6", exc_type=ImportError)  # not installed, or blocked in the headless run

import itertools

from PySide6.QtCore import Qt

from core.dataset.indexing import open_dataset
from core.report.overlay import SHOWN_EDGE_LIMIT
from core.report.shown_response import SHOWN_CHARS, SHOWN_LINE_CHARS
from resources import DEMO_DATASET
from tests.cli_run import run
from tests.llm_server import answer_text

OPEN_TIMEOUT_MS = 120_000
SCORE_TIMEOUT_MS = 120_000
KEY, OTHER = "python/calcpad_0001", "python/ledgerlite_0001"
HUGE, STRONG = "huge", "illustrative-strong"
WRONG = 10 ** 6  # callees the truth does not have, all on the first key
SUMMARY_END = "not shown; scores count them all"


@pytest.fixture
def huge_workspace(tmp_path, capsys):
    """The demo workspace with model `huge`: the truth of KEY plus 10^6 made-up callees of its first function;
    and what `traceeval score` says of it."""
    path = tmp_path / "demo.sqlite"
    ws, _ = open_dataset(DEMO_DATASET, path)
    with ws:
        instance = ws.instance(KEY)
    lines = answer_text(instance.ground_truth).split("\n")
    lines[0] += ", " + ", ".join(f"main.made_up_{i}" for i in range(WRONG))
    results = tmp_path / "huge.jsonl"
    results.write_text(json.dumps({"instance_id": instance.id, "model": HUGE, "raw_response": "\n".join(lines)}))
    code, _, err = run(capsys, "import-results", DEMO_DATASET, results, "--workspace", path)
    assert code == 0, err
    code, out, err = run(capsys, "score", DEMO_DATASET, "--workspace", path, "--models", HUGE,
                         "--languages", "python", "--format", "json")
    assert code == 0, err
    scored = json.loads(out)["rows"][0]["languages"]["python"]
    assert scored["programs"] == 1 and scored["fp"] == WRONG  # only KEY is answered: its numbers are these
    return path, scored, len(instance.ground_truth.keys)



def _choose(combo, data) -> None:
    combo.setCurrentIndex(combo.findData(data))
    assert combo.currentData() == data


def _assert_bounded(window, keys: int) -> None:
    graph, edges, compare = window.graph_panel, window.edge_panel, window.compare_panel
    tab = window.bottom_tabs.currentWidget()
    window.show_tab("compare")  # a tab behind another is filled when it is shown
    window.bottom_tabs.setCurrentWidget(tab)
    summary = window.state.detail().overlay.shown().summary()
    assert len(graph.drawn_edges()) <= len(graph.edge_classes()) <= SHOWN_EDGE_LIMIT
    assert len(graph.nodes_item.data) == len(graph.picture.layout.nodes) <= SHOWN_EDGE_LIMIT + keys + 1
    assert edges.model.rowCount() <= SHOWN_EDGE_LIMIT and compare.edge_model.rowCount() <= SHOWN_EDGE_LIMIT
    for label in (graph.omitted, edges.omitted, compare.omitted):
        assert not label.isHidden() and summary in label.text() and summary.endswith(SUMMARY_END)


def _chips_readable(chips) -> bool:
    """Every class chip is as wide as its count in bold, and none overlaps the next."""
    boxes = sorted((chip.geometry() for chip in chips.values()), key=lambda box: box.x())
    return all(chip.width() >= chip.minimumWidth() > 0 for chip in chips.values()) and \
        all(box.right() < after.left() for box, after in itertools.pairwise(boxes))


def test_a_million_callees_are_shown_in_part_and_scored_in_full(window, huge_workspace, qtbot, tmp_path, capsys):
    window, state = window
    path, scored, keys = huge_workspace
    with qtbot.waitSignal(state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        window.open_dataset(DEMO_DATASET, workspace=path)
    assert window.browser.select_key(OTHER)
    _choose(window.model_combo, HUGE)
    _choose(window.compare_combo, STRONG)
    started = time.perf_counter()
    assert window.browser.select_key(KEY)  # the click on the program list
    qtbot.waitUntil(lambda: window.graph_panel.picture is not None and state.instance_key == KEY)
    print(f"selecting the program with {WRONG:,} callees took {time.perf_counter() - started:.1f} s")
    graph, edges, compare = window.graph_panel, window.edge_panel, window.compare_panel

    # every view holds a bounded part, in every view mode, and says what it leaves out
    for mode in ("model", "compare", "trace", "truth", "model"):
        started = time.perf_counter()
        _choose(graph.mode_combo, mode)
        print(f"view mode {mode}: {time.perf_counter() - started:.2f} s")
        _assert_bounded(window, keys)
    assert graph.mode == "model" and graph.picture.omitted_edges >= WRONG - SHOWN_EDGE_LIMIT
    truth = {(e.caller, e.callee) for e in state.detail().overlay.edges if e.truth}
    assert len(graph.picture.layout.nodes) < 100  # it opens on the selection's neighbourhood, the rest folded
    qtbot.mouseClick(graph.show_all_button, Qt.MouseButton.LeftButton)
    assert truth <= set(graph.drawn_edges())  # the truth's edges are never the ones left out
    _assert_bounded(window, keys)
    assert graph.class_buttons["FP"].text().endswith(f" {WRONG:,}")  # the chips count every edge

    # every score shown counts all 10^6 edges: the same numbers as `traceeval score`
    tp, fp, fn = scored["tp"], scored["fp"], scored["fn"]
    assert (tp, fp, fn) == (len(truth), WRONG, 0)
    assert state.detail().diff.counts.fp == WRONG
    assert [edges.class_buttons[k].text() for k in ("TP", "FP", "FN")] == [f"TP {tp:,}", f"FP {fp:,}", f"FN {fn:,}"]
    assert f"P {scored['precision']:.1%} · R {scored['recall']:.1%} · <b>F1 {scored['f1']:.1%}" in edges.summary.text()
    browser = window.browser.model
    assert browser.f1_at(browser.row_of(KEY), HUGE) == pytest.approx(scored["f1"], rel=1e-12)
    assert f"A {scored['f1']:.1%}</b>" in compare.instance_header.text()
    assert compare.class_buttons["only_b_right"].text().endswith(f"{WRONG:,}")  # STRONG is right not to call them
    metrics = window.metrics_panel
    qtbot.waitUntil(lambda: any(s.model == HUGE and s.counts is not None for s in metrics.program),
                    timeout=SCORE_TIMEOUT_MS)
    program = next(s for s in metrics.program if s.model == HUGE)
    assert (program.counts.tp, program.counts.fp, program.counts.fn) == (tp, fp, fn)
    assert (program.scores.precision, program.scores.recall, program.scores.f1) == pytest.approx(
        (scored["precision"], scored["recall"], scored["f1"]), rel=1e-12)

    # the source view marks the shown part (the caller's definition line counts what is marked) and says the rest
    source = window.source_view
    assert source.notice.isVisible() and summary_of(state) in source.notice.text()
    marked = sum(count for view in map(source.file_view, state.detail().sources) if view is not None
                 for mark in view.marks.values() for _, count in mark.counts)
    assert 0 < marked <= SHOWN_EDGE_LIMIT

    # the answer shows the response in part, with a line saying what is left out; its problems are bounded too
    answer = window.answer_panel
    window.show_tab("answer")
    raw = state.detail().prediction.raw_response
    shown = answer.text_view.toPlainText()
    assert len(shown) <= SHOWN_CHARS and len(answer.text_view.lines[0].text) <= SHOWN_LINE_CHARS < len(raw)
    first = shown.split("\n")[0]
    assert raw.startswith(first + ",")  # the first line is cut after a whole callee, not mid-name
    note = answer.response_note
    assert note.isVisible() and f"({len(raw):,} characters)" in note.text() and "1 line cut short" in note.text()
    assert f"{len(raw) - len(shown):,} more characters not shown; scores read all of it" in note.text()
    assert len(answer.problems_label.toolTip()) < 20_000
    assert answer.question_model.rowCount() == keys

    # switching the view mode does not redraw the answer (nothing of it depends on the mode)
    answer.text_view.focus_line(2)
    for mode in ("truth", "model"):
        _choose(graph.mode_combo, mode)
    assert answer.text_view.focused_line == 2

    # what a user sees (look at these): the summary lines are on screen, the counts are not elided
    for tab, chips in (("edges", edges.class_buttons), ("compare", compare.class_buttons)):
        window.show_tab(tab)
        qtbot.waitUntil(lambda: _chips_readable(chips))  # noqa: B023 - waited on here; once the tab is laid out
        assert window.grab().save(str(tmp_path / f"huge_answer_{tab}.png"))
    window.show_tab("answer")
    assert window.grab().save(str(tmp_path / "huge_answer_answer.png"))


def summary_of(state) -> str:
    return state.detail().overlay.shown().summary()
