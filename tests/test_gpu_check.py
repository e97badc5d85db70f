"""benchmarks/gpu_check.py (issue #37) in its CPU dry-run mode, on a few sections: every section it runs writes real
numbers into the JSON, a section that fails records its error and the run goes on, and a spent budget skips
sections cleanly. The full dry run (every section, ~2 CPU minutes) is ``python -m benchmarks.gpu_check --out DIR
--dry-run``; the GPU run itself is described in benchmarks/results/README.md."""

from __future__ import annotations

import json

import pytest
from conftest import REPO

pytest.importorskip("torch")
pytest.importorskip("transformers")


@pytest.fixture()
def gpu_check(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO))
    from benchmarks import gpu_check

    return gpu_check


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("gpu-work")


def _run(gpu_check, out, work, *extra) -> dict:
    assert gpu_check.main(["--out", str(out), "--dry-run", "--work", str(work), "--pairs", "4",
                           "--correct-pairs", "3", *extra]) == 0
    report = json.loads((out / "gpu_check.json").read_text())
    assert (out / "gpu_check.md").read_text().startswith("# GPU check")
    return report


@pytest.fixture(scope="module")
def dry_run(work, tmp_path_factory):
    """One dry run of several sections (the env section, ~10-30 CPU s of imports, once)."""
    import sys

    sys.path.insert(0, str(REPO))
    from benchmarks import gpu_check

    out = tmp_path_factory.mktemp("gpu-out")
    sections = "correct_bertscore_roberta,speed_bertscore_roberta,oom,comet_precision,sharded"
    return _run(gpu_check, out, work, "--only", sections), out


def test_dry_run_sections_give_numbers(dry_run):
    report = dry_run[0]
    sections = report["sections"]
    assert set(sections) == {"env", "correct_bertscore_roberta-large", "speed_bertscore_roberta-large", "oom",
                             "comet_precision", "sharded"}
    assert sections["env"]["torch"] and "packages" in sections["env"]
    correct = sections["correct_bertscore_roberta-large"]
    assert correct["pairs"] == 3 and correct["max_abs_diff"] == 0.0  # CPU against CPU in the dry run
    assert correct["max_abs_diff_padded"] < 1e-5 and correct["packed_cpu"] is True
    rows = sections["speed_bertscore_roberta-large"]["rows"]
    assert [r["dtype"] for r in rows] == ["float32", "float16", "bfloat16"]
    for row in rows:
        assert "error" not in row, row.get("traceback")
        assert row["pairs"] == 4 and row["pairs_per_s"] > 0 and row["floor_pairs_per_s"] > 0
        assert row["ratio_to_floor"] == pytest.approx(row["seconds"] / row["floor_seconds"])
        assert row["max_drift_vs_fp32"] == 0.0 and row["nonfinite"] == 0
    assert sections["speed_bertscore_roberta-large"]["references"][0]["case"].endswith("[reference]")
    assert sections["oom"]["skipped"].startswith("no CUDA")
    assert "random weights of roberta-large's shape" in report["checkpoints"]["sources"]["roberta-large"]


def test_a_failing_section_is_recorded_and_the_run_goes_on(gpu_check, tmp_path, work, monkeypatch):
    def broken(self, data, device, dtype, batch_size):
        raise RuntimeError("kernel exploded")

    monkeypatch.setattr(gpu_check.EmbedSpec, "score", broken)
    report = _run(gpu_check, tmp_path, work, "--only", "correct_bertscore_roberta,speed_bertscore_roberta")
    assert report["sections"]["correct_bertscore_roberta-large"]["error"] == "RuntimeError: kernel exploded"
    rows = report["sections"]["speed_bertscore_roberta-large"]["rows"]
    assert len(rows) == 3 and all(r["error"] == "RuntimeError: kernel exploded" for r in rows)


def test_spent_budget_skips_sections(gpu_check, tmp_path, work):
    report = _run(gpu_check, tmp_path, work, "--budget-s", "0", "--only", "correct_bertscore,pytest,oom")
    sections = report["sections"]
    assert "error" not in sections["env"]
    skipped = {k for k, v in sections.items() if str(v.get("skipped", "")).startswith("budget")}
    assert skipped == {"correct_bertscore_minilm", "correct_bertscore_roberta-large", "pytest", "oom"}


