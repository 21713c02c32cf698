"""What both profiler backends share: classifying code objects, attribution helpers, the log.

Every code object is classified once (`resolve`) into a kind and, for program code, a small
int id standing for a raw frame id `relpath:co_firstlineno:K:extra:co_qualname`, where K is
M (module), F (function), L (lambda; extra = `endline.endcol.depth`: where its body ends, in
UTF-8 bytes, and how many lambdas nested in it end there too), T (comprehension or generator
expression; extra = `endline.endcol` where it ends) or C (class body). The parent maps these to
TraceEval names by span (`tracers.python_frames`). Kinds:
- PROGRAM: code from a file inside the program folder; a callee and a caller.
- TRANSPARENT: module code, class bodies and comprehensions of program files. Never a callee
  (importing a module is not an edge); as a caller module code is its module node and the
  others stand for their enclosing scope (the parent maps them to the node around them).
- LIBRARY: everything else (stdlib, site-packages, `exec` of a string, this runtime).
  Skipped when looking for the caller, so a program callback called by a library is
  attributed to the nearest program frame below it.
- BOUNDARY: the frame that steps an asyncio task (`Handle._run`) or starts a thread
  (`Thread._bootstrap_inner`). The program frames above it were not called by the frames
  below it: the caller is whoever created the task / started the thread (recorded by SPECIAL).
- SPECIAL: `Thread.start` and `BaseEventLoop.create_task`: at their call the nearest program
  frame (and its line) is remembered for the thread / the task's coroutine.
"""
import os
import sys

LIBRARY, PROGRAM, TRANSPARENT, BOUNDARY, SPECIAL = 1, 2, 3, 4, 5
COMPREHENSIONS = frozenset({"<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>"})
CO_OPTIMIZED = 0x1
CALLERS = (PROGRAM, TRANSPARENT)

# (file name ending, co_qualname) of library code with a role in attribution
ROLES = {
    ("/threading.py", "Thread._bootstrap_inner"): BOUNDARY,
    ("/threading.py", "Thread.start"): SPECIAL,
    ("/asyncio/events.py", "Handle._run"): BOUNDARY,
    ("/asyncio/base_events.py", "BaseEventLoop.create_task"): SPECIAL,
}

_ESCAPES = {i: f"\\u{i:04x}" for i in range(32)}
_ESCAPES.update({ord('"'): '\\"', ord("\\"): "\\\\"})


def json_string(text):
    """A JSON string literal as UTF-8 bytes (no `json` import: start-up time matters)."""
    return ('"' + text.translate(_ESCAPES) + '"').encode("utf-8", "backslashreplace")


def raw_frame_id(relpath, code):
    name = code.co_name
    extra = ""
    if name == "<module>":
        kind = "M"
    elif name in COMPREHENSIONS:
        kind = "T"
        end = _body_end(code)
        if end:
            extra = f"{end[0]}.{end[1]}"
    elif not code.co_flags & CO_OPTIMIZED:
        kind = "C"
    elif name == "<lambda>":
        kind = "L"
        end = _body_end(code)
        if end:
            extra = f"{end[0]}.{end[1]}.{_lambda_depth(code, end)}"
    else:
        kind = "F"
    return f"{relpath}:{code.co_firstlineno}:{kind}:{extra}:{code.co_qualname}"


def _body_end(code):
    ends = [(line, col) for _, line, _, col in code.co_positions() if line is not None and col is not None]
    return max(ends) if ends else None


def _lambda_depth(code, end):
    """How many lambdas nested in this one end where it ends (`lambda: lambda: 1`)."""
    for const in code.co_consts:
        if hasattr(const, "co_positions") and const.co_name == "<lambda>" and _body_end(const) == end:
            return 1 + _lambda_depth(const, end)
    return 0


