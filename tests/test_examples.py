"""Every example a user is shown runs as is (issue #29, item 17): each ``nlgmetrics <command> --help`` example line
and every ```python / ```bash block of README.md, on sample files (WMT17 de-en lines in a scratch folder holding
hyp.txt, ref.txt, ref2.txt, base.txt, sys1.txt, sys2.txt, sentences.txt and a ``metrics`` link to the checkout's).

A block that cannot run here says why in a comment right above its fence, which this test reads::

    <!-- not run by tests: needs a Ray cluster -->

New README sections are picked up by themselves: run this file after merging them.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from doc_blocks import LANGUAGES, fenced_blocks

from nlgmetrics import cli

SAMPLE_FILES = ("hyp.txt", "ref.txt", "ref2.txt", "base.txt", "sys1.txt", "sys2.txt", "sentences.txt")


def readme_blocks(path: Path = REPO / "README.md") -> list[tuple[int, str, str, str | None]]:
    """(line, language, code, skip reason) of every fenced block."""
    return [tuple(block) for block in fenced_blocks(path)]


def help_examples() -> list[str]:
    """Every ``  nlgmetrics ...`` line of every subcommand's --help."""
    parser = cli.build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, type(parser._subparsers._group_actions[0])))
    found = []
    for name, sub in subparsers.choices.items():
        found += [line.strip() for line in sub.format_help().splitlines() if line.startswith("  nlgmetrics ")]
    return found


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, wmt17_deen) -> Path:
    folder = tmp_path_factory.mktemp("examples")
    systems = [wmt17_deen["systems"][name][:20] for name in sorted(wmt17_deen["systems"])]
    texts = {"hyp.txt": systems[0], "ref.txt": wmt17_deen["references"][:20], "ref2.txt": systems[3],
             "base.txt": systems[0], "sys1.txt": systems[1], "sys2.txt": systems[2],
             "sentences.txt": wmt17_deen["references"][20:120]}
    for name in SAMPLE_FILES:
        (folder / name).write_text("\n".join(texts[name]) + "\n", encoding="utf-8")
    (folder / "metrics").symlink_to(REPO / "metrics")
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    (bin_dir / "nlgmetrics").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m nlgmetrics.cli "$@"\n')
    (bin_dir / "nlgmetrics").chmod(0o755)
    return folder


def _env(workdir: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(REPO), "PATH": f"{workdir / 'bin'}{os.pathsep}{os.environ['PATH']}",
            "MPLBACKEND": "Agg"}


@pytest.mark.parametrize("line", help_examples())
def test_help_example_runs(line, workdir, monkeypatch, capsys):
    monkeypatch.chdir(workdir)
    assert cli.main(shlex.split(line)[1:]) == 0, capsys.readouterr().err


def test_every_option_shown_in_help_is_accepted_by_its_metric():
    """``-o KEY=VALUE`` fragments in option help (``-m METRIC`` on the same line, or ``-o METRIC.KEY=VALUE``) are options
    of that metric: the help once showed ``-o tokenize=zh`` and ``-o bleu.tokenize=intl``, which bleu rejects."""
    parser = cli.build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, type(parser._subparsers._group_actions[0])))
    shown = 0
    for sub in subparsers.choices.values():
        tokens, metric = sub.format_help().split(), ""
        for i, token in enumerate(tokens[:-1]):
            following = tokens[i + 1]
            if token == "nlgmetrics":
                metric = ""
            elif token in ("-m", "--metric") and re.fullmatch(r"\w+", following):
                metric = following
            if token != "-o" or not re.match(r"[a-z][\w.]*=", following):
                continue
            option = following.rstrip(",;)")
            key, raw = option.split("=", 1)
            named, _, key = key.rpartition(".")  # compare's METRIC.KEY
            metric = named or metric
            assert metric, f"help shows -o {option} without a metric: write -m METRIC -o ... or -o METRIC.KEY=..."
            cli.coerce_option(metric, key, raw.strip("'\")"))
            shown += 1
    assert shown >= 3


BLOCKS = [block for block in readme_blocks() if block[1] in ("python", "bash")]


@pytest.fixture
def emptydir(tmp_path, workdir) -> Path:
    """A folder with nothing but links to the checkout's ``metrics`` and ``integration``: a README block must define
    its own inputs (issue #36 item 9: blocks used undefined $DATA, src, hyp, which sample files here would hide)."""
    for name in ("metrics", "integration"):
        (tmp_path / name).symlink_to(REPO / name)
    return tmp_path


