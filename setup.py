"""The one compiled part: the fast rows' matcher (ingest/_line_scan.c), loaded with ctypes.
Everything else is declared in pyproject.toml."""
from setuptools import Extension, setup

setup(ext_modules=[Extension("ingest._line_scan", sources=["ingest/_line_scan.c"], extra_compile_args=["-O3"])])
