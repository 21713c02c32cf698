"""The three profiler backends behind one interface (install, uninstall, counts, thread_hook).

`CBackend` drives the C extension `_profiler`. `MonitoringBackend` (Python 3.12+, PEP 669
`sys.monitoring`) is used when the extension is not built for the interpreter: only program
functions and the SPECIAL frames raise events, every other code object is switched off at its
first event. `PythonBackend` is the pure-Python fallback (`sys.setprofile`) for 3.10 and 3.11.
All count calls per (caller id, callee id, caller instruction offset), so they log the same records.
"""
import sys

from . import recorder as rec


class PythonBackend:
    name = "python"

    def __init__(self, recorder):
        self.recorder = recorder
        self.counted = {}  # (caller, callee, site) -> count
        self.lines = {}  # (caller, callee, site) -> call-site line
        self.thread_hook = self.profile
        recorder.thread_hook = self.profile

    def install(self):
        sys.setprofile(self.profile)

    def uninstall(self):
        sys.setprofile(None)

    def counts(self):
        lines = self.lines
        return [(key[0], key[1], lines[key], count) for key, count in list(self.counted.items())]

    def profile(self, frame, event, arg):
        if event != "call":
            return
        recorder = self.recorder
        known = recorder.kinds.get(id(frame.f_code))
        if known is None:
            kind, callee = recorder.resolve(frame.f_code, frame)
        else:
            kind, callee = known[1], known[2]
        if kind == rec.PROGRAM:
            self._record(frame, callee)
        elif kind == rec.SPECIAL:
            recorder.special(frame)

    def _record(self, frame, callee):
        recorder = self.recorder
        kinds = recorder.kinds
        f = frame.f_back
        while f is not None:
            known = kinds.get(id(f.f_code))
            if known is None:
                kind, caller = recorder.resolve(f.f_code, f)
            else:
                kind, caller = known[1], known[2]
            if kind == rec.PROGRAM or kind == rec.TRANSPARENT:
                site = f.f_lasti
                break
            if kind == rec.BOUNDARY:
                found = recorder.boundary(f)
                if found is not None:
                    caller, line = found
                    site = -1 - line
                    break
            f = f.f_back
        else:
            return
        if caller == callee:
            return
        key = (caller, callee, site)
        count = self.counted.get(key)
        if count is None:
            self.counted[key] = 1
            if key not in self.lines:  # the monitoring backend's fast path may have seen it
                line = self.lines[key] = f.f_lineno if site >= 0 else -1 - site
                recorder.new_edge(caller, callee, line)
        else:
            self.counted[key] = count + 1


