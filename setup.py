"""Build the native core.

Two flavours: release (-O3, the default) and debug (MJSIM_DEBUG=1: bounds checks,
wraparound and initialisation checks, -O0 -g, and the native self-checks of _seat.h), which
the test suite runs against.

An in-place or editable build with MJSIM_DEBUG=1 builds BOTH: the release modules in
src/mjsim (what `mjsim` and `import mjsim` load) and the debug modules in
src/mjsim/_debug_build, which `import mjsim` puts first only when MJSIM_BUILD=debug
(tests/conftest.py sets it). So README's test command leaves an installed `mjsim` fast.
MJSIM_DEBUG=only builds the debug modules alone (quicker while editing native code; the
release modules are left as they are). A non-editable `MJSIM_DEBUG=1 pip install .`
ships the debug modules as the package's own (the CLI then says so on every command).
MJSIM_MODULES=a,b limits the build to those extension modules.
"""
import os
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

DEBUG_ENV = os.environ.get("MJSIM_DEBUG", "")
DEBUG = DEBUG_ENV not in ("", "0")
DEBUG_ONLY = DEBUG_ENV == "only"
ONLY = [m for m in os.environ.get("MJSIM_MODULES", "").split(",") if m]
DEBUG_DIR = Path("src/mjsim/_debug_build")     # mjsim/__init__.py's DEBUG_BUILD_DIR


def _directives(debug: bool) -> dict:
    return {
        "language_level": 3,
        "boundscheck": debug,
        "wraparound": debug,
        "initializedcheck": debug,
        "cdivision": not debug,
        "embedsignature": True,
    }


def _sources() -> list[Path]:
    """Every native module: _*.pyx in the package and its subpackages (core/, players/)."""
    return sorted(p for p in Path("src/mjsim").rglob("_*.pyx") if DEBUG_DIR not in p.parents)


def _module_name(pyx: Path) -> str:
    return ".".join(pyx.relative_to("src").with_suffix("").parts)


def _extensions(debug: bool) -> list:
    templates = [Extension(_module_name(pyx), [str(pyx)]) for pyx in _sources()
                 if not ONLY or pyx.stem in ONLY]
    # the two flavours' C files live apart, so neither regenerates the other's
    exts = cythonize(templates, compiler_directives=_directives(debug), include_path=["src"],
                     build_dir="build/cython-debug" if debug else "build/cython")
    for ext in exts:
        # Set after cythonize, in fresh lists: cythonize caches what it merged from a
        # template per .pyx file, so a second call (the other flavour) would share them.
        ext.include_dirs = [numpy.get_include(), "src/mjsim/core/include"]
        ext.define_macros = [("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")] + (
            [("MJSIM_DEBUG", "1")] if debug else [])    # native self-checks (_seat.h)
        ext.extra_compile_args = ["-O0", "-g"] if debug else ["-O3"]
        ext.mjsim_debug = debug
    return exts


class flavoured_build_ext(build_ext):
    """Builds each flavour with its own build_lib and build_temp (objects never mix), and in
    place puts the debug modules in DEBUG_DIR, beside (not over) the release ones."""

    def run(self):
        inplace = self.inplace or getattr(self, "editable_mode", False)
        everything = list(self.extensions)
        release = [e for e in everything if not e.mjsim_debug]
        debug = [e for e in everything if e.mjsim_debug]
        if release:
            self._run_flavour(release, "", inplace and self._release_stale())
            if inplace:
                self._stamp("release")
        if debug:
            self._run_flavour(debug, "-debug" if release or inplace else "", False)
            if inplace:
                self._mark_debug_dir()
        self.extensions = release or debug     # what get_outputs reports afterwards

    def _run_flavour(self, extensions, suffix: str, force: bool):
        lib, temp, old_force = self.build_lib, self.build_temp, self.force
        # run() replaces the compiler's name by a compiler object: each pass starts afresh
        if not hasattr(self, "_compiler_option"):
            self._compiler_option = self.compiler
        self.compiler = self._compiler_option
        self.extensions = extensions
        self.build_lib, self.build_temp = lib + suffix, temp + suffix
        self.force = old_force or force
        try:
            super().run()
        finally:
            self.build_lib, self.build_temp, self.force = lib, temp, old_force

    @staticmethod
    def _release_stale() -> bool:
        """The in-place modules of src/mjsim were last written by a debug build (before the
        two flavours lived apart): rebuild them, or setuptools would keep them as up to date."""
        stamp = Path("build/.inplace-flavour")
        return not stamp.exists() or stamp.read_text() != "release"

    @staticmethod
    def _stamp(flavour: str) -> None:
        stamp = Path("build/.inplace-flavour")
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(flavour)

    @staticmethod
    def _mark_debug_dir() -> None:
        (DEBUG_DIR / "README").write_text(
            "The debug (bounds-checked) build of mjsim's native modules, made by an in-place or\n"
            "editable build with MJSIM_DEBUG=1. `import mjsim` loads them instead of the release\n"
            "modules only when MJSIM_BUILD=debug (the test suite sets it). Safe to delete.\n")

    def _get_inplace_equivalent(self, build_py, ext):
        inplace_file, regular_file = super()._get_inplace_equivalent(build_py, ext)
        if getattr(ext, "mjsim_debug", False):
            # mjsim.core._loop -> _debug_build/core/_loop.so: each subpackage's debug twin
            subdir = DEBUG_DIR.joinpath(*ext.name.split(".")[1:-1])
            subdir.mkdir(parents=True, exist_ok=True)
            inplace_file = str(subdir / Path(inplace_file).name)
        return inplace_file, regular_file


def _all_extensions() -> list:
    if not DEBUG:
        return _extensions(False)
    if DEBUG_ONLY or not _inplace_requested():
        return _extensions(True)
    return _extensions(False) + _extensions(True)


def _inplace_requested() -> bool:
    """In place (`build_ext --inplace`, `develop`) or editable (`pip install -e`): the
    debug modules can live beside the release ones. A wheel holds one flavour."""
    import sys
    argv = " ".join(sys.argv)
    return "--inplace" in argv or "-i" in sys.argv[1:] or "editable" in argv or "develop" in argv


setup(
    cmdclass={"build_ext": flavoured_build_ext},
    ext_modules=_all_extensions(),
)
