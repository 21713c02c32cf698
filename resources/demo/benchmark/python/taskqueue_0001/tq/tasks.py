"""Task types."""


class Task:
    def __init__(self, name, priority, action):
        self.name = name
        self.priority = priority
        self.action = action
        self.attempts = 0

    def __lt__(self, other):
        return (self.priority, self.name) < (other.priority, other.name)

    def run(self):
        self.attempts += 1
        return self.action(self.name)

    def describe(self):
        return f"{self.name} (p{self.priority})"


class RetryTask(Task):
    def __init__(self, name, priority, action, retries):
        super().__init__(name, priority, action)
        self.retries = retries

    def run(self):
        try:
            return super().run()
        except RuntimeError:
            if self.attempts <= self.retries:
                return self.run()
            raise
