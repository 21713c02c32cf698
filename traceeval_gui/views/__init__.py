"""The workbench's widgets. Each view reads `AppState` and core objects; none mutates them."""
