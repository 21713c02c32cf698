"""Declares the optional C parts of the tracers; all other metadata is in pyproject.toml.

- the Python tracer's C extension; `optional=True`: without a C compiler the install still succeeds and the
  tracer uses its pure-Python fallback (`tracers.python_runtime.backends.PythonBackend`);
- the sandbox's launcher (`tracers/sandbox_launcher.c`), a small program linked beside the tracers package
  (`tracers/traceeval-launch`); without it the sandbox starts runs through a slower Python `preexec_fn`.
"""
import os

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

LAUNCHER_SOURCE = "tracers/sandbox_launcher.c"
LAUNCHER_NAME = "traceeval-launch"  # tracers.sandbox_launch.LAUNCHER_NAME


class BuildExtAndLauncher(build_ext):
    """build_ext, then the sandbox launcher with the same compiler, where the extensions go."""

    def run(self):
        super().run()
        try:
            objects = self.compiler.compile([LAUNCHER_SOURCE], output_dir=self.build_temp)
            for folder in {os.path.join(self.build_lib, "tracers"), "tracers" if self.inplace else None} - {None}:
                self.compiler.link_executable(objects, LAUNCHER_NAME, output_dir=folder)
        except Exception as error:  # noqa: BLE001 (optional, like the extension: CompileError, LinkError, OSError)
            self.warn(f"the sandbox launcher was not built ({error}): runs start through Python's preexec_fn")


setup(ext_modules=[Extension("tracers.python_runtime._profiler", ["tracers/python_runtime/_profiler.c"],
                             optional=True)],
      cmdclass={"build_ext": BuildExtAndLauncher})
