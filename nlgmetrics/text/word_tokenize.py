"""nltk's ``word_tokenize`` (English), token for token, offline and about 3x faster.

``nltk.word_tokenize(text)`` is: Punkt sentence split (``punkt_tab/english``, provisioned offline by
:func:`nlgmetrics.resources.ensure_punkt`), then nltk's ``NLTKWordTokenizer`` on every sentence: about 30 regular
expression substitutions in a fixed order, then a whitespace split. Two things make nltk's version slow here, and
neither changes a token:

- nltk 3.10 wraps every built-in pattern in a timeout guard (``nltk.redos.TimedPattern``). We call the very same
  compiled pattern objects (``regex`` or ``re``, whatever nltk compiled) without the wrapper. These are nltk's fixed,
  linear patterns, not caller-supplied ones.
- Most substitutions cannot match most sentences (no quote, no bracket, no ``--``...). Before each step we test a
  necessary condition on the current text: a set of substrings at least one of which every match contains (for
  example ``[?!]`` needs ``?`` or ``!``). A step is skipped only when it provably cannot match, so the output is
  the same string nltk would build. Case-insensitive contraction patterns are screened on ``text.lower()`` only for
  ASCII text; non-ASCII text runs them all (Unicode case folding has surprises such as the Kelvin sign).

The guards are written for nltk's current patterns. At import the patterns, flags and substitutions are compared
with the ones the guards were written for (:data:`PATTERN_FINGERPRINT`); if nltk ever changes them, every call goes
to nltk's own tokenizer instead, still exact, only slower. ``tests/test_meteor_tokenize.py`` checks identity with
``nltk.word_tokenize`` on real multi-sentence text.

Results are cached per text (references repeat across systems).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import lru_cache

CACHE_SIZE = 2**17  # texts

# sha256 over (pattern, flags, substitution) of every step of nltk 3.10's NLTKWordTokenizer, in order.
PATTERN_FINGERPRINT = "c0f9c6225430bee4"  # first 16 hex digits, from nltk 3.10.4; checked at import

_QUOTE_CHARS = ("«", "“", "‘", "„", "`")
_DASHES = ("\u2012", "\u2013", "\u2014", "\u2015")
_BRACKETS = tuple("[](){}<>")

# Necessary conditions, one per step, in nltk's order: a step runs only when one of its substrings is in the text
# (None: always run). Each comment is the pattern it screens.
_STARTING_QUOTE_GUARDS = (
    _QUOTE_CHARS,  # ([«“‘„]|[`]+)
    ('"',),  # ^\"
    ("``",),  # (``)
    ('"', "''"),  # ([ \(\[{<])(\"|\'{2})
    ("'",),  # (?i)(?<!\w)(\')(?!(?:re|ve|ll|m|t|s|d|n)\b)(?=\w)
)
_PUNCTUATION_GUARDS = (
    (".",),  # ([^\.])(\.)([\]\)}>"\'»”’ ]*+)\s*$
    (":", ","),  # ([:,])([^\d])
    (":", ","),  # ([:,])$
    ("..",),  # \.{2,}
    (";", "@", "#", "$", "%", "&"),  # [;@#$%&]
    _DASHES,  # [\u2012-\u2015]
    (".",),  # ([^\.])(\.)([\]\)}>"\']*)\s*$
    ("?", "!"),  # [?!]
    ("' ",),  # ([^'])'<space>
    ("*",),  # [*]
)
_PARENS_GUARD = _BRACKETS  # [\]\[\(\)\{\}\<\>]
_DOUBLE_DASH_GUARD = ("--",)  # --
_ENDING_QUOTE_GUARDS = (
    ("»", "”", "’"),  # ([»”’])
    ("''",),  # ''
    ('"',),  # "
    None,  # \s+ (always: it normalises whitespace for the clitic patterns and the split)
    ("'",),  # ([^' ])('[sS]|'[mM]|'[dD]|')<space>
    ("'",),  # ([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T)<space>
)
# Case-insensitive contractions, screened on the lowercased text (ASCII text only).
_CONTRACTION2_GUARDS = (
    ("cannot",), ("d'ye",), ("gimme",), ("gonna",), ("gotta",), ("lemme",), ("more'n",), ("wanna",),
)
_CONTRACTION3_GUARDS = ((" 'tis",), (" 'twas",))


def _engine(pattern):
    """The compiled pattern inside nltk's timeout wrapper (the pattern itself for plain ``re``/``regex``)."""
    return getattr(pattern, "_rx", pattern)


