"""The version of nlgmetrics, in a module that imports nothing (modules that need it without importing the package)."""

__version__ = "0.1.0"
