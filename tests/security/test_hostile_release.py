"""Issue #36 item 1: `traceeval parity` runs a stranger's code, the release's scripts, and it runs them in the tracer
sandbox. A hostile stand-in release (tests/release_standin.py with attacks added to its compute_metrics.py) tries
to read the home folder, a private key, the credentials file and the environment (an AWS secret in it), to reach
the network and to write outside; each attempt fails, as root and as `nobody` (.ci/security-unprivileged), and an
honest stand-in still agrees cell by cell. What the release sends back is hostile input too."""
import json
import os
import py_compile
import socket
import sys
import uuid
from pathlib import Path

import pytest

from core.dataset.indexing import open_dataset
from core.errors import ReleaseError
from core.llm.endpoints import credentials_path, save_api_key
from core.release.checkout import usable_release
from core.release.parity import check_parity, render_parity
from core.results.importing import import_results
from core.scoring.scores import Selection
from resources import DEMO_DATASET
from tests.cli_run import run
from tests.release_standin import write_release
from tests.security.sandbox_attacks import HostCanary, needs_sandbox
from tracers.release_sandbox import run_release

pytestmark = needs_sandbox
SECRET = f"aws-canary-{uuid.uuid4().hex[:12]}"
MARK = Path("/usr/local") / f"traceeval-release-escape-{os.getpid()}"  # on the host, outside /tmp
# Appended to the stand-in's compute_metrics.py: the first score_one call attacks, and every call raises what it saw,
# which the parity report carries back as the cell's error (the first line of it, at most 300 characters).
ATTACKS = r'''
import errno as _errno
import json as _json
import os as _os
import socket as _socket


def _attempt(what):
    try:
        return what()
    except OSError as error:
        return _errno.errorcode.get(error.errno, str(error.errno))


def _read(path):
    with open(path, encoding="utf-8") as handle:
        return "READ " + handle.read()[:20]


def _write(path):
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("escaped")
    return "WRITTEN"


def _connect(family, address):
    with _socket.socket(family, _socket.SOCK_STREAM) as connection:
        connection.settimeout(2)
        connection.connect(address)
    return "CONNECTED"


_SEEN = {}


def score_one(gt_dir, results_path, language, norm_modes=None):
    seen = _SEEN or _SEEN.update(_attack(str(gt_dir))) or _SEEN
    raise RuntimeError("SEEN " + _json.dumps(seen, separators=(",", ":")))


def _attack(gt_dir):
    return {
        "home": _attempt(lambda: sorted(_os.listdir(HOST_HOME))),
        "key": _attempt(lambda: _read(HOST_KEY)),
        "cred": _attempt(lambda: _read(CREDENTIALS)),
        "env": sorted(name for name, value in _os.environ.items() if "AWS_SECRET" in name or SECRET in value),
        "init": _attempt(lambda: SECRET in open("/proc/1/environ", encoding="utf-8", errors="replace").read()),
        "tcp": _attempt(lambda: _connect(_socket.AF_INET, ("127.0.0.1", PORT))),
        "unix": _attempt(lambda: _connect(_socket.AF_UNIX, SOCKET)),
        "w_scripts": _attempt(lambda: _write(SCRIPTS + "/escaped")),
        "w_data": _attempt(lambda: _write(DATA + "/escaped")),
        "w_job": _attempt(lambda: _write(gt_dir + "/escaped")),
        "w_usr": _attempt(lambda: _write(MARK)),
        "w_home": _attempt(lambda: _write(HOST_KEY.rsplit("/", 1)[0] + "/authorized_keys")),
    }
'''


def checkout_with_results(folder: Path, added: dict[str, str] | None = None) -> Path:
    """A stand-in checkout holding the demo corpus, its illustrative results imported into the default workspace."""
    checkout = write_release(folder, with_data=DEMO_DATASET, added=added)
    ws, _ = open_dataset(checkout / "data")
    with ws:
        import_results(ws, [DEMO_DATASET / "results"])
    return checkout


