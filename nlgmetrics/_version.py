"""The version of nlgmetrics, in a module of its own: signatures name it (:mod:`nlgmetrics.signature`) and modules
that the package's ``__init__`` reaches may import it without importing the package back."""

__version__ = "0.1.0"
