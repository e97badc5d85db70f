"""Reading a judge's answer: the integer scale, the G-Eval probability-weighted mean, pairwise verdicts.

Score mode, G-Eval (Liu et al., 2023): with ``p(v)`` the probability of the answer token ``v`` for every value of the
scale ``low..high``, the score is the expectation over the scale, renormalised to it:

    score = sum_v v * p(v) / sum_v p(v)

Parsing rule (no probabilities, or ``weighting="parse"``): the first integer in the answer, which must lie on the
scale; anything else is unparseable (counted, never a silent 0).

Pairwise mode: labels ``A`` (first response better), ``B`` (second better), ``C`` (tie); with probabilities the
verdict is the most probable label, else the first standalone ``A``/``B``/``C`` in the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nlgmetrics.errors import OptionError, OptionTypeError

GEVAL, PARSE = "geval", "parse"
PAIRWISE_LABELS = ("A", "B", "C")
_INTEGER = re.compile(r"(?<![\w.])-?\d+(?![\w.]\d)")
_LETTER = re.compile(r"\b([ABC])\b")


@dataclass(frozen=True)
class Scale:
    """An integer rating scale ``low..high`` (at most 10 values, so every value is one answer token in common
    tokenizers: 1-5, 1-10 is not: '10' is two tokens in many)."""

    low: int = 1
    high: int = 5

    def __post_init__(self) -> None:
        if isinstance(self.low, bool) or isinstance(self.high, bool) or not (
            isinstance(self.low, int) and isinstance(self.high, int)
        ):
            raise OptionTypeError(f"scale must be two integers (low, high), got ({self.low!r}, {self.high!r}).")
        if not 0 <= self.low < self.high <= 9:
            raise OptionError(
                f"scale must satisfy 0 <= low < high <= 9 (each value one answer token), got ({self.low}, "
                f"{self.high}); e.g. scale=(1, 5) or (0, 9)."
            )

    @property
    def labels(self) -> tuple[str, ...]:
        """The answer tokens, ``"1"``, ``"2"``, ..."""
        return tuple(str(v) for v in range(self.low, self.high + 1))

    def parse(self, text: str) -> float | None:
        """The first integer in ``text`` if it lies on the scale, else ``None``."""
        match = _INTEGER.search(text or "")
        if match is None:
            return None
        value = int(match.group())
        return float(value) if self.low <= value <= self.high else None

    def expected(self, probs: dict[str, float]) -> float | None:
        """G-Eval: ``sum v p(v) / sum p(v)`` over the scale's labels (``None`` when they carry no probability)."""
        mass = sum(probs.get(label, 0.0) for label in self.labels)
        if not mass > 0.0:
            return None
        return sum(int(label) * probs.get(label, 0.0) for label in self.labels) / mass

    def describe(self) -> str:
        return f"{self.low}-{self.high}"


def as_scale(scale: Scale | tuple[int, int] | list[int]) -> Scale:
    """A :class:`Scale` from ``(low, high)``."""
    if isinstance(scale, Scale):
        return scale
    if isinstance(scale, (tuple, list)) and len(scale) == 2:
        return Scale(*scale)
    raise OptionTypeError(f"scale must be (low, high), e.g. (1, 5); got {scale!r}.")


def pairwise_verdict(text: str, probs: dict[str, float] | None) -> str | None:
    """``"A"``, ``"B"`` or ``"C"`` (tie): the most probable label when ``probs`` carry mass, else parsed from the
    answer; ``None`` when neither gives one."""
    if probs and sum(probs.get(label, 0.0) for label in PAIRWISE_LABELS) > 0.0:
        return max(PAIRWISE_LABELS, key=lambda label: probs.get(label, 0.0))
    match = _LETTER.search(text or "")
    return match.group(1) if match else None


#: the prediction's outcome, from the verdicts of (prediction first, prediction second).
_OUTCOME_FIRST = {"A": "win", "B": "loss", "C": "tie"}
_OUTCOME_SECOND = {"A": "loss", "B": "win", "C": "tie"}
OUTCOME_SCORE = {"win": 1.0, "tie": 0.5, "loss": 0.0}


def combine_orders(first: str | None, second: str | None) -> tuple[str | None, bool | None]:
    """The prediction's outcome over both orders and whether the two verdicts agree (position consistency).

    ``first``: the verdict with the prediction as response A; ``second``: with it as response B. Agreeing verdicts
    give their outcome; disagreeing ones are a tie (the order decided, not the texts). ``(None, None)`` when either
    verdict is missing.
    """
    if first is None or second is None:
        return None, None
    a, b = _OUTCOME_FIRST[first], _OUTCOME_SECOND[second]
    return (a, True) if a == b else ("tie", False)
