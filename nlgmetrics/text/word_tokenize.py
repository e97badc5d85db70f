"""nltk 3.10's ``word_tokenize`` (English), token for token, offline and about 3x faster, under any nltk >= 3.9.1.

``nltk.word_tokenize(text)`` is: Punkt sentence split (``punkt_tab/english``, provisioned offline by
:func:`nlgmetrics.resources.ensure_punkt`), then nltk's ``NLTKWordTokenizer`` on every sentence: about 30 regular
expression substitutions in a fixed order, then a whitespace split.

nltk 3.10 changed both stages (3.9.1, which lighteval 0.13 pins, splits leading apostrophes only before one-letter
words, keeps figure/en/em dashes inside tokens, and its Punkt does not treat curly quotes and guillemets as closing
punctuation), and compiles every rule with the ``regex`` engine. METEOR's contract is 3.10's numbers, so the rules
are carried here: :data:`TREEBANK_RULES` is 3.10's ``NLTKWordTokenizer`` table (nltk, Apache-2.0), compiled with
``regex`` as 3.10 does, and the sentence split is nltk's own ``PunktSentenceTokenizer`` given 3.10's language
variables (:func:`punkt_sentence_splitter`). nltk's Porter stemmer and WordNet reader give the same answers for
METEOR's lowercased tokens in both versions.

Two things make nltk's version slow here, and neither changes a token:

- nltk 3.10 wraps every built-in pattern in a timeout guard (``nltk.redos.TimedPattern``). We call compiled patterns
  without the wrapper. These are fixed, linear patterns, not caller-supplied ones.
- Most substitutions cannot match most sentences (no quote, no bracket, no ``--``...). Before each step we test a
  necessary condition on the current text: a set of substrings at least one of which every match contains (for
  example ``[?!]`` needs ``?`` or ``!``). A step is skipped only when it provably cannot match, so the output is
  the same string nltk would build. Case-insensitive contraction patterns are screened on ``text.lower()`` only for
  ASCII text; non-ASCII text runs them all (Unicode case folding has surprises such as the Kelvin sign).

The guards are written for the rules of :data:`PATTERN_FINGERPRINT`; if the table and the fingerprint ever disagree,
every step runs unguarded (still exact, only slower). ``tests/test_meteor_tokenize.py`` checks identity with
``nltk.word_tokenize`` on real multi-sentence text (nltk 3.10) and that the table is nltk 3.10's; ``tests/
test_nltk_391.py`` checks METEOR's numbers under nltk 3.9.1.

Results are cached per text (references repeat across systems).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from functools import lru_cache
from types import SimpleNamespace

import regex

CACHE_SIZE = 2**17  # texts

# sha256 over (pattern, flags, substitution) of every step of nltk 3.10's NLTKWordTokenizer, in order
# (:func:`_fingerprint` of nltk's class gives the same value under nltk 3.10; a test checks it).
PATTERN_FINGERPRINT = "c0f9c6225430bee4"  # first 16 hex digits, from nltk 3.10.4; checked at import

# nltk 3.10's NLTKWordTokenizer (nltk/tokenize/destructive.py), step by step: (pattern, substitution). nltk 3.10
# compiles the quote, punctuation, bracket and dash rules with ``regex`` (re.UNICODE; ``regex``'s re-compatible V0)
# and the contractions (MacIntyreContractions) with ``re`` (re.IGNORECASE | re.UNICODE, "(?i)" in the pattern).
_STARTING_QUOTES = (
    (r"([«“‘„]|[`]+)", r" \1 "),
    (r'^\"', r"``"),
    (r"(``)", r" \1 "),
    (r"([ \(\[{<])(\"|\'{2})", r"\1 `` "),
    (r"(?i)(?<!\w)(\')(?!(?:re|ve|ll|m|t|s|d|n)\b)(?=\w)", r"\1 "),
)
_PUNCTUATION = (
    (r'([^\.])(\.)([\]\)}>"\'' "»”’ " r"]*+)\s*$", r"\1 \2 \3 "),
    (r"([:,])([^\d])", r" \1 \2"),
    (r"([:,])$", r" \1 "),
    (r"\.{2,}", r" \g<0> "),
    (r"[;@#$%&]", r" \g<0> "),
    (r"[\u2012-\u2015]", r" \g<0> "),
    (r'([^\.])(\.)([\]\)}>"\']*)\s*$', r"\1 \2\3 "),
    (r"[?!]", r" \g<0> "),
    (r"([^'])' ", r"\1 ' "),
    (r"[*]", r" \g<0> "),
)
_PARENS_BRACKETS = (r"[\]\[\(\)\{\}\<\>]", r" \g<0> ")
_DOUBLE_DASHES = (r"--", r" -- ")
_ENDING_QUOTES = (
    (r"([»”’])", r" \1 "),
    (r"''", " '' "),
    (r'"', " '' "),
    (r"\s+", " "),
    (r"([^' ])('[sS]|'[mM]|'[dD]|') ", r"\1 \2 "),
    (r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", r"\1 \2 "),
)
_CONTRACTIONS2 = (
    r"(?i)\b(can)(?#X)(not)\b", r"(?i)\b(d)(?#X)('ye)\b", r"(?i)\b(gim)(?#X)(me)\b", r"(?i)\b(gon)(?#X)(na)\b",
    r"(?i)\b(got)(?#X)(ta)\b", r"(?i)\b(lem)(?#X)(me)\b", r"(?i)\b(more)(?#X)('n)\b", r"(?i)\b(wan)(?#X)(na)(?=\s)",
)
_CONTRACTIONS3 = (r"(?i) ('t)(?#X)(is)\b", r"(?i) ('t)(?#X)(was)\b")


def _compiled(pattern: str):
    return regex.compile(pattern, regex.UNICODE)


#: nltk 3.10's ``NLTKWordTokenizer`` rules, compiled as 3.10 compiles them, with its attribute names.
TREEBANK_RULES = SimpleNamespace(
    STARTING_QUOTES=tuple((_compiled(p), sub) for p, sub in _STARTING_QUOTES),
    PUNCTUATION=tuple((_compiled(p), sub) for p, sub in _PUNCTUATION),
    PARENS_BRACKETS=(_compiled(_PARENS_BRACKETS[0]), _PARENS_BRACKETS[1]),
    DOUBLE_DASHES=(_compiled(_DOUBLE_DASHES[0]), _DOUBLE_DASHES[1]),
    ENDING_QUOTES=tuple((_compiled(p), sub) for p, sub in _ENDING_QUOTES),
    CONTRACTIONS2=tuple(re.compile(p, re.IGNORECASE | re.UNICODE) for p in _CONTRACTIONS2),
    CONTRACTIONS3=tuple(re.compile(p, re.IGNORECASE | re.UNICODE) for p in _CONTRACTIONS3),
)

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


class _UnguardedTreebank:
    """The rules applied as nltk applies them, every step (used only if the guards do not fit the table)."""

    def __init__(self, rules) -> None:
        self.rules = rules

    def __call__(self, text: str) -> list[str]:
        rules = self.rules
        for pattern, sub in (*rules.STARTING_QUOTES, *rules.PUNCTUATION, rules.PARENS_BRACKETS, rules.DOUBLE_DASHES):
            text = pattern.sub(sub, text)
        text = " " + text + " "
        for pattern, sub in rules.ENDING_QUOTES:
            text = pattern.sub(sub, text)
        for pattern in (*rules.CONTRACTIONS2, *rules.CONTRACTIONS3):
            text = pattern.sub(r" \1 \2 ", text)
        return text.split()


# nltk 3.10's Punkt language variables (nltk/tokenize/punkt.py, PunktLanguageVars): curly quotes and guillemets are
# closing punctuation for boundary realignment and non-word characters after a sentence end; regexes compiled with
# ``regex`` (re.UNICODE | re.VERBOSE), as 3.10 compiles them.
_BOUNDARY_REALIGNMENT = r'["\')\]}\u2018\u2019\u201c\u201d\xab\xbb]+?(?:\s+|(?=--)|$)'
_NON_WORD_CHARS = r"(?:[)\";}\]\*:@\'\({\[\u2018\u2019\u201c\u201d\xab\xbb%s])"


def punkt_sentence_splitter(params=None) -> Callable[[str], list[str]]:
    """nltk 3.10's ``sent_tokenize(text, "english")``: nltk's ``PunktSentenceTokenizer`` with 3.10's language
    variables and the English ``punkt_tab`` parameters (:func:`read_punkt_params`), under nltk 3.9.1 or 3.10."""
    from nltk.tokenize.punkt import PunktLanguageVars, PunktSentenceTokenizer

    class LanguageVars310(PunktLanguageVars):
        re_boundary_realignment = regex.compile(_BOUNDARY_REALIGNMENT, regex.MULTILINE)

        @property
        def _re_non_word_chars(self):
            return _NON_WORD_CHARS % re.escape("".join(sorted(set(self.sent_end_chars) - {"."})))

        def _word_tokenizer_re(self):
            if getattr(self, "_word_re", None) is None:
                self._word_re = regex.compile(self._word_tokenize_fmt % {
                    "NonWord": self._re_non_word_chars, "MultiChar": self._re_multi_char_punct,
                    "WordStart": self._re_word_start}, regex.UNICODE | regex.VERBOSE)
            return self._word_re

        def period_context_re(self):
            if getattr(self, "_period_re", None) is None:
                self._period_re = regex.compile(self._period_context_fmt % {
                    "NonWord": self._re_non_word_chars, "SentEndChars": self._re_sent_end_chars},
                    regex.UNICODE | regex.VERBOSE)
            return self._period_re

    return PunktSentenceTokenizer(params if params is not None else read_punkt_params(),
                                  lang_vars=LanguageVars310()).tokenize


def read_punkt_params(folder=None):
    """nltk's ``PunktParameters`` from a ``punkt_tab/english`` folder (default: the one
    :func:`nlgmetrics.resources.ensure_punkt` provisions), read as nltk 3.10's ``load_punkt_params`` reads it."""
    from collections import defaultdict
    from pathlib import Path

    from nltk.tokenize.punkt import PunktParameters

    from nlgmetrics.resources import ensure_punkt

    folder = Path(folder) if folder is not None else ensure_punkt() / "tokenizers" / "punkt_tab" / "english"

    def lines(name: str) -> list[str]:
        with open(folder / name, encoding="utf-8") as handle:
            return [line[:-1] if line.endswith("\n") else line for line in handle]

    params = PunktParameters()
    params.collocations = {tuple(line.split("\t")) for line in lines("collocations.tab")}
    params.sent_starters = set(lines("sent_starters.txt"))
    params.abbrev_types = set(lines("abbrev_types.txt"))
    params.ortho_context = defaultdict(int, {a: int(b) for a, b in (line.split("\t") for line in
                                                                     lines("ortho_context.tab"))})
    return params


