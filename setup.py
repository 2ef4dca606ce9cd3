"""Builds the compiled modules (every fstpunct/*/_*.pyx); the rest is in pyproject.toml.

No fused multiply-add contraction: the compiled routines promise their readable references'
results bitwise, term by term (``a * b + c`` rounded twice, as numpy rounds it)."""
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

setup(ext_modules=cythonize(
    [Extension(".".join(path.with_suffix("").parts), [str(path)],
               extra_compile_args=["-O3", "-ffp-contract=off"])
     for path in sorted(Path("fstpunct").glob("*/_*.pyx"))],
    compiler_directives={"language_level": "3"}))
