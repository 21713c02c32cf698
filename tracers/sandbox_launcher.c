/* The sandbox's launcher: what a sandboxed run's first process does before anything else runs.

   traceeval-launch -e FD [-j FILE]... [-r RESOURCE SOFT HARD]... [-s SOURCE STAGE]... [-u UID GID] [-d] -- ARGV...

   In this order, the steps `tracers.sandbox._prepare_child` does in Python between fork and exec:
     -j FILE     join a cgroup: write our pid to its cgroup.procs (before anything else, so every
                 process the run starts is counted by the cgroup from its first instruction);
     -r R S H    setrlimit(R, S, H), R one of cpu, data, fsize, core, nproc;
     -s SRC DST  (as root) in a mount namespace of our own, bind SRC onto DST (the staged folders);
     -u UID GID  become UID/GID for good, with no supplementary groups;
     -d          SIGKILL when the thread that started us ends (after -u, which clears it);
   then execv(ARGV[0], ARGV). A step that fails writes one line to FD and exits 127 without running
   ARGV; FD is closed on exec, so the parent reads end-of-file exactly when ARGV started.
   Python's preexec_fn makes subprocess fork the whole (large, threaded) parent; starting this small
   program lets it vfork, and is how `tracers.sandbox` starts every run when the launcher is built. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

static int error_fd = -1;

static void fail(const char *what, const char *detail) {
    char line[1024];
    int size = snprintf(line, sizeof line, "%s%s%s: %s\n", what, detail ? " " : "", detail ? detail : "",
                        strerror(errno));
    if (error_fd >= 0 && size > 0) {
        ssize_t ignored = write(error_fd, line, (size_t)size < sizeof line ? (size_t)size : sizeof line - 1);
        (void)ignored;
    }
    _exit(127);
}

static void usage(const char *problem) {
    errno = EINVAL;
    fail("bad arguments:", problem);
}

static long long number(const char *text) {
    char *end;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (errno || end == text || *end) usage(text);
    return value;
}

static int resource_named(const char *name) {
    if (!strcmp(name, "cpu")) return RLIMIT_CPU;
    if (!strcmp(name, "data")) return RLIMIT_DATA;
    if (!strcmp(name, "fsize")) return RLIMIT_FSIZE;
    if (!strcmp(name, "core")) return RLIMIT_CORE;
    if (!strcmp(name, "nproc")) return RLIMIT_NPROC;
    usage(name);
    return -1;
}

static void join_cgroup(const char *procs) {
    char pid[32];
    int size = snprintf(pid, sizeof pid, "%d", (int)getpid());
    int fd = open(procs, O_WRONLY | O_CLOEXEC);
    if (fd < 0) fail("joining the cgroup", procs);
    if (write(fd, pid, (size_t)size) != size) fail("joining the cgroup", procs);
    if (close(fd) != 0) fail("joining the cgroup", procs);
}

static void stage(char **pairs, int count) {
    if (count == 0) return;
    if (unshare(CLONE_NEWNS) != 0) fail("unshare(CLONE_NEWNS)", NULL);
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) fail("making mounts private", NULL);
    for (int i = 0; i < count; i++)
        if (mount(pairs[2 * i], pairs[2 * i + 1], NULL, MS_BIND | MS_REC, NULL) != 0) fail("binding", pairs[2 * i]);
}

int main(int argc, char **argv) {
    char *procs[8], *stages[64];
    struct { const char *name; int resource; rlim_t soft, hard; } limits[8];
    int n_procs = 0, n_stages = 0, n_limits = 0, switch_to = 0, pdeathsig = 0;
    uid_t uid = 0;
    gid_t gid = 0;
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--"); i++) {
        const char *option = argv[i];
        if (!strcmp(option, "-e") && i + 1 < argc) {
            error_fd = (int)number(argv[++i]);
            if (fcntl(error_fd, F_SETFD, FD_CLOEXEC) != 0) fail("the error descriptor", argv[i]);
        } else if (!strcmp(option, "-j") && i + 1 < argc && n_procs < 8) {
            procs[n_procs++] = argv[++i];
        } else if (!strcmp(option, "-r") && i + 3 < argc && n_limits < 8) {
            limits[n_limits].name = argv[i + 1];
            limits[n_limits].resource = resource_named(argv[i + 1]);
            limits[n_limits].soft = (rlim_t)number(argv[i + 2]);
            limits[n_limits].hard = (rlim_t)number(argv[i + 3]);
            n_limits++;
            i += 3;
        } else if (!strcmp(option, "-s") && i + 2 < argc && n_stages < 32) {
            stages[2 * n_stages] = argv[i + 1];
            stages[2 * n_stages + 1] = argv[i + 2];
            n_stages++;
            i += 2;
        } else if (!strcmp(option, "-u") && i + 2 < argc) {
            uid = (uid_t)number(argv[i + 1]);
            gid = (gid_t)number(argv[i + 2]);
            switch_to = 1;
            i += 2;
        } else if (!strcmp(option, "-d")) {
            pdeathsig = 1;
        } else {
            usage(option);
        }
    }
    if (i + 1 >= argc) usage("nothing to run (no -- ARGV)");
    for (int k = 0; k < n_procs; k++) join_cgroup(procs[k]);
    for (int k = 0; k < n_limits; k++) {
        struct rlimit limit = {limits[k].soft, limits[k].hard};
        if (setrlimit(limits[k].resource, &limit) != 0) fail("setrlimit", limits[k].name);
    }
    stage(stages, n_stages);
    if (switch_to) {
        if (setgroups(0, NULL) != 0) fail("setgroups", NULL);
        if (setresgid(gid, gid, gid) != 0) fail("setresgid", NULL);
        if (setresuid(uid, uid, uid) != 0) fail("setresuid", NULL);
    }
    if (pdeathsig && prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) fail("prctl(PR_SET_PDEATHSIG)", NULL);
    execv(argv[i + 1], argv + i + 1);
    fail("exec", argv[i + 1]);
    return 127;
}
