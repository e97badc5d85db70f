"""Issue 42: one signature rule (nlgmetrics/signature.py), one meaning per metric name, ``score`` with several metrics,
and what each output records. Every example the issue gives is a test here (lexical metrics only, no model); the
cross-entry-point matrix is tests/test_matrix.py."""

from __future__ import annotations

import json
import os

import pytest

from nlgmetrics import agree, compare
from nlgmetrics.agreement import Judgments
from nlgmetrics.cli import main
from nlgmetrics.comparison import report
from nlgmetrics.integration.samplewise import result_key
from nlgmetrics.registry import score
from nlgmetrics.signature import build, extend, significance_signature, weights_digest

HYPS = ["the cat sat on the mat .", "a dog barked at the postman", "it is raining in paris today",
        "he read the book because he was interested"]
REFS = ["the cat is on the mat .", "the dog barked at the mailman", "it rains in paris today",
        "he read the book because he was interested in world history"]
WORSE = ["a cat on a mat", "dogs bark", "rain falls", "he read"]


@pytest.fixture()
def files(tmp_path):
    out = {}
    for name, lines in (("hyp", HYPS), ("ref", REFS), ("worse", WORSE)):
        out[name] = tmp_path / f"{name}.txt"
        out[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def run(argv, capsys):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


# -- the rule ---------------------------------------------------------------------------------------------------------
def test_build_writes_one_format_and_redacts():
    assert build([("nrefs", 1), ("eff", False), ("beta", 3.0), ("types", ["rouge1", "rougeL"]), ("x", None),
                  ("skipped", ...)]) == "nrefs:1|eff:no|beta:3|types:rouge1,rougeL|x:none|version:nlgmetrics-0.1.0"
    assert build([("tok", "a|b")]) == "tok:a/b|version:nlgmetrics-0.1.0"  # the separator never inside a value
    assert build([("base_url", "http://user:s3cret@host/v1")]) == "base_url:http://***@host/v1|version:nlgmetrics-0.1.0"
    assert extend("nrefs:1|version:nlgmetrics-0.1.0", [("sentence_split", "regex")]) == \
        "nrefs:1|sentence_split:regex|version:nlgmetrics-0.1.0"
    assert significance_signature("paired-bs", resamples=1000, seed=12345) == \
        "test:paired-bs|resamples:1000|seed:12345|version:nlgmetrics-0.1.0"


def test_weights_digest_is_the_content_not_the_folder(tmp_path):
    """Issue 42.5: a model metric's signature named the checkpoint folder, so two checkpoints in folders of one name
    shared it. The digest reads the weight files (learned/locate.weights_digest: each file's name and bytes): one
    folder name, two contents, two digests; one content in two folders of other names, one digest; other files
    (configs, tokenizers) do not enter it."""
    first, second, copy = tmp_path / "a" / "ckpt", tmp_path / "b" / "ckpt", tmp_path / "c" / "other"
    for folder, weights in ((first, b"\x00" * 64), (second, b"\x01" * 64), (copy, b"\x00" * 64)):
        folder.mkdir(parents=True)
        (folder / "config.json").write_text(json.dumps({"folder": str(folder)}))
        (folder / "model.safetensors").write_bytes(weights)
    assert weights_digest(first) != weights_digest(second)
    assert weights_digest(first) == weights_digest(copy) == weights_digest(first / "model.safetensors")
    os.utime(first / "model.safetensors", ns=(1, 1))  # a rewritten file (another mtime) is read again
    (first / "model.safetensors").write_bytes(b"\x02" * 64)
    assert weights_digest(first) not in (weights_digest(second), weights_digest(copy))
    assert weights_digest(tmp_path / "missing") == "none"


# -- issue 42.3: score takes several metrics ----------------------------------------------------------------------
def test_score_takes_several_metrics_and_drops_none(files, capsys):
    """``score -m sacrebleu -m chrf`` printed chrF only, exit 0; now both, in one table, JSON or CSV."""
    table = run(["score", "-m", "sacrebleu", "-m", "chrf", "-p", files["hyp"], "-r", files["ref"]], capsys)
    assert [line for line in table.splitlines() if not line.startswith(" ")] == ["sacrebleu", "chrf"]
    results = json.loads(run(["score", "-m", "bleu", "chrf", "ter", "-p", files["hyp"], "-r", files["ref"], "-f",
                              "json"], capsys))
    assert [r["metric"] for r in results] == ["bleu", "chrf", "ter"]
    for result in results:
        assert result["signature"] == score(result["metric"], HYPS, REFS)["signature"]
    rows = run(["score", "-m", "bleu", "chrf", "-p", files["hyp"], "-r", files["ref"], "-f", "csv"], capsys)
    assert rows.splitlines()[0] == "metric,key,value" and {r.split(",")[0] for r in rows.splitlines()[1:]} == {
        "bleu", "chrf"}
    assert main(["score", "-m", "bleu", "-m", "BLEU", "-p", str(files["hyp"]), "-r", str(files["ref"])]) == 2
    assert "bleu is given 2 times" in capsys.readouterr().err
    assert main(["score", "-m", "bleu", "chrf", "-p", str(files["hyp"]), "-r", str(files["ref"]), "-o",
                 "lowercase=true"]) == 2
    assert "METRIC.KEY=VALUE" in capsys.readouterr().err
    one = json.loads(run(["score", "-m", "chrf", "-m", "bleu", "-o", "chrf.word_order=2", "-p", files["hyp"], "-r",
                          files["ref"], "-f", "json"], capsys))
    assert one[0]["signature"] == score("chrf", HYPS, REFS, word_order=2)["signature"] and "|nw:2|" in \
        one[0]["signature"]


# -- issue 42.4: one name, one statistic -----------------------------------------------------------------------------
def test_compare_bleu_is_hf_bleu_and_its_options_apply(files, capsys):
    """compare -m bleu reported sacreBLEU (0-100, smoothed) where score -m bleu reports HF's BLEU, and refused
    bleu.smooth=true as not changing the corpus score; now compare's bleu is score's bleu, options included."""
    for options in ({}, {"smooth": True}, {"max_order": 2, "tokenizer": "intl"}):
        rows = compare({"a": HYPS, "b": WORSE}, REFS, ["bleu"], metric_options={"bleu": options}, n_resamples=10)
        core = score("bleu", HYPS, REFS, **options)
        assert rows[0]["score"] == pytest.approx(core["bleu"], abs=1e-15) and rows[0]["signature"] == \
            core["signature"]
    rows = json.loads(run(["compare", "-r", files["ref"], "-b", files["hyp"], files["worse"], "-m", "bleu", "-o",
                           "bleu.smooth=true", "--n-resamples", "10", "-f", "json"], capsys))
    assert rows[0]["score"] == pytest.approx(score("bleu", HYPS, REFS, smooth=True)["bleu"], abs=1e-15)
    with pytest.raises(ValueError, match=r"smooth_method do not change bleu's corpus score \(they change "
                                         r"sacrebleu's: -m sacrebleu\)"):
        compare({"a": HYPS, "b": WORSE}, REFS, ["bleu"], metric_options={"bleu": {"smooth_method": "floor"}})
    sacre = compare({"a": HYPS, "b": WORSE}, REFS, ["sacrebleu"], n_resamples=10)
    assert sacre[0]["metric"] == "sacrebleu" and sacre[0]["score"] == pytest.approx(
        score("sacrebleu", HYPS, REFS)["score"], abs=1e-12)


def test_rouge_outputs_name_their_aggregator(files, capsys):
    """The CLI averages, evaluate's module takes HF's bootstrap median; each output now says which."""
    import evaluate

    cli = json.loads(run(["score", "-m", "rouge", "-p", files["hyp"], "-r", files["ref"], "-f", "json"], capsys))
    assert "|agg:mean|" in cli["signature"]
    module = evaluate.load("./metrics/rouge", seed=7).compute(predictions=HYPS, references=REFS,
                                                              return_signature=True)
    assert "|agg:bootstrap[numpy_seed=7]|" in module["signature"]
    assert module["rouge1"] == score("rouge", HYPS, REFS, aggregator="bootstrap", numpy_seed=7)["rouge1"]


def test_framework_keys_differ_per_configuration():
    """lighteval reported chrF and chrF++ both as 'chrf' (the keys lighteval and Inspect report come from here)."""
    assert result_key("chrf", "chrf", {}) == "chrf"
    assert result_key("chrf", "chrf", {"word_order": 2}) == "chrf[word_order=2]"
    assert result_key("chrf", "chrf", {"word_order": 0, "device": "cpu"}) == "chrf"  # defaults and run options
    assert result_key("bertscore", "bertscore_f1", {"model_type": "sentence-transformers/all-MiniLM-L6-v2"}) == \
        "bertscore_f1[model_type=all-MiniLM-L6-v2]"


def test_compare_and_agree_resolve_names_and_options_through_the_registry():
    """agree(j, ['CHRF'], {'chrf': {...}}) dropped the options and compare(['CHRF'], {'chrf': ...}) failed with 'not
    computed: chrf'; options under a metric that is not scored were ignored."""
    rows = compare({"a": HYPS, "b": WORSE}, REFS, ["CHRF"], metric_options={"chrf": {"word_order": 2}},
                   n_resamples=10)
    assert rows[0]["metric"] == "chrf" and "|nw:2|" in rows[0]["signature"]
    assert rows[0]["score"] == pytest.approx(score("chrf", HYPS, REFS, word_order=2)["score"], abs=1e-12)
    judged = Judgments.from_records(["a"] * 4 + ["b"] * 4, list(range(4)) * 2, [3.0, 1.0, 2.0, 4.0, 1.0, 0.5, 1.5, 2.0],
                                    hypotheses=HYPS + WORSE, references=REFS * 2)
    plain = agree(judged, ["CHRF"], n_resamples=0, k=0)
    plus = agree(judged, ["CHRF"], {"chrf": {"word_order": 2}}, n_resamples=0, k=0)
    assert plain["rows"][0]["metric"] == plus["rows"][0]["metric"] == "sentence_chrf"
    assert plain["rows"][0]["value"] != plus["rows"][0]["value"]
    assert "|nw:2|" in plus["signatures"]["sentence_chrf"] and "|nw:0|" in plain["signatures"]["sentence_chrf"]
    with pytest.raises(ValueError, match="not computed: bleu"):
        agree(judged, ["chrf"], {"bleu": {"smooth": True}}, n_resamples=0, k=0)
    with pytest.raises(ValueError, match="not computed: bleu"):
        compare({"a": HYPS, "b": WORSE}, REFS, ["chrf"], metric_options={"bleu": {"smooth": True}})


def test_bleu_sentence_scores_of_an_empty_pair_are_the_corpus_score():
    """sentence_scores gave 100.00000000000004 for an empty prediction and reference (max_order 3, smooth) where the
    pair as a corpus gives 0.0."""
    result = score("bleu", [""], [""], max_order=3, smooth=True, sentence_scores=True)
    assert result["scores"] == [0.0] == [result["bleu"]]
    assert score("bleu", ["a b"], [""], smooth=True, sentence_scores=True)["scores"] == [0.0]  # no reference words
    assert score("bleu", ["a b c"], ["a b c"], smooth=True, sentence_scores=True)["scores"] == [pytest.approx(100.0)]


def test_compare_shows_each_metrics_direction():
    """The table marked a worse TER with the same '*' as an improvement."""
    rows = compare({"a": HYPS, "b": WORSE}, REFS, ["bleu", "ter"], n_resamples=100)
    ter = next(r for r in rows if r["metric"] == "ter" and not r["baseline"])
    assert ter["higher_is_better"] is False and ter["score"] > rows[0]["score"] and ter["better"] is False
    table = report(rows, "table")
    assert "ter ↓ (μ ± 95% CI)" in table.splitlines()[0] and "bleu ↑ (μ ± 95% CI)" in table.splitlines()[0]
    if ter["significant"]:
        assert "* worse" in table and "* better" not in table


# -- issue 42.5: every output records what reproduces it ------------------------------------------------------------
def test_every_json_output_holds_the_signatures(files, capsys):
    """score -f json had no signature for rouge, google_bleu, nist_mt (nor the nlg_suite module); compare's JSON no
    test, resamples or seed; agree's no seed, resamples or metric signatures."""
    import evaluate

    for metric in ("rouge", "google_bleu", "nist_mt", "meteor", "sacrebleu", "chrf", "ter", "bleu"):
        result = json.loads(run(["score", "-m", metric, "-p", files["hyp"], "-r", files["ref"], "-f", "json"], capsys))
        assert result["signature"] == score(metric, HYPS, REFS)["signature"], metric
    suite = evaluate.load("./metrics/nlg_suite").compute(predictions=HYPS, references=REFS,
                                                         metrics=["rouge", "google_bleu"], return_signature=True)
    assert suite["signatures"] == {m: score(m, HYPS, REFS)["signature"] for m in ("rouge", "google_bleu")}
    rows = json.loads(run(["compare", "-r", files["ref"], "-b", files["hyp"], files["worse"], "-m", "chrf",
                           "--paired-ar", "--n-trials", "50", "--n-resamples", "20", "--seed", "3", "-f", "json"],
                          capsys))
    assert {(r["test"], r["n_resamples"], r["n_trials"], r["seed"]) for r in rows} == {("paired-ar", 20, 50, 3)}
    assert rows[0]["test_signature"] == "test:paired-ar|resamples:20|trials:50|seed:3|version:nlgmetrics-0.1.0"
    assert rows[0]["signature"] == score("chrf", HYPS, REFS)["signature"]
    table = files["hyp"].parent / "judged.csv"
    table.write_text("system,item,human,hyp,ref\n" + "".join(
        f"s,{i},{i % 3},{h},{r}\n" for i, (h, r) in enumerate(zip(HYPS, REFS))), encoding="utf-8")
    result = json.loads(run(["agree", table, "--hypothesis-column", "hyp", "--reference-column", "ref", "-m", "chrf",
                             "meteor", "--n-resamples", "10", "--k", "5", "--seed", "9", "-f", "json"], capsys))
    assert (result["seed"], result["n_resamples"], result["k"]) == (9, 10, 5)
    assert result["signatures"] == {"sentence_chrf": score("chrf", HYPS, REFS)["signature"],
                                    "meteor": score("meteor", HYPS, REFS)["signature"]}
    assert result["test_signature"].startswith("test:agree|resamples:10|trials:5|seed:9|")
