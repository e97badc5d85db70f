"""nlgmetrics: text-generation evaluation metrics, reference-exact, fast and offline.

Every algorithm lives once in this package; the Hugging Face ``evaluate`` modules under ``metrics/``, the CLI and the
framework adapters are thin layers over it. Entry points per metric are declared in :mod:`nlgmetrics.registry`;
``from nlgmetrics import compare`` runs paired significance tests between systems (:mod:`nlgmetrics.comparison`);
``from nlgmetrics import agree`` measures metrics' agreement with human judgments (:mod:`nlgmetrics.agreement`).
"""

from typing import Any

from nlgmetrics._version import __version__

from nlgmetrics._layout import module_path  # the folder evaluate.load takes (checkout or wheel)

__all__ = ["__version__", "agree", "compare", "module_path"]


def __getattr__(name: str) -> Any:
    """``compare`` and ``agree`` are imported on first use, so ``import nlgmetrics`` stays light."""
    if name == "compare":
        from nlgmetrics.comparison import compare

        return compare
    if name == "agree":
        from nlgmetrics.agreement import agree

        return agree
    raise AttributeError(f"module 'nlgmetrics' has no attribute {name!r}")
