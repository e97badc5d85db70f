"""Policy: a credential never leaves the process except to the server it is meant for.

The options are enumerated, not listed: every option of every metric (the registry), of the judge backends and of
the lm-eval adapter whose name looks like a credential must be classified in ``nlgmetrics._secrets.CREDENTIAL_OPTIONS``
(or named here as not one); then a distinct secret is planted in every classified option the judge takes (and in
``$OPENAI_API_KEY`` / ``$OPENAI_BASE_URL``), the judge is run through every entry point (Python API, evaluate module,
CLI, lm-eval adapter) against a loopback server that answers well, refuses with an error echoing the key, or
answers HTML, and every output is grepped: results, signatures, cache bytes (the WAL too), warnings, logs,
stdout/stderr, exception texts with their chains, reprs. Every adapter module is classified as shipping its options
out of the process (lm-eval, Ray, Inspect/lighteval) or not, and each shipping call refuses every planted credential
option before any work.
"""

from __future__ import annotations

import inspect
import json
import logging
import re
import traceback
import warnings
from pathlib import Path

import pytest

pytest.importorskip("openai")

from judge_servers import CannedServer, completion, lm_eval_judge_task  # noqa: E402

from nlgmetrics import _secrets  # noqa: E402
from nlgmetrics.errors import OptionError  # noqa: E402
from nlgmetrics.judge import OpenAIBackend, TransformersBackend, compute_llm_judge  # noqa: E402
from nlgmetrics.judge.core import _BACKENDS, get_backend  # noqa: E402
from nlgmetrics.registry import SPECS, available_metrics  # noqa: E402

CREDENTIAL_NAME = re.compile(r"key|token|secret|passw|auth|credential|url|cookie|header", re.I)
#: options whose names match CREDENTIAL_NAME but carry no credential (and why)
NOT_CREDENTIALS = {
    "tokenizer": "a tokenizer name", "tokenize": "a tokenizer name", "use_fast_tokenizer": "a flag",
    "max_tokens": "a length",
    "api_key_env": "the NAME of an environment variable (every adapter that ships options, _secrets.KEY_ENV_OPTION)",
}
SHORT = "score {prediction} from {low} to {high}"
JSON = "application/json"
#: each planted secret is distinct, so a leak names its way out
SECRETS = {"userinfo_user": "u5er-SECRET-A1", "userinfo_password": "pa55-SECRET-B2", "api_key": "sk-SECRET-C3",
           "env_key": "sk-SECRET-ENV-D4", "env_url_password": "pa55-SECRET-ENV-E5"}


def all_options() -> dict[str, set[str]]:
    """Every option name -> where it is taken (metrics, the backends' constructors, the lm-eval adapter)."""
    found: dict[str, set[str]] = {}
    for metric, spec in SPECS.items():
        for name in spec.option_names():
            found.setdefault(name, set()).add(metric)
    for cls in (OpenAIBackend, TransformersBackend):
        for name in list(inspect.signature(cls.__init__).parameters)[2:]:
            found.setdefault(name, set()).add(cls.__name__)
    try:
        from nlgmetrics.integration.lm_eval import ADAPTER_OPTIONS
    except ImportError:  # lm-eval not installed
        ADAPTER_OPTIONS = ("reference_separator", "source_separator", "api_key_env")
    for name in ADAPTER_OPTIONS:
        found.setdefault(name, set()).add("lm-eval adapter")
    return found


def test_every_credential_like_option_is_classified():
    options = all_options()
    unclassified = {name: sorted(where) for name, where in options.items() if CREDENTIAL_NAME.search(name)
                    and name not in _secrets.CREDENTIAL_OPTIONS and name not in NOT_CREDENTIALS}
    assert unclassified == {}, "classify these in nlgmetrics/_secrets.py CREDENTIAL_OPTIONS (or NOT_CREDENTIALS here)"
    assert set(_secrets.CREDENTIAL_OPTIONS) <= set(options)  # no stale entry
    judge_options = set(SPECS["llm_judge"].option_names())
    assert set(_secrets.CREDENTIAL_OPTIONS) <= judge_options  # the judge takes each: planted below


