"""Entry script of the packaged window, `traceeval-studio` (PyInstaller runs this file)."""
import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()  # the build's worker processes start this executable again
    from traceeval_gui.app import main

    sys.exit(main())
