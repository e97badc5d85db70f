"""ROUGE tokenizers, the language shortcut, the lost-letters check and the cached Porter stemmer.

Three built-in tokenizers map a text to a tuple of tokens:

- ``rouge_score`` (the default, as HF evaluate's ``rouge``): rouge_score 0.1.2's ``DefaultTokenizer``, token for
  token, on every text: ``lower()``, then every run of characters other than ``[a-z0-9]`` separates tokens. Letters
  outside ASCII are lost: ``"günter"`` gives ``g``, ``nter``; Chinese, Japanese, Cyrillic or Arabic text has no tokens
  at all (it scores 0). :func:`count_lost_letters` finds such texts, and ROUGE warns once per call about them.
- ``unicode``: case-folded (``str.casefold``) and NFC-normalised; a token is a maximal run of letters, digits and
  combining marks of any script (``[\\p{L}\\p{N}\\p{M}]+``), except that every Han, Hiragana, Katakana and Bopomofo
  character is a token of its own (Chinese and Japanese are written without spaces). On a text whose letters and
  digits are all ASCII it gives exactly rouge_score's tokens (it takes rouge_score's own path there); elsewhere it
  keeps words whole (``"café"`` -> ``café``, not ``caf``). ``lang="de"``, ``"zh"``, ``"ja"``... (any language but
  English, see :func:`tokenizer_for_lang`) selects it.
- ``whitespace``: case-folded, split on whitespace (for text tokenized beforehand).

With ``use_stemmer=True`` tokens longer than 3 characters go through nltk's ``PorterStemmer()`` (mode
``NLTK_EXTENSIONS``, nltk's default, which is what rouge_score 0.1.2 constructs), as rouge_score does; in the
``unicode`` and ``whitespace`` tokenizers only ASCII ``[a-z0-9]+`` tokens are stemmed (Porter is an English stemmer).
Stems are cached per token and token tuples per text, so the references shared by several systems, and the frequent
words of a corpus, are stemmed once.

A callable ``tokenizer(text) -> list[str]`` (or an object with a ``tokenize`` method, as rouge_score's tokenizers)
replaces the built-in ones; its tokens are used as they are (no stemming, no case folding), as in rouge_score and
HF evaluate.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any, Union

import regex
from nlgmetrics.errors import OptionError, OptionTypeError

TEXT_CACHE_SIZE = 2**16  # texts per tokenizer configuration
STEM_CACHE_SIZE = 2**18  # distinct tokens; the cache is emptied when it is full

RougeTokenizer = Callable[[str], tuple]
TokenizerSpec = Union[str, Callable[[str], Any], Any, None]

_ASCII_TOKEN = re.compile(r"[a-z0-9]+")
_VALID_TOKEN = re.compile(r"[a-z0-9]+")
_CJK = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Bopomofo}"
_UNICODE_TOKEN = regex.compile(rf"[{_CJK}]|[[\p{{L}}\p{{N}}\p{{M}}]--[{_CJK}]]+", flags=regex.V1)

# a letter, digit or mark outside ASCII: what rouge_score's tokenizer drops
_LOST_LETTER = regex.compile(r"[[\p{L}\p{N}\p{M}]--[\x00-\x7f]]", flags=regex.V1)
_LANG_CODE = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*")

DEFAULT_TOKENIZER = "rouge_score"
ROUGE_TOKENIZER_NAMES = ("rouge_score", "unicode", "whitespace")


class PorterStemCache:
    """nltk's Porter stemmer (rouge_score's configuration) with a bounded per-token cache.

    The cache maps a token to what rouge_score's tokenizer makes of it: its stem when it is longer than 3
    characters, the token itself otherwise, or ``""`` when the result is not a valid ``[a-z0-9]+`` token.
    """

    def __init__(self, maxsize: int = STEM_CACHE_SIZE) -> None:
        from nltk.stem.porter import PorterStemmer  # imported only when stemming is asked for

        self._stem = PorterStemmer().stem
        self._cache: dict[str, str] = {}
        self._maxsize = maxsize

    def __call__(self, token: str) -> str:
        """The rouge_score form of one token ("" if it is dropped)."""
        out = self._cache.get(token)
        if out is None:
            if len(self._cache) >= self._maxsize:
                self._cache.clear()
            out = self._stem(token) if len(token) > 3 else token
            if not _VALID_TOKEN.fullmatch(out):
                out = ""
            self._cache[token] = out
        return out

    def stem_tokens(self, tokens: list[str]) -> tuple[str, ...]:
        """rouge_score's rule: stem tokens longer than 3 characters, then keep only valid ``[a-z0-9]+`` tokens."""
        cache = self._cache
        out = [cache[t] if t in cache else self(t) for t in tokens]
        return tuple(t for t in out if t) if "" in out else tuple(out)

    def clear(self) -> None:
        self._cache.clear()


_STEMMER: PorterStemCache | None = None


def porter_stemmer() -> PorterStemCache:
    """The process-wide cached Porter stemmer."""
    global _STEMMER
    if _STEMMER is None:
        _STEMMER = PorterStemCache()
    return _STEMMER


def _ascii_tokens(text: str) -> list[str]:
    return _ASCII_TOKEN.findall(text.lower())


def _stem_ascii_only(tokens: list[str]) -> tuple[str, ...]:
    """Stem the ASCII ``[a-z0-9]+`` tokens longer than 3 characters; leave the others as they are."""
    stem = porter_stemmer()
    out = [stem(t) if t.isascii() and _VALID_TOKEN.fullmatch(t) else t for t in tokens]
    return tuple(t for t in out if t)


