"""Policy test (issue 33.3): every model-based metric, through every entry point, against ONE table of broken
checkpoint folders.

The metrics are enumerated from the registry (every ``learned`` spec that needs a checkpoint), and so are their
entry points: the command line (``nlgmetrics score -m NAME -o OPTION=FOLDER``, in process through ``cli.main`` and
once as a real subprocess), the evaluate module (``evaluate.load("./metrics/NAME", FOLDER)``, the folder as config
name) and the Python API (``registry.get_metric(NAME)(..., OPTION=FOLDER)``). The checkpoint option's name comes
from the compute function's signature (:func:`checkpoint_option`). A learned metric added later without a builder
in :data:`LAYOUTS` fails :func:`test_every_model_based_metric_has_a_checkpoint_layout`.

Rules checked: the CLI answers exit 2 and exactly one ``nlgmetrics: error:`` line, no traceback, never torch's advice
``weights_only=False``; Python and evaluate raise the project's error class (an
:class:`nlgmetrics.errors.NlgmetricsError`), never a raw RuntimeError, SafetensorError, UnpicklingError, KeyError or
TypeError.
"""

from __future__ import annotations

import collections
import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("yaml")

import torch  # noqa: E402

from conftest import REPO  # noqa: E402
from nlgmetrics import registry  # noqa: E402
from nlgmetrics.cli import main  # noqa: E402
from nlgmetrics.errors import NlgmetricsError  # noqa: E402

PREDICTIONS = ["Der Hund bellt laut.", "Es regnet heute in Berlin."]
REFERENCES = ["Der Hund bellt.", "Heute regnet es in Berlin."]
SOURCES = ["The dog barks loudly.", "It is raining in Berlin today."]

#: names a compute function gives its checkpoint option, in the order they are looked for
_CHECKPOINT_OPTIONS = ("checkpoint", "model", "model_path", "model_name")


def checkpoint_option(name: str) -> str:
    """The keyword metric ``name`` takes its checkpoint folder by (from its compute function's signature)."""
    options = registry.get_spec(name).option_names()
    return next(option for option in _CHECKPOINT_OPTIONS if option in options)


# -- the tiny checkpoints and how each stores its config and weights -------------------------------------------------
def _comet(folder: Path) -> Path:
    """A COMET regression checkpoint (wmt22-comet-da's layout) on a tiny XLM-R encoder: weights drawn here with our own
    modules under unbabel-comet's parameter names (the parity tests build theirs with unbabel-comet itself)."""
    import yaml
    from transformers import XLMRobertaConfig, XLMRobertaModel

    from comet_builder import build_encoder
    from learned_checkpoints import training_text
    from nlgmetrics.learned.comet import FeedForward, LayerMix

    encoder = build_encoder(folder.parent / "comet-encoder", training_text()[:400], vocab_size=300,
                            max_position_embeddings=66)
    torch.manual_seed(0)
    config = XLMRobertaConfig.from_pretrained(encoder)
    state = {f"encoder.model.{k}": v for k, v in XLMRobertaModel(config, add_pooling_layer=False).state_dict().items()}
    mix = LayerMix(config.num_hidden_layers + 1, False, "sparsemax")
    state.update({f"layerwise_attention.{k}": v for k, v in mix.state_dict().items()})
    head = FeedForward(6 * config.hidden_size, [48, 16], "Tanh", None, 0.1)
    state.update({f"estimator.{k}": v for k, v in head.state_dict().items()})
    hparams = {"class_identifier": "regression_metric", "encoder_model": "XLM-RoBERTa", "pretrained_model": str(encoder),
               "hidden_sizes": [48, 16], "layer": "mix", "layer_transformation": "sparsemax", "layer_norm": False,
               "pool": "avg", "dropout": 0.1, "activations": "Tanh", "final_activation": None}
    (folder / "checkpoints").mkdir(parents=True)
    (folder / "hparams.yaml").write_text(yaml.safe_dump(hparams))
    torch.save({"state_dict": state, "hyper_parameters": hparams, "epoch": 0}, folder / "checkpoints" / "model.ckpt")
    return folder


def _bleurt(folder: Path) -> Path:
    from learned_checkpoints import build_bleurt

    return build_bleurt(folder, "bert")


def _metricx(folder: Path) -> Path:
    from learned_checkpoints import build_metricx

    return build_metricx(folder)