def test_an_honest_release_agrees_cell_by_cell_in_the_sandbox(tmp_path, capsys):
    checkout = checkout_with_results(tmp_path / "TraceEva")
    code, out, err = run(capsys, "parity", checkout, "--release", checkout, "--split", "all", "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["agrees"], err + out
    assert len(report["cells"]) == 8 and len(report["prompts"]) == 15 and len(report["answers"]) == 29
    assert report["sandbox"].startswith("bwrap: no network") and len(report["scripts_sha256"]) == 64
    assert not (checkout / "scripts" / "IMPORTED").exists()  # it ran on the sandbox's copy


def test_a_hostile_release_sees_no_home_key_credentials_environment_network_and_writes_nothing(
        tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("TRACEEVAL_SECRET_NOTE", f"x{SECRET}x")
    save_api_key("https://api.example.com/v1", f"sk-{SECRET}")
    home = Path.home()
    unix_path = Path("/var/tmp") / f"traceeval-release-{os.getpid()}.sock"  # on the host, outside /tmp
    listeners = []
    for family, address in ((socket.AF_INET, ("127.0.0.1", 0)), (socket.AF_UNIX, str(unix_path))):
        listener = socket.socket(family, socket.SOCK_STREAM)
        listener.bind(address)
        listener.listen(4)
        listener.setblocking(False)
        listeners.append(listener)
    folder = tmp_path / "TraceEva"
    data = folder / "data" / "benchmark" / "python" / "calcpad_0001"
    try:
        with HostCanary(home / f".traceeval-release-canary-{os.getpid()}") as key:
            names = {"HOST_HOME": str(home), "HOST_KEY": str(key.path), "CREDENTIALS": str(credentials_path()),
                     "SECRET": SECRET, "PORT": listeners[0].getsockname()[1], "SOCKET": str(unix_path),
                     "SCRIPTS": str(folder / "scripts"), "DATA": str(data), "MARK": str(MARK)}
            constants = "".join(f"{name} = {value!r}\n" for name, value in names.items())
            checkout = checkout_with_results(folder, {"compute_metrics.py": constants + ATTACKS})
            code, out, err = run(capsys, "parity", checkout, "--release", checkout, "--split", "all", "--format",
                                 "json")
            for listener in listeners:
                with pytest.raises(BlockingIOError):  # nothing came in
                    listener.accept()
    finally:
        for listener in listeners:
            listener.close()
        unix_path.unlink(missing_ok=True)
    assert code == 1, err
    report = json.loads(out)
    errors = {cell["error"] for cell in report["cells"] if cell["error"]}
    assert len(errors) == 1, errors  # every score_one saw the same
    error = errors.pop()
    assert error.startswith("RuntimeError: SEEN {") and error.endswith("}"), error  # (cut at 300: a leak)
    seen = json.loads(error.removeprefix("RuntimeError: SEEN "))
    shown = sorted({Path(p).relative_to(home).parts[0] for p in (sys.prefix, sys.base_prefix, data)
                    if Path(p).is_relative_to(home)})
    assert seen.pop("home") in ("ENOENT", shown)  # at most the way down to a pyenv Python or the programs shown
    assert seen.pop("tcp") in ("ECONNREFUSED", "ENETUNREACH")  # its own loopback, or none
    assert seen == {"key": "ENOENT", "cred": "ENOENT", "env": [], "init": False, "unix": "ENOENT",
                    "w_scripts": "ENOENT", "w_data": "EROFS", "w_job": "EROFS", "w_usr": "EROFS", "w_home": "ENOENT"}
    assert not (checkout / "scripts" / "escaped").exists() and not (data / "escaped").exists()
    assert not MARK.exists() and not (key.folder / "authorized_keys").exists()
    # the honest part of the same release (its run_llm.py) still answered
    assert report["prompts"] and all(prompt["agrees"] for prompt in report["prompts"])


def test_scripts_changed_since_they_were_confirmed_are_not_run(tmp_path):
    checkout = checkout_with_results(tmp_path / "TraceEva")
    release = usable_release(checkout)
    (checkout / "scripts" / "compute_metrics.py").write_text(f"open({str(MARK)!r}, 'w')\n")
    ws, _ = open_dataset(checkout / "data")
    with ws, pytest.raises(ReleaseError, match="the release's scripts changed since they were confirmed"):
        check_parity(ws, release, Selection(), runner=run_release)


def test_bytecode_beside_the_scripts_is_never_loaded(tmp_path):
    """A `__pycache__` is not part of the confirmed digest, so it must not run: an unchecked-hash .pyc of other
    code, which Python would load without looking at the source, is ignored."""
    checkout = checkout_with_results(tmp_path / "TraceEva")
    scripts = checkout / "scripts"
    before = usable_release(checkout).digest.sha256
    other = tmp_path / "compute_metrics.py"
    other.write_text("raise RuntimeError('the planted bytecode ran')\n")
    cache = scripts / "__pycache__" / f"compute_metrics.{sys.implementation.cache_tag}.pyc"
    py_compile.compile(str(other), cfile=str(cache), invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    release = usable_release(checkout)
    assert release.digest.sha256 == before
    ws, _ = open_dataset(checkout / "data")
    with ws:
        report = check_parity(ws, release, Selection(), runner=run_release)
    assert report.agrees, [cell.error for cell in report.cells]


def test_a_link_out_of_the_scripts_folder_is_not_followed_and_said(tmp_path):
    with HostCanary(Path.home() / f".traceeval-release-canary-{os.getpid()}-link", "secrets.py") as canary:
        steal = ("def score_one(*args, **kwargs):\n"
                 "    raise RuntimeError(open(__file__.rsplit('/', 1)[0] + '/secrets_of_home.py').read())\n")
        checkout = checkout_with_results(tmp_path / "TraceEva", {"compute_metrics.py": steal})
        os.symlink(canary.path, checkout / "scripts" / "secrets_of_home.py")
        ws, _ = open_dataset(checkout / "data")
        with ws:
            report = check_parity(ws, usable_release(checkout), Selection(), runner=run_release)
    assert any("secrets_of_home.py: not copied: a link to" in note for note in report.notes), report.notes
    assert not report.agrees and {cell.error.split(":")[0] for cell in report.cells} == {"FileNotFoundError"}
    assert canary.text not in render_parity(report)


def test_a_release_that_hangs_is_stopped_by_the_time_limit(tmp_path):
    checkout = checkout_with_results(tmp_path / "TraceEva", {"compute_metrics.py": "import time\ntime.sleep(600)\n"})
    ws, _ = open_dataset(checkout / "data")
    with ws, pytest.raises(ReleaseError, match=r"stopped by the sandbox's wall-clock time limit after [0-9.]+ s"):
        check_parity(ws, usable_release(checkout), Selection(), timeout_s=3, runner=run_release)


REPORTS = {  # what a release writes in place of the driver's report, and what parity says
    "not JSON": ("handle.write('{not json')", "not the driver's report: not JSON"),
    "nested 100,000 deep": ("handle.write('[' * 100000 + ']' * 100000)", "not the driver's report: no python"),
    "too few results": ("json.dump({'python': 'p', 'python_version': '3.11.0', 'modes': [], 'scores': [], "
                        "'prompts': [], 'answers': []}, handle)", "scores does not hold one result for each"),
}


@pytest.mark.parametrize("case", sorted(REPORTS))
def test_a_release_that_forges_the_report_is_a_one_line_error(tmp_path, case):
    code, problem = REPORTS[case]
    forge = (f"import json, os\nwith open(os.environ['TRACEEVAL_PARITY_OUT'], 'w') as handle:\n    {code}\n"
             "os._exit(0)\n")
    checkout = checkout_with_results(tmp_path / "TraceEva", {"compute_metrics.py": forge})
    ws, _ = open_dataset(checkout / "data")
    with ws, pytest.raises(ReleaseError) as caught:
        check_parity(ws, usable_release(checkout), Selection(), runner=run_release)
    assert problem in str(caught.value) and "\n" not in str(caught.value)


def test_forged_numbers_and_endless_texts_are_differences_with_short_lines(tmp_path, capsys):
    forge = ("def score_one(*args, **kwargs):\n    return (10 ** 100, 0, 0, 1, 0)\n"
             "def prf1(tp, fp, fn):\n    return 1.0, 1.0, 1.0\n")
    parse = "def parse_llm_response(response, gt):\n    return {key: ['x' * 100000] for key in gt}\n"
    checkout = checkout_with_results(tmp_path / "TraceEva", {"compute_metrics.py": forge, "run_llm.py": parse})
    code, out, err = run(capsys, "parity", checkout, "--release", checkout)
    assert code == 1, err
    assert "the release could not score it: score_one and prf1 returned something other than counts" in out
    assert max(len(line) for line in out.splitlines()) < 1000 and "xxxxx…" in out
