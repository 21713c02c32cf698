"""Run the `traceeval` CLI in-process the way a shell would, for the command tests."""
from traceeval_gui.cli.main import main


def run(capsys, *argv):
    """Exit status, stdout and stderr of `traceeval ARGV...` (arguments may be paths or numbers)."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err
