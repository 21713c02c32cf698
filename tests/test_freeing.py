import threading
import time

from core.freeing import free_gradually


def test_containers_are_emptied_and_their_items_freed():
    class Item:
        freed = 0

        def __del__(self):
            Item.freed += 1

    mapping = {n: [Item()] for n in range(100)}
    items = [Item() for _ in range(50)]
    free_gradually(mapping, items)
    assert mapping == {} and items == [] and Item.freed == 150


def test_another_thread_runs_while_a_large_structure_is_freed():
    """Between items the GIL can change hands: a ticking thread keeps ticking."""
    big = {n: frozenset((f"a{n}.{i}", f"b{n}.{i}") for i in range(20)) for n in range(100_000)}
    ticks, stop = [], threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    ticker = threading.Thread(target=tick)
    ticker.start()
    time.sleep(0.02)
    started = time.perf_counter()
    free_gradually(big)
    ended = time.perf_counter()
    stop.set()
    ticker.join()
    during = [t for t in ticks if started < t < ended]
    assert big == {}
    assert ended - started < 0.03 or during, "the ticking thread never ran while the mapping was freed"
