"""Judge prompts: built-in rubrics and user templates, checked before any call.

A template is a system message and a user message with ``str.format`` placeholders. Score mode fills
``{prediction}``, ``{reference}``, ``{source}`` (the question or input), ``{context}`` (retrieved passages, RAG) and
``{low}``/``{high}`` (the scale); pairwise mode fills ``{response_a}`` and ``{response_b}`` (the two responses, in
the order being judged) instead of ``{prediction}``. Built-in rubrics add a block for each optional input that is
given, so one rubric serves reference-based and reference-free judging.
"""

from __future__ import annotations

import hashlib
import string
from dataclasses import dataclass

from nlgmetrics.errors import OptionError, OptionTypeError

SCORE, PAIRWISE = "score", "pairwise"
INPUTS = ("reference", "source", "context")
_SCALE_FIELDS = ("low", "high")
_MODE_FIELDS = {SCORE: ("prediction",), PAIRWISE: ("response_a", "response_b")}
_OPTION = {"reference": "references", "source": "sources", "context": "contexts"}


@dataclass(frozen=True)
class Template:
    """A judge prompt: ``system`` and ``user`` messages with ``{placeholder}`` fields."""

    name: str
    system: str
    user: str

    def fields(self) -> set[str]:
        """The placeholder names in both messages (``ValueError`` on malformed braces)."""
        names: set[str] = set()
        for text in (self.system, self.user):
            try:
                parsed = list(string.Formatter().parse(text))
            except ValueError as exc:
                raise OptionError(
                    f"judge template {self.name!r} is malformed ({exc}); write literal braces as '{{{{' and '}}}}'."
                ) from None
            for _, field, spec, conversion in parsed:
                if field is None:
                    continue
                if not field.isidentifier() or spec or conversion:
                    raise OptionError(
                        f"judge template {self.name!r}: placeholder {{{field}}} is not a plain name; use "
                        f"{{prediction}}, {{reference}}, ... without attributes, indexes or format specs."
                    )
                names.add(field)
        return names

    def digest(self) -> str:
        """First 12 hex digits of the SHA-256 of the template text (part of the signature and the cache key)."""
        return hashlib.sha256(f"{self.system}\x00{self.user}".encode()).hexdigest()[:12]

    def check(self, mode: str, given: set[str]) -> None:
        """Raise ``ValueError`` unless every placeholder can be filled in ``mode`` from the ``given`` inputs."""
        allowed = set(_MODE_FIELDS[mode]) | set(INPUTS) | set(_SCALE_FIELDS)
        fields = self.fields()
        unknown = sorted(fields - allowed)
        if unknown:
            raise OptionError(
                f"judge template {self.name!r} has unknown placeholder(s) {', '.join('{' + u + '}' for u in unknown)}"
                f" for mode={mode!r}; allowed: {', '.join('{' + a + '}' for a in sorted(allowed))}."
            )
        missing = [f for f in _MODE_FIELDS[mode] if f not in fields]
        if missing:
            raise OptionError(
                f"judge template {self.name!r} never shows the text to judge: add "
                f"{' and '.join('{' + m + '}' for m in missing)} (mode={mode!r})."
            )
        for field in sorted(fields & set(INPUTS)):
            if field not in given:
                raise OptionError(
                    f"judge template {self.name!r} needs {{{field}}}: pass {_OPTION[field]}=[...] (one per "
                    f"prediction), or use a template without it."
                )

    def messages(self, values: dict[str, object]) -> list[dict[str, str]]:
        """The chat messages for one judgment (a system message only when the template has one)."""
        messages = [{"role": "system", "content": self.system.format(**values)}] if self.system else []
        return messages + [{"role": "user", "content": self.user.format(**values)}]


