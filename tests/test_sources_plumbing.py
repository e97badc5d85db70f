"""The generic ``sources`` input (MetricSpec.sources / references_optional) through the registry, the CLI, compare,
the suite, the Trainer, lm-eval and Ray adapters, with two toy metrics declared here: one that needs sources and
references, one reference-free (quality-estimation style). Every other metric must refuse sources as before."""

from __future__ import annotations

import json

import pytest

from nlgmetrics import registry
from nlgmetrics.registry import SOURCES_NONE, SOURCES_REQUIRED, MetricSpec, get_spec


def compute_needs_sources(predictions, references, *, sources, scale: float = 1.0) -> dict:
    """Per example: scale * (len(prediction) - len(source)) + len(first reference)."""
    scores = [scale * (len(p) - len(s)) + len(r[0] if isinstance(r, list) else r)
              for p, s, r in zip(predictions, sources, references)]
    return {"toy_src": sum(scores) / len(scores), "scores": scores}


def compute_qe(predictions, references=None, *, sources) -> dict:
    """Per example: len(prediction) - len(source); references are not read."""
    scores = [float(len(p) - len(s)) for p, s in zip(predictions, sources)]
    return {"toy_qe": sum(scores) / len(scores), "scores": scores, "had_references": references is not None}


@pytest.fixture
def toy_metrics(monkeypatch):
    specs = {
        "toy_src": MetricSpec("toy_src", f"{__name__}:compute_needs_sources", "learned", headline=("toy_src",),
                              per_example={"scores": "toy_src"}, sources=SOURCES_REQUIRED),
        "toy_qe": MetricSpec("toy_qe", f"{__name__}:compute_qe", "learned", headline=("toy_qe",),
                             per_example={"scores": "toy_qe"}, sources=SOURCES_REQUIRED, references_optional=True),
    }
    for name, spec in specs.items():
        monkeypatch.setitem(registry.SPECS, name, spec)
        monkeypatch.setitem(registry.METRICS, name, spec.entry)
    return specs


PREDS = ["a cat sat", "dogs bark loudly"]
REFS = ["the cat sat", "dogs bark"]
SRCS = ["eine Katze", "Hunde"]


def test_spec_validates_sources_field():
    with pytest.raises(ValueError, match="sources must be"):
        MetricSpec("x", "m:f", "lexical", headline=("x",), sources="sometimes")
    assert get_spec("bleu").sources == SOURCES_NONE and not get_spec("bleu").references_optional


def test_sources_are_an_input_not_an_option(toy_metrics):
    assert "sources" not in get_spec("toy_src").option_names()
    assert get_spec("toy_src").option_names() == ["scale"]


def test_score_passes_sources_and_checks_them(toy_metrics):
    result = registry.score("toy_src", PREDS, REFS, sources=SRCS, scale=2.0)
    assert result["scores"] == [2 * (9 - 10) + 11, 2 * (16 - 5) + 9]
    with pytest.raises(ValueError, match="toy_src needs sources.*--sources FILE"):
        registry.score("toy_src", PREDS, REFS)
    with pytest.raises(ValueError, match="toy_src needs references"):
        registry.score("toy_src", PREDS, None, sources=SRCS)
    assert registry.score("toy_qe", PREDS, None, sources=SRCS)["scores"] == [-1.0, 11.0]
    with pytest.raises(ValueError, match="bleu does not read sources; leave them out.*toy_src"):
        registry.score("bleu", PREDS, REFS, sources=SRCS)
    assert registry.score("bleu", PREDS, REFS) == registry.get_metric("bleu")(PREDS, REFS)


