"""Colours, fonts and words shared by views and item models: the window's style and the trace run's
status titles and colours. No widgets here, so the item models can use it."""
