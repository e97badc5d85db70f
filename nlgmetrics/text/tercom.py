"""The Tercom tokenizer of TER, token-for-token identical to sacrebleu 2.6's ``TercomTokenizer``.

Steps, in order, each only when its option is on:

1. lowercase (unless ``case_sensitive``);
2. ``normalized``: join lines (``\\n-`` removed, ``\\n`` to space), unescape ``&quot; &amp; &lt; &gt;``, split off
   ASCII punctuation and symbols, split off the possessive ``'s``, split ``.`` and ``,`` unless between digits,
   split ``-`` after a digit (the mteval-v13a rules plus the possessive); with ``asian_support`` also split CJK
   ideographs, strokes, radicals and compatibility characters, Kana runs and CJK/full-width punctuation;
3. ``no_punct``: delete ``. , ? : ; ! " ( )`` (and, with ``asian_support``, CJK and full-width punctuation);
4. split on whitespace.
"""

from __future__ import annotations

import re
from functools import lru_cache

from nlgmetrics.text.tokenizers import _v13a_marks, _v13a_symbols

CACHE_SIZE = 2**16  # lines: the references are tokenized once for every system scored against them

_POSSESSIVE_END = re.compile(r"'s$")

_ASIAN_PUNCT = r"([\u3001\u3002\u3008-\u3011\u3014-\u301f\uff61-\uff65\u30fb])"
_FULL_WIDTH_PUNCT = r"([\uff0e\uff0c\uff1f\uff1a\uff1b\uff01\uff02\uff08\uff09])"
# Tercom's Asian rules (sacrebleu's regular expressions, kept as they are: the Kana rules' ``^`` inside a group
# only matches at the start of the line, so a Kana run is split off only there).
_ASIAN_RULES = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"([\u4e00-\u9fff\u3400-\u4dbf])", r" \1 "),  # CJK unified ideographs and extension A
        (r"([\u31c0-\u31ef\u2e80-\u2eff])", r" \1 "),  # CJK strokes, radicals supplement
        (r"([\u3300-\u33ff\uf900-\ufaff\ufe30-\ufe4f])", r" \1 "),  # CJK compatibility (forms, ideographs)
        (r"([\u3200-\u3f22])", r" \1 "),  # enclosed CJK letters and months (sacrebleu's range)
        (r"(^|^[\u3040-\u309f])([\u3040-\u309f]+)(?=$|^[\u3040-\u309f])", r"\1 \2 "),  # Hiragana
        (r"(^|^[\u30a0-\u30ff])([\u30a0-\u30ff]+)(?=$|^[\u30a0-\u30ff])", r"\1 \2 "),  # Katakana
        (r"(^|^[\u31f0-\u31ff])([\u31f0-\u31ff]+)(?=$|^[\u31f0-\u31ff])", r"\1 \2 "),  # Katakana extensions
        (_ASIAN_PUNCT, r" \1 "),
        (_FULL_WIDTH_PUNCT, r" \1 "),
    )
)
_PUNCT = re.compile(r"[\.,\?:;!\"\(\)]")
_ASIAN_PUNCT_RE = (re.compile(_ASIAN_PUNCT), re.compile(_FULL_WIDTH_PUNCT))


def _normalize_western(line: str) -> str:
    line = line.replace("\n-", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    line = _v13a_symbols(f" {line} ").replace("'s ", " 's ")
    return _v13a_marks(_POSSESSIVE_END.sub(" 's", line))


@lru_cache(maxsize=CACHE_SIZE)
def tokenize_tercom(
    line: str, normalized: bool = False, no_punct: bool = False, asian_support: bool = False,
    case_sensitive: bool = False,
) -> tuple[str, ...]:
    """Tokens of ``line`` under sacrebleu's ``TercomTokenizer`` with these options (see the module docstring)."""
    if not case_sensitive:
        line = line.lower()
    if normalized:
        line = _normalize_western(line)
        if asian_support:
            for pattern, replacement in _ASIAN_RULES:
                line = pattern.sub(replacement, line)
    if no_punct:
        line = _PUNCT.sub("", line)
        if asian_support:
            for pattern in _ASIAN_PUNCT_RE:
                line = pattern.sub("", line)
    return tuple(line.split())