def _write(tmp_path, name, lines):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_cli_score_sources_and_optional_references(toy_metrics, tmp_path, capsys):
    from nlgmetrics.cli import main

    hyp, ref, src = _write(tmp_path, "hyp", PREDS), _write(tmp_path, "ref", REFS), _write(tmp_path, "src", SRCS)
    assert main(["score", "-m", "toy_src", "-p", hyp, "-r", ref, "-s", src, "-f", "json", "-o", "scale=2"]) == 0
    assert json.loads(capsys.readouterr().out)["scores"] == [9.0, 31.0]
    assert main(["score", "-m", "toy_qe", "-p", hyp, "--sources", src, "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["scores"] == [-1.0, 11.0]
    assert main(["score", "-m", "toy_src", "-p", hyp, "-r", ref]) == 2
    assert "toy_src needs sources" in capsys.readouterr().err
    assert main(["score", "-m", "bleu", "-p", hyp]) == 2
    assert "bleu needs references" in capsys.readouterr().err
    assert main(["score", "-m", "bleu", "-p", hyp, "-r", ref, "-s", src]) == 2
    assert "bleu does not read sources" in capsys.readouterr().err
    short = _write(tmp_path, "short", SRCS[:1])
    assert main(["score", "-m", "toy_qe", "-p", hyp, "-s", short]) == 2
    assert "every sources file needs one line per prediction" in capsys.readouterr().err
    assert main(["score", "-m", "toy_src", "-p", hyp, "-r", ref, "-s", src, "-o", "sources=x"]) == 2
    assert "unknown option 'sources'" in capsys.readouterr().err


def test_compare_passes_sources(toy_metrics, tmp_path, capsys):
    from nlgmetrics.cli import main
    from nlgmetrics.comparison import compare

    other = ["a cat sat down", "dogs bark"]
    rows = compare({"base": PREDS, "other": other}, REFS, ["toy_src", "bleu"], sources=SRCS, n_resamples=20)
    toy = {row["system"]: row["score"] for row in rows if row["metric"] == "toy_src"}
    assert toy == {"base": 15.0, "other": 14.0}
    rows = compare({"base": PREDS, "other": other}, None, ["toy_qe"], sources=SRCS, n_resamples=20)
    assert [row["score"] for row in rows] == [5.0, pytest.approx((4 + 4) / 2)]
    with pytest.raises(ValueError, match="bleu needs references"):
        compare({"base": PREDS, "other": other}, None, ["bleu"], sources=SRCS)
    with pytest.raises(ValueError, match="toy_src needs sources"):
        compare({"base": PREDS, "other": other}, REFS, ["toy_src"])
    base, sys1, src = _write(tmp_path, "base", PREDS), _write(tmp_path, "sys1", other), _write(tmp_path, "src", SRCS)
    assert main(["compare", "-b", base, sys1, "-s", src, "-m", "toy_qe", "--n-resamples", "20", "-f", "json"]) == 0
    assert [row["score"] for row in json.loads(capsys.readouterr().out)] == [5.0, 4.0]


def test_suite_gives_sources_to_the_metrics_that_read_them(toy_metrics):
    from nlgmetrics.integration.suite import compute_suite

    results = compute_suite(PREDS, REFS, ["bleu", "toy_src"], sources=SRCS)
    assert results["bleu"] == registry.get_metric("bleu")(PREDS, REFS)
    assert results["toy_src"]["scores"] == [10.0, 20.0]
    with pytest.raises(ValueError, match="toy_src needs sources"):
        compute_suite(PREDS, REFS, ["toy_src"])


class _Tokenizer:
    """Token ids are indices into a word list; 0 is padding."""

    pad_token_id = 0
    words = ["<pad>", *sorted({w for text in PREDS + REFS + SRCS + ["a warm-up text."] for w in text.split()})]

    def encode(self, text):
        return [self.words.index(w) for w in text.split()]

    def batch_decode(self, ids, skip_special_tokens=True):
        return [" ".join(self.words[i] for i in row if i != 0) for row in ids]


def _ids(tokenizer, texts):
    import numpy as np

    rows = [tokenizer.encode(t) for t in texts]
    width = max(map(len, rows))
    return np.array([row + [-100] * (width - len(row)) for row in rows])


def test_trainer_sources_from_inputs_or_a_list(toy_metrics):
    from nlgmetrics.integration.transformers import make_compute_metrics

    tok = _Tokenizer()
    batch = (_ids(tok, PREDS), _ids(tok, REFS))

    class EvalPrediction(tuple):
        inputs = _ids(tok, SRCS)

    from_inputs = make_compute_metrics(tok, ["toy_src"], sources="inputs")
    assert from_inputs(EvalPrediction(batch))["toy_src"] == 15.0
    from_list = make_compute_metrics(tok, ["toy_src", "bleu"], sources=SRCS)
    flat = from_list(batch)
    assert flat["toy_src"] == 15.0 and "bleu" in flat
    with pytest.raises(ValueError, match="include_for_metrics"):
        from_inputs(batch)
    with pytest.raises(ValueError, match="toy_src needs sources"):
        make_compute_metrics(tok, ["toy_src"])


def test_lm_eval_source_separator(toy_metrics):
    pytest.importorskip("lm_eval")
    from nlgmetrics.integration.lm_eval import score_corpus

    options = json.dumps({"source_separator": "\t"})
    items = [(f"{s}\t{r}", p, options) for s, r, p in zip(SRCS, REFS, PREDS)]
    assert score_corpus("toy_src", items)["toy_src"] == 15.0
    qe = [(f"{s}\t", p, options) for s, p in zip(SRCS, PREDS)]
    assert score_corpus("toy_qe", qe)["toy_qe"] == 5.0
    with pytest.raises(ValueError, match="does not contain it"):
        score_corpus("toy_src", [(r, p, options) for r, p in zip(REFS, PREDS)])


def test_ray_scorer_reads_a_source_column(toy_metrics):
    import numpy as np

    pytest.importorskip("ray")
    from nlgmetrics.integration.ray_data import MetricScorer

    batch = {"prediction": np.array(PREDS, dtype=object), "reference": np.array(REFS, dtype=object),
             "src": np.array(SRCS, dtype=object)}
    scored = MetricScorer(["toy_src"], source_column="src")(dict(batch))
    assert scored["toy_src"].tolist() == [10.0, 20.0]
    qe = MetricScorer(["toy_qe"], reference_columns=(), source_column="src")(dict(batch))
    assert qe["toy_qe"].tolist() == [-1.0, 11.0]
    with pytest.raises(ValueError, match="toy_src needs sources"):
        MetricScorer(["toy_src"])
