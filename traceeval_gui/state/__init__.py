"""What the window holds that is not a widget: the shared selection and data (`app_state`), back and forward,
the saved session, background jobs, the error log and the garbage collector's schedule."""