@dataclass(frozen=True)
class Layout:
    """How a metric's checkpoint folder stores its settings and weights, and two edits of its settings."""

    build: Callable[[Path], Path]
    config: str  # the settings file (JSON or YAML)
    weights: str  # the weights file the builder writes
    needed: str  # a weight the model cannot do without
    mismatch: dict  # settings that describe another architecture than the weights
    wrong_type: dict  # a setting of the wrong type
    wrapped: bool = False  # the weights file holds {"state_dict": ...} (Lightning's checkpoint)
    safetensors: bool = True  # a model.safetensors in the folder is read in preference
    shards: bool = True  # save_pretrained's sharded form (an index and its shards) is read too


LAYOUTS: dict[str, Layout] = {
    "bleurt": Layout(_bleurt, "config.json", "pytorch_model.bin", "classifier.weight",
                     mismatch={"intermediate_size": 80}, wrong_type={"num_hidden_layers": "two"}),
    "metricx": Layout(_metricx, "config.json", "model.safetensors", "lm_head.weight",
                      mismatch={"d_ff": 48}, wrong_type={"num_heads": "four"}),
    "comet": Layout(_comet, "hparams.yaml", "checkpoints/model.ckpt", "estimator.ff.0.weight",
                    mismatch={"hidden_sizes": [40, 16]}, wrong_type={"hidden_sizes": "big"}, wrapped=True,
                    safetensors=False, shards=False),
}
#: model-based metrics whose model is not a checkpoint folder this table describes, and why
NOT_CHECKPOINTS = {"llm_judge": "its model is any causal LM (or a server), loaded by transformers; "
                                "tests/test_llm_judge_errors.py covers its failures"}


def model_based_metrics() -> list[str]:
    return [name for name, spec in registry.SPECS.items() if spec.kind == registry.LEARNED and spec.needs_checkpoint]


METRICS = [name for name in model_based_metrics() if name not in NOT_CHECKPOINTS]


def test_every_model_based_metric_has_a_checkpoint_layout():
    assert set(METRICS) >= {"bleurt", "metricx", "comet"}
    for name in METRICS:
        assert name in LAYOUTS, f"{name}: add its checkpoint Layout (a tiny builder) to LAYOUTS"
        assert (REPO / "metrics" / name / f"{name}.py").is_file(), name
        assert checkpoint_option(name)


# -- the broken folders ----------------------------------------------------------------------------------------------
def _read_state(path: Path, layout: Layout) -> dict:
    if path.suffix == ".safetensors":
        from safetensors.torch import load_file

        return load_file(str(path))
    state = torch.load(path, map_location="cpu", weights_only=True)
    return state["state_dict"] if layout.wrapped else state


def _write_state(path: Path, layout: Layout, state: dict) -> None:
    path.unlink()
    if path.suffix == ".safetensors":
        from safetensors.torch import save_file

        save_file(state, str(path), metadata={"format": "pt"})
    else:
        torch.save({"state_dict": state} if layout.wrapped else state, path)


def _edit_config(folder: Path, layout: Layout, changes: dict) -> None:
    import yaml

    path = folder / layout.config
    values = json.loads(path.read_text()) if path.suffix == ".json" else yaml.safe_load(path.read_text())
    values.update(changes)
    path.unlink()  # a hard link to the good checkpoint's file: replace it, never write through it
    path.write_text(json.dumps(values) if path.suffix == ".json" else yaml.safe_dump(values))


