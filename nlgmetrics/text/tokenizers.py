"""The BLEU tokenizers, token-for-token identical to sacrebleu 2.6's.

Each tokenizer maps one line to a tuple of tokens (sacrebleu produces a space-joined string and later splits it on
whitespace; returning the tokens directly skips that round trip and gives the same tokens).

- ``13a``: mteval-v13a, the WMT standard: unescapes four HTML entities, splits off punctuation and symbols, keeps
  ``.`` and ``,`` attached between digits, splits ``-`` after a digit. :func:`tokenize_13a_batch` tokenizes many
  lines at once (the same tokens, several times faster than line by line before any line is cached).
- ``intl``: mteval-v14 international: splits Unicode punctuation (``\\p{P}``) unless it is between digits, and every
  symbol (``\\p{S}``).
- ``zh``: every Chinese character (sacrebleu's code-point table) becomes its own token, the rest as 13a's regex part.
- ``char``: every non-space character is a token.
- ``none``: whitespace split only.

:func:`tokenize_nist` is the NIST mteval-v14 tokenizer as nltk's ``NISTTokenizer.tokenize`` (HF evaluate's
``nist_mt``): the 13a rules after another entity table, with optional lowercasing and a whitespace-only mode.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any
from xml.sax.saxutils import unescape

import regex
from nlgmetrics.errors import InputTypeError, OptionError, OptionTypeError

CACHE_SIZE = 2**16  # lines; like sacrebleu, repeated lines (the same references for every system) tokenize once

Tokenizer = Callable[[str], tuple]

# mteval-v13a's language-dependent rules (sacrebleu's ``TokenizerRegexp``), applied in this order:
# 1. ``([\{-\~\[-\` -\&\(-\+\:-\@\/])`` -> `` \1 ``: ASCII punctuation and symbols become separate tokens;
# 2. ``([^0-9])([\.,])`` -> ``\1 \2 ``: period and comma, unless preceded by a digit;
# 3. ``([\.,])([^0-9])`` -> `` \1 \2``: period and comma, unless followed by a digit;
# 4. ``([0-9])(-)`` -> ``\1 \2 ``: dash after a digit.
# Only the tokens (the text split on whitespace) matter, so each rule is applied as the whitespace it inserts:
# 1. One character at a time: a ``replace`` for each symbol present (the space is left out: it only adds spaces).
# 2-3. Matches consume two characters, so in a run of marks only some get spaces. Closed form: take a maximal run
#    of k marks with the character p before it and n after it (either may be missing, at the ends of the text).
#    Rule 2 spaces the first mark iff p is a non-digit (a missing p acts as a digit), then every other mark (a mark
#    whose mark before was matched is consumed; one whose mark before was not is preceded by a non-digit): the 1st,
#    3rd, ... if p is a non-digit, else the 2nd, 4th, .... A spaced mark ends in a space and is preceded by one, so
#    no two marks are adjacent after rule 2, consumption cannot matter for rule 3, and rule 3 spaces every mark
#    followed by a non-digit. A mark rule 2 skipped is followed by the next mark, now a space, unless it is the
#    run's last. So every mark becomes a token of its own, except the run's last mark when rule 2 skipped it (k odd
#    and p a digit or missing, or k even and p a non-digit) and n is a digit or missing: that mark stays glued to n,
#    and if k = 1 also to p. Implemented as: pad every mark with _PAD, then glue those marks back (_V13aRules.marks).
# 4. Spaces every dash after a digit (a match ends on the dash, which cannot start the next match); rules 2-3 only
#    put spaces next to marks, so "after a digit" can be read before them.
_V13A_SYMBOLS = '!"#$%&()*+/:;<=>?@[\\]^_`{|}~'
# The marks' padding: U+001F is whitespace to str.split() and rare in text, so the regular expressions that glue
# marks back start with a literal that re's search skips to quickly (a space would stop it at every word).
_PAD = "\x1f"


class _V13aRules:
    """The 13a normalization and rules 1-4, compiled for ``str`` or for UTF-8 ``bytes``.

    One implementation for both: :func:`tokenize_13a_batch` runs it on the UTF-8 bytes of all lines at once, where
    ``bytes.replace`` is several times faster than ``str.replace`` on a long text. UTF-8 changes no token: every
    pattern is ASCII, and every byte of a multi-byte character is, like the character, a non-digit, non-mark,
    non-space. Results are split with ``str.split`` after decoding (it also splits on ``_PAD``).
    """

    def __init__(self, kind: type) -> None:
        enc = str.encode if kind is bytes else str
        self.amp = enc("&")
        self.entities = tuple(
            (enc(entity), enc(char)) for entity, char in (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"))
        )
        self.symbols_spaced = tuple((enc(c), enc(f" {c} ")) for c in _V13A_SYMBOLS)
        # a mark padded, and the pattern gluing back a lone mark (a run of 1) between digits or text ends
        self.marks_glued = tuple(
            (enc(m), enc(f"{_PAD}{m}{_PAD}"),
             re.compile(enc(f"{_PAD}{re.escape(m)}{_PAD}(?<![^0-9]{_PAD}{re.escape(m)}{_PAD})(?![^0-9])")))
            for m in ".,"
        )
        self.mark_pairs = tuple(enc(a + b) for a in ".," for b in ".,")
        # a padded run of 2 or more marks followed by a digit; _glue_run_end decides
        self.run = re.compile(enc(f"{_PAD}[.,]{_PAD}(?:{_PAD}[.,]{_PAD})+(?=[0-9])"))
        self.digits = enc("0123456789")
        self.dash, self.dash_after_digit, self.dash_spaced = enc("-"), re.compile(enc("-(?<=[0-9]-)")), enc(" - ")

    def unescape(self, text):
        """Unescape ``&quot; &amp; &lt; &gt;`` (in that order)."""
        if self.amp in text:
            for entity, char in self.entities:
                if entity in text:
                    text = text.replace(entity, char)
        return text

    def symbols(self, text):
        """Rule 1: a space either side of every ASCII symbol (not the period and comma)."""
        for symbol, spaced in self.symbols_spaced:
            if symbol in text:
                text = text.replace(symbol, spaced)
        return text

    def marks(self, text):
        """Rules 2-4 (period, comma, dash) as the whitespace they insert: the same tokens."""
        a, b, c, d = self.mark_pairs
        runs = a in text or b in text or c in text or d in text
        for mark, padded, glue_lone in self.marks_glued:
            if mark in text:
                text = glue_lone.sub(mark, text.replace(mark, padded))
        if runs:
            text = self.run.sub(self._glue_run_end, text)
        if self.dash in text:
            text = self.dash_after_digit.sub(self.dash_spaced, text)
        return text

    def _glue_run_end(self, match: re.Match):
        """A padded run of k >= 2 marks before a digit: glue its last mark to the digit iff rule 2 skipped it."""
        run, start = match.group(), match.start()
        digit_before = match.string[start - 1 : start] in self.digits  # empty (text start) counts as a digit
        odd = len(run) // 3 % 2 == 1  # 3 characters a mark
        return run[:-1] if digit_before == odd else run


_V13A = _V13aRules(str)
_V13A_BYTES = _V13aRules(bytes)


def _v13a_symbols(text: str) -> str:
    """Rule 1 on ``text``."""
    return _V13A.symbols(text)


def _v13a_marks(text: str) -> str:
    """Rules 2-4 on ``text`` (split it on whitespace for the tokens)."""
    return _V13A.marks(text)


def _v13a_rules(line: str) -> tuple[str, ...]:
    return tuple(_V13A.marks(_V13A.symbols(line)).split())


@lru_cache(maxsize=CACHE_SIZE)
def tokenize_13a(line: str) -> tuple[str, ...]:
    """mteval-v13a tokenization (sacrebleu's default)."""
    line = _V13A.unescape(line.replace("<skipped>", "").replace("-\n", "").replace("\n", " "))
    return _v13a_rules(f" {line} ")


def tokenize_13a_batch(lines: Sequence[str]) -> list[tuple[str, ...]]:
    """``[text_tokens(line, "13a") for line in lines]``: the 13a tokens of each line, trailing whitespace stripped.

    All lines are tokenized at once, as the UTF-8 bytes of one text with a line break between lines (the rules
    only look at a character's neighbours, and a line break acts as the space 13a puts around each line), then
    split back. A line holding a line break itself (13a joins ``-\\n`` and spaces ``\\n``) goes through
    :func:`tokenize_13a`.
    """
    if isinstance(lines, (str, bytes)):
        raise InputTypeError("tokenize_13a_batch takes a sequence of lines, not one string: pass [text].")
    try:
        lines = [line.rstrip() for line in lines]
    except AttributeError:
        raise InputTypeError(f"tokenize_13a_batch takes a sequence of str lines; got {lines!r:.60}") from None
    if not lines:
        return []
    text = "\n".join(lines)
    broken = {}
    if text.count("\n") >= len(lines):
        broken = {i: line for i, line in enumerate(lines) if "\n" in line}
        text = "\n".join("" if i in broken else line for i, line in enumerate(lines))
    data = _V13A_BYTES.unescape(f" {text} ".encode("utf-8", "surrogatepass").replace(b"<skipped>", b""))
    text = _V13A_BYTES.marks(_V13A_BYTES.symbols(data)).decode("utf-8", "surrogatepass")
    tokens = [*map(tuple, map(str.split, text.split("\n")))]
    for i, line in broken.items():
        tokens[i] = tokenize_13a(line)
    return tokens


# entities nltk's xml_unescape adds to xml.sax's &lt; &gt; &amp; (which it replaces first, first, last)
_NIST_ENTITIES = {"&apos;": "'", "&quot;": '"', "&#124;": "|", "&#91;": "[", "&#93;": "]"}


@lru_cache(maxsize=CACHE_SIZE)
def tokenize_nist(line: str, lowercase: bool = False, western_lang: bool = True) -> tuple[str, ...]:
    """NIST mteval-v14 tokenization as nltk's ``NISTTokenizer().tokenize(line, lowercase, western_lang)``.

    Drops ``<skipped>``, unescapes XML entities (``&lt; &gt;``, ``&apos; &quot; &#124; &#91; &#93;``, then
    ``&amp;``), turns U+2028 into a space; then, for Western languages, lowercases if asked and applies the 13a
    rules; otherwise only splits on whitespace (and ignores ``lowercase``, as nltk does).
    """
    line = unescape(line.replace("<skipped>", ""), _NIST_ENTITIES).replace("\u2028", " ")
    if not western_lang:
        return tuple(line.split())
    line = f" {line} "
    return _v13a_rules(line.lower() if lowercase else line)


_INTL_RULES = (
    (regex.compile(r"(\P{N})(\p{P})"), r"\1 \2 "),
    (regex.compile(r"(\p{P})(\P{N})"), r" \1 \2"),
    (regex.compile(r"(\p{S})"), r" \1 "),
)


@lru_cache(maxsize=CACHE_SIZE)
def tokenize_intl(line: str) -> tuple[str, ...]:
    """mteval-v14 international tokenization (Unicode punctuation and symbols)."""
    for pattern, replacement in _INTL_RULES:
        line = pattern.sub(replacement, line)
    return tuple(line.split())


# Code points sacrebleu's ``zh`` tokenizer treats as Chinese characters (inclusive ranges). sacrebleu writes two of
# its ranges as 5-hex-digit ``\\u`` escapes ('\\u20000', '\\u2f800', ...), which Python reads as a 4-digit escape
# plus a digit; compared with one character they act as the ranges U+2001..U+2A6D and U+2F81..U+2FA1 below (which
# also cover general punctuation such as U+2019 and U+2014). We reproduce that behaviour, since sacrebleu's scores
# are the reference.
_ZH_RANGES = (
    (0x3400, 0x4DB5), (0x4E00, 0x9FA5), (0x9FA6, 0x9FBB), (0xF900, 0xFA2D), (0xFA30, 0xFA6A), (0xFA70, 0xFAD9),
    (0x2001, 0x2A6D), (0x2F81, 0x2FA1), (0xFF00, 0xFFEF), (0x2E80, 0x2EFF), (0x3000, 0x303F), (0x31C0, 0x31EF),
    (0x2F00, 0x2FDF), (0x2FF0, 0x2FFF), (0x3100, 0x312F), (0x31A0, 0x31BF), (0xFE10, 0xFE1F), (0xFE30, 0xFE4F),
    (0x2600, 0x26FF), (0x2700, 0x27BF), (0x3200, 0x32FF), (0x3300, 0x33FF),
)
_ZH_CHAR = re.compile("([" + "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in _ZH_RANGES) + "])")


