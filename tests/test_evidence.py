"""The evidence packet: one instance as self-contained HTML (on the demo dataset)."""
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

from core.dataset.indexing import open_dataset
from core.errors import UsageError
from core.report.evidence import build_evidence, load_instance
from core.report.overlay import classify_edges
from core.scoring.metrics import instance_scores
from core.scoring.normalise import MODES
from core.scoring.scores import instance_diff
from resources import DEMO_DATASET
from tracers import trace_instance

KNOWN = "python/calcpad_0001"
MULTI_FILE = "javascript/eventide_0001"
A, B = "illustrative-strong", "illustrative-weak"
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
SVG_NS = "{http://www.w3.org/2000/svg}"


class Document(HTMLParser):
    """Checks that every element is closed in order and collects what the tests look at."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors = [], []
        self.elements: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:]}")
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)

    def find(self, tag=None, **attrs):
        return [a for t, a in self.elements if (tag is None or t == tag)
                and all(a.get(k.replace("_", "-")) == v for k, v in attrs.items())]


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    ws, _ = open_dataset(DEMO_DATASET, tmp_path_factory.mktemp("evidence") / "w.sqlite")
    yield ws
    ws.close()


def parse(text: str) -> Document:
    document = Document()
    document.feed(text)
    document.close()
    assert document.errors == [] and document.stack == [], (document.errors[:3], document.stack)
    return document


def test_the_packet_is_well_formed_and_has_every_source_file_line_by_line(ws):
    text = build_evidence(ws, MULTI_FILE, [A, B], mode="compare")
    document = parse(text)
    assert text.startswith("<!DOCTYPE html>")
    instance = ws.instance(MULTI_FILE)
    assert len(instance.files) == 4
    for path in instance.files:
        assert document.find("h3", data_file=path), path
        lines = instance.read_source(path).count("\n")
        rows = [a for t, a in document.elements if t == "tr" and a.get("id", "").startswith(
            "file-" + re.sub(r"[^0-9A-Za-z]", "-", path) + "-L")]
        assert len(rows) == lines, path
    # the code itself is there, highlighted with inline styles (no style classes to resolve)
    assert "EventBus" in "".join(document.text)
    assert 'style="color: #008000; font-weight: bold">class</span>' in text


def test_the_graph_is_inline_svg_that_parses(ws):
    text = build_evidence(ws, KNOWN, [A], mode="model")
    svg = re.search(r"<svg\b.*?</svg>", text, re.S).group(0)
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG_NS}svg"
    assert "<?xml" not in text  # an element inside HTML, not a document
    labels = {"".join(t.itertext()) for t in root.iter(f"{SVG_NS}text")}
    assert any(label.startswith("found (") for label in labels)


def test_callers_with_missed_and_hallucinated_edges_are_marked_on_their_definition_line(ws):
    text = build_evidence(ws, KNOWN, [B], mode="model")
    document = parse(text)
    loaded = load_instance(ws, KNOWN, [B], MODES)
    classes = classify_edges(loaded.overlay, "model", B)
    worst: dict[str, str] = {}
    for (caller, _), kind in classes.items():
        if kind in ("FN", "FP"):
            node = loaded.place(caller)
            if node is not None and node.kind != "module":
                line_id = f"file-main-py-L{node.start_line}"
                order = ("FN", "FP", "TP")
                worst[line_id] = min(worst.get(line_id, "TP"), kind, key=order.index)
    assert len(worst) >= 5 and "FN" in worst.values() and "FP" in worst.values()
    for line_id, kind in worst.items():
        (row,) = document.find("tr", id=line_id)
        assert row["class"] == "marked" and row["data-class"] == kind, line_id
    # the margin notes list the edges, one item per edge of the marked callers
    noted = len(document.find("li", data_class="FN")) + len(document.find("li", data_class="FP"))
    placed_mistakes = [e for e, k in classes.items() if k in ("FN", "FP") and loaded.place(e[0]) is not None]
    assert noted >= len(placed_mistakes) > 0


def test_scores_are_the_core_metrics_numbers(ws):
    document = parse(build_evidence(ws, KNOWN, [A, B], mode="compare"))
    for model in (A, B):
        counts = instance_diff(ws, model, KNOWN, MODES).counts
        scores = instance_scores(counts)
        cells = {a["data-metric"]: a["data-value"] for t, a in document.elements
                 if t == "td" and "data-metric" in a and _in_row(document, a, model)}
        assert cells == {"precision": repr(scores.precision), "recall": repr(scores.recall), "f1": repr(scores.f1),
                         "tp": str(counts.tp), "fp": str(counts.fp), "fn": str(counts.fn)}
    text = "".join(document.text)
    assert "94.3%" in text and "56.5%" in text
    assert "only A right 18" in " ".join(text.split())


def _in_row(document, cell, model):
    """Whether `cell` sits in the score row of `model` (rows carry data-model)."""
    current = None
    for tag, attrs in document.elements:
        if tag == "tr":
            current = attrs.get("data-model")
        if attrs is cell:
            return current == model
    return False


def test_no_external_resources_except_the_source_link(ws):
    text = build_evidence(ws, MULTI_FILE, [A, B], mode="compare")
    document = parse(text)
    url = ws.instance(MULTI_FILE).provenance.source_url
    assert url.startswith("https://")
    assert not document.find("script") and not document.find("link") and not document.find("img")
    assert not document.find("iframe") and not document.find("object")
    external = [value for _, attrs in document.elements for name, value in attrs.items()
                if name in ("href", "src", "xlink:href", "action") and value and not value.startswith("#")]
    assert external == [url]
    assert not re.search(r"url\((?!#)|@import", text)  # only in-document references (SVG markers)
    # internal links land on ids that exist
    ids = {a.get("id") for _, a in document.elements if a.get("id")}
    targets = [a["href"][1:] for a in document.find("a") if a.get("href", "").startswith("#")]
    assert targets and set(targets) <= ids


def test_header_footer_problems_and_the_latest_trace(ws):
    run = trace_instance(ws.instance(KNOWN))
    ws.store_run(run)
    try:
        document = parse(build_evidence(ws, KNOWN, [A, B], mode="trace"))
    finally:
        ws.db.execute("delete from runs")
        ws.db.conn.commit()
    text = " ".join("".join(document.text).split())
    assert "calcpad_0001" in text and "Python" in text and "test" in text
    assert "https://example.org/traceeval-studio-demo/calcpad" in text
    assert "init, nested_class, stdlib" in text
    assert f"{run.status}: {run.message}" in text and run.tracer in text
    assert "the latest trace against the ground truth" in text
    assert "Made with TraceEval Studio" in text and re.search(r"on \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC", text)
    assert f"† {A} is illustrative: " in text and f"† {B} is illustrative: " in text
    assert "not real model output" in text.lower()
    assert "Parse problems" in text
    # the trace column says what the run saw
    rows = [a for t, a in document.elements if t == "tr" and "data-class" in a and a.get("data-class") in (
        "agrees", "trace_only", "truth_only")]
    assert rows


def test_a_mode_without_its_inputs_falls_back_to_the_truth_and_says_so(ws):
    text = " ".join(build_evidence(ws, "python/ledgerlite_0002", [B], mode="model").split())
    assert "showing the ground truth" in text and "no result for this program" in text
    text = " ".join(build_evidence(ws, KNOWN, [A], mode="trace").split())
    assert "No trace run is stored" in text


def test_unknown_instances_models_and_modes_are_usage_errors(ws):
    with pytest.raises(UsageError, match="no program 'python/nothing_0001'"):
        build_evidence(ws, "python/nothing_0001", [A])
    with pytest.raises(UsageError, match="no model named 'nobody'"):
        build_evidence(ws, KNOWN, ["nobody"])
    with pytest.raises(UsageError, match="unknown view mode 'sideways'"):
        build_evidence(ws, KNOWN, [A], mode="sideways")
