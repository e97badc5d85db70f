"""Packaging hook: the wheel carries the evaluate modules (``metrics/``) and their Space cards (``hub_cards/``).

Both folders stay at the top of the repository (one source); ``build_py`` copies them into the built package as
``nlgmetrics/_modules/<name>/`` and ``nlgmetrics/_cards/<name>/``, where :func:`nlgmetrics.module_path` and
``nlgmetrics hub build`` find them in an installed wheel. Everything else is in ``pyproject.toml``.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
PACKAGED = {"metrics": "_modules", "hub_cards": "_cards"}


class BuildPyWithModules(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):  # an editable install reads them from the checkout
            return
        for source, target in PACKAGED.items():
            destination = Path(self.build_lib) / "nlgmetrics" / target
            shutil.rmtree(destination, ignore_errors=True)
            shutil.copytree(ROOT / source, destination, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": BuildPyWithModules})
