"""A reasoning model's thinking in the Answer tab: run through Model > Run Model's runner against the local
server, then folded above the response with its token count, unfolded by a click."""
from PySide6.QtCore import Qt

from core.llm.prompts import build_prompt
from tests.gui.test_model_runs import request, run_to_the_end
from tests.llm_server import FakeChatServer, answer_text, ok, request_prompt_hash

THINKING = "The user wants the calls of each function.\nmain calls tokenize, then parse.\nI will list them."


def test_the_thinking_is_folded_above_the_answer_and_unfolds(window, state, qtbot, tmp_path):
    keys = [row.key for row in state.opened.rows]
    answers = {build_prompt(state.workspace.instance(k)).hash: answer_text(state.workspace.instance(k).ground_truth)
               for k in keys}

    def respond(request_body, attempt):
        return ok(answers[request_prompt_hash(request_body)], usage=(1500, 640),
                  message={"reasoning": THINKING}, reasoning_tokens=512)

    key = "python/calcpad_0001"
    with FakeChatServer(respond) as server:
        report = run_to_the_end(qtbot, window, window.model_runs.start(request(server, [key])))
    assert report.answered == 1
    assert "1 answered" in window.statusBar().currentMessage() and "requests/min" in window.statusBar().currentMessage()
    by_text = {action.text().replace("&", ""): action for action in window.actions()}
    by_text["Answer tab"].trigger()
    state.select_model("fake-model")
    window.browser.select_key(key)
    panel = window.answer_panel
    fold = panel.thinking
    assert fold.isVisible() and not fold.unfolded and not fold.text_view.isVisible()  # folded by default
    assert fold.toggle.text() == "Thinking · 512 tokens"
    assert "640 out (512 thinking)" in panel.header_label.text()
    qtbot.mouseClick(fold.toggle, Qt.MouseButton.LeftButton)
    assert fold.unfolded and fold.text_view.isVisible()
    assert fold.text_view.toPlainText() == THINKING
    assert panel.lines and all(line.text not in THINKING for line in panel.lines)  # the response, as it was sent
    window.resize(1280, 860)
    window.grab().save(str(tmp_path / "answer-thinking.png"))
    qtbot.mouseClick(fold.toggle, Qt.MouseButton.LeftButton)
    assert not fold.text_view.isVisible()
    # another model's answer without thinking hides the fold
    state.select_model("illustrative-weak")
    assert not fold.isVisible()
