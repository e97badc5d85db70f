"""The base install (issue 35 item 4): ``pip install nlgmetrics`` without extras scores the lexical metrics without
torch, transformers or POT, through Python, the CLI (``score``, ``compare``, ``agree``, ``list``) and
``evaluate.load``; an embedding or learned metric asked for there is one error naming the extra.

The fresh venv holds the built wheel and exactly the distributions its base requirements need, transitively (read
from the wheel's metadata and resolved against this environment's installed distributions, each linked in by its
RECORD, so nothing is downloaded): a dependency the lexical path needs but the wheel does not declare fails here.
"""

from __future__ import annotations

import csv
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from nlgmetrics import hub
from nlgmetrics.extras import EXTRAS
from nlgmetrics.registry import SPECS, score

pytestmark = pytest.mark.slow

HEAVY = ("torch", "transformers", "ot", "sentencepiece", "openai")  # what the extras bring; none may be importable
LEXICAL_FIVE = ("bleu", "chrf", "ter", "rouge", "meteor")
PREDS = ["The cat sat on the mat.", "There is a dog in the garden, isn't there?", "It rains \u2014 \u201cheavily\u201d."]
REFS = [["A cat sat on the mat."], ["A dog is in the garden.", "The garden has a dog."], ["It is raining hard."]]


def base_requirements(wheel: Path) -> list[Requirement]:
    """The wheel's ``Requires-Dist`` lines without an ``extra`` marker (what ``pip install nlgmetrics`` installs)."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(name).decode("utf-8")
    lines = [line.split(":", 1)[1].strip() for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    return [r for r in map(Requirement, lines) if r.marker is None or r.marker.evaluate({"extra": ""})]


def closure(requirements: list[Requirement]) -> dict[str, importlib.metadata.Distribution]:
    """Every installed distribution ``requirements`` need, transitively (markers evaluated, extras followed); a
    ``KeyError`` naming one that is not installed here, an ``AssertionError`` for a version outside a specifier."""
    found: dict[str, importlib.metadata.Distribution] = {}
    todo = [(r, "") for r in requirements]
    while todo:
        requirement, extra = todo.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": extra}):
            continue
        key = canonicalize_name(requirement.name)
        dist = importlib.metadata.distribution(requirement.name)
        assert requirement.specifier.contains(dist.version, prereleases=True), (requirement, dist.version)
        new_extras = [e for e in requirement.extras if (key, e) not in found]
        if key in found and not new_extras:
            continue
        found[key] = dist
        found.update({(key, e): dist for e in requirement.extras})
        for line in dist.requires or []:
            for wanted in ("", *requirement.extras):
                todo.append((Requirement(line), wanted))
    return {k: v for k, v in found.items() if isinstance(k, str)}


def light_venv(path: Path, dists: dict[str, importlib.metadata.Distribution]) -> Path:
    """A venv (no pip) whose site-packages holds links to the files of ``dists`` only."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = path / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    for dist in dists.values():
        source = Path(dist.locate_file(""))
        for top in sorted({Path(f).parts[0] for f in dist.files or [] if not str(f).startswith("..")}):
            target = site / top
            if (source / top).exists() and not target.exists():
                target.symlink_to(source / top)
    return python


def run(command: list[str], cwd: Path, env: dict[str, str], check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)
    if check:
        assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done


SCRIPT = textwrap.dedent('''
    import importlib.util, json, sys
    import evaluate
    import nlgmetrics
    from nlgmetrics.registry import MissingExtraError, available_metrics, get_metric, score

    preds, refs, names, files = json.loads(sys.argv[1])
    out = {"file": nlgmetrics.__file__, "available": available_metrics(), "python": {}, "evaluate": {}}
    for name in names:
        out["python"][name] = score(name, preds, refs)
        module = evaluate.load(nlgmetrics.module_path(name))
        out["evaluate"][name] = module.compute(predictions=preds, references=refs)
    errors = {}
    for name in ("bertscore", "moverscore", "comet", "bleurt", "metricx", "llm_judge"):
        try:
            get_metric(name)
        except MissingExtraError as exc:
            errors[name] = str(exc)
    try:
        evaluate.load(nlgmetrics.module_path("bertscore")).compute(predictions=preds, references=refs)
    except MissingExtraError as exc:
        errors["evaluate:bertscore"] = str(exc)
    out["errors"] = errors
    out["loaded"] = sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "transformers", "ot"))
    RESULT = {"lexical": out}
''')

