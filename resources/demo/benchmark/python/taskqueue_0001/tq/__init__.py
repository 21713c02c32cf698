"""tq: a tiny cooperative task queue."""
from .scheduler import Scheduler
from .tasks import RetryTask, Task