def _truncated(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _not_a_checkpoint(folder: Path, layout: Layout) -> None:
    shutil.rmtree(folder)
    folder.mkdir()
    (folder / "notes.txt").write_text("my model is somewhere else\n")


def _truncated_safetensors(folder: Path, layout: Layout) -> None:
    from safetensors.torch import save

    weights = folder / layout.weights
    data = _truncated(save(_read_state(weights, layout)))
    weights.unlink()
    (folder / ("model.safetensors" if layout.safetensors else layout.weights)).write_bytes(data)


def _truncated_bin(folder: Path, layout: Layout) -> None:
    weights = folder / layout.weights
    buffer = io.BytesIO()
    state = _read_state(weights, layout)
    torch.save({"state_dict": state} if layout.wrapped else state, buffer)
    weights.unlink()
    target = folder / (layout.weights if layout.wrapped else "pytorch_model.bin")
    target.write_bytes(_truncated(buffer.getvalue()))


def _pickle(folder: Path, layout: Layout) -> None:
    weights = folder / layout.weights
    state = _read_state(weights, layout)
    state["extra"] = collections.OrderedDict(a=print)  # a global torch's weights_only unpickler refuses
    weights.unlink()
    target = folder / (layout.weights if layout.wrapped else "pytorch_model.bin")
    torch.save({"state_dict": state} if layout.wrapped else state, target)


def _with_state(edit: Callable[[dict, Layout], None]) -> Callable[[Path, Layout], None]:
    def apply(folder: Path, layout: Layout) -> None:
        state = _read_state(folder / layout.weights, layout)
        edit(state, layout)
        _write_state(folder / layout.weights, layout, state)

    return apply


def _sharded(folder: Path, layout: Layout) -> dict:
    """The folder's weights re-saved as save_pretrained shards them (an index and three or more shards in the same
    format: :func:`learned_checkpoints.save_sharded`); returns the index."""
    from learned_checkpoints import save_sharded

    weights = folder / layout.weights
    state = _read_state(weights, layout)
    weights.unlink()
    size = sum(t.numel() * t.element_size() for t in state.values())
    index = save_sharded(state, folder, "bin" if weights.suffix == ".bin" else "safetensors", max(size // 4, 1))
    assert len(set(index["weight_map"].values())) >= 3
    return index


def _missing_shard(folder: Path, layout: Layout) -> None:
    index = _sharded(folder, layout)
    (folder / sorted(set(index["weight_map"].values()))[1]).unlink()


def _extra_shard(folder: Path, layout: Layout) -> None:
    """A shard of another save beside the index's: its name continues the index's numbering, it holds tensors."""
    index = _sharded(folder, layout)
    first = sorted(set(index["weight_map"].values()))[0]
    stem, _, rest = first.partition("-00001-of-")
    count, suffix = rest.split(".", 1)
    extra = folder / f"{stem}-{int(count) + 1:05d}-of-{int(count) + 1:05d}.{suffix}"
    extra.write_bytes((folder / first).read_bytes())


def _broken_index(folder: Path, layout: Layout) -> None:
    _sharded(folder, layout)
    index = folder / f"{(folder / layout.weights).name}.index.json"
    index.write_text(index.read_text()[:40])


#: cases that only apply to checkpoints save_pretrained writes (sharded forms)
SHARD_CASES = ("a missing shard", "an extra shard", "a broken shard index")

#: the one table: case -> edit(folder, layout) of a (hard-linked) copy of a good checkpoint
BROKEN: dict[str, Callable[[Path, Layout], None]] = {
    "not a checkpoint": _not_a_checkpoint,
    "config does not match the weights": lambda folder, layout: _edit_config(folder, layout, layout.mismatch),
    "wrong-typed config value": lambda folder, layout: _edit_config(folder, layout, layout.wrong_type),
    "truncated safetensors": _truncated_safetensors,
    "truncated .bin": _truncated_bin,
    "pickle refused by weights_only": _pickle,
    "an unused extra weight": _with_state(lambda state, layout: state.update(
        {"extra_head.weight": torch.zeros(3, 2)})),
    "a missing weight": _with_state(lambda state, layout: state.pop(layout.needed)),
    "a missing shard": _missing_shard,
    "an extra shard": _extra_shard,
    "a broken shard index": _broken_index,
}

#: (metric, case) that fail on main and are fixed on another branch: they must flip when it is merged
KNOWN_FAILURES: dict[tuple[str, str], str] = {}  # (metric, case) -> reason: none today
#: the entry points where a known failure shows (the CLI boundary already turns raw errors into one line)
_FAILS_AT: dict[tuple[str, str], tuple[str, ...]] = {}


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    """One tiny good checkpoint per metric, built on first use."""
    root, built = tmp_path_factory.mktemp("good_checkpoints"), {}

    def get(name: str) -> Path:
        if name not in built:
            built[name] = LAYOUTS[name].build(root / name)
        return built[name]

    return get


@pytest.fixture(scope="module")
def broken(good, tmp_path_factory):
    """``broken(metric, case)``: the folder of ``case`` for ``metric`` (made once; files hard-linked to the good
    checkpoint's, edited files replaced)."""
    root, made = tmp_path_factory.mktemp("broken_checkpoints"), {}

    def get(name: str, case: str) -> Path:
        if (name, case) not in made:
            folder = root / name / case.replace(" ", "_")
            shutil.copytree(good(name), folder, copy_function=os.link)
            BROKEN[case](folder, LAYOUTS[name])
            made[name, case] = folder
        return made[name, case]

    return get


def _cases(entry: str):
    for name in METRICS:
        for case in BROKEN:
            if case in SHARD_CASES and not LAYOUTS[name].shards:
                continue  # COMET's Lightning checkpoint is one file
            marks = []
            if (name, case) in KNOWN_FAILURES and entry in _FAILS_AT.get((name, case), ("python", "evaluate")):
                marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_FAILURES[name, case]))
            yield pytest.param(name, case, marks=marks, id=f"{name}-{case}")


def _inputs(tmp_path: Path) -> dict[str, Path]:
    files = {}
    for key, lines in (("predictions", PREDICTIONS), ("references", REFERENCES), ("sources", SOURCES)):
        files[key] = tmp_path / f"{key}.txt"
        files[key].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return files


def _cli_argv(name: str, folder: Path, files: dict[str, Path]) -> list[str]:
    argv = ["score", "-m", name, "-p", str(files["predictions"]), "-r", str(files["references"]),
            "-o", f"{checkpoint_option(name)}={folder}", "-f", "json"]
    if registry.get_spec(name).sources != registry.SOURCES_NONE:
        argv += ["-s", str(files["sources"])]
    return argv


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err and "weights_only=False" not in err, err
    assert len(lines) == 1 and lines[0].startswith("nlgmetrics: error:"), err
    return lines[0]


def _assert_project_error(exc: BaseException) -> None:
    assert isinstance(exc, NlgmetricsError), f"{type(exc).__module__}.{type(exc).__name__}: {exc}"
    assert "weights_only=False" not in str(exc) and "\n" not in str(exc).strip(), str(exc)


@pytest.mark.parametrize("name,case", list(_cases("cli")))
def test_cli_answers_a_broken_checkpoint_with_one_line(name, case, broken, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("NLGMETRICS_HOME", str(tmp_path / "home"))
    folder = broken(name, case)
    assert main(_cli_argv(name, folder, _inputs(tmp_path))) == 2
    _one_line(capsys.readouterr().err)


@pytest.mark.parametrize("name,case", list(_cases("python")))
def test_python_api_raises_the_project_error_class(name, case, broken):
    folder = broken(name, case)
    spec = registry.get_spec(name)
    inputs = spec.input_arguments(SOURCES if spec.sources != registry.SOURCES_NONE else None)
    with pytest.raises(Exception) as caught:
        registry.get_metric(name)(PREDICTIONS, REFERENCES, **inputs, **{checkpoint_option(name): str(folder)})
    _assert_project_error(caught.value)


@pytest.mark.parametrize("name,case", list(_cases("evaluate")))
def test_evaluate_module_raises_the_project_error_class(name, case, broken, tmp_path):
    import evaluate

    folder = broken(name, case)
    kwargs = {"predictions": PREDICTIONS, "references": REFERENCES}
    if registry.get_spec(name).sources != registry.SOURCES_NONE:
        kwargs["sources"] = SOURCES
    with pytest.raises(Exception) as caught:
        module = evaluate.load(str(REPO / "metrics" / name), str(folder), cache_dir=str(tmp_path / "cache"))
        module.compute(**kwargs)
    _assert_project_error(caught.value)
    assert not [p.name for p in folder.iterdir() if p.name.endswith((".arrow", ".lock"))]


def test_the_console_script_answers_a_pickle_with_one_line(broken, tmp_path):
    """Once as a real process: the console entry point, its stderr and exit code, nothing else."""
    name = METRICS[0]
    argv = _cli_argv(name, broken(name, "pickle refused by weights_only"), _inputs(tmp_path))
    env = {**os.environ, "PYTHONPATH": str(REPO), "NLGMETRICS_HOME": str(tmp_path / "home")}
    env.pop("NLGMETRICS_TRACEBACK", None)
    done = subprocess.run([sys.executable, "-m", "nlgmetrics.cli", *argv], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 2 and done.stdout == "", (done.returncode, done.stdout, done.stderr)
    assert "pickle" in _one_line(done.stderr)
