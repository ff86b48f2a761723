"""The package version, in a leaf module so any layer can name it without importing the top."""

__version__ = "0.1.0"