@lru_cache(maxsize=CACHE_SIZE)
def tokenize_zh(line: str) -> tuple[str, ...]:
    """sacrebleu's ``zh``: each Chinese character alone, the rest by the 13a regular expressions."""
    return _v13a_rules(_ZH_CHAR.sub(r" \1 ", line.strip()))


def tokenize_char(line: str) -> tuple[str, ...]:
    """Every non-whitespace character is a token."""
    return tuple(char for char in line if not char.isspace())


def tokenize_none(line: str) -> tuple[str, ...]:
    """No tokenization beyond splitting on whitespace."""
    return tuple(line.split())


BLEU_TOKENIZERS: dict[str, Tokenizer] = {
    "13a": tokenize_13a,
    "intl": tokenize_intl,
    "zh": tokenize_zh,
    "char": tokenize_char,
    "none": tokenize_none,
}


def get_tokenizer(name: str) -> Tokenizer:
    """Return the BLEU tokenizer called ``name`` (one of ``BLEU_TOKENIZERS``)."""
    try:
        return BLEU_TOKENIZERS[name]
    except (KeyError, TypeError):
        raise OptionError(
            f"unknown tokenize={name!r}; choose one of {sorted(BLEU_TOKENIZERS)} "
            "(13a is sacrebleu's default, zh for Chinese, char for character-level, intl for mteval-v14)."
        ) from None


