"""The two profiler backends behind one interface (install, uninstall, counts, thread_hook).

`CBackend` drives the C extension `_profiler`. `PythonBackend` is the pure-Python fallback
(`sys.setprofile`) used when the extension is not built: the same algorithm, slower. Both
count calls per (caller id, callee id, caller instruction offset), so they log the same records.
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
            line = f.f_lineno if site >= 0 else -1 - site
            self.counted[key] = 1
            self.lines[key] = line
            recorder.new_edge(caller, callee, line)
        else:
            self.counted[key] = count + 1


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
