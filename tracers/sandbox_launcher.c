/* The sandbox's launcher: what a sandboxed run's first process does before anything else runs.

   traceeval-launch -e FD [-j FILE]... [-r RESOURCE SOFT HARD]... [-s SOURCE STAGE]... [-u UID GID] [-d PID] -- ARGV...
   traceeval-launch -e FD [-j FILE]... -w SOCKET

   In this order, the steps `tracers.sandbox_launch.ChildSetup.apply_here` does in Python between fork and exec:
     -j FILE     join a cgroup: write our pid to its cgroup.procs (before anything else, so every
                 process the run starts is counted by the cgroup from its first instruction);
     -r R S H    setrlimit(R, S, H), R one of cpu, data, fsize, core, nproc;
     -s SRC DST  (as root) in a mount namespace of our own, bind SRC onto DST (the staged folders);
     -u UID GID  become UID/GID for good, with no supplementary groups;
     -d PID      SIGKILL when the thread that started us ends, PID being the process that did: set at once
                 and again after -u (which clears it); each time, when our parent is no longer PID it ended
                 before the signal was set, and we stop without running anything;
   then execv(ARGV[0], ARGV). A step that fails writes one line to FD and exits 127 without running
   ARGV; FD is closed on exec, so the parent reads end-of-file exactly when ARGV started.

   With -w (started ahead of its run, `sandbox_launch.Spare`): after joining the cgroups, wait for one
   message on the unix SOCKET holding the rest of the command line as NUL-separated strings, plus
   -C DIR (chdir), -V NAME=VALUE (the environment, given whole) and -F N (the message's Nth descriptor
   becomes descriptor N), with the descriptors attached; then go on as above. The socket closing first
   (the parent gave the run up, or ended) ends the launcher without running anything.
   Joining a cgroup waits for an RCU grace period in the kernel (about 12 ms here, cgroup v1 and v2
   alike), which is why a launcher is started ahead of its run.
   Python's preexec_fn makes subprocess fork the whole (large, threaded) parent; starting this small
   program lets it vfork.

   Inside the sandbox (`sandbox_view`, shown read-only at /traceeval-launch) it is also the step that
   fills the program's own folder before the program starts, as `cp -a SOURCE/. FOLDER` did in a shell:
     -c SOURCE FOLDER  copy SOURCE's files, folders and links into FOLDER, keeping modes and times
                       (FOLDER's own too); a failure prints one line and exits 1;
     -l FD             first, the read end of a pipe only the app that started the run writes to: when it is
                       hung up the app is gone, and nothing is run (bubblewrap binds its sandbox's life to the
                       app's only once its setup is done: an app killed during that setup would leave the
                       sandbox running); then FD is closed. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static int error_fd = -1;

static void fail_with(int status, const char *what, const char *detail) {
    char line[1024];
    int size = snprintf(line, sizeof line, "%s%s%s: %s\n", what, detail ? " " : "", detail ? detail : "",
                        strerror(errno));
    if (size > 0) {  /* the parent's pipe, or stderr where there is none (inside the sandbox) */
        ssize_t ignored = write(error_fd >= 0 ? error_fd : 2, line,
                                (size_t)size < sizeof line ? (size_t)size : sizeof line - 1);
        (void)ignored;
    }
    _exit(status);
}

static void fail(const char *what, const char *detail) { fail_with(127, what, detail); }

static void keep_times(const char *path, const struct stat *info) {
    struct timespec times[2] = {info->st_atim, info->st_mtim};
    if (utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW) != 0) fail_with(1, "copying: times of", path);
}

