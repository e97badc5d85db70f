"""MBR selection and QE reranking (nlgmetrics.mbr) against the two reference implementations, each in its own venv
(tests/mbr_oracles.py): unbabel-comet 2.2.7's comet-mbr (its own functions, in float32 on CPU: its command casts the
model to half precision on a GPU) and mbrs 0.1.8's exact and aggregate decoders; on WMT17 en-de's 16 systems as 16
candidates for each of 100 sources (tests/data), with chrF, BLEU and COMET (a small estimator checkpoint built by
unbabel-comet's own classes, tests/comet_builder.py) as utilities. One run of each oracle for the whole file."""

from __future__ import annotations

import gzip
import json
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from comet_builder import build_encoder, oracle_scores  # noqa: E402
from conftest import DATA  # noqa: E402
from mbr_oracles import COMET_MBR, ESTIMATOR, KIWI, comet_mbr_run, run_mbrs  # noqa: E402

from nlgmetrics.errors import InputError, OptionError  # noqa: E402
from nlgmetrics.mbr import mbr, rerank, utility_matrix  # noqa: E402

N_SOURCES = 100
TOP_K = 6


@pytest.fixture(scope="module")
def data():
    """Sources, the 16 systems' outputs as candidates per source, and the reference (first 100 of every 10th line)."""
    with gzip.open(DATA / "wmt17_ende_16systems_every10th.json.gz", "rt", encoding="utf-8") as handle:
        targets = json.load(handle)
    with gzip.open(DATA / "wmt17_ende_source_every10th.json.gz", "rt", encoding="utf-8") as handle:
        sources = json.load(handle)["source"]
    systems = list(targets["systems"].values())
    groups = [[system[i] for system in systems] for i in range(N_SOURCES)]
    return {"sources": sources[:N_SOURCES], "groups": groups, "reference": targets["reference"][:N_SOURCES],
            "texts": targets["reference"] + sources + [t for s in systems[:4] for t in s]}


@pytest.fixture(scope="module")
def comet(tmp_path_factory, data):
    """The estimator and QE checkpoints, comet-mbr's selections (exact; QE top-k first) and unbabel-comet's predict
    on some pairs, from one run of the COMET oracle."""
    work = tmp_path_factory.mktemp("mbr-comet")
    encoder = build_encoder(work / "xlmr", data["texts"], vocab_size=1000, num_hidden_layers=2,
                            max_position_embeddings=130)
    estimator, kiwi = work / "estimator", work / "kiwi"
    sources, groups = data["sources"], data["groups"]
    pairs = [{"src": sources[i], "mt": h, "ref": r} for i in (0, 7) for h in groups[i] for r in groups[i]]
    qe = [{"src": sources[i], "mt": h, "ref": data["reference"][i]} for i in range(20) for h in groups[i]]
    job = {"models": [
        {"folder": str(kiwi), "hparams": {**KIWI, "pretrained_model": str(encoder)}, "seed": 1,
         "variants": {"": ["src", "mt"]}},
        {"folder": str(estimator), "hparams": {**ESTIMATOR, "pretrained_model": str(encoder)}, "seed": 2,
         "exec": COMET_MBR,
         "mbr": [comet_mbr_run("exact", sources, groups),
                 comet_mbr_run("top_k", sources, groups, qe_checkpoint=str(kiwi / "checkpoints" / "model.ckpt"),
                               top_k=TOP_K)]},
    ], "samples": {"pairs": pairs, "qe": qe}, "batch_size": 16}
    out = oracle_scores(job, work, timeout=2400)
    return {"estimator": str(estimator), "kiwi": str(kiwi), "work": work, "pairs": out[str(estimator)]["pairs"],
            "qe": out[str(kiwi)]["qe"], "comet_mbr": out[str(estimator)]["__mbr__exact"],
            "comet_mbr_top_k": out[str(estimator)]["__mbr__top_k"]}


