"""The question asked before the window uses a TraceEval release found next to the dataset (not named by the
user): a dialog naming the folder and the sha256 of its scripts. A yes is remembered by that sha256
(`core.release.confirmed`), so it is asked again only when the scripts change."""
from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

from core.release.checkout import Confirm, ReleaseLocation, release_checkout
from core.release.confirmed import ScriptsDigest

USE_TEXT = "Use This Release"


def confirm_in_dialog(parent: QWidget | None) -> Confirm:
    """A `core.release.checkout.Confirm` that asks in a modal dialog over `parent`."""
    def confirm(location: ReleaseLocation, digest: ScriptsDigest) -> bool:
        box = QMessageBox(QMessageBox.Icon.Question, "Use This TraceEval Release?",
                          f"A TraceEval release was found next to the dataset:\n{release_checkout(location.script)}",
                          QMessageBox.StandardButton.Cancel, parent)
        box.setInformativeText(f"Its scripts ({digest.files} files) have sha256\n{digest.sha256}\n\nPrompts will take "
                               "their words from its run_llm.py, and Check Paper Parity runs its scripts in the "
                               "sandbox. A yes is remembered for these scripts; you are asked again when they "
                               "change.")
        use = box.addButton(USE_TEXT, QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return box.clickedButton() is use

    return confirm
