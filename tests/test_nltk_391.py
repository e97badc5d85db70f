"""METEOR under nltk 3.9.1 (issue 35 item 3): lighteval 0.13 pins nltk==3.9.1, so nlgmetrics accepts nltk >= 3.9.1,
and METEOR's numbers there must be nltk 3.10's (the contract): nlgmetrics carries 3.10's tokenizer rules
(:mod:`nlgmetrics.text.word_tokenize`). A venv whose own site-packages holds nltk 3.9.1 (from PyPI) in front of this
environment's packages scores a real WMT17 slice of multi-sentence, cased text with German quotes and dashes (where
nltk 3.9.1's own ``word_tokenize`` gives other tokens than 3.10's) and must give this environment's numbers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from nlgmetrics.lexical.meteor import compute_meteor

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parent.parent

SCRIPT = textwrap.dedent('''
    import json, sys
    import nltk
    import nlgmetrics
    from nlgmetrics.lexical.meteor import compute_meteor
    from nlgmetrics.text.word_tokenize import word_tokenize

    predictions, references = json.loads(open(sys.argv[1], encoding="utf-8").read())
    result = compute_meteor(predictions, references)
    texts = predictions + [r for refs in references for r in refs]
    differ = sum(list(word_tokenize(t)) != nltk.word_tokenize(t) for t in texts)  # nltk 3.9.1's own tokens
    print(json.dumps({"nltk": nltk.__version__, "nltk_file": nltk.__file__, "nlgmetrics": nlgmetrics.__file__,
                      "meteor": result["meteor"], "scores": result["scores"], "tokens_differ": differ}))
''')


def slice_pairs(wmt17_ende) -> tuple[list[str], list[list[str]]]:
    """300 predictions of two or three sentences (uedin-nmt) with their references (newstest2017 en-de)."""
    system = wmt17_ende["systems"]["uedin-nmt.4722"]
    reference = wmt17_ende["reference"]
    predictions, references = [], []
    for i in range(0, 900, 3):
        width = 2 + (i // 3) % 2
        predictions.append(" ".join(system[i : i + width]))
        references.append([" ".join(reference[i : i + width])])
    return predictions, references


def test_meteor_under_nltk_391_gives_nltk_310s_numbers(wmt17_ende, tmp_path):
    import nltk

    if not nltk.__version__.startswith("3.10"):
        pytest.skip(f"the contract numbers come from nltk 3.10; this environment has nltk {nltk.__version__}")
    predictions, references = slice_pairs(wmt17_ende)
    expected = compute_meteor(predictions, references)

    venv = tmp_path / "venv391"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "_nlgmetrics_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")  # after its own
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                           "--no-compile", "nltk==3.9.1"], capture_output=True, text=True, timeout=600)
    if done.returncode != 0 and "No matching distribution" in done.stderr + done.stdout:
        pytest.skip(f"nltk 3.9.1 is not reachable from here (PyPI): {done.stderr.strip().splitlines()[-1]}")
    assert done.returncode == 0, done.stderr[-3000:]

    data = tmp_path / "pairs.json"
    data.write_text(json.dumps([predictions, references]), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env["PYTHONPATH"] = str(REPO)
    done = subprocess.run([str(python), "-c", SCRIPT, str(data)], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["nltk"] == "3.9.1" and out["nltk_file"].startswith(str(venv))
    assert out["nlgmetrics"].startswith(str(REPO))
    # nltk 3.9.1's own word_tokenize differs from 3.10's on this slice: the numbers below are not equal by accident
    assert out["tokens_differ"] >= 5, out["tokens_differ"]  # 9 of 600 texts
    assert out["scores"] == pytest.approx(expected["scores"], abs=1e-12)
    assert out["meteor"] == pytest.approx(expected["meteor"], abs=1e-12)