#: Every entry point of the installed package, enumerated (so one added later is covered): each metric looked up,
#: each evaluate module computed, each module of the package imported, each command's POLICY_ARGS run in-process.
#: Each either works or raises MissingExtraError; anything else (a ModuleNotFoundError above all) is reported. Run
#: after SCRIPT in the same process (one interpreter start, one import of evaluate).
ENTRY_POINTS = textwrap.dedent('''
    import contextlib, importlib, io, pathlib, traceback
    from nlgmetrics._layout import available_modules
    from nlgmetrics.cli import _parser, main
    from nlgmetrics.errors import MissingExtraError
    from nlgmetrics.registry import SPECS

    out = {}

    def attempt(kind, name, call):
        try:
            call()
            out[f"{kind}:{name}"] = ["ok", ""]
        except MissingExtraError as exc:
            out[f"{kind}:{name}"] = ["extra", str(exc)]
        except BaseException as exc:  # noqa: BLE001
            out[f"{kind}:{name}"] = ["other", "".join(traceback.format_exception_only(exc)).strip()]

    for name in SPECS:
        attempt("metric", name, lambda: get_metric(name))
    for name in available_modules():
        attempt("module", name, lambda: evaluate.load(nlgmetrics.module_path(name)).compute(
            predictions=preds, references=refs))
    root = pathlib.Path(nlgmetrics.__file__).parent  # every module file (a package that needs an extra included)
    for file in sorted(root.rglob("*.py")):
        parts = ("nlgmetrics", *file.relative_to(root).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        if not name.endswith("__main__") and "_modules" not in parts and "_cards" not in parts:
            attempt("import", name, lambda: importlib.import_module(name))
    for command in _parser.COMMANDS:
        for args in command.POLICY_ARGS:
            argv = [token.format(**files) for token in args]
            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                code = main(argv)
            lines = [line for line in err.getvalue().splitlines() if line.strip()]
            kind = "ok" if code == 0 else "extra" if code == 2 and len(lines) == 1 and " extra (" in lines[0] \\
                else "other"
            out["command:" + " ".join(args[:2])] = [kind, err.getvalue().strip()]
    RESULT["entry"] = out
    print(json.dumps(RESULT))
''')


@pytest.fixture(scope="module")
def light(tmp_path_factory):
    """(python, bin folder, work folder, env) of a fresh venv with the wheel and its base dependencies only."""
    tmp = tmp_path_factory.mktemp("light")
    wheel = Path(hub.space_wheel())
    requirements = base_requirements(wheel)
    names = {canonicalize_name(r.name) for r in requirements}
    assert not names & {"torch", "transformers", "pot", "sentencepiece", "openai"}, names
    dists = closure(requirements)
    assert not set(dists) & {"torch", "transformers", "pot", "triton"}, sorted(dists)
    python = light_venv(tmp / "venv", dists)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
                "HF_EVALUATE_OFFLINE": "1", "NLGMETRICS_HOME": str(tmp / "home"), "PATH": f"{tmp / 'venv' / 'bin'}:"
                + env.get("PATH", "")})
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index",
         str(wheel)], tmp, env)
    work = tmp / "work"  # outside the checkout
    work.mkdir()
    return python, tmp / "venv" / "bin", work, env