def test_redaction_rules():
    r = _secrets.redact
    assert r("http://user:pw-123@host:8/v1?api-key=abc123&v=2#frag") == "http://***@host:8/v1?api-key=***&v=***#***"
    assert r("Authorization: Bearer sk-abcdef123456 rest") == "Authorization: *** rest"
    assert r("{'authorization': 'Basic dXNlcjpwdw=='}") == "{'authorization': '***'}"
    assert r('{"api_key": "sk-abc123456", "n": 1}') == '{"api_key": "***", "n": 1}'
    assert r("token bearer sk-abcdef123456") == "token bearer ***"
    assert r("no secret here, http://host/v1") == "no secret here, http://host/v1"
    _secrets.remember("remembered-KEY-77")
    assert r("the server said: bad key remembered-KEY-77.") == "the server said: bad key ***."
    assert _secrets.redact_options({"api_key": "x", "base_url": "http://a:b@h/v1", "model": "m", "cache": None}) == \
        {"api_key": "***", "base_url": "http://***@h/v1", "model": "m", "cache": None}
    assert _secrets.holds_credential("base_url", "http://h/v1?key=1") and not _secrets.holds_credential(
        "base_url", "http://h/v1")
    assert _secrets.digest("a") != _secrets.digest("b") and "a" not in _secrets.digest("a")


class Outputs:
    """Everything a run let out, as text."""

    def __init__(self) -> None:
        self.texts: list[tuple[str, str]] = []

    def add(self, where: str, value) -> None:
        if isinstance(value, BaseException):
            value = "".join(traceback.format_exception(type(value), value, value.__traceback__))
        elif isinstance(value, bytes):
            value = value.decode("latin-1")
        elif not isinstance(value, str):
            value = json.dumps(value, default=repr)
        self.texts.append((where, value))

    def add_files(self, folder: Path) -> None:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                self.add(f"file {path.name}", path.read_bytes())

    def leaks(self) -> list[tuple[str, str, str]]:
        return [(where, name, text[max(0, text.find(secret) - 80):text.find(secret) + 40])
                for where, text in self.texts for name, secret in SECRETS.items() if secret in text]


@pytest.fixture()
def planted(monkeypatch, tmp_path):
    """Three loopback servers (good, 401 echoing the key, HTML), the secrets in the environment too."""
    good = CannedServer(lambda body: (200, completion("4", logprob=-0.2), JSON))
    refusing = CannedServer(lambda body: (401, json.dumps({"error": {"message": "Incorrect API key provided: "
                                                                      + SECRETS["api_key"]}}).encode(), JSON))
    html = CannedServer(lambda body: (200, b"<html><body>login as " + SECRETS["userinfo_user"].encode()
                                      + b"</body></html>", "text/html"))
    monkeypatch.setenv("OPENAI_API_KEY", SECRETS["env_key"])
    monkeypatch.setenv("NLGMETRICS_JUDGE_CACHE", str(tmp_path / "default-cache" / "judge.sqlite"))
    _BACKENDS.clear()
    yield {"good": good, "refusing": refusing, "html": html}
    for server in (good, refusing, html):
        server.stop()
    _BACKENDS.clear()


def url(server: CannedServer, user: str = SECRETS["userinfo_user"], password: str = SECRETS["userinfo_password"]):
    return f"http://{user}:{password}@127.0.0.1:{server.port}/v1"


def run_collecting(outputs: Outputs, where: str, call, caplog, capfd):
    caplog.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with caplog.at_level(logging.DEBUG):
            try:
                outputs.add(where, call())
            except BaseException as exc:  # noqa: BLE001  every failure's text is an output too
                outputs.add(f"{where} error", exc)
    for w in caught:
        outputs.add(f"{where} warning", str(w.message))
    for record in caplog.records:
        outputs.add(f"{where} log", record.getMessage())
    out, err = capfd.readouterr()
    outputs.add(f"{where} stdout", out)
    outputs.add(f"{where} stderr", err)


