"""The seccomp filter bubblewrap installs on every traced program (`bwrap --seccomp FD`).

Everything is allowed except system calls that reach beyond the program's own processes and
files: mounting and namespaces (the sandbox's walls), tracing other processes, kernel keyrings,
BPF, modules, io_uring, clocks, swap, reboot. A refused call fails with EPERM, as it would for an
unprivileged user, so programs that merely probe (a JVM, Node) carry on. `clone` is refused only
with a new-namespace flag; `clone3` (whose flags seccomp cannot read) says ENOSYS, and the C
library then falls back to `clone`. The filter is compiled by libseccomp (PyPI `pyseccomp`),
which also knows each architecture's numbers and refuses the x32 ABI on x86-64.
"""
from __future__ import annotations

import errno
import os
import tempfile
from functools import cache

REFUSED = (
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig",
    "fsmount", "fspick", "mount_setattr", "unshare", "setns",
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd", "fanotify_init",
    "open_by_handle_at", "name_to_handle_at", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
    "swapon", "swapoff", "reboot", "acct", "quotactl", "syslog", "vhangup", "lookup_dcookie",
    "sethostname", "setdomainname", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
    "iopl", "ioperm", "uselib", "nfsservctl", "_sysctl",
)
NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000,
                   0x00000080)  # CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME


class SeccompUnavailable(Exception):
    """libseccomp (or its Python binding) is missing: the sandbox runs without a filter."""


@cache
def filter_program() -> bytes:
    """The compiled BPF program (raises SeccompUnavailable with the reason)."""
    try:
        import pyseccomp
    except (ImportError, OSError) as error:  # the binding loads libseccomp.so.2 at import
        raise SeccompUnavailable(f"libseccomp is not available ({error}): install the Debian "
                                 "package libseccomp2 and the Python package pyseccomp") from None
    refused = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
    architecture = pyseccomp.system_arch()
    for name in REFUSED:
        try:
            pyseccomp.resolve_syscall(architecture, name)
        except (OSError, ValueError):
            continue  # this architecture has no such call (iopl on arm64)
        refused.add_rule(pyseccomp.ERRNO(errno.EPERM), name)
    for flag in NAMESPACE_FLAGS:
        refused.add_rule(pyseccomp.ERRNO(errno.EPERM), "clone", pyseccomp.Arg(0, pyseccomp.MASKED_EQ, flag, flag))
    refused.add_rule(pyseccomp.ERRNO(errno.ENOSYS), "clone3")
    with tempfile.TemporaryFile() as handle:
        refused.export_bpf(handle)
        handle.seek(0)
        return handle.read()


def filter_fd() -> int:
    """A fresh readable descriptor holding the filter, for `bwrap --seccomp` (the caller closes it)."""
    program = filter_program()
    fd = os.memfd_create("traceeval-seccomp", 0)
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