@pytest.fixture(scope="module")
def light_run(light, tmp_path_factory):
    """SCRIPT then ENTRY_POINTS, in one process of the base install: ``{"lexical": ..., "entry": ...}``."""
    python, _, work, env = light
    folder = tmp_path_factory.mktemp("light-files")
    files = {"text": folder / "text.txt", "text2": folder / "text2.txt", "table": folder / "table.csv",
             "out": folder / "out"}
    files["text"].write_text("\n".join(PREDS) + "\n", encoding="utf-8")
    files["text2"].write_text("\n".join(r[0] for r in REFS) + "\n", encoding="utf-8")
    files["table"].write_text("system,item,human,m\n" + "".join(f"s{s},{i},{(s * 7 + i * 3) % 10},{(s * 5 + i) % 9}\n"
                                                              for s in range(3) for i in range(6)), encoding="utf-8")
    lexical = [name for name, spec in SPECS.items() if spec.kind == "lexical"]
    arguments = json.dumps([PREDS, REFS, lexical, {k: str(v) for k, v in files.items()}])
    done = run([str(python), "-c", SCRIPT + ENTRY_POINTS, arguments], work, env)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_base_install_has_no_torch_and_scores_lexical_metrics_in_python_and_evaluate(light, light_run):
    python, _, work, env = light
    probe = "import importlib.util, json; print(json.dumps([importlib.util.find_spec(m) is None for m in %r]))"
    assert json.loads(run([str(python), "-c", probe % (HEAVY,)], work, env).stdout) == [True] * len(HEAVY)

    lexical = [name for name, spec in SPECS.items() if spec.kind == "lexical"]
    out = light_run["lexical"]
    assert out["file"].startswith(str(python.parent.parent)) and out["loaded"] == []
    assert out["available"] == lexical  # the metrics that need an extra are not offered
    for name in lexical:
        expected = score(name, PREDS, REFS)  # this checkout, the full environment
        for key in SPECS[name].headline:
            key = {"sacrebleu": "score", "chrf": "score", "ter": "score"}.get(key, key)
            assert out["python"][name][key] == pytest.approx(expected[key], abs=1e-12), (name, key)
    assert out["evaluate"]["bleu"]["bleu"] == pytest.approx(score("bleu", PREDS, REFS)["bleu"], abs=1e-12)
    assert out["evaluate"]["rouge"]["rougeL"] == pytest.approx(score("rouge", PREDS, REFS)["rougeL"], abs=1e-12)
    assert out["evaluate"]["meteor"]["meteor"] == pytest.approx(score("meteor", PREDS, REFS)["meteor"], abs=1e-12)
    assert out["evaluate"]["chrf"]["score"] == pytest.approx(score("chrf", PREDS, REFS)["score"], abs=1e-9)
    assert out["evaluate"]["ter"]["score"] == pytest.approx(score("ter", PREDS, REFS)["score"], abs=1e-9)

    errors = out["errors"]
    assert set(errors) == {"bertscore", "moverscore", "comet", "bleurt", "metricx", "llm_judge", "evaluate:bertscore"}
    for name, message in errors.items():
        extra = SPECS[name.split(":")[-1]].extras[0]
        assert_names_install_lines(message, extra)
    assert "torch" in errors["bertscore"] and "POT" in errors["bertscore"]


def assert_names_install_lines(message: str, extra: str) -> None:
    """A missing-extra message: one line naming the extra and what works from a checkout and from a wheel (issue 43:
    it said pip install 'nlgmetrics[embed]', but nlgmetrics is on no index)."""
    from nlgmetrics import __version__

    assert "\n" not in message and f"nlgmetrics[{extra}] extra" in message, message
    assert f"pip install -e '.[{extra}]'" in message, message
    assert f"pip install 'dist/nlgmetrics-{__version__}-py3-none-any.whl[{extra}]'" in message, message
    assert f"pip install 'nlgmetrics[{extra}]'" not in message, message