static void copy_file(const char *from, const char *to, const struct stat *info) {
    static char buffer[65536];
    int in = open(from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (in < 0) fail_with(1, "copying: reading", from);
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (out < 0) fail_with(1, "copying: creating", to);
    ssize_t size;
    while ((size = read(in, buffer, sizeof buffer)) != 0) {
        if (size < 0) {
            if (errno == EINTR) continue;
            fail_with(1, "copying: reading", from);
        }
        for (ssize_t done = 0; done < size;) {
            ssize_t wrote = write(out, buffer + done, (size_t)(size - done));
            if (wrote < 0 && errno != EINTR) fail_with(1, "copying: writing", to);
            done += wrote > 0 ? wrote : 0;
        }
    }
    if (fchmod(out, info->st_mode & 07777) != 0) fail_with(1, "copying: mode of", to);
    close(in);
    if (close(out) != 0) fail_with(1, "copying: writing", to);
    keep_times(to, info);
}

/* `cp -a FROM/. TO` for what a program copy holds (run_folder leaves no FIFOs, devices or sockets). */
static void copy_tree(const char *from, const char *to) {
    DIR *folder = opendir(from);
    if (!folder) fail_with(1, "copying: listing", from);
    struct dirent *entry;
    char source[PATH_MAX], target[PATH_MAX], link[PATH_MAX];
    while ((errno = 0, entry = readdir(folder))) {
        if (!strcmp(entry->d_name, ".") || !strcmp(entry->d_name, "..")) continue;
        if (snprintf(source, sizeof source, "%s/%s", from, entry->d_name) >= (int)sizeof source ||
            snprintf(target, sizeof target, "%s/%s", to, entry->d_name) >= (int)sizeof target) {
            errno = ENAMETOOLONG;
            fail_with(1, "copying", source);
        }
        struct stat info;
        if (lstat(source, &info) != 0) fail_with(1, "copying: reading", source);
        if (S_ISDIR(info.st_mode)) {
            if (mkdir(target, 0700) != 0) fail_with(1, "copying: creating", target);
            copy_tree(source, target);
            if (chmod(target, info.st_mode & 07777) != 0) fail_with(1, "copying: mode of", target);
            keep_times(target, &info);
        } else if (S_ISREG(info.st_mode)) {
            copy_file(source, target, &info);
        } else if (S_ISLNK(info.st_mode)) {
            ssize_t size = readlink(source, link, sizeof link - 1);
            if (size < 0) fail_with(1, "copying: reading", source);
            link[size] = 0;
            if (symlink(link, target) != 0) fail_with(1, "copying: creating", target);
            keep_times(target, &info);
        }
    }
    if (errno) fail_with(1, "copying: listing", from);
    closedir(folder);
}

static void copy_folder(const char *from, const char *to) {
    struct stat info;
    if (stat(from, &info) != 0) fail_with(1, "copying: reading", from);
    copy_tree(from, to);
    if (chmod(to, info.st_mode & 07777) != 0) fail_with(1, "copying: mode of", to);
    keep_times(to, &info);
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

#define MESSAGE_BYTES (256 * 1024)
#define MAX_WORDS 8192
#define MAX_FDS 16

struct plan {
    char *procs[8], *stages[64], *env[MAX_WORDS], *cwd, **argv, *copy_from, *copy_to;
    struct { const char *name; int resource; rlim_t soft, hard; } limits[8];
    int n_procs, n_stages, n_limits, n_env, n_fds, fds[MAX_FDS], switch_to, pdeathsig, socket, lifeline;
    pid_t parent;
    uid_t uid;
    gid_t gid;
};

/* Reads options up to `--` (then argv is what follows) or the end (then argv stays NULL). */
static void parse(struct plan *plan, int argc, char **argv) {
    int i = 0;
    for (; i < argc && strcmp(argv[i], "--"); i++) {
        const char *option = argv[i];
        if (!strcmp(option, "-e") && i + 1 < argc) {
            error_fd = (int)number(argv[++i]);
            if (fcntl(error_fd, F_SETFD, FD_CLOEXEC) != 0) fail("the error descriptor", argv[i]);
        } else if (!strcmp(option, "-j") && i + 1 < argc && plan->n_procs < 8) {
            plan->procs[plan->n_procs++] = argv[++i];
        } else if (!strcmp(option, "-w") && i + 1 < argc) {
            plan->socket = (int)number(argv[++i]);
        } else if (!strcmp(option, "-r") && i + 3 < argc && plan->n_limits < 8) {
            plan->limits[plan->n_limits].name = argv[i + 1];
            plan->limits[plan->n_limits].resource = resource_named(argv[i + 1]);
            plan->limits[plan->n_limits].soft = (rlim_t)number(argv[i + 2]);
            plan->limits[plan->n_limits].hard = (rlim_t)number(argv[i + 3]);
            plan->n_limits++;
            i += 3;
        } else if (!strcmp(option, "-s") && i + 2 < argc && plan->n_stages < 32) {
            plan->stages[2 * plan->n_stages] = argv[i + 1];
            plan->stages[2 * plan->n_stages + 1] = argv[i + 2];
            plan->n_stages++;
            i += 2;
        } else if (!strcmp(option, "-u") && i + 2 < argc) {
            plan->uid = (uid_t)number(argv[i + 1]);
            plan->gid = (gid_t)number(argv[i + 2]);
            plan->switch_to = 1;
            i += 2;
        } else if (!strcmp(option, "-d") && i + 1 < argc) {
            plan->parent = (pid_t)number(argv[++i]);
            plan->pdeathsig = 1;
        } else if (!strcmp(option, "-l") && i + 1 < argc) {
            plan->lifeline = (int)number(argv[++i]);
        } else if (!strcmp(option, "-c") && i + 2 < argc) {
            plan->copy_from = argv[i + 1];
            plan->copy_to = argv[i + 2];
            i += 2;
        } else if (!strcmp(option, "-C") && i + 1 < argc) {
            plan->cwd = argv[++i];
        } else if (!strcmp(option, "-V") && i + 1 < argc && plan->n_env < MAX_WORDS - 1) {
            plan->env[plan->n_env++] = argv[++i];
        } else if (!strcmp(option, "-F") && i + 1 < argc && plan->n_fds < MAX_FDS) {
            plan->fds[plan->n_fds++] = (int)number(argv[++i]);
        } else {
            usage(option);
        }
    }
    if (i + 1 < argc) plan->argv = argv + i + 1;
}

/* The -w message: its words, parsed into `plan`, and its descriptors moved to the numbers -F names. */
static void receive(struct plan *plan) {
    static char message[MESSAGE_BYTES + 1];
    static char *words[MAX_WORDS + 1];
    union { char buffer[CMSG_SPACE(sizeof(int) * MAX_FDS)]; struct cmsghdr align; } control;
    struct iovec part = {message, MESSAGE_BYTES};
    struct msghdr header = {.msg_iov = &part, .msg_iovlen = 1, .msg_control = control.buffer,
                            .msg_controllen = sizeof control.buffer};
    ssize_t size = recvmsg(plan->socket, &header, MSG_CMSG_CLOEXEC);
    if (size <= 0) _exit(0);  /* given up: nothing ran */
    if (header.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) { errno = EMSGSIZE; fail("the run's message", NULL); }
    close(plan->socket);
    message[size] = 0;
    int n_words = 0;
    for (char *word = message; word < message + size && n_words < MAX_WORDS; word += strlen(word) + 1)
        words[n_words++] = word;
    words[n_words] = NULL;
    int received[MAX_FDS], n_received = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&header); c; c = CMSG_NXTHDR(&header, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
            for (size_t k = 0; k < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int) && n_received < MAX_FDS; k++)
                memcpy(&received[n_received++], CMSG_DATA(c) + k * sizeof(int), sizeof(int));
    parse(plan, n_words, words);
    if (!plan->argv) usage("nothing to run (no -- ARGV in the message)");
    if (n_received != plan->n_fds) { errno = EINVAL; fail("the run's descriptors", NULL); }
    int above = error_fd;  /* first lift every descriptor above the targets, then put each in place */
    for (int k = 0; k < plan->n_fds; k++) above = plan->fds[k] > above ? plan->fds[k] : above;
    int lifted = fcntl(error_fd, F_DUPFD_CLOEXEC, above + 1);
    if (lifted < 0) fail("the error descriptor", NULL);
    close(error_fd);
    error_fd = lifted;
    for (int k = 0; k < n_received; k++) {
        int high = fcntl(received[k], F_DUPFD_CLOEXEC, above + 1);
        if (high < 0) fail("the run's descriptors", NULL);
        close(received[k]);
        received[k] = high;
    }
    for (int k = 0; k < n_received; k++) {
        if (dup2(received[k], plan->fds[k]) < 0) fail("the run's descriptors", NULL);
        close(received[k]);
    }
}

/* -d: die with the thread that started us; if our parent is gone already, it died before we could. */
static void die_with_parent(const struct plan *plan) {
    if (!plan->pdeathsig) return;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) fail("prctl(PR_SET_PDEATHSIG)", NULL);
    if (getppid() != plan->parent) _exit(127);  /* (no one is left to read a message) */
}

