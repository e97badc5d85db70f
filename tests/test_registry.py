"""The metric spec: one declaration per metric, and every adapter table derives from it."""

from __future__ import annotations

import math

import pytest

from nlgmetrics.integration.suite import flatten_result
from nlgmetrics.registry import (
    EMBEDDING, LEARNED, LEXICAL, SPECS, available_metrics, get_metric, get_spec, self_contained_metrics,
)

from conftest import REPO

PAIRS = (["the cat sat on the mat .", "a dog barked at the mailman"],
         [["the cat was sitting on the mat ."], ["the dog barked at the postman", "a dog barked"]])


@pytest.mark.parametrize("name", list(SPECS))
def test_every_metric_has_a_module_a_card_and_an_entry_point(name):
    spec = SPECS[name]
    assert spec.kind in (LEXICAL, EMBEDDING, LEARNED)
    assert (REPO / "metrics" / name / f"{name}.py").is_file()
    assert (REPO / "hub_cards" / name / "README.md").is_file()
    assert callable(get_metric(name))
    assert set(spec.aliases.values()) <= set(spec.option_names())
    assert set(spec.per_example_options) <= set(spec.option_names())
    assert set(spec.demo_options) <= set(spec.option_names())


def test_every_module_folder_is_a_metric_or_the_suite():
    folders = {p.name for p in (REPO / "metrics").iterdir() if p.is_dir() and not p.name.startswith((".", "_"))}
    assert folders - set(SPECS) == {"nlg_suite"}


@pytest.mark.parametrize("name", self_contained_metrics())
def test_headline_and_per_example_keys_are_what_the_metric_returns(name):
    spec = SPECS[name]
    flat = flatten_result(name, get_metric(name)(*PAIRS, **spec.demo_options))
    for key in spec.headline:
        assert math.isfinite(flat[key]), key
    if not (spec.per_example or spec.per_example_lists):
        assert spec.corpus_level, f"{name}: a metric without per-example scores must be corpus-level"
        return
    per_example = get_metric(name)(*PAIRS, **spec.demo_options, **spec.per_example_options)
    keys = [k for k, v in per_example.items() if isinstance(v, list)] if spec.per_example_lists else spec.per_example
    assert keys
    for key in keys:
        assert len(per_example[key]) == 2 and all(math.isfinite(v) for v in per_example[key]), key


def test_headline_key_is_named_after_the_metric():
    for name, spec in SPECS.items():
        assert any(key.startswith(name) for key in spec.headline), name


def test_option_types_come_from_the_signature():
    types = get_spec("bleu").option_types()
    assert types["lowercase"] is bool
    assert types["max_order"] is int and types["smooth"] is bool
    assert "predictions" not in types and "references" not in types


def test_unknown_option_names_the_closest_match():
    spec = get_spec("bleu")
    assert spec.canonical_options({"lowercase": True}) == {"lowercase": True}
    message = r"bleu: unknown option 'lowercse'\. Did you mean 'lowercase'\? Accepted options: "
    with pytest.raises(ValueError, match=message):
        spec.canonical_options({"lowercse": True})


def test_unknown_metric_names_the_closest_match():
    with pytest.raises(ValueError, match=r"unknown metric 'bleuu'\. Did you mean 'bleu'\?"):
        get_spec("bleuu")


def test_kinds_split_the_metrics():
    kinds = set(available_metrics(LEXICAL)) | set(available_metrics(EMBEDDING)) | set(available_metrics(LEARNED))
    assert kinds == set(available_metrics())
    assert "bertscore" in available_metrics(EMBEDDING) and "bleu" in available_metrics(LEXICAL)
