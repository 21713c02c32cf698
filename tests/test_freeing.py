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
    assert ticks_during(lambda: free_gradually(big)), "the ticking thread never ran while the mapping was freed"
    assert big == {}


def test_a_large_list_or_dict_inside_a_container_is_emptied_item_by_item_too():
    """One model's answers are one value of a dict: dropping that value frees them all in one C call, which
    holds the GIL as long as freeing the dict did. Held here so that it outlives the call: it was emptied."""
    answers, index = [object() for _ in range(1_000)], {n: [n] for n in range(1_000)}
    small = [1, 2, 3]
    free_gradually({"model": answers, "index": index, "small": small})
    assert answers == [] and index == {}
    assert small == [1, 2, 3]  # a small item is simply dropped


def ticks_during(work) -> bool:
    """Whether a thread ticking every millisecond ticked while `work` ran (or `work` was too quick to tell)."""
    ticks, stop = [], threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    ticker = threading.Thread(target=tick)
    ticker.start()
    time.sleep(0.02)
    started = time.perf_counter()
    work()
    ended = time.perf_counter()
    stop.set()
    ticker.join()
    return ended - started < 0.03 or any(started < t < ended for t in ticks)
