"""Per-word caches for METEOR's matching stages: Porter stems and WordNet synonym sets.

nltk's ``meteor_score`` stems every unmatched word and asks WordNet for the synsets of every unmatched hypothesis
word again for every sentence pair (and every reference). A word's stem and synonym set never change, so here each
is computed once per distinct word and kept in a bounded LRU cache.

- :func:`porter_stem`: ``nltk.stem.PorterStemmer().stem(word)`` (nltk's default ``NLTK_EXTENSIONS`` mode, which
  lowercases).
- :func:`wordnet_synonyms`: ``{word} | {lemma names without "_" of every synset of word}`` over all parts of
  speech (``nltk.corpus.wordnet.synsets(word)``, which applies WordNet's morphology), exactly the set nltk's METEOR
  compares against. nltk builds a full ``Synset`` object (gloss, examples, pointers) from the data file for every
  synset it meets, about 1 ms per new word; we need only lemma names, so the four ``data.*`` files are read once
  into ``offset -> single-word lemma names`` tables (:class:`LemmaNames`, about a second, part of loading WordNet)
  and a word's synonyms are nltk's own morphology (``reader._morphy``) and index (``_lemma_pos_offset_map``)
  followed by table look-ups. Lemma names are parsed as nltk parses them (a trailing syntactic marker such as
  ``(a)`` is dropped).

WordNet comes from :func:`nlgmetrics.resources.ensure_wordnet` (WordNet 3.0, offline); nothing is downloaded.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

CACHE_SIZE = 2**18  # distinct words

_STEMMER = None
_WORDNET = None
_NAMES = None
POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}  # nltk's POS_LIST order
_MARKER = re.compile(r"(.*?)(\([^()]*\))?$")  # nltk: a lemma's trailing syntactic marker, e.g. "(a)", "(ip)"


def _stemmer():
    global _STEMMER
    if _STEMMER is None:
        from nltk.stem.porter import PorterStemmer

        _STEMMER = PorterStemmer()
    return _STEMMER


def wordnet_reader():
    """nltk's WordNet reader (``nltk.corpus.wordnet``), provisioned offline; a clear error if it cannot be."""
    global _WORDNET
    if _WORDNET is None:
        from nlgmetrics.resources import ensure_wordnet, wordnet_missing_error

        ensure_wordnet()
        try:
            _WORDNET = _english_wordnet()
        except LookupError as exc:
            raise wordnet_missing_error(f"nltk could not read it: {str(exc).strip().splitlines()[0]}") from None
    return _WORDNET


def _english_wordnet():
    """``nltk.corpus.wordnet`` as nltk builds it (the same files, found the same way), minus one step: nltk's reader
    maps the loaded WordNet onto WordNet 3.0 for its multilingual (OMW) look-ups, and because ``map_wn`` compares the
    version "3.0" with the name "wordnet" it builds that map for 3.0 itself: about 3 s of the reader's 6 s, in every
    process that scores METEOR. English synsets, morphology and the index never read the map."""
    import warnings

    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class EnglishWordNet(WordNetCorpusReader):
        def map_wn(self, version="wordnet"):
            return None  # no multilingual look-ups here (omw_reader is None)

    try:
        root = nltk.data.find("corpora/wordnet")
    except LookupError:
        root = nltk.data.find("corpora/wordnet.zip/wordnet/")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The multilingual functions are not available")
        return EnglishWordNet(root, None)


class LemmaNames:
    """Per part of speech, synset offset -> the synset's lemma names that contain no ``_``, from ``data.*``."""

    def __init__(self, folder: Path) -> None:
        self.tables: dict[str, dict[int, tuple[str, ...]]] = {}
        for pos, name in POS_FILES.items():
            table: dict[int, tuple[str, ...]] = {}
            with open(folder / f"data.{name}", encoding="utf-8") as handle:
                for line in handle:
                    if line.startswith(" "):  # the license header
                        continue
                    fields = line.split("|", 1)[0].split()
                    count = int(fields[3], 16)
                    names = []
                    for word in fields[4 : 4 + 2 * count : 2]:
                        if word.endswith(")"):
                            word = _MARKER.match(word).group(1)
                        if "_" not in word:
                            names.append(word)
                    if names:
                        table[int(fields[0])] = tuple(names)
            self.tables[pos] = table


def _lemma_names(reader) -> LemmaNames | None:
    """The lemma-name tables for ``reader``'s folder, or None when its layout is not the plain-folder one we know."""
    global _NAMES
    if _NAMES is None:
        folder = Path(str(getattr(reader.root, "path", "")))
        usable = all(hasattr(reader, a) for a in ("_morphy", "_lemma_pos_offset_map"))
        if not usable or not all((folder / f"data.{name}").is_file() for name in POS_FILES.values()):
            _NAMES = False
        else:
            _NAMES = LemmaNames(folder)
    return _NAMES or None


def load_wordnet() -> None:
    """Load everything the synonym stage reads (nltk's index and exceptions, our lemma-name tables)."""
    _lemma_names(wordnet_reader())


@lru_cache(maxsize=CACHE_SIZE)
def porter_stem(word: str) -> str:
    """The Porter stem nltk's METEOR uses for ``word``: nltk 3.10's ``PorterStemmer().stem(word)``, which lowercases
    and then looks the lowercased word up in its irregular forms (3.9.1 looked up the word as given, so it is passed
    lowercased: the same stem under both)."""
    return _stemmer().stem(word.lower())


@lru_cache(maxsize=CACHE_SIZE)
def wordnet_synonyms(word: str) -> frozenset[str]:
    """``word`` and the single-word lemma names of all its WordNet synsets."""
    reader = wordnet_reader()
    names = {word}
    tables = _lemma_names(reader)
    if tables is None:  # an unusual reader: ask nltk (same answer, slower)
        for synset in reader.synsets(word):
            names.update(name for name in synset.lemma_names() if "_" not in name)
        return frozenset(names)
    lemma = word.lower()
    index = reader._lemma_pos_offset_map
    for pos, table in tables.tables.items():
        for form in reader._morphy(lemma, pos, True):
            for offset in index.get(form, {}).get(pos, ()):
                names.update(table.get(offset, ()))
    return frozenset(names)


def clear_caches() -> None:
    """Forget cached stems and synonym sets (for benchmarks that time cold runs)."""
    porter_stem.cache_clear()
    wordnet_synonyms.cache_clear()