def test_every_entry_point_works_or_names_its_extra(light_run):
    """Issue 43: evaluate.load(comet).compute() raised ModuleNotFoundError torch, `nlgmetrics baseline` "No module named
    'torch'", the lm-eval and Ray adapters ModuleNotFoundError. In the base install every metric, evaluate module,
    module of the package (adapters included) and command, enumerated, works or raises one MissingExtraError."""
    out = light_run["entry"]
    other = {name: message for name, (kind, message) in out.items() if kind == "other"}
    assert other == {}, other
    kinds = {name: kind for name, (kind, _) in out.items()}
    # every kind of entry point was enumerated, and each lexical one works here
    assert {k.split(":")[0] for k in out} == {"metric", "module", "import", "command"}
    for name, spec in SPECS.items():
        assert kinds[f"metric:{name}"] == ("ok" if not spec.extras else "extra"), name
    assert kinds["module:bleu"] == kinds["module:nlg_suite"] == "ok" and kinds["command:score -m"] == "ok"
    assert kinds["import:nlgmetrics.lexical.bleu"] == kinds["import:nlgmetrics.cli.agree"] == "ok"
    for name, (kind, message) in out.items():
        if kind == "extra":
            line = message.removeprefix("nlgmetrics: error: ")
            assert_names_install_lines(line, line.split("nlgmetrics[", 1)[1].split("]", 1)[0])
    for name, extra in (("module:comet", "learned"), ("command:baseline --model", "embed"),
                        ("import:nlgmetrics.integration.lm_eval", "lmeval"),
                        ("import:nlgmetrics.integration.ray_data", "ray"),
                        ("import:nlgmetrics.integration.inspect", "inspect"),
                        ("import:nlgmetrics.semantic.bertscore", "embed"), ("import:nlgmetrics.judge.core", "judge")):
        assert kinds[name] == "extra" and f"nlgmetrics[{extra}] extra" in out[name][1], (name, out[name])


def test_base_install_cli_scores_compares_and_agrees_and_names_the_missing_extra(light, tmp_path):
    _, bin_dir, work, env = light
    cli = str(bin_dir / "nlgmetrics")
    hyp, hyp2, ref = tmp_path / "hyp.txt", tmp_path / "hyp2.txt", tmp_path / "ref.txt"
    hyp.write_text("\n".join(PREDS) + "\n", encoding="utf-8")
    hyp2.write_text("\n".join(p.lower() for p in PREDS) + "\n", encoding="utf-8")
    ref.write_text("\n".join(r[0] for r in REFS) + "\n", encoding="utf-8")
    first_refs = [[r[0]] for r in REFS]
    for name in LEXICAL_FIVE:
        done = run([cli, "score", "-m", name, "-p", str(hyp), "-r", str(ref), "--format", "json"], work, env)
        result = json.loads(done.stdout)
        key = "score" if name in ("chrf", "ter") else SPECS[name].headline[0]
        assert result[key] == pytest.approx(score(name, PREDS, first_refs)[key], abs=1e-9), name

    listed = run([cli, "list"], work, env).stdout
    assert "bleu" in listed and "meteor" in listed

    done = run([cli, "compare", "-r", str(ref), "--baseline", str(hyp), str(hyp2), "-m", "bleu", "chrf",
                "--format", "json"], work, env)
    assert "bleu" in done.stdout and "chrf" in done.stdout

    table = tmp_path / "judgments.csv"
    with open(table, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["system", "item", "hypothesis", "reference", "human"])
        for system, outputs, bonus in (("A", PREDS, 1.0), ("B", [p.lower() for p in PREDS], 0.5),
                                       ("C", [" ".join(reversed(p.split())) for p in PREDS], 0.0)):
            for item, (output, refs) in enumerate(zip(outputs, REFS)):
                writer.writerow([system, item, output, refs[0], bonus + 0.1 * item])
    done = run([cli, "agree", str(table), "--hypothesis-column", "hypothesis", "--reference-column", "reference",
                "-m", "bleu", "chrf", "--format", "json"], work, env)
    rows = json.loads(done.stdout)["rows"]
    assert {row["metric"] for row in rows} == {"sentence_bleu", "sentence_chrf"}  # per segment: sentence scores

    from nlgmetrics.mbr import mbr

    done = run([cli, "mbr", "-c", str(hyp), "-n", "3", "-m", "chrf", "-f", "json"], work, env)  # MBR without torch
    assert json.loads(done.stdout)["index"] == mbr([PREDS], "chrf")["index"]
    done = run([cli, "mbr", "-c", str(hyp), "-n", "3", "--convention", "mbrs"], work, env, check=False)
    assert done.returncode == 2 and "convention='mbrs'" not in done.stderr and "nlgmetrics[embed]" in done.stderr

    done = run([cli, "score", "-m", "bertscore", "-p", str(hyp), "-r", str(ref)], work, env, check=False)
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.strip().splitlines()  # one line, no traceback
    assert line.startswith("nlgmetrics: error: bertscore needs the nlgmetrics[embed] extra")
    assert_names_install_lines(line, "embed")

    # a figure needs matplotlib ([plot]): refused before the work, with nothing written (issue 43)
    figure = tmp_path / "figure.png"
    done = run([cli, "compare", "-r", str(ref), "--baseline", str(hyp), str(hyp2), "-m", "bleu", "--plot",
                str(figure)], work, env, check=False)
    assert done.returncode == 2 and done.stdout == "" and not figure.exists()
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("nlgmetrics: error: --plot ") and "figure" in line
    assert_names_install_lines(line.removeprefix("nlgmetrics: error: --plot "), "plot")


