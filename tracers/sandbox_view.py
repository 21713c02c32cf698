"""What a sandboxed program sees: bubblewrap's options for one run, and who it runs as.

The file system is built up from nothing: the system folders (`/usr` and its `/bin`, `/lib`
links) and the toolchain folders the tracer names (an interpreter's prefix, a JDK, our runtime
files) read-only; a short list of `/etc` entries runtimes read; a fresh `/proc` and `/dev`; private
size-limited tmpfs at `/tmp` and `/dev/shm`; the program's own folder, a size-limited tmpfs that
the program copy is copied into before the program starts. Nothing else is writable: the root and
`/dev` (tmpfs bubblewrap makes, of no size of their own) are made read-only once built. Home
folders, `/root`, `/run`, `/var`, `/sys`, the workspace, the dataset and our credentials are simply
not there.

Every namespace is new (network: none; PID; IPC, so no host abstract sockets or shared memory),
the user namespace maps the program's id to an unprivileged one and cannot be nested, every
capability is dropped and the seccomp filter (`seccomp_filter`) refuses the calls that could
undo any of it. As root, the sandbox is started as the `nobody` user, so even an escape would
hold no privilege; toolchain folders that user cannot reach (a Python under /root/.pyenv) are
first bound, in a mount namespace of the starting process alone, to a folder it can reach.
"""
from __future__ import annotations

import ctypes
import os
import pwd
import signal
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

SOURCE = "/traceeval-source"  # where the program copy is shown, read-only, to the copying step
COPIER = "/traceeval-launch"  # where the sandbox launcher is shown, read-only, to copy it (sandbox_launch)
SYSTEM_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
ETC_ENTRIES = ("alternatives", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone",
               "passwd", "group", "nsswitch.conf", "ssl", "mime.types", "fonts")
ETC_PATTERNS = ("java*", "python3*")
# Folders that are never shown whole, even when a toolchain seems to live there.
NEVER_WHOLE = ("/", "/root", "/home", "/tmp", "/var", "/run", "/etc", "/opt", "/srv", "/mnt", "/media")


@dataclass(frozen=True)
class Identity:
    """Who runs the sandbox: ourselves, or `nobody` when we are root."""

    uid: int
    gid: int

    @property
    def switches(self) -> bool:
        return self.uid != os.getuid()


@cache
def sandbox_identity() -> Identity:
    if os.getuid() != 0:
        return Identity(os.getuid(), os.getgid())
    try:
        entry = pwd.getpwnam("nobody")
        return Identity(entry.pw_uid, entry.pw_gid)
    except KeyError:
        return Identity(65534, 65534)


def install_root(executable: str | Path) -> list[Path]:
    """The folders an executable needs shown: its install prefix (a virtualenv's too) and the
    prefix of the file it resolves to; never a home or other shared folder as a whole."""
    path = Path(os.path.abspath(executable))
    roots = []
    for candidate in (path, Path(os.path.realpath(path))):
        prefix = candidate.parent.parent if candidate.parent.name == "bin" else candidate.parent
        if str(prefix) in NEVER_WHOLE or _is_home(prefix):
            prefix = candidate.parent
        roots.append(prefix)
    return roots


def _is_home(folder: Path) -> bool:
    return folder in _home_folders()


@cache
def _home_folders() -> frozenset[Path]:
    try:
        return frozenset(Path(entry.pw_dir) for entry in pwd.getpwall())
    except OSError:
        return frozenset()


@dataclass(frozen=True)
class View:
    options: list[str]  # bubblewrap's options, up to (not including) `--`
    launcher: list[str]  # prepended to argv: copy the program into its folder, then exec
    staged: list[tuple[str, str]]  # (host folder, staging folder) to bind before dropping to `nobody`


