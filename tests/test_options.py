"""Option checks shared by every metric (nlgmetrics.options): flags are bools, numbers stay in a range that keeps
scores finite, counts and orders are bounded (issue 29.4-29.6)."""

from __future__ import annotations

import pytest

from nlgmetrics.registry import SPECS
from nlgmetrics.options import flag_options
import inspect

FLAGS = [
    (name, option)
    for name, spec in SPECS.items()
    for option, annotation in spec.option_types().items()
    if option in flag_options(inspect.unwrap(spec.function)) or spec.aliases.get(option) in flag_options(
        inspect.unwrap(spec.function))
]


def test_every_metric_with_flags_is_covered():
    assert {"bleu", "sacrebleu", "google_bleu", "nist_mt", "chrf", "ter", "rouge", "bertscore", "moverscore"} <= {
        name for name, _ in FLAGS}
    assert ("chrf", "whitespace") in FLAGS and ("bleu", "lowercase") in FLAGS


@pytest.mark.parametrize("name, option", FLAGS)
@pytest.mark.parametrize("value", ["false", "False", "0", 2, 0.0])
def test_every_boolean_option_refuses_non_bools(name, option, value):
    """Issue 29.4: lowercase="false" (e.g. from a YAML config) was read as True by bleu, sacrebleu, google_bleu,
    nist_mt and chrf: every flag of every metric now takes only True/False (and 0/1)."""
    spec = SPECS[name]
    with pytest.raises(TypeError, match=f"{spec.aliases.get(option, option)} must be True or False"):
        spec.function(["the cat sat on the mat"], ["the cat sat on the mat"], **spec.canonical_options({option: value}))


@pytest.mark.parametrize("name", ["bleu", "chrf", "ter"])
def test_compare_checks_flags_too(name):
    from nlgmetrics import compare

    flag = {"bleu": "lowercase", "chrf": "whitespace", "ter": "normalized"}[name]
    with pytest.raises(TypeError, match=f"{flag} must be True or False"):
        compare({"a": ["x y", "z"], "b": ["x", "y z"]}, ["x y", "z"], [name], metric_options={name: {flag: "false"}})


def test_flags_keep_their_numbers():
    from nlgmetrics.registry import get_metric
    import numpy as np

    bleu = get_metric("bleu")
    preds, refs = ["The Cat sat on the mat today"], ["the cat sat on the mat today"]
    assert bleu(preds, refs, lowercase=np.bool_(True))["bleu"] == bleu(preds, refs, lowercase=True)["bleu"] == 1.0
    assert bleu(preds, refs, lowercase=0)["bleu"] == bleu(preds, refs, lowercase=False)["bleu"] < 1.0


def _is_float_option(annotation) -> bool:
    import types
    import typing

    args = typing.get_args(annotation) if typing.get_origin(annotation) in (typing.Union, types.UnionType) else ()
    return annotation is float or (float in args and set(args) <= {float, type(None)})


FLOATS = [(name, option) for name, spec in SPECS.items() for option, annotation in spec.option_types().items()
          if _is_float_option(annotation)]
EXTRA = {"weight_factor": {"rouge_types": ["rougeW"]}, "smooth_value": {"smooth_method": "floor"}}


def test_float_options_are_found():
    assert {("rouge", "beta"), ("rouge", "weight_factor"), ("chrf", "beta"), ("bleu", "smooth_value"),
            ("sacrebleu", "smooth_value"), ("meteor", "beta"), ("moverscore", "reg")} <= set(FLOATS)


@pytest.mark.parametrize("name, option", FLOATS)
@pytest.mark.parametrize("value", [1e308, 1.35e154, 1e155, -1e308])
def test_every_float_option_gives_a_finite_score_or_names_its_range(name, option, value):
    """Issue 29.5: ROUGE beta=1e155 gave F = NaN, smooth_value=1e308 a score of inf, chrF beta >= 1.35e154 and ROUGE
    weight_factor=1e308 an OverflowError: every float option gives finite scores or a ValueError naming its range."""
    import math

    spec = SPECS[name]
    options = {**spec.demo_options, **EXTRA.get(option, {}), option: value}
    if name == "rouge" and option == "alpha":
        options["flavor"] = "rouge155"
    try:
        result = spec.function(["the cat sat on the mat", "a dog"], ["the cat sat on a mat", "dogs bark"], **options)
    except ValueError as exc:
        assert option in str(exc) and any(mark in str(exc) for mark in ("[", "(0, 1)", "positive"))
        return
    values = [v for v in result.values() if isinstance(v, float)]
    values += [x for v in result.values() if isinstance(v, list) for x in v if isinstance(x, float)]
    assert values and all(math.isfinite(v) for v in values)