def test_extras_table_matches_pyproject():
    """extras.EXTRAS (the modules the check looks for) and pyproject's extras (what pip installs) agree; [all] holds
    every extra but the two frameworks that need their own environment (README: Install)."""
    import tomllib

    project = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    module_of = {"pot": "ot", "pyyaml": "yaml"}
    for extra, modules in EXTRAS.items():
        names = {canonicalize_name(Requirement(line).name) for line in extras[extra]}
        assert {module_of.get(n, n.replace("-", "_")) for n in names} >= set(modules), extra
    base = {canonicalize_name(Requirement(line).name) for line in project["dependencies"]}
    assert not base & {"torch", "transformers", "pot", "sentencepiece", "openai", "pyyaml"}
    assert set(re.findall(r"\w+", extras["all"][0].split("[", 1)[1])) == set(EXTRAS) - {"inspect", "lighteval"}


def test_each_framework_extra_installs_what_its_example_needs():
    """Issue 43: the Inspect and lighteval examples score BERTScore, but [inspect] and [lighteval] did not bring
    [embed] (a MissingExtraError); lighteval needs xxhash < 4 (`pip install WHEEL[all] lighteval inspect-ai` resolved
    xxhash 4, which breaks lighteval's details). The metrics each example scores by default, read from the example."""
    import tomllib

    root = Path(__file__).resolve().parent.parent
    extras = tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    examples = {"inspect": root / "integration" / "inspect" / "nlgmetrics_mt.py",
                "lighteval": root / "integration" / "lighteval" / "nlgmetrics_tasks.py"}
    for framework, example in examples.items():
        text = example.read_text(encoding="utf-8")
        used = set(re.findall(r'nlgmetrics_metric\("(\w+)"', text)) | {
            name for name in re.findall(r"\b(\w+)\(", text)  # Inspect's scorers, called by name
            if name in SPECS and re.search(rf"from nlgmetrics\.integration\.inspect import [^\n]*\b{name}\b", text)}
        default = {name for name in used if not SPECS[name].needs_checkpoint}
        assert "bertscore" in default, (framework, used)
        pulled = {e for line in extras[framework] if line.startswith("nlgmetrics[")
                  for e in line.split("[", 1)[1].rstrip("]").split(",")}
        wanted = {extra for name in default for extra in SPECS[name].extras}
        assert wanted <= pulled, (framework, wanted, pulled)
    names = {canonicalize_name(Requirement(line).name): Requirement(line) for line in extras["lighteval"]}
    assert not names["xxhash"].specifier.contains("4.0.0") and names["xxhash"].specifier.contains("3.5.0")
