"""nlgmetrics: text-generation evaluation metrics, reference-exact, fast and offline.

Every algorithm lives once in this package; the Hugging Face ``evaluate`` modules under ``metrics/``, the CLI and the
framework adapters are thin layers over it. Entry points per metric are listed in :mod:`nlgmetrics.registry`.
"""

__version__ = "0.1.0"

from nlgmetrics._layout import module_path  # the folder evaluate.load takes, checkout or wheel)

__all__ = ["__version__", "module_path"]
