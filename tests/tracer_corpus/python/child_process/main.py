import subprocess
import sys

from shared import double


def start_worker():
    done = subprocess.run([sys.executable, "worker.py", "3"], capture_output=True, text=True, check=True)
    return int(done.stdout)


def start_tool():
    return subprocess.run(["/bin/true"], check=False).returncode


def main():
    total = double(1) + start_worker()
    start_tool()
    print(total)


main()
