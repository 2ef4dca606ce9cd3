"""Builds the compiled modules (fstpunct/dp/*.pyx, fstpunct/fst/*.pyx); the rest is in
pyproject.toml."""
from Cython.Build import cythonize
from setuptools import Extension, setup

setup(ext_modules=cythonize(
    [Extension(f"fstpunct.{name}", [f"fstpunct/{name.replace('.', '/')}.pyx"],
               extra_compile_args=["-O3"])
     for name in ("dp._forest", "dp._sparse", "fst._compose")],
    compiler_directives={"language_level": "3"}))
