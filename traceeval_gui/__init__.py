"""TraceEval Studio's Qt workbench by feature, and the `traceeval` command line (`cli`, which never imports Qt).

`app` starts the window and is the composition root: it hands each feature's menu installer to the window.
"""