@pytest.fixture(scope="module")
def mbrs(comet, data):
    """mbrs' exact decoder with chrF, BLEU and COMET and its aggregate decoder with chrF and COMET (one oracle run)."""
    model = {"model": f"{comet['estimator']}/checkpoints/model.ckpt", "cpu": True, "batch_size": 64}
    runs = [{"name": "chrf", "metric": "chrf", "decoder": "mbr", "serial": True},
            {"name": "bleu", "metric": "bleu", "decoder": "mbr", "serial": True},
            {"name": "comet", "metric": "comet", "decoder": "mbr", "config": model},
            {"name": "chrf_aggregate", "metric": "chrf", "decoder": "aggregate_mbr"},
            {"name": "comet_aggregate", "metric": "comet", "decoder": "aggregate_mbr", "config": model}]
    return run_mbrs(data["groups"], runs, comet["work"], sources=data["sources"])


def _same_text(groups, ours, theirs):
    """Sources where the selected indices differ; each must hold the same text at both (identical candidates)."""
    differ = [i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b]
    assert all(groups[i][ours[i]] == groups[i][theirs[i]] for i in differ), differ
    return differ


# -- utility matrices: the metric pair by pair ---------------------------------------------------------------------
@pytest.mark.parametrize("metric,options", [("chrf", {}), ("chrf", {"word_order": 2, "lowercase": True}),
                                            ("sacrebleu", {}), ("ter", {})])
def test_lexical_utility_matrices_equal_the_metric_pair_by_pair(data, metric, options):
    from nlgmetrics.registry import score

    for i in (0, 3, 41):
        group = data["groups"][i] + [""]  # an empty candidate is a candidate: the metric's empty-text score
        matrix = utility_matrix(group, group, metric, **options)
        pairs = score(metric, [h for h in group for _ in group], [[r] for _ in group for r in group],
                      sentence_scores=True, **options)["scores"]
        assert np.array_equal(matrix, np.reshape(pairs, matrix.shape))
        alone = score(metric, [group[2]], [[group[5]]], sentence_scores=True, **options)["scores"][0]
        assert matrix[2, 5] == alone


def test_comet_utility_matrix_equals_compute_comet_and_unbabel_comet_pair_by_pair(data, comet):
    from nlgmetrics.learned.comet import compute_comet

    for k, i in enumerate((0, 7)):
        group, source = data["groups"][i], data["sources"][i]
        matrix = utility_matrix(group, group, "comet", source=source, model=comet["estimator"])
        ours = compute_comet([h for h in group for _ in group], [r for _ in group for r in group],
                             sources=[source] * 256, model=comet["estimator"])["scores"]
        assert np.abs(matrix.ravel() - ours).max() < 1e-6
        theirs = comet["pairs"][k * 256 : (k + 1) * 256]
        assert np.abs(matrix.ravel() - theirs).max() < 1e-5
        assert matrix.std() > 1e-3  # the random model tells candidates apart


# -- selection as the anchors select -------------------------------------------------------------------------------
@pytest.mark.parametrize("metric,theirs", [("chrf", "chrf"), ("sacrebleu", "bleu")])
def test_exact_lexical_mbr_selects_as_mbrs(data, mbrs, metric, theirs):
    groups = data["groups"]
    ours = mbr(groups, metric, convention="mbrs")
    assert ours["index"] == mbrs[theirs]["index"]  # the same float32 means: torch.topk picks the same index
    assert ours["expected_utility"] == pytest.approx(mbrs[theirs]["expected"], abs=0, rel=0)
    # comet-mbr's convention (the mean over the other 15, ties to the first index) picks otherwise only among
    # candidates that tie under mbrs' (identical texts, or texts the metric cannot tell apart), as the utility of a
    # candidate with itself is the same (100) for every non-empty candidate
    first = mbr(groups, metric)
    tied = mbr(groups, metric, convention="mbrs", return_matrix=True)["expected_utilities"]
    differ = [i for i, (a, b) in enumerate(zip(first["index"], ours["index"])) if a != b]
    assert differ and all(tied[i][first["index"][i]] == tied[i][ours["index"][i]] for i in differ)
    assert "utility:" + metric in ours["signature"] and "convention:mbrs" in ours["signature"]


