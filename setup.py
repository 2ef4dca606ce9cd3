"""Builds the compiled modules (every fstpunct/*/_*.pyx); the rest is in pyproject.toml."""
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

setup(ext_modules=cythonize(
    [Extension(".".join(path.with_suffix("").parts), [str(path)], extra_compile_args=["-O3"])
     for path in sorted(Path("fstpunct").glob("*/_*.pyx"))],
    compiler_directives={"language_level": "3"}))