def test_python_api_and_evaluate_module_leak_no_secret(planted, tmp_path, caplog, capfd):
    outputs = Outputs()
    cache = tmp_path / "cache" / "judge.sqlite"
    cache.parent.mkdir()
    for name, server in planted.items():
        for with_key in (True, False):  # the option, or $OPENAI_API_KEY
            options = dict(model="m", backend="openai", base_url=url(server), template=SHORT, cache=str(cache),
                           return_answers=True, verbose=True, max_retries=0, **({"api_key": SECRETS["api_key"]}
                                                                                 if with_key else {}))
            run_collecting(outputs, f"python {name}", lambda: compute_llm_judge(["a", "b"], **options), caplog,
                           capfd)
            outputs.add(f"repr {name}", repr(get_backend("openai", "m", base_url=url(server), api_key=None)))
    # $OPENAI_BASE_URL with credentials, no base_url option
    with pytest.MonkeyPatch.context() as env:
        env.setenv("OPENAI_BASE_URL", url(planted["good"], "envuser", SECRETS["env_url_password"]))
        run_collecting(outputs, "env url", lambda: compute_llm_judge(
            ["c"], model="m", backend="openai", template=SHORT, cache=str(cache)), caplog, capfd)
    good = [text for where, text in outputs.texts if where == "python good"]
    assert good and all('"llm_judge": 4.' in text and "base_url:http://***@127.0.0.1" in text for text in good)
    assert any("refused the request" in text for where, text in outputs.texts if where == "python refusing error")
    assert any("an HTML page" in text for where, text in outputs.texts if where == "python html error")
    assert any('"judged": 1' in text for where, text in outputs.texts if where == "env url")
    # the servers did get the credentials (they are meant for them)
    import base64

    basic = "Basic " + base64.b64encode(f"{SECRETS['userinfo_user']}:{SECRETS['userinfo_password']}".encode()).decode()
    sent = {h.get("authorization") for _, h, _ in planted["good"].requests}
    assert basic in sent  # userinfo goes as Basic auth (as httpx sends it), not in the URL the client logs
    try:
        import evaluate
    except ImportError:
        evaluate = None
    if evaluate is not None:
        module = evaluate.load(str(Path(__file__).resolve().parents[1] / "metrics" / "llm_judge"),
                               cache_dir=str(tmp_path / "evaluate"))
        run_collecting(outputs, "evaluate", lambda: module.compute(
            predictions=["a"], model="m", backend="openai", base_url=url(planted["good"]),
            api_key=SECRETS["api_key"], template=SHORT, cache=str(cache)), caplog, capfd)
        outputs.add("evaluate repr", repr(module))
    outputs.add_files(tmp_path)
    assert cache.is_file() and any(where.startswith("file judge.sqlite") for where, _ in outputs.texts)
    assert outputs.leaks() == []


def test_cli_leaks_no_secret(planted, tmp_path, caplog, capfd):
    from nlgmetrics.cli import main

    predictions = tmp_path / "p.txt"
    predictions.write_text("a\nb\n", encoding="utf-8")
    outputs = Outputs()
    for name, server in planted.items():
        for fmt in ("json", "table"):
            args = ["score", "-m", "llm_judge", "-p", str(predictions), "--format", fmt, "-o", "backend=openai",
                    "-o", "model=m", "-o", f"template={SHORT}", "-o", f"base_url={url(server)}",
                    "-o", f"api_key={SECRETS['api_key']}", "-o", f"cache={tmp_path / 'cli.sqlite'}",
                    "-o", "max_retries=0"]
            run_collecting(outputs, f"cli {name} {fmt}", lambda: main(args), caplog, capfd)
    assert any("backend:openai|base_url:http://***@" in text
               for where, text in outputs.texts if where == "cli good json stdout")
    assert any("refused the request" in text for where, text in outputs.texts if where == "cli refusing json stderr")
    outputs.add_files(tmp_path)
    assert outputs.leaks() == []


