"""PyCG on the program in the working folder (Python only): its `Simple` format, a dict of dotted names.

PyCG 0.0.8's wheel ships its package as `PyCG/` while its modules import `pycg`: on a case-sensitive
file system it cannot import itself. The code is 0.0.7's, so the folder is loaded under `pycg`.
"""
import importlib.util
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # -I leaves the script's folder out
from driver_common import end, source_files, suffix_argument, version_of, write


def import_pycg():
    try:
        import pycg  # noqa: F401
    except ImportError:
        spec = importlib.util.find_spec("PyCG")
        if spec is None or not spec.submodule_search_locations:
            raise
        alias = importlib.util.spec_from_file_location(
            "pycg", spec.origin, submodule_search_locations=list(spec.submodule_search_locations))
        module = importlib.util.module_from_spec(alias)
        sys.modules["pycg"] = module
        alias.loader.exec_module(module)
    from pycg import formats
    from pycg.pycg import CallGraphGenerator
    return CallGraphGenerator, formats


def main():
    suffix = suffix_argument()
    CallGraphGenerator, formats = import_pycg()
    files = source_files(suffix)
    generator = CallGraphGenerator(files, ".", -1, "call-graph")
    generator.analyze()
    graph = formats.Simple(generator).generate()
    edges = [[end(caller), end(callee)] for caller, callees in graph.items() for callee in sorted(callees)]
    write("pycg", version_of("pycg", "PyCG"), edges)


main()