def build_view(program: Path, read_only: Sequence[Path], *, identity: Identity, stage_folder: Path,
               tmp_bytes: int, shm_bytes: int, program_bytes: int, seccomp_fd: int | None,
               copier: str | None = None, shown: Sequence[tuple[Path, str]] = (), lifeline: int | None = None) -> View:
    """`copier`, the built sandbox launcher, copies the program into its folder (`-c`); else `cp -a` in a shell.
    `shown` are (host path, place) shown read-only at a place of their own (the run's trace log). `lifeline`, an
    inherited pipe only the app writes to, is checked by the copier before the program starts (`-l`)."""
    options = ["--unshare-all", "--unshare-user", "--disable-userns", "--uid", str(identity.uid),
               "--gid", str(identity.gid), "--cap-drop", "ALL", "--die-with-parent", "--new-session",
               "--hostname", "traceeval", "--ro-bind", "/usr", "/usr"]
    for name in SYSTEM_LINKS:
        host = Path("/") / name
        if host.is_symlink():
            options += ["--symlink", os.readlink(host), str(host)]
        elif host.is_dir():
            options += ["--ro-bind", str(host), str(host)]
    for entry in _etc_entries():
        options += ["--ro-bind", str(entry), str(entry)]
    options += ["--proc", "/proc", "--dev", "/dev", "--size", str(tmp_bytes), "--tmpfs", "/tmp",
                "--size", str(shm_bytes), "--tmpfs", "/dev/shm"]
    staged: list[tuple[str, str]] = []

    def reachable(path: Path) -> str:
        """`path`, or the stage it is mounted on before the identity drop when `nobody` cannot reach it."""
        if not identity.switches or reachable_by_others(path):
            return str(path)
        stage = stage_folder / str(len(staged))
        stage_folder.mkdir(exist_ok=True)
        if path.is_dir():
            stage.mkdir()
        else:
            stage.touch()
        staged.append((str(path), str(stage)))
        return str(stage)

    for folder in _outermost(read_only):
        options += ["--ro-bind", reachable(folder), str(folder)]
    if copier is not None:  # installed where nobody cannot reach it (a root-only folder): staged too
        options += ["--ro-bind", reachable(Path(copier)), COPIER]
    for host, place in shown:
        options += ["--ro-bind", str(host), place]
    options += ["--ro-bind", str(program), SOURCE, "--size", str(program_bytes), "--tmpfs", str(program),
                "--chdir", str(program)]
    options += ["--remount-ro", "/dev", "--remount-ro", "/"]  # (bubblewrap's own tmpfs: no size limit of their own)
    if seccomp_fd is not None:
        options += ["--seccomp", str(seccomp_fd)]
    if copier is not None:
        line = ["-l", str(lifeline)] if lifeline is not None else []
        launcher = [COPIER, *line, "-c", SOURCE, str(program), "--"]
    else:
        launcher = ["/bin/sh", "-c", 'cp -a "$0"/. "$1" && shift && exec "$@"', SOURCE, str(program)]
    return View(options, launcher, staged)


@cache
def _etc_entries() -> tuple[Path, ...]:
    etc = Path("/etc")
    found = [etc / name for name in ETC_ENTRIES if (etc / name).exists()]
    for pattern in ETC_PATTERNS:
        found += sorted(etc.glob(pattern))
    return tuple(found)


def _outermost(folders: Sequence[Path]) -> list[Path]:
    """Existing folders/files not under /usr and not inside another one of the list."""
    usr = Path("/usr")
    paths = sorted({Path(os.path.abspath(f)) for f in folders if os.path.exists(f)})
    paths = [p for p in paths if p != usr and not p.is_relative_to(usr)]
    return [p for p in paths if not any(p != other and p.is_relative_to(other) for other in paths)]


def reachable_by_others(path: Path) -> bool:
    """Whether a user who owns nothing can read `path` (every folder above it searchable)."""
    try:
        for folder in [*reversed(path.parents), path]:
            mode = os.stat(folder).st_mode
            if stat.S_ISDIR(mode) and not mode & stat.S_IXOTH:
                return False
        return bool(os.stat(path).st_mode & stat.S_IROTH)
    except OSError:
        return False


_CLONE_NEWNS = 0x00020000
_PR_SET_PDEATHSIG = 1
_MS_BIND, _MS_REC, _MS_PRIVATE = 0x1000, 0x4000, 0x40000
_libc = ctypes.CDLL(None, use_errno=True)


def enter_staged(staged: Sequence[tuple[str, str]]) -> None:
    """Between fork and exec (as root): a mount namespace of our own, where each staged host
    folder is bound to its staging folder; the host's mounts are untouched."""
    if not staged:
        return
    if _libc.unshare(_CLONE_NEWNS) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNS)")
    if _libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
        raise OSError(ctypes.get_errno(), "making mounts private")
    for source, stage in staged:
        if _libc.mount(source.encode(), stage.encode(), None, _MS_BIND | _MS_REC, None) != 0:
            raise OSError(ctypes.get_errno(), f"binding {source}")


def die_with_parent(parent: int) -> None:
    """Between fork and exec, after `drop_to` (which clears it): SIGKILL when the thread that
    started us ends, so an app killed mid-run takes bubblewrap, and so the program, with it. When
    `parent` (the app) is gone already, it ended before the signal was set: stop here."""
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(127)


def drop_to(identity: Identity) -> None:
    """Between fork and exec: become `identity` for good (no supplementary groups)."""
    if not identity.switches:
        return
    os.setgroups([])
    os.setresgid(identity.gid, identity.gid, identity.gid)
    os.setresuid(identity.uid, identity.uid, identity.uid)