def test_lm_eval_options_refuse_every_credential_option(planted):
    pytest.importorskip("lm_eval")
    import nlgmetrics.integration.lm_eval as nlgm

    if "llm_judge" not in available_metrics():
        pytest.skip("needs llm_judge")
    outputs = Outputs()
    planted_options = {"api_key": SECRETS["api_key"], "base_url": url(planted["good"])}
    assert set(planted_options) == set(_secrets.CREDENTIAL_OPTIONS)  # every classified option is planted
    for option, value in planted_options.items():
        with pytest.raises(ValueError, match="carry a credential") as caught:
            nlgm.nlgm_llm_judge(references=["r"], predictions=["p"], model="m", backend="openai", **{option: value})
        outputs.add(f"lm-eval {option}", caught.value)
    assert outputs.leaks() == []


class _Untouchable:
    """A stand-in Ray dataset that fails the test when anything reads it: the refusal must come first."""

    def __getattr__(self, name):
        raise AssertionError(f"the dataset was touched ({name}) before the options were checked")


def _lm_eval(options):
    pytest.importorskip("lm_eval")
    import nlgmetrics.integration.lm_eval as nlgm

    return nlgm.nlgm_llm_judge(references=["r"], predictions=["p"], **options)


def _ray_score_dataset(options):
    pytest.importorskip("ray")
    from nlgmetrics.integration.ray_data import score_dataset

    return score_dataset(_Untouchable(), ["llm_judge"], reference_columns=(), metric_options={"llm_judge": options})


def _ray_shared_options(options):
    pytest.importorskip("ray")
    from nlgmetrics.integration.ray_data import score_dataset

    own = ("model", "api_key_env")  # a shared option that no metric takes is dropped, not shipped
    return score_dataset(_Untouchable(), ["llm_judge"], reference_columns=(),
                         metric_options={"llm_judge": {k: v for k, v in options.items() if k in own}},
                         shared_options={k: v for k, v in options.items() if k not in own})


def _ray_actor(options):
    pytest.importorskip("ray")
    from nlgmetrics.integration.ray_data import MetricScorer

    return MetricScorer(["llm_judge"], reference_columns=(), metric_options={"llm_judge": options})


def _ray_mbr_select(options):
    pytest.importorskip("ray")
    from nlgmetrics.integration.ray_mbr import select_dataset

    return select_dataset(_Untouchable(), "llm_judge", metric_options=options)


def _ray_mbr_qe(options):
    pytest.importorskip("ray")
    from nlgmetrics.integration.ray_mbr import select_dataset

    return select_dataset(_Untouchable(), "chrf", top_k=2, qe_metric="llm_judge", qe_options=options)


def _ray_mbr_actor(options):
    pytest.importorskip("ray")
    from nlgmetrics.integration.ray_mbr import MBRSelector

    return MBRSelector("llm_judge", options=options)


def _framework_scorer(options):
    from nlgmetrics.integration.samplewise import check_options

    return check_options("llm_judge", options)


#: every module of nlgmetrics/integration -> the calls through which its metric options leave the process (to another
#: process or into a framework's files), each refusing a credential by the one rule; or why its options stay here.
#: A new adapter module fails test_every_adapter_module_is_classified until it is added.
SHIPPING_ADAPTERS = {
    "lm_eval": {"lm-eval passthrough (results file, logged samples)": _lm_eval},
    "ray_data": {"score_dataset metric_options (Ray task specs, object store)": _ray_score_dataset,
                 "score_dataset shared_options": _ray_shared_options,
                 "MetricScorer (map_batches on its own)": _ray_actor},
    "ray_mbr": {"select_dataset metric_options (MBR actors)": _ray_mbr_select,
                "select_dataset qe_options": _ray_mbr_qe,
                "MBRSelector (map_batches on its own)": _ray_mbr_actor},
    "samplewise": {"Inspect / lighteval scorer options (their logs)": _framework_scorer},
}
IN_PROCESS_ADAPTERS = {
    "inspect": "its options go through samplewise.check_options",
    "lighteval": "its options go through samplewise.check_options",
    "suite": "compute_suite runs the metrics in this process",
    "transformers": "compute_metrics runs in the Trainer's process and returns floats only",
    "evaluate_support": "the evaluate module computes in this process (its signature and cache rows are redacted)",
}


