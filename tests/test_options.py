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
        spec.function(["the cat sat on the mat"], ["the cat sat on the mat"], **{option: value})


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