@pytest.mark.parametrize("line, language, code, skip", BLOCKS, ids=[f"README.md:{b[0]}" for b in BLOCKS])
def test_readme_block_runs(line, language, code, skip, workdir, emptydir):
    if skip:
        pytest.skip(skip)
    command = [sys.executable, "-c", code] if language == "python" else ["bash", "-euo", "pipefail", "-c", code]
    done = subprocess.run(command, cwd=emptydir, env=_env(workdir), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"README.md:{line} ({language}) failed:\n{done.stderr[-3000:]}"


def test_every_readme_block_is_run_or_says_why():
    blocks = readme_blocks()
    for line, language, code, skip in blocks:
        assert language in LANGUAGES and (skip is None or skip.strip()), line
    assert sum(1 for b in blocks if b[1] in ("python", "bash") and not b[3]) >= 6  # most of them run


def test_readme_blocks_define_their_inputs():
    """Also the blocks the tests cannot run: every name a python block reads and every $VARIABLE a bash block reads is
    defined in that block (issue #36 item 9)."""
    from doc_blocks import undefined_names

    for line, language, code, skip in readme_blocks():
        if language in ("python", "bash"):
            assert undefined_names(code, language) == set(), f"README.md:{line}"


def test_readme_install_lines_take_cpu_torch_and_say_how_to_activate():
    """issue #36 items 1, 3, 7: the install lines name PyTorch's CPU index, `make demo` is followed by the venv's
    activation, and the Python version is stated."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    install = text.split("## Install", 1)[1].split("\n## ", 1)[0]
    pip_lines = [line for line in install.splitlines() if line.startswith("pip install")]
    assert pip_lines and all("https://download.pytorch.org/whl/cpu" in line for line in pip_lines)
    assert "source .venv/bin/activate" in install and "Python 3.10" in install
    for stale in ("with every metric", "Every error is", "this 2-core machine", "quiet machine", "pip install 'nlgmetrics["):
        assert stale not in text, stale


def test_readme_names_every_metric_lm_eval_name_and_file():
    """issue #29 item 22: the intro omitted chrF and TER, the lm-eval list nlgm_chrf and nlgm_ter, the layout files."""
    from nlgmetrics.integration.lm_eval import lm_eval_names
    from nlgmetrics.registry import SPECS

    text = (REPO / "README.md").read_text(encoding="utf-8")
    intro = text.split("\n## ", 1)[0]
    shown = {"bleu": "BLEU", "sacrebleu": "sacrebleu", "google_bleu": "Google BLEU", "nist_mt": "NIST", "chrf": "chrF",
             "ter": "TER", "rouge": "ROUGE", "meteor": "METEOR", "bertscore": "BERTScore", "moverscore": "MoverScore",
             "comet": "COMET", "bleurt": "BLEURT", "metricx": "MetricX", "llm_judge": "LLM judge"}
    assert [name for name in SPECS if name in shown and shown[name] not in intro] == []
    names = [n for n in lm_eval_names() if not n.startswith("nlgm_bertscore_")] + ["nlgm_bertscore_{precision,recall,f1}"]
    assert [name for name in names if f"`{name}`" not in text] == []
    layout = text.split("## Layout", 1)[1].split("\n## ", 1)[0]
    files = {path.name for path in (REPO / "nlgmetrics").rglob("*.py") if path.name != "__init__.py"}
    assert sorted(name for name in files if name not in layout) == []


INLINE = re.compile(r"`((?:mkdir [^`]*&& )?nlgmetrics [^`]*)`")


def test_every_inline_readme_command_runs_as_written_in_an_empty_folder(workdir, emptydir):
    """Issue 43: `nlgmetrics hub build bleu --out spaces/bleu` failed as written in a fresh clone (spaces/ did not
    exist; a folder a user names must have an existing parent, the output rule). Every inline command of the README
    that has arguments and no placeholder (ORG/..., [optional]) runs, in a folder holding nothing."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    commands = [" ".join(c.split()) for c in INLINE.findall(text)]  # a span may wrap: Markdown reads a space
    commands = [c for c in commands if len(c.split()) > 2 and "ORG/" not in c and "[" not in c]
    assert any("hub build" in c for c in commands), commands
    (emptydir / "tests").symlink_to(REPO / "tests")  # as in a clone: the README's data paths start at its root
    for command in commands:
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", command], cwd=emptydir, env=_env(workdir),
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"README: `{command}` failed:\n{done.stderr[-2000:]}"


def test_readme_says_which_defaults_reach_the_hub():
    """Issue 43: the README said nothing is fetched from the hub unless a hub model is named, but COMET's, BLEURT's and
    MetricX's defaults and BERTScore's `-o lang=en` are hub ids. The README names each (read from the code here)."""
    import json

    from nlgmetrics.learned.bleurt import DEFAULT_CHECKPOINT as BLEURT
    from nlgmetrics.learned.comet_checkpoint import DEFAULT_CHECKPOINT as COMET
    from nlgmetrics.learned.metricx import DEFAULT_CHECKPOINT as METRICX

    english = json.loads((REPO / "nlgmetrics" / "data" / "bertscore_layers.json").read_text())["lang2model"]["en"]
    install = " ".join((REPO / "README.md").read_text(encoding="utf-8").split("## Install", 1)[1]
                       .split("\n## ", 1)[0].split())
    for default in (COMET, BLEURT, METRICX, english):
        assert f"`{default}`" in install, default
    assert "HF_HUB_OFFLINE=1" in install and "-o lang=en" in install


def test_readme_says_why_the_lm_eval_demo_scores_zero():
    """Issue 43: the lm-eval demo showed 0.0 for almost every metric without saying the dummy model is why."""
    from nlgmetrics.registry import score

    section = " ".join((REPO / "README.md").read_text(encoding="utf-8").split("### lm-evaluation-harness", 1)[1]
                       .split("\n### ", 1)[0].split())
    assert score("bleu", ["lol"], ["a summary of the document"])["bleu"] == 0.0
    assert 'The dummy model answers "lol" to every prompt' in section and "0.0" in section
