"""Build the native core.

MJSIM_DEBUG=1 compiles with bounds checks and wraparound enabled, for the test suite
(see README). MJSIM_MODULES=a,b limits the build to those extension modules.
"""
import os
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

DEBUG = os.environ.get("MJSIM_DEBUG", "") not in ("", "0")
ONLY = [m for m in os.environ.get("MJSIM_MODULES", "").split(",") if m]

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": not DEBUG,
    "embedsignature": True,
}



class flavoured_build_ext(build_ext):
    """An in-place .so left by the other flavour is newer than the sources, so setuptools would
    keep it: the debug switch would silently test the release build.  Rebuild on a switch."""

    def run(self):
        stamp = Path("build/.inplace-flavour")
        flavour = "debug" if DEBUG else "release"
        if self.inplace and (not stamp.exists() or stamp.read_text() != flavour):
            self.force = True
        super().run()
        if self.inplace:
            stamp.parent.mkdir(exist_ok=True)
            stamp.write_text(flavour)


extensions = []
for pyx in sorted(Path("src/mjsim").glob("_*.pyx")):
    if ONLY and pyx.stem not in ONLY:
        continue
    extensions.append(
        Extension(
            f"mjsim.{pyx.stem}",
            [str(pyx)],
            include_dirs=[numpy.get_include(), "src/mjsim"],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]
            + ([("MJSIM_DEBUG", "1")] if DEBUG else []),   # native self-checks (_seat.h)
            extra_compile_args=["-O0", "-g"] if DEBUG else ["-O3"],
        )
    )

setup(
    cmdclass={"build_ext": flavoured_build_ext},
    # debug and release objects live apart, so switching back never reuses a debug .so
    options={"build": {"build_base": "build/debug" if DEBUG else "build"}},
    ext_modules=cythonize(
        extensions,
        compiler_directives=directives,
        include_path=["src"],
        build_dir="build/cython-debug" if DEBUG else "build/cython",
    ),
)
