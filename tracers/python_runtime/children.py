"""Child processes of a traced Python program (runs inside the traced process, like the recorder).

- A child run by this interpreter (`subprocess` with `sys.executable`, or a name on PATH that
  resolves to it) running a script is started as `<python> <its flags> -I -B run.py <root>
  <script> <backend> <args>` instead, so it is traced too; `-c`, `-m` and stdin programs are not
  rewritten (they are listed, untraced).
- A traced child writes its own log to the run's log pipe (`log.py`): its environment (a copy: the
  program never sees it) names its lineage and a one-time ticket for its key; its first record, `P`,
  says who wrote it.
- Every program started (`subprocess`, `os.system`, `os.exec*`, `os.posix_spawn*`, `os.spawn*`,
  the last ones through wrappers of `os.system`, `os.execv`, `os.execve` and `os.posix_spawn*`, which
  `os.execl*`, `os.execvp*` and `os.spawn*` call) is logged as `S` (pid, argv), and a `subprocess`
  child's exit status as `Q`, so the run lists children of other languages as well. Not an audit
  hook: CPython audits every `sys._getframe` and `frame.f_code`, so a hook would run on every call
  the Python-level profilers see (8x slower under sys.monitoring). Before `os.execv`/`os.execve`
  replace the process, its counts and closing record are written (`finish`).
"""
import functools
import os
import sys

NO_ARGUMENT_FLAGS = frozenset("bBdEiIOqsSuvx")
LISTED = {"system": 0, "execv": 1, "execve": 1, "posix_spawn": 1, "posix_spawnp": 1}  # os function -> argv
REPLACING = frozenset({"execv", "execve"})  # the others of os.exec* call these
ARGV_BYTES = 2000  # of a logged argv, so that its record fits one line of the log


