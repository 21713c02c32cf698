"""taskqueue: run a handful of prioritised jobs, retrying the flaky ones."""
import sys

sys.dont_write_bytecode = True  # keep the demo folder clean when run in place

from tq import RetryTask, Scheduler, Task


def make_flaky(fail_times):
    state = {"left": fail_times}

    def flaky(name):
        if state["left"] > 0:
            state["left"] -= 1
            raise RuntimeError(f"{name} hiccup")
        return f"{name} ok after retry"

    return flaky


def upper_action(name):
    return name.upper()


def broken(name):
    raise RuntimeError(f"{name} is broken")


def main():
    sched = Scheduler()
    summary = []

    def record_failure(task, exc):
        summary.append((task.name, f"FAILED: {exc}"))

    sched.on("done", lambda task, result: summary.append((task.describe(), result)))
    sched.on("failed", record_failure)

    sched.submit(Task("backup", 2, upper_action))
    sched.submit(RetryTask("sync", 1, make_flaky(2), retries=3))
    sched.submit(Task("report", 3, lambda name: name[::-1]))
    sched.submit(RetryTask("deploy", 1, broken, retries=1))

    sched.run_all()
    for name, outcome in sorted(summary, key=lambda pair: pair[0]):
        print(f"{name:<14} {outcome}")


if __name__ == "__main__":
    main()