def test_dry_run_mbr_section(gpu_check, tmp_path, work):
    """The MBR section (issue 46) on the CPU with tiny shapes: the CPU and "device" runs select the same texts and
    every figure is a number. (With a shared dry run of several sections, add ``mbr`` to its ``--only`` list and
    check these there: one env section less.)"""
    report = _run(gpu_check, tmp_path, work, "--only", "mbr")
    selection = report["sections"]["mbr"]
    assert "error" not in selection, selection.get("traceback")
    assert selection["cpu_vs_device"]["same_texts"] is True and selection["cpu_vs_device"]["max_abs_diff"] < 1e-5
    assert selection["speed"]["sources"] == 4 and selection["speed"]["float32_seconds"] > 0
    assert selection["n1024"]["candidates"] == 32 and selection["n1024"]["chrf_seconds"] > 0
    assert selection["n1024"]["chrf_traced_peak_mib"] > 0 and 0 <= selection["n1024"]["comet_index"] < 32
    assert selection["comet_mbr"]["status"] == "not installed (unbabel-comet)"
    assert "## MBR selection (issue 46)" in (tmp_path / "gpu_check.md").read_text()


def test_oom_section_records_the_halving(gpu_check, work, monkeypatch):
    """The ``oom`` section's own code on the CPU: the CUDA allocator calls faked, the encoder's forward capped at 100
    sequences (as the memory cap would): the batch of 512 halves to 64 and the call finishes."""
    import torch

    from nlgmetrics.embed import encoder as engine

    for name, value in {"memory_allocated": lambda *a: 2**30, "max_memory_allocated": lambda *a: 2**30,
                        "set_per_process_memory_fraction": lambda *a: None, "empty_cache": lambda: None,
                        "reset_peak_memory_stats": lambda *a: None,
                        "get_device_properties": lambda *a: type("P", (), {"total_memory": 80 * 2**30})}.items():
        monkeypatch.setattr(torch.cuda, name, value)
    real = engine.forward_batch

    def capped(model, batch, *args, **kwargs):
        if len(batch) > 100:
            raise torch.OutOfMemoryError("CUDA out of memory (simulated)")
        return real(model, batch, *args, **kwargs)

    monkeypatch.setattr(engine, "forward_batch", capped)
    from benchmarks import gpu_models
    from benchmarks.gpu_models import Checkpoints

    words = [f"segment {i} of the test" for i in range(2048)]  # short distinct texts: the section stays quick
    monkeypatch.setattr(gpu_models, "wmt17_pairs", lambda n: (words[:n], words[::-1][:n]))

    dev = gpu_check.Device("cpu")
    dev.cuda = True  # the section's CUDA branch, on the CPU
    rec: dict = {}
    gpu_check.section_oom(rec, Checkpoints(work, None, True, "cpu"), dev, True)
    assert rec["batch_halved_and_finished"] is True and rec["pairs"] == 512
    assert rec["batch_512"]["final_batch"] == 64 and rec["batch_512"]["warnings"] == [
        "CPU out of memory at batch 512; retrying at 256", "CPU out of memory at batch 256; retrying at 128",
        "CPU out of memory at batch 128; retrying at 64"]


def test_dry_run_comet_precision_and_sharded_sections(dry_run):
    """Issue 45's sections on the CPU: COMET's precision options against float32 (half precision moves the scores,
    autocast is float32 without CUDA), and BLEURT-20/MetricX-24 loaded from save_pretrained's sharded forms with the
    single file's scores."""
    report, out = dry_run
    precision = report["sections"]["comet_precision"]
    assert "error" not in precision, precision.get("traceback")
    rows = {row["option"]: row for row in precision["rows"]}
    assert set(rows) == {"precision=float32", "precision=half", "dtype=float16", "dtype=bfloat16"}
    assert 0 < rows["precision=half"]["max_abs_diff_vs_float32"] < 0.05  # float16 rounding, not another model
    assert rows["dtype=bfloat16"]["max_abs_diff_vs_float32"] == 0.0 and "no CUDA" in rows["dtype=bfloat16"]["note"]
    assert precision["reference"]["status"].startswith("not installed")  # unbabel-comet is an oracle-venv package
    sharded = report["sections"]["sharded"]
    assert "error" not in sharded, sharded.get("traceback")
    for name in ("bleurt20", "metricx"):
        assert sharded[name]["single"]["files"] == 1
        for form in ("sharded-safetensors", "sharded-bin"):
            assert sharded[name][form]["files"] >= 3 and sharded[name][form]["max_abs_diff_vs_single"] == 0.0
    assert "## COMET precision (issue 45)" in (out / "gpu_check.md").read_text()
