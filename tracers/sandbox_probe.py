"""The probe program `traceeval doctor` runs inside the sandbox: it tries what an attacker would
and prints, one JSON line each, `[property, held, detail]`. Standard library only; it runs under
the interpreter that runs traced Python programs.

argv[1] is a JSON object: `hidden` (host paths that must not be there), `shown` (the toolchain
folders shown read-only, which may lie under them), `abstract_socket` and
`unix_socket` (host sockets listening), `tcp_port` (a host port listening on 127.0.0.1),
`tmp_mb` (the size of the private /tmp), `processes` (the task budget).
"""
import ctypes
import errno
import json
import os
import socket
import sys
import time

libc = ctypes.CDLL(None, use_errno=True)
HOST_LOOK_S = 1.0


def report(name, held, detail):
    print(json.dumps([name, bool(held), detail]), flush=True)


def refused(call, *args):
    """(refused, errno name) for a libc call expected to fail."""
    result = getattr(libc, call)(*args)
    error = ctypes.get_errno()
    return result != 0, errno.errorcode.get(error, str(error))


def status_field(name):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(name + ":"):
                return line.split(":", 1)[1].strip()
    return ""


def capabilities():
    effective, bounding = status_field("CapEff"), status_field("CapBnd")
    held = int(effective, 16) == 0 and int(bounding, 16) == 0
    report("no capabilities", held, f"effective {effective}, bounding {bounding}")


def remount():
    ms_remount, ms_bind = 0x20, 0x1000
    refused_remount, why = refused("mount", None, b"/", None, ms_remount | ms_bind, None)
    refused_tmpfs, why_tmpfs = refused("mount", b"none", b"/usr", b"tmpfs", 0, None)
    try:
        open("/usr/traceeval-probe", "w").close()
        written = True
    except OSError:
        written = False
    report("cannot remount or write the host", refused_remount and refused_tmpfs and not written,
           f"remount: {why}, mount tmpfs: {why_tmpfs}, write /usr: {'written' if written else 'refused'}")


def filter_and_privileges():
    unshare_refused, why = refused("unshare", 0x10000000)  # CLONE_NEWUSER
    ptrace_refused, why_ptrace = refused("ptrace", 16, 1, None, None)  # PTRACE_ATTACH to pid 1
    mode, no_new = status_field("Seccomp"), status_field("NoNewPrivs")
    report("seccomp filter", mode == "2" and unshare_refused and ptrace_refused,
           f"Seccomp mode {mode}, unshare: {why}, ptrace: {why_ptrace}")
    report("no new privileges", no_new == "1", f"NoNewPrivs {no_new}")


def exposed(path, shown):
    """What of `path` is there beyond the way down to the toolchain folders shown read-only
    (bubblewrap makes the folders above a mount point, empty but for it)."""
    if not os.path.lexists(path):
        return []
    if path in shown or not any(folder.startswith(path.rstrip("/") + "/") for folder in shown):
        return [] if path in shown else [path]
    found = []
    for entry in os.listdir(path):
        found += exposed(os.path.join(path, entry), shown)
    return found


def hidden(paths, shown):
    visible = [item for path in paths for item in exposed(path, shown)]
    report("host folders not there", not visible,
           "visible: " + ", ".join(visible[:5]) if visible else
           f"none of {', '.join(paths)} is there (only the way down to the toolchain)")


def sockets(spec):
    reached = []
    attempts = [(socket.AF_UNIX, "\0" + spec["abstract_socket"], "abstract unix socket"),
                (socket.AF_UNIX, spec["unix_socket"], "unix socket file"),
                (socket.AF_INET, ("127.0.0.1", spec["tcp_port"]), "127.0.0.1 port")]
    for family, address, label in attempts:
        with socket.socket(family, socket.SOCK_STREAM) as client:
            client.settimeout(2)
            try:
                client.connect(address)
                reached.append(label)
            except OSError:
                pass
    report("host sockets and network unreachable", not reached,
           "reached: " + ", ".join(reached) if reached else "abstract socket, socket file and localhost refused")


def tmp_space(size_mb):
    written = 0
    block = b"\0" * (1 << 20)
    try:
        with open("/tmp/fill", "wb") as handle:
            while written < (size_mb + 64) * (1 << 20):
                handle.write(block)
                written += len(block)
            handle.flush()
    except OSError as error:
        report("/tmp is size-limited", True, f"stopped after {written >> 20} MiB: {error.strerror}")
        return
    finally:
        if os.path.exists("/tmp/fill"):
            os.unlink("/tmp/fill")
    report("/tmp is size-limited", False, f"wrote {written >> 20} MiB into a {size_mb} MiB /tmp")


def tasks(budget):
    children = []
    try:
        for _ in range(budget + 16):
            pid = os.fork()
            if pid == 0:
                os.pause() if hasattr(os, "pause") else None
                os._exit(0)
            children.append(pid)
        held, detail = False, f"started {len(children)} processes over a budget of {budget}"
    except OSError as error:
        held, detail = True, f"refused after {len(children)} processes: {error.strerror}"
    for pid in children:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    escape = os.path.exists("/sys/fs/cgroup")
    where = "there to move out of it" if escape else "not there to leave its cgroup"
    report("process limit", held and not escape, f"{detail}; /sys/fs/cgroup is {where}")


def main():
    spec = json.loads(sys.argv[1])
    time.sleep(HOST_LOOK_S)  # the doctor reads, from the host, which user id this process runs as
    capabilities()
    remount()
    filter_and_privileges()
    hidden(spec["hidden"], spec["shown"])
    sockets(spec)
    tmp_space(spec["tmp_mb"])
    tasks(spec["processes"])


if __name__ == "__main__":
    main()
