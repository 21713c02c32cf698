"""The once-per-process costs of showing a program are paid on a worker thread when the window's state is made."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap


def test_the_lexers_and_the_language_parts_are_ready_before_the_first_program_is_shown():
    """In a fresh process (here they were made long ago): nothing is ready until the state is made, then
    everything is, made by another thread."""
    script = textwrap.dedent("""
        import sys
        from core.languages import languages, lexer_class
        lexers = [lexer_class(language.name) for language in languages()]
        compiled = lambda: [lexer.__name__ for lexer in lexers if "_tokens" in vars(lexer)]
        rules = [language.symbols.partition(":")[0] for language in languages()]
        assert compiled() == [] and not any(module in sys.modules for module in rules), compiled()
        from traceeval_gui.state import warm_up
        from traceeval_gui.state.app_state import AppState
        state = AppState()
        assert warm_up._STARTED is not None, "the state started no warm-up"
        warm_up._STARTED.join(60)
        assert len(compiled()) == len(lexers), compiled()
        assert all(module in sys.modules for module in rules), rules
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], check=False, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.stdout.strip().endswith("ok"), done.stderr[-2000:]
