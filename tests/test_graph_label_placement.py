"""Label placement: no label over another or over a node; the selection first, then its neighbours."""
import numpy as np

from traceeval_gui.item_models.graph_scene import label_order, place_labels


def _boxes(anchors, widths, height, radius, kept, below):
    out = []
    for i, under in zip(kept.tolist(), below.tolist()):
        x, y = anchors[i]
        top = y + radius if under else y - radius - height
        out.append((x - widths[i] / 2, top, x + widths[i] / 2, top + height))
    return out


def test_kept_labels_never_overlap_and_never_cover_a_node():
    rng = np.random.default_rng(4)
    anchors = rng.uniform(0, 600, size=(300, 2))
    widths = rng.uniform(30, 140, size=300)
    order = np.arange(300)
    kept, below = place_labels(anchors, widths, 14.0, order, 150, dots=np.arange(300), radius=6.0)
    assert 10 < len(kept) <= 150
    boxes = _boxes(anchors, widths, 14.0, 6.0, kept, below)
    for i, a in enumerate(boxes):
        for b in boxes[:i]:
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3])
    for (x0, y0, x1, y1), owner in zip(boxes, kept.tolist()):
        inside = (anchors[:, 0] > x0 - 6) & (anchors[:, 0] < x1 + 6) & (anchors[:, 1] > y0 - 6) & \
            (anchors[:, 1] < y1 + 6)
        assert set(np.flatnonzero(inside).tolist()) <= {owner}


def test_a_label_goes_below_its_node_when_the_room_above_is_taken():
    anchors = np.array([[100.0, 100.0], [100.0, 114.0]])  # two nodes of a layer, 14 pixels apart
    dots = np.arange(2)
    kept, below = place_labels(anchors, np.array([60.0, 60.0]), 12.0, np.array([1, 0]), 10, dots=dots, radius=4.0)
    assert kept.tolist() == [1, 0] and below.tolist() == [True, False]  # above 1 would cover node 0


def test_the_selection_is_kept_whatever_it_overlaps_and_its_neighbours_come_next():
    anchors = np.array([[100.0, 100.0], [110.0, 100.0], [120.0, 100.0], [400.0, 400.0]])
    degree = np.array([1.0, 9.0, 5.0, 0.0])
    order = label_order(np.arange(4), pinned=[0], near=[2], degree=degree)
    assert order.tolist() == [0, 2, 1, 3]
    kept, _ = place_labels(anchors, np.full(4, 80.0), 14.0, order, 10, always=1, radius=6.0)
    assert kept[0] == 0 and 3 in kept.tolist()
    assert not ({1, 2} <= set(kept.tolist()))  # the two next to it cannot both fit beside it
