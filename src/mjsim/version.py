"""The package version (one place; mjsim.__version__ re-exports it)."""
__version__ = "0.3.0"
