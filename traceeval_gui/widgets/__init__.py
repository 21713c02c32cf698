"""Small reusable widgets and helpers every feature builds with: labels, form parts, file dialogs, the
code view and highlighter, the answer text view, keyboard actions, window geometry."""
