"""The main window's shell: the window and its layout, menus' window-wide parts (export, theme, command
palette), the instance browser, the problems dock, the error log and the parity dialog. Features add their
menus by registration (`features`)."""
