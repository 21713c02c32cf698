"""Reliability: SIGKILL the workbench in the middle of an audit; every verdict given is still there."""
import os
import signal
import subprocess
import sys
from pathlib import Path

from core.audit.sampling import create_audit
from core.audit.store import AuditStore
from core.dataset.indexing import open_dataset
from core.dataset.workspace import Workspace
from core.verdicts import LABELS
from resources import DEMO_DATASET

CHILD = Path(__file__).with_name("audit_kill_child.py")
ROOT = CHILD.parents[2]
KEY_LABELS = ("correct", "wrong", "unsure", "correct", "wrong", "unsure")  # what the child's keys mean


def test_sigkill_mid_audit_loses_no_verdict(tmp_path):
    path = tmp_path / "audit.sqlite"
    ws, _ = open_dataset(DEMO_DATASET, path)
    with ws:
        create_audit(ws, "spot", size=100, seed=5)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, str(CHILD), str(DEMO_DATASET), str(path), "spot", "ann"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    given = 0
    try:
        for line in child.stdout:
            if line.startswith("judged "):
                given = int(line.split()[1])
                if given == 37:
                    child.send_signal(signal.SIGKILL)  # no clean-up of any kind: the process just stops
                    break
    finally:
        child.kill()
        child.wait(timeout=30)
    assert given == 37, child.stderr.read()[-3000:]
    assert child.returncode == -signal.SIGKILL

    with Workspace(path) as reopened:
        assert reopened.db.execute("pragma integrity_check").fetchone()[0] == "ok"
        store = AuditStore(reopened)
        items = store.items("spot")
        current = store.current_verdicts("spot", "ann")
        # the keys were pressed in item order and each verdict moved on to the next unjudged item
        judged = [item for item in items if ("ann", item.ref) in current]
        assert len(judged) >= given  # the child may have given one more between printing and dying
        assert judged == items[:len(judged)]
        for number, item in enumerate(judged[:given], 1):
            assert current[("ann", item.ref)].label == KEY_LABELS[(number - 1) % len(KEY_LABELS)]
        assert {v.label for v in current.values()} <= set(LABELS)
