"""A platform wheel when the library is bundled (`make wheel` copies it into src/hapticsynth/_lib
of a staging copy); a pure one otherwise (the package then finds the library at run time)."""
import platform
from pathlib import Path

from setuptools import setup
from setuptools.dist import Distribution

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools before 70.1
    from wheel.bdist_wheel import bdist_wheel

BUNDLED = (Path(__file__).parent / "src" / "hapticsynth" / "_lib" / "libhapticsynth.so.0").is_file()


class LibraryDistribution(Distribution):
    """With the library bundled, the package holds a binary: installed as platform files (the
    wheel's root is not pure)."""

    def has_ext_modules(self):
        return BUNDLED


class LibraryWheel(bdist_wheel):
    def get_tag(self):
        if not BUNDLED:
            return super().get_tag()
        # The library is loaded through ctypes: any Python 3, no ABI; built against this
        # machine's glibc (Debian 12), hence the plain linux tag rather than a manylinux claim.
        return "py3", "none", f"linux_{platform.machine()}"


setup(distclass=LibraryDistribution, cmdclass={"bdist_wheel": LibraryWheel})