def _build() -> tuple[Callable[[str], list[str]], Callable[[str], list[str]], bool]:
    """(sentence splitter, sentence tokenizer, guarded?). The splitter is built on first use (it needs Punkt)."""
    fast = _fingerprint(TREEBANK_RULES) == PATTERN_FINGERPRINT
    return _LazySplitter(), _GuardedTreebank(TREEBANK_RULES) if fast else _UnguardedTreebank(TREEBANK_RULES), fast


class _LazySplitter:
    """:func:`punkt_sentence_splitter`, built on first call (a missing Punkt source is reported then, not at import)."""

    def __init__(self) -> None:
        self._split = None

    def __call__(self, text: str) -> list[str]:
        if self._split is None:
            self._split = punkt_sentence_splitter()
        return self._split(text)


_SENT_TOKENIZE, _TREEBANK, GUARDED = _build()

@lru_cache(maxsize=CACHE_SIZE)
def _cached_tokens(text: str) -> tuple[str, ...]:
    return tuple(token for sentence in _SENT_TOKENIZE(text) for token in _TREEBANK(sentence))


def word_tokenize(text: str) -> tuple[str, ...]:
    """``tuple(nltk.word_tokenize(text))`` (language English): Punkt sentences, then nltk's treebank rules.

    Needs the ``punkt_tab/english`` tables: :func:`nlgmetrics.resources.ensure_punkt` provisions them (or raises the
    error that names the fix).
    """
    return _cached_tokens(text)


def clear_cache() -> None:
    """Forget cached tokenizations (for benchmarks that time cold runs)."""
    _cached_tokens.cache_clear()
