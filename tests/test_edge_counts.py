"""Counts from interned edges (`core.scoring.edge_counts`) equal the string-set counts of the paper's metric, for
every mode combination, on graphs made of the names the release's normaliser was run on (tests/parity)."""
import json
import random
from itertools import combinations
from pathlib import Path

import pytest

from core.dataset.workspace import Workspace
from core.records import CallGraph
from core.scoring.edge_counts import count_blobs
from core.scoring.metrics import count_edges
from core.scoring.normalise import MODES, normalise_edges

VECTORS = json.loads((Path(__file__).parent / "parity" / "normalise.json").read_text())["vectors"]
MODE_SETS = [frozenset(c) for n in range(len(MODES) + 1) for c in combinations(MODES, n)]


def _graphs(rng: random.Random, names: list[str], programs: int) -> list[CallGraph]:
    return [CallGraph.from_edges((rng.choice(names), rng.choice(names)) for _ in range(rng.randint(0, 40)))
            for _ in range(programs)]


@pytest.mark.parametrize("modes", MODE_SETS, ids=lambda m: "+".join(sorted(m)) or "none")
def test_counts_from_interned_edges_equal_the_string_sets(tmp_path, modes):
    rng = random.Random(len(modes))
    with Workspace(tmp_path / "ws.sqlite") as ws:
        truths, predictions, languages = {}, {}, {}
        expected = {}
        for language in ("python", "javascript", "java"):
            names = [v["name"] for v in VECTORS if v["language"] == language]
            assert len(names) > 100
            for number, (truth, predicted) in enumerate(zip(_graphs(rng, names, 60), _graphs(rng, names, 60),
                                                            strict=True)):
                key = f"{language}/p_{number:04d}"
                if number % 3 == 0:  # many shared edges, as a good model has
                    predicted = CallGraph.from_edges([*truth.edges[::2], *predicted.edges[:5]])
                elif number % 3 == 1:  # from a stored dict naming a callee twice: in the blob twice, counted once
                    predicted = CallGraph.from_dict({k: v + v[:1] for k, v in predicted.to_dict().items()})
                with ws.db.atomic():
                    truths[key] = ws.names.edge_blob(language, truth)
                    predictions[key] = ws.names.edge_blob(language, predicted)
                languages[key] = language
                expected[key] = count_edges(normalise_edges(truth.edges, language, modes),
                                            normalise_edges(predicted.edges, language, modes))
        assert count_blobs(ws, languages, truths, predictions, modes) == expected
        assert any(c.tp for c in expected.values()) and any(c.fp for c in expected.values())


def test_names_interned_by_another_connection_are_seen(tmp_path):
    """Ids come from the table: a second workspace connection (another process) interning new names is picked up,
    and the counts stay right."""
    path = tmp_path / "ws.sqlite"
    with Workspace(path) as first, Workspace(path) as second:
        edges = [("main", "main.a"), ("main.a", "print")]
        with first.db.atomic():
            truth = first.names.edge_blob("python", CallGraph.from_edges(edges))
        modes = frozenset(MODES)
        assert count_blobs(first, {"python/p": "python"}, {"python/p": truth}, {"python/p": truth}, modes)[
            "python/p"].tp == 1  # print is dropped by the stdlib mode
        with second.db.atomic():
            predicted = second.names.edge_blob("python", CallGraph.from_dict({"main": ["main.b", "main.a", "main.b"]}))
        stored = dict(second.db.execute("select name, id from names where language = 'python'").fetchall())
        assert first.names.known["python"] | second.names.known["python"] == stored  # new runs and mixed ones
        counts = count_blobs(first, {"python/p": "python"}, {"python/p": truth}, {"python/p": predicted}, modes)
        assert counts["python/p"] == count_edges(normalise_edges(edges, "python", modes),
                                                 normalise_edges([("main", "main.b"), ("main", "main.a")], "python",
                                                                 modes))


def test_programs_with_no_edges_count_zero(tmp_path):
    """An empty prediction (or truth), alone or beside others: nothing to sort, nothing counted."""
    with Workspace(tmp_path / "ws.sqlite") as ws:
        with ws.db.atomic():
            empty = ws.names.edge_blob("python", CallGraph())
            some = ws.names.edge_blob("python", CallGraph.from_dict({"main": ["main.a"]}))
        modes = frozenset(MODES)
        assert count_blobs(ws, {"python/a": "python"}, {"python/a": empty}, {"python/a": empty}, modes) == {
            "python/a": count_edges(frozenset(), frozenset())}
        both = count_blobs(ws, {"python/a": "python", "python/b": "python"}, {"python/a": some, "python/b": empty},
                           {"python/a": empty, "python/b": empty}, modes)
        assert (both["python/a"].fn, both["python/b"].tp) == (1, 0)
