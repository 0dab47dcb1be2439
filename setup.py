"""Build hook for the optional native accelerator; everything else is in pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "daer.hands._fasthand",
            ["src/daer/hands/_fasthand.c"],
            optional=True,  # no compiler: daer installs and runs on its pure-Python search
            extra_compile_args=["-O2"],
        )
    ]
)
