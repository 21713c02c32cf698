"""The scheduler: a heap of tasks plus done/failed listeners."""
import heapq


class Scheduler:
    def __init__(self):
        self.queue = []
        self.listeners = {"done": [], "failed": []}
        self.finished = 0

    def on(self, event, callback):
        self.listeners[event].append(callback)
        return callback

    def emit(self, event, *args):
        for callback in self.listeners[event]:
            callback(*args)

    def submit(self, task):
        heapq.heappush(self.queue, task)

    def run_all(self):
        while self.queue:
            task = heapq.heappop(self.queue)
            try:
                result = task.run()
            except RuntimeError as exc:
                self.emit("failed", task, exc)
            else:
                self.emit("done", task, result)
            self.finished += 1
        return self.finished

    def pending(self):
        return [task.describe() for task in self.queue]