def test_exact_comet_mbr_selects_as_comet_mbr_float32(data, comet):
    groups = data["groups"]
    ours = mbr(groups, "comet", sources=data["sources"], model=comet["estimator"], return_matrix=True)
    theirs = comet["comet_mbr"]
    assert ours["text"] == theirs["text"]
    differ = _same_text(groups, ours["index"], theirs["index"])  # float32 sums of reordered equal rows
    expected = np.array(ours["expected_utilities"])
    assert np.abs(expected - np.array(theirs["expected"])).max() < 1e-5
    assert len(differ) < 20


def test_exact_comet_mbr_selects_as_mbrs(data, comet, mbrs):
    groups = data["groups"]
    ours = mbr(groups, "comet", sources=data["sources"], model=comet["estimator"], convention="mbrs")
    assert ours["text"] == mbrs["comet"]["text"]
    _same_text(groups, ours["index"], mbrs["comet"]["index"])
    assert np.abs(np.array(ours["expected_utility"]) - mbrs["comet"]["expected"]).max() < 1e-5
    # the two conventions choose other texts where comet-mbr's mean leaves the candidate's own utility out
    comet_mbr = mbr(groups, "comet", sources=data["sources"], model=comet["estimator"])
    ours_changed = {i for i, (a, b) in enumerate(zip(comet_mbr["text"], ours["text"])) if a != b}
    theirs_changed = {i for i, (a, b) in enumerate(zip(comet["comet_mbr"]["text"], mbrs["comet"]["text"])) if a != b}
    assert ours_changed == theirs_changed


def test_qe_pruning_selects_as_comet_mbr_rerank_top_k(data, comet):
    groups = data["groups"]
    ours = mbr(groups, "comet", sources=data["sources"], model=comet["estimator"], top_k=TOP_K, qe_metric="comet",
               qe_options={"model": comet["kiwi"]})
    theirs = comet["comet_mbr_top_k"]
    assert ours["text"] == theirs["text"]
    for i, kept in enumerate(ours["kept"]):
        assert sorted(groups[i][k] for k in kept) == sorted(theirs["kept_texts"][i])
        assert ours["index"][i] in kept and groups[i][ours["index"][i]] == ours["text"][i]
    assert "top_k:6" in ours["signature"] and "qe:comet{model:kiwi" in ours["signature"]
    with pytest.raises(ValueError, match=r"comet \(checkpoint estimator\) needs sources"):
        mbr(groups, "comet", model=comet["estimator"])  # refused before any model runs


@pytest.mark.parametrize("metric,theirs", [("chrf", "chrf_aggregate"), ("comet", "comet_aggregate")])
def test_reference_aggregation_selects_as_mbrs(data, comet, mbrs, metric, theirs):
    options = {"sources": data["sources"], "model": comet["estimator"]} if metric == "comet" else {}
    ours = mbr(data["groups"], metric, method="aggregate", convention="mbrs", **options)
    assert ours["text"] == mbrs[theirs]["text"]
    _same_text(data["groups"], ours["index"], mbrs[theirs]["index"])
    assert np.abs(np.array(ours["expected_utility"]) - mbrs[theirs]["expected"]).max() < (1e-5 if metric == "comet"
                                                                                           else 1e-9)


def test_centroid_mbr(data, comet):
    """k-means centroids of the sample embeddings: with as many centroids as samples it is exact MBR over all; with
    fewer, a seeded approximation that mostly agrees."""
    groups, options = data["groups"][:30], {"sources": data["sources"][:30], "model": comet["estimator"]}
    exact = mbr(groups, "comet", convention="mbrs", **options)
    every = mbr(groups, "comet", method="centroid", n_centroids=16, convention="mbrs", **options)
    assert every["text"] == exact["text"]
    assert np.abs(np.array(every["expected_utility"]) - exact["expected_utility"]).max() < 1e-5
    four = mbr(groups, "comet", method="centroid", n_centroids=4, seed=3, **options)
    assert four == mbr(groups, "comet", method="centroid", n_centroids=4, seed=3, **options)
    assert sum(a == b for a, b in zip(four["text"], exact["text"])) >= 15
    assert "centroids:4|kmeans:5|seed:3" in four["signature"]