class MonitoringBackend(PythonBackend):
    """`sys.monitoring` events PY_START, PY_RESUME (a generator or coroutine resumed) and PY_THROW
    (resumed by `throw()`): the `call` events of `sys.setprofile`, attributed by the same walk.

    Events are per interpreter, so new threads need no hook. A PY_START or PY_RESUME of code that
    can never be a callee or SPECIAL (library, module, class body, generator expression, boundary)
    returns DISABLE: that code location raises no more events. PY_THROW cannot be disabled.
    What a program call costs is the callback, `sys._getframe(2)` (the caller's frame object) and
    reading its `f_lasti` and `f_code` (about 40 ns each; `id()` of the code would add 45 ns, hence
    the per-offset cells of `_callbacks`): in tests/bench/bench_python_tracer.py on 3.13, 3.7x
    untraced, 1.36x the time of the C extension built for 3.13 (2.7x untraced).
    """

    name = "monitoring"
    EVENTS = ("PY_START", "PY_RESUME", "PY_THROW")

    def __init__(self, recorder, tool):
        super().__init__(recorder)
        recorder.thread_hook = None  # events reach every thread: no per-thread hook
        self.tool = tool
        self.direct = {}  # (id(caller code), caller offset, id(callee code)) -> cell (see `_callbacks`)
        self.sites = {}  # id(caller code) -> per offset: the first cell of `direct` seen at that call site
        self.no_cell: list = [0, None, None, None]  # where no cell is yet: never matches a code object
        self.by_offset = [self.no_cell] * 1024  # per caller offset: the first cell of `direct` seen there

    @staticmethod
    def free_tool():
        """A free tool id (the profiler's, else an unnamed one), or None."""
        monitoring = _monitoring()
        if monitoring is None:
            return None
        return next((tool for tool in (monitoring.PROFILER_ID, 3, 4) if monitoring.get_tool(tool) is None), None)

    def install(self):
        monitoring = _monitoring()
        monitoring.use_tool_id(self.tool, "traceeval")
        events = monitoring.events
        started, thrown = self._callbacks()
        monitoring.register_callback(self.tool, events.PY_START, started)
        monitoring.register_callback(self.tool, events.PY_RESUME, started)
        monitoring.register_callback(self.tool, events.PY_THROW, thrown)
        monitoring.set_events(self.tool, events.PY_START | events.PY_RESUME | events.PY_THROW)

    def uninstall(self):
        monitoring = _monitoring()
        if monitoring.get_tool(self.tool) != "traceeval":
            return
        monitoring.set_events(self.tool, 0)
        for event in self.EVENTS:
            monitoring.register_callback(self.tool, getattr(monitoring.events, event), None)
        monitoring.free_tool_id(self.tool)

    def counts(self):
        totals = dict(self.counted)
        for count, _, edge, _ in list(self.direct.values()):
            if edge is not None:
                totals[edge] = totals.get(edge, 0) + count
        lines = self.lines
        return [(key[0], key[1], lines[key], count) for key, count in totals.items()]

    def _callbacks(self):
        """The event callbacks, as closures over what they need (no attribute look-ups per call).

        A program function called straight from a program (or transparent) frame is counted in
        its cell `[count, callee code, edge key or None, caller code]`. The fast path finds it
        without building a key: first as `by_offset[caller offset]`, the first cell made at that
        offset in any caller (a list index and two identity checks: no `id()`, no dict); then as
        `sites[id(caller code)][caller offset]`, the first cell of that call site. Everything
        else takes `slow`: the cell by (id(caller code), caller offset, id(callee code)) in
        `direct`, else the classification and, for a caller that is not program code, the walk
        of `PythonBackend._record`. The code objects are kept alive by `recorder.kinds`, so
        their ids are not reused."""
        recorder = self.recorder
        kinds = recorder.kinds
        resolve = recorder.resolve
        special = recorder.special
        new_edge = recorder.new_edge
        record = self._record
        direct = self.direct
        sites = self.sites
        by_offset = self.by_offset
        lines = self.lines
        frame_of = sys._getframe
        disable = _monitoring().DISABLE
        program, special_kind, callers = rec.PROGRAM, rec.SPECIAL, rec.CALLERS
        no_cell = self.no_cell

        def started(code, offset):
            try:
                caller_frame = frame_of(2)  # 0: this callback, 1: the callee
                site = caller_frame.f_lasti
                cell = by_offset[site]
                if cell[1] is code and cell[3] is caller_frame.f_code:
                    cell[0] += 1
                    return None
                cell = sites[id(caller_frame.f_code)][site]
            except (KeyError, IndexError, ValueError):  # ValueError: the first frame of a thread started from C
                return slow(code)
            if cell[1] is code:
                cell[0] += 1
                return None
            return slow(code)

        def slow(code):
            caller_frame = key = None
            try:
                caller_frame = frame_of(3)  # 0: this function, 1: the callback, 2: the callee
            except ValueError:
                pass
            else:
                key = (id(caller_frame.f_code), caller_frame.f_lasti, id(code))
                cell = direct.get(key)
                if cell is not None:
                    cell[0] += 1
                    return None
            known = kinds.get(id(code))
            if known is None:
                kind, callee = resolve(code, frame_of(2))
            else:
                kind, callee = known[1], known[2]
            if kind == special_kind:
                special(frame_of(2))
                return None
            if kind != program:
                return disable
            if caller_frame is not None:
                caller_code = caller_frame.f_code
                caller_kind, caller = resolve(caller_code, caller_frame)
                row = sites.get(id(caller_code))
                if row is None:  # every caller gets its row, so that library callers raise no KeyError
                    row = sites[id(caller_code)] = [no_cell] * len(caller_code.co_code)
                if caller_kind in callers:
                    site = caller_frame.f_lasti
                    edge = None if caller == callee else (caller, callee, site)
                    cell = direct[key] = [1, code, edge, caller_code]
                    if row[site] is no_cell:
                        row[site] = cell
                    if site >= len(by_offset):
                        by_offset.extend([no_cell] * (site + 1 - len(by_offset)))
                    if by_offset[site] is no_cell:
                        by_offset[site] = cell
                    if edge is not None and edge not in lines:
                        line = lines[edge] = caller_frame.f_lineno
                        new_edge(caller, callee, line)
                    return None
            record(frame_of(2), callee)
            return None

        def thrown(code, offset, exception):
            known = kinds.get(id(code))
            if known is None:
                kind, callee = resolve(code, frame_of(1))
            else:
                kind, callee = known[1], known[2]
            if kind == program:
                record(frame_of(1), callee)
            elif kind == special_kind:
                special(frame_of(1))

        return started, thrown


def _monitoring():
    """`sys.monitoring`, or None before Python 3.12."""
    return getattr(sys, "monitoring", None)


class CBackend:
    """The C extension behind the same interface."""

    name = "c"

    def __init__(self, recorder, module):
        self.recorder = recorder
        self.module = module
        module.configure(recorder.resolve, recorder.new_edge, recorder.boundary, recorder.special)
        self.install = module.install
        self.uninstall = module.uninstall
        self.counts = module.counts
        recorder.thread_hook = self.thread_hook

    def thread_hook(self, frame, event, arg):
        """Runs once per new thread (`threading.setprofile`): hand the thread to C."""
        self.module.install()
        if event == "call":
            self.module.call_event(frame)
