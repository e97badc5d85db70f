"""Offline by construction: hub variables set and caches in a temp folder before anything imports transformers,
torch limited to 2 threads (1 per worker when pytest-xdist runs several: the cores are shared, and OpenMP threads
that outnumber them spin), and any socket connection beyond this machine refused."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import socket
import tempfile
from pathlib import Path

_TMP = tempfile.mkdtemp(prefix="nlgmetrics-tests-")  # each pytest process (xdist: each worker) has its own
os.environ.update(
    {
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "HF_EVALUATE_OFFLINE": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "TOKENIZERS_PARALLELISM": "false",
        "HF_HOME": os.path.join(_TMP, "hf"),
        "HF_DATASETS_CACHE": os.path.join(_TMP, "hf", "datasets"),
        "HF_EVALUATE_CACHE": os.path.join(_TMP, "hf", "evaluate"),
        "NLGMETRICS_JUDGE_CACHE": os.path.join(_TMP, "judge", "judge.sqlite"),  # and file-digests.json beside it
    }
)

_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
_THREADS = 1 if _WORKERS > 1 else 2
if _WORKERS > 1:  # subprocesses the tests start inherit it (before torch loads OpenMP here)
    os.environ.setdefault("OMP_NUM_THREADS", "1")

import pytest  # noqa: E402

try:
    import torch  # noqa: E402

    torch.set_num_threads(_THREADS)
except ImportError:  # the lexical metrics do not need torch
    pass

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"

_real_connect = socket.socket.connect


def _local_only_connect(self, address):
    host = address[0] if isinstance(address, tuple) else address
    if isinstance(host, str) and (host.startswith("127.") or host in ("localhost", "::1", "0.0.0.0") or "/" in host):
        return _real_connect(self, address)
    if self.family == socket.AF_UNIX:
        return _real_connect(self, address)
    raise OSError(f"tests run offline: connection to {address!r} refused by tests/conftest.py")


socket.socket.connect = _local_only_connect


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """``make test`` keeps bytecode in one folder inside the venv (``PYTHONPYCACHEPREFIX``). What it holds for files in
    the temporary folder (earlier runs' venvs and scripts, never read again: ~70 MB a run) is dropped here, once, in
    the main process, so the folder does not grow with every run."""
    prefix = os.environ.get("PYTHONPYCACHEPREFIX")
    if prefix and not hasattr(session.config, "workerinput"):
        shutil.rmtree(Path(prefix) / Path(tempfile.gettempdir()).resolve().relative_to("/"), ignore_errors=True)


def pytest_unconfigure(config):
    """This process's temporary folder goes (xdist workers end with ``os._exit``, so an ``atexit`` hook would not run)."""
    shutil.rmtree(_TMP, ignore_errors=True)


def pytest_collection_modifyitems(config, items):
    """Files with a test marked ``slow`` first, each file's own order kept: under pytest-xdist (``--dist loadfile``,
    as ``make test`` runs it) workers take whole files in this order, so the long end-to-end runs start early instead
    of leaving one worker busy with them at the end while the others idle."""
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)


@pytest.fixture(autouse=True)
def _run_from_repo_root(monkeypatch):
    """evaluate.load("./metrics/<name>") paths are relative to the repository root."""
    monkeypatch.chdir(REPO)


def read_lines(path: Path) -> list[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return handle.read().split("\n")[:-1]


@pytest.fixture(scope="session")
def wmt17_ende() -> dict:
    """The WMT17 en-de reference and three full system outputs (tests/data/wmt17_ende)."""
    folder = DATA / "wmt17_ende"
    systems = {
        path.name[len("newstest2017.") : -len(".en-de.gz")]: read_lines(path)
        for path in sorted(folder.glob("newstest2017.*.en-de.gz"))
    }
    return {"reference": read_lines(folder / "newstest2017-ende-ref.de.gz"), "systems": systems}


@pytest.fixture(scope="session")
def wmt17_deen() -> dict:
    """150 WMT17 de-en segments: ``references`` and four ``systems`` (raw: lowercased, tokenized, HTML-escaped)."""
    return json.loads((DATA / "wmt17_deen_150.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def nltk_nist_tokenizer():
    """nltk's own ``NISTTokenizer`` (the oracle for HF ``nist_mt``'s tokens), offline."""
    return make_nltk_nist_tokenizer()


def make_nltk_nist_tokenizer():
    """nltk's own ``NISTTokenizer``, offline.

    Its class body reads the ``perluniprops`` corpus (for ``international_tokenize`` only), which nltk would download;
    the three files it reads are written here from Python's Unicode categories. ``tokenize``, the method HF uses, does
    not look at them.
    """
    import sys
    import unicodedata

    import nltk

    root = Path(_TMP) / "nltk_data"
    folder = root / "misc" / "perluniprops"
    folder.mkdir(parents=True, exist_ok=True)
    chars = [chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF]
    for name, major in (("Number", "N"), ("Punctuation", "P"), ("Symbol", "S")):
        text = "".join(ch for ch in chars if unicodedata.category(ch)[0] == major)
        (folder / f"{name}.txt").write_text(text, encoding="utf-8")
    if str(root) not in nltk.data.path:
        nltk.data.path.insert(0, str(root))
    from nltk.tokenize.nist import NISTTokenizer

    return NISTTokenizer()
