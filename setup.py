"""Builds the compiled tree DP (fstpunct/_forest.pyx); everything else is in pyproject.toml."""
from Cython.Build import cythonize
from setuptools import Extension, setup

setup(ext_modules=cythonize(
    [Extension("fstpunct._forest", ["fstpunct/_forest.pyx"], extra_compile_args=["-O3"])],
    compiler_directives={"language_level": "3"}))