_SYSTEM = "You are a careful, impartial evaluator. Follow the rubric and answer exactly in the requested format."
_RUBRICS = {
    "correctness": ("Rate how correct the response is: does it state the same facts and reach the same answer as the "
                    "reference, with no errors?", ("reference",)),
    "faithfulness": ("Rate how faithful the response is to the context: is every claim supported by the context, with "
                     "nothing invented or contradicted?", ("context",)),
    "relevance": ("Rate how relevant the response is to the question: does it address what was asked, without "
                  "off-topic content?", ("source",)),
    "coherence": ("Rate the coherence of the response: is it well structured and logically organised, each part "
                  "following from the last?", ()),
    "fluency": ("Rate the fluency of the response: is it grammatical, natural and easy to read?", ()),
}
_BLOCKS = {"source": "Question or input:\n{source}\n\n", "context": "Context:\n{context}\n\n",
           "reference": "Reference answer:\n{reference}\n\n"}
_SCORE_ASK = "Answer with a single integer from {low} to {high} ({high} is best) and nothing else."
_PAIRWISE_ASK = ("Which response is better? Answer with a single letter: A if Response A is better, B if Response B "
                 "is better, C if they are equally good. Answer with the letter only.")

#: names of the built-in score rubrics (``template="pairwise"`` is the built-in pairwise prompt).
BUILTIN = (*_RUBRICS, "pairwise")


def builtin_template(name: str, mode: str, given: set[str]) -> Template:
    """The built-in template ``name`` for ``mode``, with a block for each of the ``given`` inputs (``ValueError`` if
    the rubric needs an input that is not given)."""
    if mode == PAIRWISE:
        rubric, needed = ("Compare the two responses and judge which is better overall (correct, relevant, "
                          "faithful, clear).", ())
        if name not in ("pairwise", *_RUBRICS):
            raise OptionError(f"unknown judge template {name!r}; built-in: {', '.join(BUILTIN)}, or pass your own "
                             "text with {response_a} and {response_b}.")
        if name in _RUBRICS:
            rubric, needed = _RUBRICS[name]
            rubric = rubric.replace("Rate", "Compare the two responses on this criterion:", 1)
    else:
        if name not in _RUBRICS:
            raise OptionError(
                f"unknown judge template {name!r} for mode='score'; built-in: {', '.join(_RUBRICS)}, or pass your own "
                f"text with {{prediction}}."
            )
        rubric, needed = _RUBRICS[name]
    for field in needed:
        if field not in given:
            why = {"context": "the passages the answer must be faithful to",
                   "reference": "the reference answers", "source": "the questions"}[field]
            raise OptionError(f"the {name!r} judge template needs {_OPTION[field]}=[...] ({why}), one per prediction.")
    blocks = "".join(_BLOCKS[f] for f in ("source", "context", "reference") if f in given)
    if mode == PAIRWISE:
        user = f"{rubric}\n\n{blocks}Response A:\n{{response_a}}\n\nResponse B:\n{{response_b}}\n\n{_PAIRWISE_ASK}"
    else:
        user = f"{rubric}\n\n{blocks}Response:\n{{prediction}}\n\n{_SCORE_ASK}"
    return Template(name, _SYSTEM, user)


def resolve_template(template: str | Template | dict | None, mode: str, given: set[str]) -> Template:
    """A :class:`Template` from a built-in name, a ``Template``, a dict ``{"user": ..., "system": ...}`` or a
    string holding placeholders (the user message); checked against ``mode`` and the ``given`` inputs."""
    if mode not in (SCORE, PAIRWISE):
        raise OptionError(f"mode must be 'score' or 'pairwise', got {mode!r}.")
    if template is None:
        template = "pairwise" if mode == PAIRWISE else "correctness" if "reference" in given else "coherence"
    if isinstance(template, dict):
        unknown = set(template) - {"name", "system", "user"}
        if unknown or "user" not in template:
            raise OptionError("a judge template dict has keys 'user' (required), 'system' and 'name'; "
                             f"got {sorted(template)}.")
        template = Template(str(template.get("name", "custom")), template.get("system", ""), template["user"])
    elif isinstance(template, str):
        template = builtin_template(template, mode, given) if "{" not in template else Template("custom", "", template)
    elif not isinstance(template, Template):
        raise OptionTypeError(f"template must be a built-in name, a template string or a dict; "
                        f"got {type(template).__name__}.")
    if not (isinstance(template.system, str) and isinstance(template.user, str)) or not template.user.strip():
        raise OptionTypeError(f"judge template {template.name!r}: 'user' must be a non-empty string and 'system' a string.")
    template.check(mode, given)
    return template