def test_qe_reranking(data, comet):
    """COMET-Kiwi reranking picks each source's best by unbabel-comet's own QE scores."""
    groups = data["groups"][:20]
    ours = rerank(groups, "comet", sources=data["sources"][:20], model=comet["kiwi"], return_scores=True)
    theirs = np.array(comet["qe"]).reshape(20, 16)
    assert np.abs(np.array(ours["scores"]) - theirs).max() < 1e-5
    assert [groups[i][j] for i, j in enumerate(theirs.argmax(axis=1))] == ours["text"]
    oracle = rerank(groups, "chrf", references=data["reference"][:20], return_scores=True)
    assert oracle["score"] == [max(row) for row in oracle["scores"]]


# -- bad input ------------------------------------------------------------------------------------------------------
def test_bad_input_is_one_clear_error_or_a_defined_result(data):
    groups = data["groups"][:3]
    with pytest.raises(InputError, match="source 1 has no candidates"):
        mbr([groups[0], [], groups[2]])
    with pytest.raises(TypeError, match=r"candidates\[0\]\[1\] must be a string"):
        mbr([[groups[0][0], None]])
    with pytest.raises(InputError, match="one list of strings per source"):
        mbr(groups[0])
    with pytest.raises(InputError, match="3 candidate lists but 2 sources"):
        mbr(groups, sources=["a", "b"])
    with pytest.raises(OptionError, match="no meaning for one pair"):
        mbr(groups, "chrf", n_bootstrap=100)
    with pytest.raises(OptionError, match="reference aggregation is defined for chrf"):
        mbr(groups, "sacrebleu", method="aggregate")
    with pytest.raises(OptionError, match="both top_k"):
        mbr(groups, top_k=3)
    with pytest.raises(OptionError, match="unknown convention"):
        mbr(groups, convention="first")
    lone = mbr([["only one"], groups[0]])  # N = 1: the lone candidate, no expected utility under comet-mbr's rule
    assert lone["index"][0] == 0 and lone["expected_utility"][0] is None and lone["expected_utility"][1] > 0
    assert mbr([["only one"]], convention="mbrs")["expected_utility"] == [100.0]  # mbrs: its utility with itself
    empty = mbr([["", "a cat", "a cat sat"]], return_matrix=True)  # an empty candidate: chrF 0 against the others
    assert empty["matrix"][0][0][1:] == [0.0, 0.0] and empty["index"] == [2]


def test_blocks_bound_the_work_and_give_the_same_numbers(data, monkeypatch):
    from nlgmetrics.mbr import utilities
    from nlgmetrics.options import pair_blocks

    blocks = list(pair_blocks([(4, 5), (1, 3), (10, 2)], 6))
    assert [sum((b - a) * [5, 3, 2][g] for g, a, b in block) for block in blocks] == [5, 5, 5, 5, 3, 6, 6, 6, 2]
    groups = data["groups"][:5]
    whole = mbr(groups, "sacrebleu", return_matrix=True)
    monkeypatch.setattr(utilities, "PAIRS_PER_CALL", 7)
    assert mbr(groups, "sacrebleu", return_matrix=True) == whole
    from nlgmetrics.lexical.chrf import CHRF

    chrf = CHRF()
    full = chrf.pairwise_scores([(g, g) for g in groups])
    assert all(np.array_equal(a, b) for a, b in zip(full, chrf.pairwise_scores([(g, g) for g in groups], 5)))


