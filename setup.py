"""Builds the compiled tree DP (fstpunct/_forest.pyx); everything else is in pyproject.toml."""
from Cython.Build import cythonize
from setuptools import Extension, setup

setup(ext_modules=cythonize(
    [Extension(f"fstpunct.{name}", [f"fstpunct/{name}.pyx"], extra_compile_args=["-O3"])
     for name in ("_forest", "_sparse")],
    compiler_directives={"language_level": "3"}))