#: a tokenizer name (``BLEU_TOKENIZERS``) or a callable text -> list of tokens (HF evaluate's ``tokenizer=``)
TokenizerSpec = str | Callable[[str], Sequence[str]]


def check_tokenizer(tokenizer: object) -> TokenizerSpec:
    """``tokenizer`` if it is a callable or a known tokenizer name, else a ``ValueError`` naming the choices."""
    if not callable(tokenizer):
        get_tokenizer(tokenizer)  # type: ignore[arg-type]
    return tokenizer  # type: ignore[return-value]


def tokenizer_name(tokenizer: TokenizerSpec) -> str:
    """The tokenizer as a signature shows it: its name, the name of a known tokenizer passed as a function
    (``tokenize_13a`` -> ``13a``), or a callable's ``__name__``."""
    if isinstance(tokenizer, str):
        return tokenizer
    known = [name for name, function in BLEU_TOKENIZERS.items() if function is tokenizer]
    return known[0] if known else getattr(tokenizer, "__name__", type(tokenizer).__name__)


def call_cached(cached: Callable, *key: object) -> Any:
    """``cached(*key)`` through its ``lru_cache``, or its uncached function where the key cannot be hashed (a key
    holding an unhashable tokenizer object, which HF's ``tokenizer=`` allows)."""
    try:
        hash(key)
    except TypeError:
        return cached.__wrapped__(*key)
    return cached(*key)


def text_tokens(text: str, tokenizer: TokenizerSpec, lowercase: bool = False) -> tuple:
    """The tokens of ``text``, lowercased first if asked.

    A name is applied as sacrebleu applies its tokenizers (trailing whitespace stripped first); a callable as HF
    evaluate's ``bleu`` and ``google_bleu`` call their ``tokenizer`` (on the text as it is). The two differ only on a
    text ending in a hyphen and a line break (13a joins ``-\\n``). A callable must return a list (or tuple) of tokens.
    """
    if lowercase:
        text = text.lower()
    if isinstance(tokenizer, str):
        return BLEU_TOKENIZERS[tokenizer](text.rstrip())
    tokens = tokenizer(text)
    if isinstance(tokens, (str, bytes)) or not isinstance(tokens, (list, tuple)):
        raise OptionTypeError(
            f"tokenizer must return a list of tokens for each text; {tokenizer!r} returned "
            f"{type(tokens).__name__} {tokens!r:.40} for {text!r:.40}. Wrap a tokenizer that returns a string: "
            "tokenizer=lambda text: my_tokenizer(text).split()."
        )
    return tuple(tokens)
