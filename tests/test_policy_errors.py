"""Policy (issue 43, errors): every bad Python call raises one of the project's error classes (nlgmetrics/errors.py),
never a bare ValueError/TypeError from a core's check nor an error from deep inside a dependency.

The table of bad calls is generated from the spec (nlgmetrics.registry.SPECS: every option of every metric, with the
annotation its compute function declares), so a metric or an option added later is covered without editing this file:

- a value of the wrong type (an object no annotation names, text for a number, a number for text, NaN for a float):
  an :class:`OptionTypeError` naming the option, before any work; for every metric, the ones that need a checkpoint
  included;
- a value of the right type that is out of range or unknown (-1, 10**12, 1e300, "no-such-value", a list holding an
  unknown name): one of the project's errors naming the option or the value, or a result whose numbers are all finite
  (a documented score); for every metric that runs on bundled data, and the LLM judge on a scripted backend (a
  checkpoint metric would fail on its checkpoint first).
"""

from __future__ import annotations

import math
import typing

import pytest

from nlgmetrics.errors import InputError, InputTypeError, NlgmetricsError, OptionError, OptionTypeError
from nlgmetrics.judge import Answer, JudgeBackend
from nlgmetrics.options import _members
from nlgmetrics.registry import SPECS, available_metrics, get_metric, self_contained_metrics

PREDS = ["the cat sat on the mat", "a dog barks"]
REFS = [["the cat is on the mat"], ["a dog barked", "the dog barks"]]
UNKNOWN = "no-such-value"


class Foreign:
    """A value no option's annotation names."""

    def __repr__(self) -> str:
        return "Foreign()"


def _takes_anything(annotation) -> bool:
    return any(m is typing.Any or m is object for m in _members(annotation))


def _sequence_of_text(annotation) -> bool:
    return any(typing.get_origin(m) is not None and typing.get_args(m)[:1] == (str,) and typing.get_origin(m)
               is not tuple for m in _members(annotation))


def wrong_types(annotation) -> list[tuple[str, object]]:
    """Values of a type ``annotation`` does not admit."""
    if _takes_anything(annotation):
        return []
    members = _members(annotation)
    values = [("foreign object", Foreign())]
    if int in members and float not in members:
        values += [("text for an integer", "4"), ("fraction for an integer", 2.5)]
    if float in members:
        values += [("NaN", math.nan), ("infinity", math.inf), ("text for a number", "0.5")]
    if str in members and int not in members and float not in members:
        values += [("number for text", 12345)]
    if bool in members and str not in members:
        values += [("text for a flag", "yes")]
    if _sequence_of_text(annotation):
        values += [("non-text item", [Foreign()])]
    return values


def wrong_values(annotation) -> list[tuple[str, object]]:
    """Values of an admitted type that a metric may not take (out of range, unknown names)."""
    members = _members(annotation)
    values = []
    if int in members and bool not in members:
        values += [("negative", -1), ("huge", 10**12)]
    if float in members:
        values += [("large negative", -1e9), ("huge", 1e300)]
    if str in members:
        values += [("unknown text", UNKNOWN)]
    if _sequence_of_text(annotation):
        values += [("unknown item", [UNKNOWN])]
    return values


def _options(name: str) -> dict:
    return SPECS[name].option_types()


class ScriptedJudge(JudgeBackend):
    """A judge backend that answers "3" to every request, with no model (the judge's options are checked anyway)."""

    name = "scripted"

    def identity(self):
        return {"backend": self.name, "model": "scripted"}

    def run(self, requests, on_answer, *, max_tokens, weighting, temperature=0.0, seed=0, progress=False):
        for j, _ in enumerate(requests):
            on_answer(j, Answer("3", None, "scripted", "fp", 10, 1))


#: options the value cases run each metric with besides the one varied: the judge on a scripted backend, no cache
RUN_OPTIONS = {"llm_judge": {"backend": ScriptedJudge(), "cache": False, "template": "rate {prediction} ({low}-{high})"}}

TYPE_CASES = [(name, option, label, value) for name in SPECS if name in available_metrics()
              for option, annotation in _options(name).items() if option != "**"
              for label, value in wrong_types(annotation)]
VALUE_CASES = [(name, option, label, value) for name in [*self_contained_metrics(), "llm_judge"]
               for option, annotation in _options(name).items() if option != "**"
               for label, value in wrong_values(annotation)]


def _call(name: str, option: str, value: object) -> dict:
    spec = SPECS[name]
    options = {**spec.demo_options, **RUN_OPTIONS.get(name, {}), **spec.canonical_options({option: value})}
    return get_metric(name)(PREDS, REFS, **options)


def test_the_table_covers_every_option_of_every_metric():
    typed = {(name, option) for name, option, _, _ in TYPE_CASES}
    for name in available_metrics():
        for option, annotation in _options(name).items():
            if option != "**" and not _takes_anything(annotation):
                assert (name, option) in typed, (name, option)
    assert {"comet", "bleurt", "metricx", "llm_judge", "bertscore", "bleu"} <= {name for name, *_ in TYPE_CASES}
    assert len(VALUE_CASES) > 100


@pytest.mark.parametrize("name,option,label,value", TYPE_CASES,
                         ids=[f"{n}-{o}-{label}" for n, o, label, _ in TYPE_CASES])
def test_a_value_of_the_wrong_type_is_an_option_type_error_naming_the_option(name, option, label, value):
    with pytest.raises(OptionTypeError) as info:
        _call(name, option, value)
    canonical = SPECS[name].aliases.get(option, option)
    assert canonical in str(info.value) and "\n" not in str(info.value), str(info.value)


@pytest.mark.parametrize("name,option,label,value", VALUE_CASES,
                         ids=[f"{n}-{o}-{label}" for n, o, label, _ in VALUE_CASES])
def test_a_value_out_of_range_is_a_project_error_or_a_finite_score(name, option, label, value, tmp_path, monkeypatch):
    import warnings

    monkeypatch.chdir(tmp_path)  # a text option read as a path (the judge's cache) lands here
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = _call(name, option, value)
    except NlgmetricsError as exc:
        message = str(exc)
        canonical = SPECS[name].aliases.get(option, option)
        assert canonical in message or UNKNOWN in message or repr(value) in message, message
        assert "\n" not in message
        return
    numbers = [v for v in result.values() if isinstance(v, float)]
    numbers += [x for v in result.values() if isinstance(v, list) for x in v if isinstance(x, float)]
    assert all(math.isfinite(v) for v in numbers), (name, option, value, result)


@pytest.mark.parametrize("name", self_contained_metrics())
@pytest.mark.parametrize("predictions,references,error", [
    ([None], ["a"], InputTypeError), ([3], ["a"], InputTypeError), (["a"], [None], InputTypeError),
    (["a"], [[3]], InputTypeError), ("a text", ["a"], InputTypeError), (["a", "b"], ["a"], InputError),
    (["a"], [[]], InputError),
])
def test_bad_inputs_are_input_errors(name, predictions, references, error):
    with pytest.raises(error):
        get_metric(name)(predictions, references, **SPECS[name].demo_options)


def test_an_unknown_option_is_an_option_error():
    from nlgmetrics.registry import score

    with pytest.raises(OptionError, match="Did you mean 'max_order'"):
        score("bleu", PREDS, REFS, max_ordr=3)
