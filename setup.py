"""Declares the optional C extension of the Python tracer; all other metadata is in pyproject.toml.

`optional=True`: without a C compiler the install still succeeds and the tracer uses its
pure-Python fallback (`tracers.python_runtime.backends.PythonBackend`).
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension("tracers.python_runtime._profiler", ["tracers/python_runtime/_profiler.c"],
                             optional=True)])