int main(int argc, char **argv) {
    static struct plan plan = {.socket = -1, .lifeline = -1};
    parse(&plan, argc - 1, argv + 1);
    die_with_parent(&plan);
    for (int k = 0; k < plan.n_procs; k++) join_cgroup(plan.procs[k]);
    if (plan.socket >= 0) {
        receive(&plan);
        die_with_parent(&plan);
    }
    if (!plan.argv) usage("nothing to run (no -- ARGV)");
    if (plan.cwd && chdir(plan.cwd) != 0) fail("chdir", plan.cwd);  /* as subprocess does: before the rest */
    for (int k = 0; k < plan.n_limits; k++) {
        struct rlimit limit = {plan.limits[k].soft, plan.limits[k].hard};
        if (setrlimit(plan.limits[k].resource, &limit) != 0) fail("setrlimit", plan.limits[k].name);
    }
    stage(plan.stages, plan.n_stages);
    if (plan.switch_to) {
        if (setgroups(0, NULL) != 0) fail("setgroups", NULL);
        if (setresgid(plan.gid, plan.gid, plan.gid) != 0) fail("setresgid", NULL);
        if (setresuid(plan.uid, plan.uid, plan.uid) != 0) fail("setresuid", NULL);
    }
    die_with_parent(&plan);  /* again: changing our ids cleared it */
    if (plan.lifeline >= 0) {
        struct pollfd line = {.fd = plan.lifeline, .events = POLLIN};
        if (poll(&line, 1, 0) != 0) _exit(1);  /* hung up (or written to, which the app never does): gone */
        close(plan.lifeline);
    }
    if (plan.copy_from) copy_folder(plan.copy_from, plan.copy_to);
    if (plan.n_env) {
        plan.env[plan.n_env] = NULL;
        execve(plan.argv[0], plan.argv, plan.env);
    } else {
        execvp(plan.argv[0], plan.argv);  /* (inside the sandbox a tracer may name its program by PATH) */
    }
    fail("exec", plan.argv[0]);
    return 127;
}