@pytest.mark.parametrize("option", ["char_order", "word_order"])
def test_chrf_orders_are_bounded(option):
    """Issue 29.6: chrF char_order/word_order = 10**9 never returned (10**6: 10 s)."""
    from nlgmetrics.lexical.chrf import MAX_ORDER, compute_chrf

    with pytest.raises(ValueError, match=rf"{option} must be an integer in \[0, {MAX_ORDER}\]"):
        compute_chrf(["the cat"], ["the cat"], **{option: 10**9})
    assert compute_chrf(["the cat"], ["the cat"], **{option: MAX_ORDER})["score"] == 100.0


def test_google_bleu_cost_does_not_depend_on_max_len(monkeypatch):
    """Issue 29.6: google_bleu max_len=10**4 took 16-83 s on a 6-word pair: orders beyond the text are not visited,
    and the numbers stay nltk's. Issue 43: max_len=10**9 on one 1,500-word line took ~2.9 GB (every order up to the
    line's length): min_len and max_len are n-gram orders, bounded by options.MAX_NGRAM_ORDER before any counting."""
    from nltk.translate.gleu_score import corpus_gleu

    from nlgmetrics.errors import LimitError, OptionError
    from nlgmetrics.lexical import gleu
    from nlgmetrics.options import MAX_NGRAM_ORDER

    real = gleu.ngram_counts

    def bounded(tokens, max_order):
        assert max_order <= len(tokens), f"asked for order {max_order} of a {len(tokens)}-token text"
        return real(tokens, max_order)

    monkeypatch.setattr(gleu, "ngram_counts", bounded)
    gleu._reference_counts.cache_clear()
    preds, refs = ["the cat sat on the mat", "a dog"], [["the cat sat on a mat", "there is a cat"], ["a dog barks"]]
    for min_len, max_len in [(1, MAX_NGRAM_ORDER), (3, MAX_NGRAM_ORDER), (7, MAX_NGRAM_ORDER)]:
        ours = gleu.compute_google_bleu(preds, refs, tokenizer=str.split, min_len=min_len, max_len=max_len)
        expected = corpus_gleu([[r.split() for r in group] for group in refs], [p.split() for p in preds],
                               min_len=min_len, max_len=min(max_len, 10))  # nltk: orders past the text add nothing
        assert ours["google_bleu"] == expected
    long_line = [" ".join(f"w{i}" for i in range(1500))]
    for options, error, match in [({"max_len": 10**9}, LimitError, r"max_len must be an integer in \[1, 32\]"),
                                  ({"min_len": 10**9}, LimitError, r"min_len must be an integer in \[1, 32\]"),
                                  ({"min_len": 0}, OptionError, r"min_len must be an integer in \[1, 32\]"),
                                  ({"min_len": 5, "max_len": 4}, OptionError, "min_len=5 is above max_len=4")]:
        with pytest.raises(error, match=match):
            gleu.compute_google_bleu(long_line, long_line, **options)


@pytest.mark.parametrize("call", ["compare", "bleu", "chrf", "rouge"])
def test_resample_counts_are_bounded(call):
    """Issue 29.6: compare --n-resamples 10**9 allocated gigabytes or died with numpy's MemoryError."""
    from nlgmetrics import compare
    from nlgmetrics.registry import get_metric

    with pytest.raises(ValueError, match=r"must be an integer in \[2, 100000\]"):
        if call == "compare":
            compare({"a": ["x y", "z"], "b": ["x", "y z"]}, ["x y", "z"], ["bleu"], n_resamples=10**9)
        else:
            get_metric(call)(["x y", "z"], ["x y", "z"], n_bootstrap=10**9)


def test_cli_n_resamples_is_one_line(tmp_path, capsys):
    from nlgmetrics.cli import main

    for name in ("r", "a", "b"):
        (tmp_path / name).write_text("x y\nz\n")
    assert main(["compare", "-r", str(tmp_path / "r"), "-b", str(tmp_path / "a"), str(tmp_path / "b"),
                 "--n-resamples", str(10**9)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "n_resamples must be an integer in [2, 100000]" in err