# -- command line ---------------------------------------------------------------------------------------------------
def test_cli_mbr_and_rerank(data, tmp_path, capsys):
    from nlgmetrics.cli import main

    groups = data["groups"][:4]
    lines = tmp_path / "candidates.txt"
    lines.write_text("".join(t + "\n" for g in groups for t in g), encoding="utf-8")
    records = tmp_path / "candidates.jsonl"
    records.write_text("".join(json.dumps({"candidates": g, "source": s}) + "\n"
                               for g, s in zip(groups, data["sources"])), encoding="utf-8")
    expected = mbr(groups, "chrf")
    assert main(["mbr", "-c", str(lines), "-n", "16"]) == 0
    out = capsys.readouterr()
    assert out.out.splitlines() == expected["text"] and expected["signature"] in out.err
    assert main(["mbr", "-c", str(records), "-f", "jsonl", "--convention", "mbrs"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["index"] for r in rows] == mbr(groups, "chrf", convention="mbrs")["index"]
    target = tmp_path / "selected.txt"
    assert main(["mbr", "-c", str(lines), "-n", "16", "-m", "sacrebleu", "--output", str(target)]) == 0
    assert target.read_text(encoding="utf-8").splitlines() == mbr(groups, "sacrebleu")["text"]
    reference = tmp_path / "reference.txt"
    reference.write_text("".join(r + "\n" for r in data["reference"][:4]), encoding="utf-8")
    assert main(["rerank", "-c", str(lines), "-n", "16", "-r", str(reference), "-m", "chrf", "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["index"] == rerank(groups, "chrf", references=data["reference"][:4])[
        "index"]
    capsys.readouterr()
    for argv, message in [
        (["mbr", "-c", str(lines), "-n", "15"], "not a multiple of --num-candidates 15: its last source has only 4"),
        (["mbr", "-c", str(lines)], "give --num-candidates N"),
        (["mbr", "-c", str(records), "-n", "12"], "candidates.jsonl:1: 16 candidates, but --num-candidates says 12"),
        (["mbr", "-c", str(lines), "-n", "16", "--output", str(target)], "exists; pass --overwrite"),
        (["mbr", "-c", str(lines), "-n", "16", "-m", "chrf", "--method", "centroid"], "use --method exact or"),
        (["mbr", "-c", str(lines), "-n", "16", "-m", "sacrebleu", "--method", "aggregate"], "use --method exact"),
        (["mbr", "-c", str(lines), "-n", "16", "--top-k", "3"], "both --top-k K"),
        (["mbr", "-c", str(lines), "-n", "8", "-s", str(reference)], "has 4 lines but"),
    ]:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "Traceback" not in err and message in err, (argv, err)
    records.write_text(json.dumps({"candidates": ["a"], "source": "x"}) + "\n" + json.dumps({"candidates": ["b"]})
                       + "\n", encoding="utf-8")
    assert main(["mbr", "-c", str(records)]) == 2
    assert "candidates.jsonl:2: the record has no 'source' while others have" in capsys.readouterr().err


def test_qe_reranking_with_metricx_qe_and_the_judge(data, tmp_path):
    """MetricX-QE (lower is better: the lowest wins) and the judge (G-Eval scores) as reranking metrics: each pick is
    the best of the metric's own scores for that source's candidates."""
    from learned_checkpoints import build_metricx
    from tiny_judge import tiny_judge_folder

    from nlgmetrics.judge.core import compute_llm_judge
    from nlgmetrics.learned.metricx import compute_metricx

    groups, sources = [g[:5] for g in data["groups"][:3]], data["sources"][:3]
    flat, owners = [c for g in groups for c in g], [s for s, g in zip(sources, groups) for _ in g]
    metricx = str(build_metricx(tmp_path / "metricx"))
    ours = rerank(groups, "metricx", sources=sources, checkpoint=metricx, qe=True, return_scores=True)
    scores = np.reshape(compute_metricx(flat, None, metricx, sources=owners, qe=True)["scores"], (3, 5))
    assert ours["index"] == scores.argmin(axis=1).tolist() and np.allclose(ours["scores"], scores)
    assert "metric:metricx{" in ours["signature"]
    judge = {"model": tiny_judge_folder(), "cache": False}
    ours = rerank(groups, "llm_judge", sources=sources, return_scores=True, **judge)
    scores = np.reshape(compute_llm_judge(flat, sources=owners, **judge)["scores"], (3, 5))
    assert ours["index"] == scores.argmax(axis=1).tolist() and np.allclose(ours["scores"], scores)
