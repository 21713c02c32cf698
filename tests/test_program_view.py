"""One program as every view and export sees it (`core.report.program_view`), on the demo dataset."""

from core.report.evidence import LoadedInstance, load_instance
from core.report.program_view import ProgramView, parse_program
from core.symbols import call_site_lines
from traceeval_gui.item_models.instance_detail import InstanceDetail, InstanceDetailLoader

KNOWN = "python/calcpad_0001"
A, B = "illustrative-strong", "illustrative-weak"


def test_a_program_holds_its_sources_symbols_and_the_models_that_answered(ws):
    view = ProgramView.load(ws, KNOWN, [A, B, A])
    assert view.instance.key == KNOWN and set(view.sources) == set(view.instance.files) and not view.unreadable
    assert set(view.predictions) == set(view.overlay.models) == {A, B} and view.run is None
    assert ProgramView.load(ws, "python/no_such_program", [A]) is None and parse_program(ws, "python/nope") is None


def test_names_are_placed_only_in_readable_files_and_grouped_by_file(ws):
    view = ProgramView.load(ws, KNOWN, [A])
    groups = view.groups()
    assert groups and all(view.place(name).file == file for name, file in groups.items())
    assert view.place("builtins.print") is None


def test_call_sites_without_a_trace_are_the_static_candidates_and_are_kept(ws):
    view = ProgramView.load(ws, KNOWN, [A])
    caller, callee = next((e.caller, e.callee) for e in view.overlay.edges if e.truth and view.place(e.caller))
    sites = view.call_sites(caller, callee)
    assert sites == call_site_lines(view.symbols, view.sources, caller, callee)
    assert view.call_sites(caller, callee) is sites


def test_the_window_and_the_exports_read_the_same_bundle(ws):
    detail = InstanceDetailLoader().load(ws, KNOWN, A, (A, B))
    loaded = load_instance(ws, KNOWN, [A, B])
    assert isinstance(detail, InstanceDetail) and isinstance(loaded, LoadedInstance)
    assert isinstance(detail, ProgramView) and isinstance(loaded, ProgramView)
    assert detail.overlay.edges == loaded.overlay.edges and detail.groups() == loaded.groups()
    assert detail.diff == detail.overlay.diff(A) and detail.prediction is detail.predictions[A]
    assert (loaded.model_a, loaded.model_b) == (A, B)
