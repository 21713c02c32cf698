def helper():
    return 42


def run_dynamic():
    namespace = {"helper": helper}
    exec("def dyn():\n    return helper()\nresult = dyn()", namespace)  # noqa: S102
    return namespace["result"]


print(run_dynamic())
