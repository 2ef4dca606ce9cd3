"""Builds the compiled modules (fstpunct/dp/*.pyx); the rest is in pyproject.toml."""
from Cython.Build import cythonize
from setuptools import Extension, setup

setup(ext_modules=cythonize(
    [Extension(f"fstpunct.dp.{name}", [f"fstpunct/dp/{name}.pyx"], extra_compile_args=["-O3"])
     for name in ("_forest", "_sparse")],
    compiler_directives={"language_level": "3"}))
