"""Entry script of the packaged command line, `traceeval` (PyInstaller runs this file)."""
import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()  # the build's worker processes start this executable again
    from traceeval_gui.cli.main import main

    sys.exit(main())
