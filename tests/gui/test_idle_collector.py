"""Full garbage collections run between jobs: never while one runs, soon after the last one ends."""
import gc
import threading
import weakref

from PySide6.QtCore import Qt

from traceeval_gui.state.collector import IDLE_MS, NO_AUTOMATIC_FULL_PASS
from traceeval_gui.state.jobs import Job


class _Holder:
    """Something that can sit in a reference cycle and be watched through a weak reference."""


class _WaitingJob(Job):
    title = "waiting"

    def __init__(self, release: threading.Event) -> None:
        super().__init__()
        self.release = release

    def work(self, progress):
        self.release.wait(10)
        return "done"


def _cycle() -> weakref.ref:
    holder = _Holder()
    holder.me = holder  # noqa: V101 (the cycle is the point)
    return weakref.ref(holder)


def test_automatic_full_passes_are_off_once_a_state_exists(state):
    assert gc.get_threshold()[2] == NO_AUTOMATIC_FULL_PASS
    assert gc.get_freeze_count() > 0  # the objects alive at start are never walked again


def test_cyclic_garbage_waits_for_the_job_and_is_freed_after_it(state, qtbot):
    collector = state.collector
    release = threading.Event()
    job = _WaitingJob(release)
    state.jobs.start(job)
    for _ in range(3):  # survive the young generations: only a full pass can free it now
        gc.collect(1)
    garbage = _cycle()
    gc.collect(1)
    gc.collect(1)
    passes = collector.passes
    qtbot.wait(IDLE_MS + 300)
    assert collector.passes == passes, "a full pass ran while a job was running"
    with qtbot.waitSignal(job.signals.finished) as finished:
        release.set()
    assert finished.args == ["done"]  # the job's result still lands
    qtbot.waitUntil(lambda: collector.passes > passes, timeout=IDLE_MS * 3)
    assert garbage() is None


def test_one_collector_watches_every_state(qtbot):
    from traceeval_gui.state.app_state import AppState

    first, second = AppState(), AppState()
    assert first.collector is second.collector
    release = threading.Event()
    first.jobs.start(_WaitingJob(release))
    assert second.collector.busy  # a job of any window holds the passes back
    release.set()
    first.jobs.wait()
    qtbot.waitUntil(lambda: not first.jobs.busy)
    assert not first.collector.busy


def test_qt_objects_in_young_garbage_are_destroyed_on_the_gui_thread_before_a_job_starts(qtbot, state):
    """Collected by a pass the job's allocations trigger, they would be destroyed on the job's thread, where
    PySide deadlocks (a window of one test collected by the next test's dataset job hung CI)."""
    from PySide6.QtCore import QObject

    destroyed_on = []
    garbage = QObject()
    garbage.me = garbage  # noqa: V101 (a cycle: only the collector frees it)
    garbage.destroyed.connect(lambda: destroyed_on.append(threading.current_thread()), type=Qt.DirectConnection)
    del garbage
    release = threading.Event()
    state.jobs.start(_WaitingJob(release))
    try:
        assert destroyed_on == [threading.main_thread()]
    finally:
        release.set()
        state.jobs.wait()