def _make(name: str, use_stemmer: bool) -> RougeTokenizer:
    if name == "rouge_score":

        def tokenize(text: str) -> tuple[str, ...]:
            tokens = _ASCII_TOKEN.findall(text.lower())
            return porter_stemmer().stem_tokens(tokens) if use_stemmer else tuple(tokens)

    elif name == "unicode":

        def tokenize(text: str) -> tuple[str, ...]:
            if text.isascii():  # identical tokens to the general path below, faster
                tokens = _ASCII_TOKEN.findall(text.lower())
                return porter_stemmer().stem_tokens(tokens) if use_stemmer else tuple(tokens)
            tokens = _UNICODE_TOKEN.findall(unicodedata.normalize("NFC", text.casefold()))
            return _stem_ascii_only(tokens) if use_stemmer else tuple(tokens)

    elif name == "whitespace":

        def tokenize(text: str) -> tuple[str, ...]:
            tokens = unicodedata.normalize("NFC", text.casefold()).split()
            return _stem_ascii_only(tokens) if use_stemmer else tuple(tokens)

    else:  # pragma: no cover - guarded by get_rouge_tokenizer
        raise AssertionError(name)
    tokenize.__name__ = f"tokenize_{name}{'_stemmed' if use_stemmer else ''}"
    return lru_cache(maxsize=TEXT_CACHE_SIZE)(tokenize)


_BUILT_IN: dict[tuple[str, bool], RougeTokenizer] = {}


def _wrap_callable(fn: Callable[[str], Any]) -> RougeTokenizer:
    def tokenize(text: str) -> tuple[str, ...]:
        tokens = tuple(fn(text))
        for token in tokens:
            if not isinstance(token, str):
                raise OptionTypeError(
                    f"the tokenizer returned {type(token).__name__} {token!r:.40} for {text!r:.40}: "
                    "a ROUGE tokenizer must return a list of strings."
                )
        return tokens

    return tokenize


def get_rouge_tokenizer(tokenizer: TokenizerSpec = None, use_stemmer: bool = False) -> RougeTokenizer:
    """A function text -> tuple of tokens for ``tokenizer`` (a name, a callable, an object with ``tokenize``, or
    None / ``"default"`` for ``rouge_score``, the default). Built-in tokenizers are cached per text."""
    if tokenizer is None:
        tokenizer = DEFAULT_TOKENIZER
    if isinstance(tokenizer, str):
        name = DEFAULT_TOKENIZER if tokenizer == "default" else tokenizer
        if name not in ROUGE_TOKENIZER_NAMES:
            raise OptionError(
                f"unknown tokenizer={tokenizer!r}; choose one of {list(ROUGE_TOKENIZER_NAMES)} or pass a callable "
                "text -> list of tokens ('rouge_score' is the default, as HF evaluate; 'unicode' keeps the letters of "
                "every script)."
            )
        key = (name, bool(use_stemmer))
        if key not in _BUILT_IN:
            _BUILT_IN[key] = _make(name, bool(use_stemmer))
        return _BUILT_IN[key]
    if hasattr(tokenizer, "tokenize") and callable(tokenizer.tokenize):
        return _wrap_callable(tokenizer.tokenize)
    if callable(tokenizer):
        return _wrap_callable(tokenizer)
    raise OptionTypeError(
        f"tokenizer must be a name ({', '.join(ROUGE_TOKENIZER_NAMES)}), a callable text -> list of str, or an "
        f"object with a tokenize(text) method; got {type(tokenizer).__name__}."
    )


def tokenizer_for_lang(lang: object) -> str | None:
    """The built-in tokenizer for texts in language ``lang`` (an ISO 639 code such as ``"de"``, ``"zh"``, ``"ja"``,
    ``"pt-BR"``): ``None`` (the default, rouge_score's) for English, ``"unicode"`` for every other language (their
    letters outside ASCII would be lost)."""
    if not isinstance(lang, str) or not _LANG_CODE.fullmatch(lang):
        raise OptionError(
            f"lang must be a language code such as 'en', 'de', 'zh' or 'ja', got {lang!r:.40}; it only picks the "
            "tokenizer ('unicode' for every language but English), so you can pass tokenizer='unicode' instead."
        )
    return None if lang.split("-")[0].split("_")[0].lower() == "en" else "unicode"


def is_default_tokenizer(tokenizer: TokenizerSpec) -> bool:
    """Whether ``tokenizer`` means the default (rouge_score's): None or ``"default"``."""
    return tokenizer is None or (isinstance(tokenizer, str) and tokenizer == "default")


def count_lost_letters(texts: Iterable[str]) -> tuple[int, str, int]:
    """``(count, letter, index)``: how many of ``texts`` have a letter, digit or mark outside ASCII, which
    rouge_score's tokenizer drops; the first such character and the index of its text (``""`` and -1 if none)."""
    count, first, where = 0, "", -1
    search = _LOST_LETTER.search
    for i, text in enumerate(texts):
        if text.isascii():
            continue
        found = search(text)
        if found is not None:
            count += 1
            if where < 0:
                first, where = found.group(), i
    return count, first, where


def clear_caches() -> None:
    """Empty the per-text and per-token caches (benchmarks use this to time a cold start)."""
    for fn in _BUILT_IN.values():
        fn.cache_clear()  # type: ignore[attr-defined]
    if _STEMMER is not None:
        _STEMMER.clear()
