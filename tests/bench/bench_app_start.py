"""Start-up of the packaged app against the installed package: the whole process of
`traceeval-gui --screenshot` on the demo (interpreter start, imports, window, dataset, first paint,
PNG) and of `traceeval --version`, median of several runs each, off screen.

    python tests/bench/bench_app_start.py [APP_FOLDER]

APP_FOLDER is a built `traceeval-studio/` folder; without it the app is built first with
`packaging/build-app.sh --python <this interpreter>` into a temporary folder (about 90 s), which is
timed too, as are the folder's and the tarball's sizes.
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNS = 5


def timed(argv: list[str], workspaces: Path) -> float:
    env = {"TRACEEVAL_WORKSPACE_DIR": str(workspaces), "QT_QPA_PLATFORM": "offscreen",
           "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(workspaces)}
    started = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, env=env, timeout=120)
    return time.perf_counter() - started


def median_start(argv: list[str], scratch: Path) -> float:
    timed(argv, scratch / "warm")  # the first run indexes the demo into a new workspace and warms the disk
    return statistics.median(timed(argv, scratch / "warm") for _ in range(RUNS))


def folder_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        if len(sys.argv) > 1:
            app = Path(sys.argv[1]).resolve()
        else:
            started = time.perf_counter()
            subprocess.run(["bash", "packaging/build-app.sh", "--python", sys.executable, "--out",
                            str(scratch / "dist")],
                           cwd=ROOT, check=True, capture_output=True)
            print(f"build (PyInstaller, tarball, start-up check): {time.perf_counter() - started:.0f} s")
            app = scratch / "dist" / "traceeval-studio"
            tarball, = (scratch / "dist").glob("*.tar.gz")
            print(f"app folder {folder_mb(app):.0f} MB, tarball {tarball.stat().st_size / 1e6:.0f} MB")
        venv_bin = Path(sys.executable).parent
        shot = str(scratch / "shot.png")
        for name, packaged, installed in (
                ("window on the demo (--screenshot)", [str(app / "traceeval-gui"), "--screenshot", shot],
                 [str(venv_bin / "traceeval-gui"), "--screenshot", shot]),
                ("traceeval --version", [str(app / "traceeval"), "--version"],
                 [str(venv_bin / "traceeval"), "--version"])):
            frozen, pip = median_start(packaged, scratch), median_start(installed, scratch)
            print(f"{name}: packaged {frozen:.2f} s, pip-installed {pip:.2f} s (ratio {frozen / pip:.2f})")


if __name__ == "__main__":
    main()
