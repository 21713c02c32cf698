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


def test_a_large_list_inside_a_container_is_freed_gradually_too():
    """One model's answers are one value of a dict: freeing that value in one go held the GIL just as long."""
    nested = {"model": [frozenset((f"a{i}", f"b{i}")) for i in range(2_000_000)]}
    ticks, stop = [], threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    ticker = threading.Thread(target=tick)
    ticker.start()
    time.sleep(0.02)
    started = time.perf_counter()
    free_gradually(nested)
    ended = time.perf_counter()
    stop.set()
    ticker.join()
    during = [t for t in ticks if started < t < ended]
    assert nested == {}
    assert ended - started < 0.03 or during, "the ticking thread never ran while the nested list was freed"