def test_every_adapter_module_is_classified():
    folder = Path(_secrets.__file__).parent / "integration"
    modules = {path.stem for path in folder.glob("*.py") if path.stem != "__init__"}
    assert modules == set(SHIPPING_ADAPTERS) | set(IN_PROCESS_ADAPTERS), \
        "classify the adapter in SHIPPING_ADAPTERS (with a call that plants options) or IN_PROCESS_ADAPTERS"


@pytest.mark.parametrize("entry", [(module, name) for module, calls in SHIPPING_ADAPTERS.items() for name in calls],
                         ids=lambda entry: entry[1])
def test_shipped_options_refuse_every_credential_option(entry):
    """Each classified credential option, planted in every adapter that ships options: refused, the option named,
    its value never, the fix (api_key_env, $OPENAI_API_KEY) named; an api_key_env that is not a variable name too."""
    if "llm_judge" not in available_metrics():
        pytest.skip("needs llm_judge")
    call = SHIPPING_ADAPTERS[entry[0]][entry[1]]
    planted = {"api_key": SECRETS["api_key"],
               "base_url": f"http://{SECRETS['userinfo_user']}:{SECRETS['userinfo_password']}@127.0.0.1:1/v1"}
    assert set(planted) == set(_secrets.CREDENTIAL_OPTIONS)  # every classified option is planted
    outputs = Outputs()
    for option, value in [*planted.items(), ("base_url", f"http://127.0.0.1:1/v1?api-key={SECRETS['env_key']}")]:
        with pytest.raises(OptionError, match=rf"the metric option\(s\) {option} carry a credential, and .*set "
                                               r"\$OPENAI_API_KEY.*api_key_env=NAME") as caught:
            call({"model": "m", "backend": "openai", option: value})
        outputs.add(f"{entry[1]} {option}", caught.value)
    for value in (SECRETS["env_key"], "sk-proj-not-a-name"):  # a key where its variable's name goes (one remembered)
        with pytest.raises(OptionError, match=r"api_key_env must name an environment variable|\(s\) api_key_env "
                                               r"carry a credential") as caught:
            call({"model": "m", "backend": "openai", "api_key_env": value})
        outputs.add(f"{entry[1]} api_key_env", caught.value)
        assert value not in str(caught.value)
    assert outputs.leaks() == []


def test_the_cli_boundary_masks_any_error_or_warning_line(capsys):
    from nlgmetrics.cli._boundary import _show_warning, describe

    for exc in (RuntimeError("POST http://u5er-SECRET-A1:pa55-SECRET-B2@host/v1 failed"),
                ValueError("bad header Authorization: Bearer sk-SECRET-C3"), OSError("api_key=sk-SECRET-C3")):
        line = describe(exc)
        assert "***" in line and not [s for s in SECRETS.values() if s in line], line
    _show_warning("retrying http://u5er-SECRET-A1:pa55-SECRET-B2@host/v1", UserWarning, "f", 1)
    err = capsys.readouterr().err
    assert "http://***@host/v1" in err and "SECRET" not in err


def test_lm_eval_task_yaml_key_is_refused_through_lm_evals_call(planted, tmp_path):
    """A key written into a task YAML, loaded by lm-eval's own TaskManager and scored by its own
    ``process_results`` (the call `lm_eval run` makes, which retries a TypeError without the options): refused, named,
    never echoed, nothing sent. The real `lm_eval run --log_samples` with api_key_env (the key reaches the server and
    no file or stream): tests/test_integration_lm_eval.py::test_lm_eval_run_with_log_samples_leaks_no_key."""
    pytest.importorskip("lm_eval")
    import shutil

    from lm_eval.tasks import TaskManager

    if "llm_judge" not in available_metrics():
        pytest.skip("needs llm_judge")
    repo = Path(__file__).resolve().parents[1]
    include = tmp_path / "tasks"
    shutil.copytree(repo / "integration" / "lm_eval", include, ignore=shutil.ignore_patterns("examples", "*.yaml",
                                                                                               "__pycache__"))
    (include / "judge_yaml.yaml").write_text(lm_eval_judge_task(
        "judge_yaml", planted["good"].base_url, tmp_path / "judge.sqlite", f"api_key: {SECRETS['api_key']}",
        generation=False), encoding="utf-8")
    task = TaskManager(include_path=str(include), include_defaults=False).load(["judge_yaml"])["tasks"]["judge_yaml"]
    doc = next(iter(task.test_docs()))
    outputs = Outputs()
    with pytest.raises(OptionError, match=r"nlgm_llm_judge: the metric option\(s\) api_key carry a credential.*set "
                                           r"\$OPENAI_API_KEY.*api_key_env=NAME") as caught:
        task.process_results(doc, ["a generated summary"])
    outputs.add("lm-eval process_results", caught.value)
    assert outputs.leaks() == []
    assert planted["good"].requests == []