def _fingerprint(tokenizer) -> str:
    steps = [*tokenizer.STARTING_QUOTES, *tokenizer.PUNCTUATION, tokenizer.PARENS_BRACKETS, tokenizer.DOUBLE_DASHES]
    steps += [*tokenizer.ENDING_QUOTES]
    steps += [(p, r" \1 \2 ") for p in (*tokenizer.CONTRACTIONS2, *tokenizer.CONTRACTIONS3)]
    text = "\n".join(f"{_engine(p).pattern}\t{int(_engine(p).flags)}\t{sub}" for p, sub in steps)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class _GuardedTreebank:
    """nltk's ``NLTKWordTokenizer.tokenize`` (default options) with provably skippable steps skipped."""

    def __init__(self, tokenizer) -> None:
        def pairs(steps, guards):
            return tuple((_engine(p), sub, g) for (p, sub), g in zip(steps, guards, strict=True))

        self.start = pairs(tokenizer.STARTING_QUOTES, _STARTING_QUOTE_GUARDS)
        self.punct = pairs(tokenizer.PUNCTUATION, _PUNCTUATION_GUARDS)
        self.middle = pairs((tokenizer.PARENS_BRACKETS, tokenizer.DOUBLE_DASHES), (_PARENS_GUARD, _DOUBLE_DASH_GUARD))
        self.end = pairs(tokenizer.ENDING_QUOTES, _ENDING_QUOTE_GUARDS)
        sub = r" \1 \2 "
        self.contractions = tuple(
            (_engine(p), sub, g)
            for p, g in zip(
                (*tokenizer.CONTRACTIONS2, *tokenizer.CONTRACTIONS3),
                (*_CONTRACTION2_GUARDS, *_CONTRACTION3_GUARDS),
                strict=True,
            )
        )

    @staticmethod
    def _apply(text: str, steps, screen: str | None = None) -> str:
        for pattern, sub, guard in steps:
            if guard is not None:
                where = text if screen is None else screen
                for needle in guard:
                    if needle in where:
                        break
                else:
                    continue
            text = pattern.sub(sub, text)
        return text

    def __call__(self, text: str) -> list[str]:
        apply = self._apply
        text = apply(text, self.start)
        text = apply(text, self.punct)
        text = apply(text, self.middle)
        text = apply(" " + text + " ", self.end)
        if text.isascii():
            low = text.lower()
            for pattern, sub, guard in self.contractions:
                if any(needle in low for needle in guard):
                    text = pattern.sub(sub, text)
                    low = text.lower()
        else:
            for pattern, sub, _ in self.contractions:
                text = pattern.sub(sub, text)
        return text.split()


def _build() -> tuple[Callable[[str], list[str]], Callable[[str], list[str]], bool]:
    from nltk.tokenize import NLTKWordTokenizer, sent_tokenize

    reference = NLTKWordTokenizer()
    fast = _fingerprint(NLTKWordTokenizer) == PATTERN_FINGERPRINT
    sentence_tokenizer = _GuardedTreebank(NLTKWordTokenizer) if fast else reference.tokenize
    return sent_tokenize, sentence_tokenizer, fast


_SENT_TOKENIZE, _TREEBANK, GUARDED = _build()

try:  # importing this module makes nltk find the Punkt tables; a missing source is reported on first use
    from nlgmetrics.resources import ensure_punkt

    ensure_punkt()
except RuntimeError:
    pass


@lru_cache(maxsize=CACHE_SIZE)
def _cached_tokens(text: str) -> tuple[str, ...]:
    return tuple(token for sentence in _SENT_TOKENIZE(text) for token in _TREEBANK(sentence))


def word_tokenize(text: str) -> tuple[str, ...]:
    """``tuple(nltk.word_tokenize(text))`` (language English): Punkt sentences, then nltk's treebank rules.

    Needs ``punkt_tab/english`` on ``nltk.data.path``: :func:`nlgmetrics.resources.ensure_punkt` provisions it.
    """
    try:
        return _cached_tokens(text)
    except LookupError:  # punkt_tab not on nltk.data.path: provision it, or raise the error that names the fix
        from nlgmetrics.resources import ensure_punkt

        ensure_punkt()
        return _cached_tokens(text)


def clear_cache() -> None:
    """Forget cached tokenizations (for benchmarks that time cold runs)."""
    _cached_tokens.cache_clear()
