"""code2flow on the program in the working folder (Python or JavaScript): its nodes with file and line.

code2flow links a call to a function by the called name alone (and the receiver's name when it is
a known class or module); a name defined in several places is skipped. Its JavaScript parser is the
`acorn` copy the code2flow wheel bundles in its own `node_modules`, run by `node`; code2flow's own check
looks for an `acorn` command on PATH, which the bundled copy does not need, so that check is skipped.
"""
import logging
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # -I leaves the script's folder out
from driver_common import end, source_files, suffix_argument, version_of, write


def describe(node):
    file = node.file_group().path  # code2flow's own file name is the base name alone
    if node.token == "(global)":
        return end(file, file, 0, 0, "module")
    return end(node.token_with_ownership(), file, node.line_number, 0, "function")


def main():
    suffix = suffix_argument()
    extension = suffix[1:]  # code2flow's languages are keyed by extension
    from code2flow import engine
    from code2flow.engine import LANGUAGES, LanguageParams
    warnings = []

    class Collect(logging.Handler):
        def emit(self, record):
            if record.levelno >= logging.WARNING:
                warnings.append(record.getMessage()[:300])

    logging.getLogger().addHandler(Collect())
    make_file_group = engine.make_file_group

    def keep_path(tree, filename, extension):
        group = make_file_group(tree, filename, extension)
        group.path = os.path.relpath(filename, ".")
        return group

    engine.make_file_group = keep_path
    if extension == "js":
        LANGUAGES[extension].assert_dependencies = staticmethod(lambda: None)
    edges = []
    for source_type in ("script", "module"):
        sources = source_files(suffix)
        warnings.clear()
        _, _, found = engine.map_it(sources, extension, True, [], [], [], [], True,
                                    LanguageParams(source_type, None))
        edges = [[describe(edge.node0), describe(edge.node1)] for edge in found]
        if extension != "js" or not any("Could not parse" in w for w in warnings):
            break
    write("code2flow", version_of("code2flow"), edges, warnings)


main()