TOKEN_URL = "git+https://oauth2:ghp_SECRET-F6@github.com/o/x@v1"


def test_hub_build_refuses_a_requirement_with_a_credential_before_writing(tmp_path, capsys):
    """Issue 43: `hub build --requirement 'nlgmetrics @ git+https://oauth2:TOKEN@...'` wrote the token into the Space's
    requirements.txt (which `hub publish` uploads). Refused by the secrets rule, naming the option, never the value,
    before anything is written; the Python API the same."""
    from nlgmetrics import hub
    from nlgmetrics.cli import main

    for requirement in (f"nlgmetrics @ {TOKEN_URL}", f"nlgmetrics @ {TOKEN_URL} junk",
                        "nlgmetrics @ https://example.org/x.whl?token=ghp_SECRET-F6"):
        assert main(["hub", "build", "bleu", "--out", str(tmp_path / "space"), "--requirement", requirement]) == 2
        out, err = capsys.readouterr()
        assert "--requirement carry a credential" in err and "requirements.txt" in err and err.count("\n") == 1
        assert "SECRET" not in out + err and not (tmp_path / "space").exists()
        with pytest.raises(OptionError, match="--requirement carry a credential") as caught:
            hub.build_space("bleu", tmp_path / "space", requirement=requirement)
        assert "SECRET" not in str(caught.value) and not (tmp_path / "space").exists()
    space = hub.build_space("bleu", tmp_path / "space", requirement="nlgmetrics @ git+https://github.com/o/x@v1")
    assert (space / "requirements.txt").read_text() == "nlgmetrics @ git+https://github.com/o/x@v1\n"


def test_every_project_error_is_one_line_without_credentials():
    """Issue 43: hub.build_space quoted a requirement's token in a 3-line error. The base class of the project's errors
    folds every message onto one line and masks credentials, wherever the error is raised or logged."""
    from nlgmetrics.errors import CheckpointError, MissingExtraError
    from nlgmetrics.hub import HubError

    for error in (HubError(f"--requirement 'nlgmetrics @ {TOKEN_URL} junk' is not a pip requirement (Expected end\n"
                           f"    nlgmetrics @ {TOKEN_URL} junk\n        ~~~^)"),
                  CheckpointError("cannot read https://host/m?token=ghp_SECRET-F6"),
                  MissingExtraError("x\nAuthorization: Bearer ghp_SECRET-F6", name="torch")):
        text = str(error)
        assert "\n" not in text and "SECRET" not in text and "***" in text, text
    assert "***@github.com" in str(HubError(f"at {TOKEN_URL}"))


def test_the_traceback_shown_on_request_is_redacted(monkeypatch, capsys):
    """Issue 43: with NLGMETRICS_TRACEBACK=1 the traceback printed the token twice (the one-line error was redacted)."""
    from nlgmetrics.cli import _parser, main

    def command(args):
        raise RuntimeError(f"cannot fetch {TOKEN_URL}: Authorization: Bearer ghp_SECRET-G7")

    build = _parser.build_parser

    def failing():
        parser = build()
        for action in parser._actions:
            if getattr(action, "choices", None) and "list" in action.choices:
                action.choices["list"].set_defaults(func=command)
        return parser

    monkeypatch.setattr(_parser, "build_parser", failing)
    monkeypatch.setenv("NLGMETRICS_TRACEBACK", "1")
    assert main(["list"]) == 2
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "RuntimeError: cannot fetch" in err
    assert "SECRET" not in err and "oauth2" not in err, err