class Children:
    """Rewrites same-interpreter children and logs every program started; `install` once per process."""

    def __init__(self, recorder, root, run_script, backend):
        self.recorder = recorder
        self.root = root
        self.run_script = run_script
        self.backend = backend
        self.interpreter = os.path.realpath(sys.executable)
        self.spawned = set()
        self.in_subprocess = False

    def install(self, finish):
        """The `os` wrappers now; `subprocess` is patched when the program imports it (importing it here
        would cost every traced process some milliseconds). `finish` writes the counts and closing record."""
        self.finish = finish
        for name, index in LISTED.items():
            original = getattr(os, name, None)
            if original is not None:
                setattr(os, name, self.listing(original, index))
        if "subprocess" in sys.modules:
            self.patch(sys.modules["subprocess"])
        else:
            sys.meta_path.insert(0, _PatchOnImport(self))

    def patch(self, subprocess):
        children = self
        popen_class = subprocess.Popen  # its private POSIX methods, the same from 3.11 to 3.14
        execute_child = popen_class._execute_child
        handle_exitstatus = popen_class._handle_exitstatus

        def _execute_child(popen, args, executable, *rest):
            return children.execute_child(execute_child, popen, args, executable, rest)

        def _handle_exitstatus(popen, *args, **kwargs):
            result = handle_exitstatus(popen, *args, **kwargs)
            children.ended(popen.pid, popen.returncode)
            return result

        popen_class._execute_child = _execute_child
        popen_class._handle_exitstatus = _handle_exitstatus

    def write_process(self, argv):
        self.write(b'["P","python",%d,%s]' % (os.getpid(), self.json_list(argv)))

    # subprocess ------------------------------------------------------------------------

    def execute_child(self, original, popen, args, executable, rest):
        shell = len(rest) > 7 and rest[7]
        argv = _argv(args, shell)
        started = argv
        if not shell and len(rest) > 4:
            traced = self.traced_argv(argv, executable, rest[3], rest[4])
            if traced is not None:
                started, env = traced
                rest = (*rest[:4], env, *rest[5:])
        self.in_subprocess = True
        try:
            original(popen, started if not shell else args, executable, *rest)
        except BaseException:
            self.write(b'["S",0,%s]' % self.json_list(argv))
            raise
        finally:
            self.in_subprocess = False
        self.spawned.add(popen.pid)
        self.write(b'["S",%d,%s]' % (popen.pid, self.json_list(argv)))

    def traced_argv(self, argv, executable, cwd, env):
        """(argv that traces the child, its env) when it runs a script with this interpreter, else None."""
        if not argv or self.resolve(executable or argv[0], env) != self.interpreter:
            return None
        flags, at = [], 1
        while at < len(argv) and argv[at].startswith("-"):
            option = argv[at]
            if option in ("-W", "-X") and at + 1 < len(argv):
                flags += [option, argv[at + 1]]
                at += 2
            elif len(option) > 1 and set(option[1:]) <= NO_ARGUMENT_FLAGS:
                flags.append(option)
                at += 1
            else:
                return None  # -c, -m, -, or an option we do not know: left alone
        if at >= len(argv):
            return None
        base = os.fsdecode(cwd) if cwd is not None else os.getcwd()
        script = os.path.abspath(os.path.join(base, argv[at]))
        env = {**(env if env is not None else os.environ), **self.recorder.log.child_environment()}
        started = [argv[0], *flags, "-I", "-B", self.run_script, self.root, script, self.backend, *argv[at + 1:]]
        return started, env

    def resolve(self, program, env):
        program = os.fsdecode(program)
        if os.sep not in program:
            path = (env if env is not None else os.environ).get("PATH", os.defpath)
            for folder in path.split(os.pathsep):
                candidate = os.path.join(folder, program)
                if os.access(candidate, os.X_OK):
                    return os.path.realpath(candidate)
            return None
        return os.path.realpath(program)

    def ended(self, pid, code):
        if pid in self.spawned and code is not None:
            self.spawned.discard(pid)
            self.write(b'["Q",%d,%d]' % (pid, code))

    # os.system, os.exec*, os.posix_spawn*, os.spawn* --------------------------------------

    def listing(self, original, index):
        """`original`, logging the program it starts first (not when `subprocess` calls it: logged there)."""
        children = self

        def started(*args, **kwargs):
            if not children.in_subprocess:
                children.listed(original.__name__, args, index)
                if original.__name__ in REPLACING:
                    children.finish()
            return original(*args, **kwargs)

        return functools.update_wrapper(started, original)

    def listed(self, name, args, index):
        try:
            argv = ["/bin/sh", "-c", os.fsdecode(args[0])] if name == "system" else _argv(args[index], False)
            self.write(b'["S",0,%s]' % self.json_list(argv))
        except Exception:  # noqa: BLE001 (a program's odd arguments must not break it)
            pass

    # the log -----------------------------------------------------------------------------

    def write(self, data):
        self.recorder.write(data)

    def json_list(self, items):
        """At most 24 items of at most 200 characters, and ARGV_BYTES in all."""
        from .recorder import json_string

        kept, size = [], 0
        for item in list(items)[:24]:
            text = json_string(str(item)[:200])
            size += len(text) + 1
            if size > ARGV_BYTES:
                break
            kept.append(text)
        return b"[" + b",".join(kept) + b"]"


def _argv(args, shell):
    if isinstance(args, (str, bytes, os.PathLike)):
        args = [args]
    argv = [os.fsdecode(arg) if isinstance(arg, (bytes, os.PathLike)) else str(arg) for arg in args]
    return ["/bin/sh", "-c", *argv] if shell else argv


class _PatchOnImport:
    """A meta-path finder that lets `subprocess` be imported as usual, then patches it (once)."""

    def __init__(self, children):
        self.children = children

    def find_spec(self, name, path=None, target=None):
        if name != "subprocess":
            return None
        sys.meta_path.remove(self)
        import importlib.util

        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        exec_module = spec.loader.exec_module
        children = self.children

        def exec_and_patch(module):
            exec_module(module)
            children.patch(module)

        spec.loader.exec_module = exec_and_patch  # type: ignore[method-assign]
        return spec
