"""Where the evaluate modules and their Space cards are, in a checkout and in an installed wheel.

One source: the top-level ``metrics/<name>/`` and ``hub_cards/<name>/`` folders of the repository. The wheel carries
copies (``setup.py`` packages them as ``nlgmetrics/_modules/<name>/`` and ``nlgmetrics/_cards/<name>/``); a checkout
(or an editable install) reads the folders beside the package.
"""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
_NAME = re.compile(r"^[A-Za-z0-9_]+$")


def module_roots() -> tuple[Path, Path]:
    """``(modules folder, cards folder)`` of this installation: packaged ones first, else the checkout's."""
    for modules, cards in ((PACKAGE_DIR / "_modules", PACKAGE_DIR / "_cards"),
                           (PACKAGE_DIR.parent / "metrics", PACKAGE_DIR.parent / "hub_cards")):
        if modules.is_dir():
            return modules, cards
    raise FileNotFoundError(
        f"this nlgmetrics ({PACKAGE_DIR}) has no evaluate modules: neither {PACKAGE_DIR / '_modules'} (an installed "
        f"wheel) nor {PACKAGE_DIR.parent / 'metrics'} (a checkout). Reinstall it from a wheel built with this "
        "pyproject.toml and setup.py, or run from a checkout."
    )


def available_modules() -> list[str]:
    """Names of the evaluate modules this installation carries (``metrics/<name>/<name>.py``)."""
    modules, _ = module_roots()
    return sorted(p.name for p in modules.iterdir() if (p / f"{p.name}.py").is_file())


def module_path(name: str) -> str:
    """The folder ``evaluate.load`` takes for module ``name``, in a checkout or an installed wheel::

        evaluate.load(nlgmetrics.module_path("moverscore"))
    """
    available = available_modules()
    if not isinstance(name, str) or not _NAME.match(name) or name not in available:
        raise ValueError(f"no evaluate module named {name!r} in nlgmetrics; available: {', '.join(available)}.")
    return str(module_roots()[0] / name)