class Recorder:
    """Code classification, task/thread creators and the trace log of one traced process."""

    def __init__(self, root, log):
        self.root = os.path.realpath(root) + os.sep
        self.cwd = os.getcwd()
        self.pid = os.getpid()
        self.log = log  # log.LogWriter
        self.kinds = {}  # id(code) -> (code, kind, frame id); the code is kept so ids stay unique
        self.ids = {}  # raw frame id -> int
        self.encoded = []  # int -> raw frame id as a JSON string
        self.relpaths = {}  # co_filename -> path relative to the program folder, or None
        self.task_creators = None  # coroutine -> (frame id, line), a WeakKeyDictionary once needed
        self.thread_hook = None  # set by the backend: installs profiling in a new thread
        self.threads_hooked = False

    # classification -------------------------------------------------------------------

    def resolve(self, code, frame=None):
        """(kind, frame id or -1) of a code object, computed once."""
        known = self.kinds.get(id(code))
        if known is not None:
            return known[1], known[2]
        kind, ident = self._classify(code, frame)
        self.kinds[id(code)] = (code, kind, ident)
        return kind, ident

    def _classify(self, code, frame):
        filename = code.co_filename
        relpath = self.relpath(filename)
        if relpath is None:
            for (ending, qualname), role in ROLES.items():
                if code.co_qualname == qualname and filename.endswith(ending):
                    return role, -1
            if code.co_name == "<module>" and filename.startswith("<") and frame is not None:
                self._note_dynamic_code(code, frame)
            return LIBRARY, -1
        raw = raw_frame_id(relpath, code)
        ident = self.ids.get(raw)
        if ident is None:
            ident = self.ids[raw] = len(self.encoded)
            self.encoded.append(json_string(raw))
        # module code, class bodies and comprehensions are not optimized (except comprehensions)
        transparent = code.co_name in COMPREHENSIONS or not code.co_flags & CO_OPTIMIZED
        return (TRANSPARENT if transparent else PROGRAM), ident

    def relpath(self, filename):
        try:
            return self.relpaths[filename]
        except KeyError:
            pass
        relpath = None
        if not filename.startswith("<"):
            path = os.path.realpath(os.path.join(self.cwd, filename))
            if path.startswith(self.root):
                relpath = path[len(self.root):].replace(os.sep, "/")
        self.relpaths[filename] = relpath
        return relpath

    def _note_dynamic_code(self, code, frame):
        """Program code ran `exec`/`eval` of a string: say so (its frames count as library)."""
        back = frame.f_back
        if back is None or self.resolve(back.f_code, back)[0] not in CALLERS:
            return
        where = f"{self.relpath(back.f_code.co_filename)}:{back.f_lineno}"
        self.write(b'["U",' + json_string(f"{code.co_filename}:{code.co_firstlineno} <module> (run from {where})")
                   + b',' + json_string("dynamically created code (exec/eval of a string) is not a program node")
                   + b',1]')

    # attribution across threads and asyncio tasks -------------------------------------

    def nearest(self, frame):
        """(frame id, line) of the nearest program frame below `frame`, or None."""
        f = frame.f_back
        while f is not None:
            kind, ident = self.resolve(f.f_code, f)
            if kind in CALLERS:
                return ident, f.f_lineno
            if kind == BOUNDARY:
                found = self.boundary(f)
                if found is not None:
                    return found
            f = f.f_back
        return None

    def boundary(self, frame):
        """Who stands for the caller above a boundary frame: (frame id, line) or None."""
        try:
            if frame.f_code.co_name == "_bootstrap_inner":
                return getattr(sys.modules["threading"].current_thread(), "_traceeval_creator", None)
            if self.task_creators is not None:
                task = sys.modules["asyncio"].current_task()
                if task is not None:
                    return self.task_creators.get(task.get_coro())
        except (KeyError, RuntimeError, TypeError, AttributeError):
            pass
        return None

    def special(self, frame):
        """`Thread.start` or `create_task` is being called: remember who called it."""
        arguments = frame.f_locals
        creator = self.nearest(frame)
        if frame.f_code.co_name == "start":
            self._hook_threads()
            thread = arguments.get("self")
            if creator is not None and thread is not None:
                try:
                    thread._traceeval_creator = creator
                except AttributeError:
                    pass
            return
        coro = arguments.get("coro")
        if creator is None or coro is None:
            return
        if self.task_creators is None:
            import weakref

            self.task_creators = weakref.WeakKeyDictionary()
        try:
            self.task_creators[coro] = creator
        except TypeError:
            pass  # not weak-referenceable: its task stays unattributed

    def _hook_threads(self):
        if not self.threads_hooked and self.thread_hook is not None:
            self.threads_hooked = True
            sys.modules["threading"].setprofile(self.thread_hook)

    # the log ---------------------------------------------------------------------------

    def write(self, record):
        """One record (JSON bytes) to the log."""
        self.log.write(record)

    def new_edge(self, caller, callee, line):
        """First sighting of (caller, callee, line): written at once so a killed run keeps it."""
        self.log.write(b'["E",%s,%s,%d]' % (self.encoded[caller], self.encoded[callee], line))

    def exception(self, error):
        """The uncaught exception that ends the program: `Type: message (file:line)`."""
        where = ""
        tb = error.__traceback__
        while tb is not None:
            relpath = self.relpath(tb.tb_frame.f_code.co_filename)
            if relpath is not None:
                where = f"{relpath}:{tb.tb_lineno}"
            tb = tb.tb_next
        message = str(error).splitlines()[0] if str(error).strip() else ""
        text = type(error).__name__ + (f": {message[:300]}" if message else "") + (f" ({where})" if where else "")
        self.write(b'["X",' + json_string(text) + b']')

    def finish(self, counts):
        """Write the final call count of every (caller, callee, line), then the closing record (once)."""
        if os.getpid() != self.pid or self.log.closed:
            return  # a forked child: its counts would repeat the parent's
        totals: dict[tuple[int, int, int], int] = {}
        for caller, callee, line, count in counts:
            key = (caller, callee, line)
            totals[key] = totals.get(key, 0) + count
        self.log.write_all([b'["C",%s,%s,%d,%d]' % (self.encoded[caller], self.encoded[callee], line, count)
                            for (caller, callee, line), count in totals.items()])
        self.log.close()
