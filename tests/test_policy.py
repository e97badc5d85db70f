"""Policy tests (issue 33.3): they enumerate the entry points instead of listing cases, so a command or option added
later is covered without editing this file.

- outputs: every parser option that names something written is declared ``OutputPath``; each such option, on every
  subcommand, refuses a link (a dangling one too), an input of the same command line and a missing folder, before
  the command runs;
- errors: every subcommand's ``POLICY_ARGS`` invocation, with each of its input files replaced by a broken one,
  answers one ``nlgmetrics: error:`` line and exit 2 (or scores, for content that is valid text), never a
  traceback; every kind of library error the boundary names becomes one line, exit 2.
"""

from __future__ import annotations

import argparse
import json
import re

import pytest

from nlgmetrics.cli import _parser, main
from nlgmetrics.cli._paths import InputPath, OutputPath

#: words in an option's name, or its help, that say it names something written
_OUTPUT_NAME = re.compile(r"\b(out|output|plot|scatter|save|export|dump|figure|cache)\b")
_OUTPUT_HELP = re.compile(r"\b(write|writes|save|saves|create)\b")


def leaf_parsers(parser: argparse.ArgumentParser | None = None, path: tuple[str, ...] = ()):
    """``(command path, parser)`` of every runnable subcommand (``("hub", "build")`` ...)."""
    parser = parser or _parser.build_parser()
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
    for sub in subs:
        for name, child in sub.choices.items():
            yield from leaf_parsers(child, (*path, name))


LEAVES = list(leaf_parsers())
OUTPUT_OPTIONS = [(path, action) for path, parser in LEAVES for action in parser._actions
                  if isinstance(action.type, OutputPath)]


def _module(path: tuple[str, ...]):
    return next(c for c in _parser.COMMANDS if any(args[: len(path)] == list(path) for args in c.POLICY_ARGS))


def test_every_command_and_output_option_is_enumerated():
    assert {p[0] for p, _ in LEAVES} >= {"score", "compare", "agree", "baseline", "list", "hub"}
    flags = {(p[0], max(a.option_strings, key=len)) for p, a in OUTPUT_OPTIONS}
    assert flags >= {("score", "--plot-alignment"), ("compare", "--plot"), ("agree", "--plot"), ("agree", "--scatter"),
                     ("baseline", "--out"), ("hub", "--out")}
    for command in _parser.COMMANDS:  # each command module declares a valid invocation for the tests below
        assert command.POLICY_ARGS, command.__name__


@pytest.mark.parametrize("path,action", [(p, a) for p, parser in LEAVES for a in parser._actions],
                         ids=lambda x: "-".join(x) if isinstance(x, tuple) else max(x.option_strings or [x.dest]))
def test_options_that_name_outputs_are_declared_as_outputs(path, action):
    """An option that writes a file but is typed as plain text would escape the output rule."""
    if action.nargs == 0 or action.type in (int, float) or action.dest in ("help", "command", "hub_command"):
        return
    named = _OUTPUT_NAME.search(action.dest.replace("_", " ")) or _OUTPUT_HELP.search((action.help or "").lower())
    if named and not isinstance(action.type, InputPath):
        assert isinstance(action.type, OutputPath), (path, action.option_strings, "declare it type=OutputPath(...)")


@pytest.fixture()
def spy(monkeypatch):
    """Every command replaced by a recorder: a refusal must come before the command's work."""
    calls = []
    build = _parser.build_parser

    def spied():
        parser = build()
        for _, leaf in leaf_parsers(parser):
            leaf.set_defaults(func=lambda args: calls.append(args) or 0)
        return parser

    monkeypatch.setattr(_parser, "build_parser", spied)
    return calls


def _argv(path, action, tmp_path, value) -> tuple[list[str], list]:
    """The command's POLICY_ARGS with every placeholder a real file and ``action`` given ``value``."""
    files = _inputs(tmp_path)
    base = next(args for args in _module(path).POLICY_ARGS if args[: len(path)] == list(path))
    flag = max(action.option_strings, key=len)
    argv, skip = [], False
    for i, token in enumerate(base):
        if skip:
            skip = False
            continue
        if token in action.option_strings:  # the output option itself: given below
            skip = True
            continue
        argv.append(token.format(**files))
    return [*argv, flag, str(value)], files


def _inputs(tmp_path):
    text, text2, table = tmp_path / "text.txt", tmp_path / "text2.txt", tmp_path / "table.csv"
    if not text.exists():
        text.write_text("the cat sat on the mat\na dog barks loudly\nit rains today\n", encoding="utf-8")
        text2.write_text("a cat sat on the mat\nthe dog barks\nit rained today\n", encoding="utf-8")
        table.write_text("system,item,human,m\n" + "".join(f"s{s},{i},{(s * 7 + i * 3) % 10},{(s * 5 + i) % 9}\n"
                                                           for s in range(3) for i in range(6)), encoding="utf-8")
    return {"text": str(text), "text2": str(text2), "table": str(table), "out": str(tmp_path / "new_out")}


def _one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("nlgmetrics: error:")]
    assert "Traceback" not in err and len(errors) == 1, err
    return errors[0]


@pytest.mark.parametrize("path,action", OUTPUT_OPTIONS, ids=lambda x: "-".join(x) if isinstance(x, tuple)
                         else max(x.option_strings))
def test_output_options_refuse_links_inputs_and_missing_folders_before_the_work(path, action, tmp_path, spy,
                                                                                 capsys):
    victim = tmp_path / "victim.png"
    victim.write_bytes(b"\x89PNG\r\n\x1a\n keep me")
    link, dangling = tmp_path / "link.png", tmp_path / "dangling.png"
    link.symlink_to(victim)
    dangling.symlink_to(tmp_path / "elsewhere.png")
    cases = {"link": link, "dangling link": dangling, "missing folder": tmp_path / "no_such_dir" / "fig.png"}
    for name, value in cases.items():
        argv, _ = _argv(path, action, tmp_path, value)
        assert main(argv) == 2, (name, argv)
        line = _one_error_line(capsys.readouterr().err)
        assert max(action.option_strings, key=len) in line, line
    argv, files = _argv(path, action, tmp_path, "{text}")
    argv[-1] = files["text"]  # an input of the same command line
    before = {name: open(f, "rb").read() for name, f in files.items() if name != "out"}
    if files["text"] in argv[:-1]:
        assert main(argv) == 2, argv
        _one_error_line(capsys.readouterr().err)
    assert not spy, "a command ran although its output path was refused"
    assert victim.read_bytes() == b"\x89PNG\r\n\x1a\n keep me"
    assert not (tmp_path / "elsewhere.png").exists() and not (tmp_path / "no_such_dir").exists()
    assert {name: open(f, "rb").read() for name, f in files.items() if name != "out"} == before


FIGURE_OPTIONS = [(path, action) for path, action in OUTPUT_OPTIONS if action.type.kind == "figure"]
SHARED_OUTPUTS = [(path, first, second) for path, parser in LEAVES
                  for i, first in enumerate(a for a in parser._actions if isinstance(a.type, OutputPath))
                  for second in [a for a in parser._actions if isinstance(a.type, OutputPath)][i + 1:]]


def _flag(action) -> str:
    return max(action.option_strings, key=len)


@pytest.mark.parametrize("path,action", FIGURE_OPTIONS, ids=lambda x: "-".join(x) if isinstance(x, tuple)
                         else _flag(x))
def test_figure_options_need_matplotlib_before_the_work(path, action, tmp_path, spy, capsys, monkeypatch):
    """Issue 43: `agree --plot` without matplotlib did the work (6.8 s at k=30000), then failed and printed no
    report; compare had the same late check. A figure's extra is checked with its path, before the command runs."""
    monkeypatch.setitem(__import__("sys").modules, "matplotlib", None)  # as if not installed
    argv, _ = _argv(path, action, tmp_path, tmp_path / "figure.png")
    assert main(argv) == 2, argv
    line = _one_error_line(capsys.readouterr().err)
    assert _flag(action) in line and "nlgmetrics[plot]" in line and "pip install -e '.[plot]'" in line, line
    assert not spy and not (tmp_path / "figure.png").exists()


@pytest.mark.parametrize("path,first,second", SHARED_OUTPUTS, ids=lambda x: "-".join(x) if isinstance(x, tuple)
                         else _flag(x))
def test_two_outputs_of_one_command_never_name_one_file(path, first, second, tmp_path, spy, capsys):
    """Issue 43: `agree t.jsonl --plot p.png --scatter p.png` wrote p.png twice, the second figure replacing the
    first: one command's outputs are checked against each other too (also when they are spelled differently)."""
    argv, _ = _argv(path, first, tmp_path, tmp_path / "same.png")
    for other in (tmp_path / "same.png", f"{tmp_path}/./same.png"):
        assert main([*argv, _flag(second), str(other)]) == 2
        line = _one_error_line(capsys.readouterr().err)
        assert f"is also the {_flag(first)} of this command" in line, line
    assert not spy and not (tmp_path / "same.png").exists()


def test_every_command_with_two_outputs_is_enumerated():
    assert {(p[0], _flag(a), _flag(b)) for p, a, b in SHARED_OUTPUTS} >= {("agree", "--plot", "--scatter")}
    assert {p[0] for p, _ in FIGURE_OPTIONS} >= {"agree", "compare", "score"}


#: broken files: (name, make(path) -> the path to pass, must_fail: whether every command must refuse it)
BROKEN = {
    "missing": (lambda p: p / "missing.txt", True),
    "a folder": (lambda p: (p / "folder").mkdir() or p / "folder", True),
    "invalid UTF-8": (lambda p: (p / "bad.txt").write_bytes(b"ok line\n\xff\xfe\xfa broken\n") and p / "bad.txt", True),
    "dangling link": (lambda p: (p / "dl.txt").symlink_to(p / "nowhere.txt") or p / "dl.txt", True),
    "empty": (lambda p: (p / "empty.txt").write_bytes(b"") or p / "empty.txt", True),
    "NUL bytes": (lambda p: (p / "nul.txt").write_bytes(b"a\x00b\nc\x00\x00\n\x00\n") and p / "nul.txt", False),
    "truncated CSV": (lambda p: (p / "t.csv").write_text('system,item,human,m\ns1,1,"0.5') and p / "t.csv", False),
    "nested JSON": (lambda p: (p / "n.json").write_text("[" * 100000 + "]" * 100000) and p / "n.json", False),
    "one long line": (lambda p: (p / "long.txt").write_text("word " * 200000) and p / "long.txt", False),
}


def _input_slots(argv: list[str], parser: argparse.ArgumentParser) -> list[int]:
    """Positions in ``argv`` that hold an input file (values of InputPath options and positionals)."""
    namespace = parser.parse_args(argv)
    values = {v for a in parser._actions if isinstance(a.type, InputPath)
              for v in ([getattr(namespace, a.dest)] if isinstance(getattr(namespace, a.dest), str)
                        else getattr(namespace, a.dest) or [])}
    return [i for i, token in enumerate(argv) if token in values]


@pytest.mark.parametrize("broken", list(BROKEN))
@pytest.mark.parametrize("invocation", [args for c in _parser.COMMANDS for args in c.POLICY_ARGS],
                         ids=lambda args: " ".join(a for a in args if not a.startswith("{"))[:40])
def test_every_command_answers_broken_files_with_one_line(invocation, broken, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("NLGMETRICS_HOME", str(tmp_path / "home"))
    files = _inputs(tmp_path)
    argv = [token.format(**files) for token in invocation]
    make, must_fail = BROKEN[broken]
    bad = str(make(tmp_path))
    parser = _parser.build_parser()
    slots = _input_slots(argv, parser)
    for slot in slots:
        run = list(argv)
        run[slot] = bad
        code = main(run)
        err = capsys.readouterr().err
        assert "Traceback" not in err, (run, err)
        if must_fail or code != 0:
            assert code == 2, (run, code, err)
            _one_error_line(err)


@pytest.mark.parametrize("name,exc", [
    ("torch shape mismatch", lambda: __import__("torch").nn.Linear(2, 3).load_state_dict(
        {"weight": __import__("torch").zeros(4, 4), "bias": __import__("torch").zeros(3)})),
    ("pickle refused", lambda: __import__("torch").load(_pickle_file(), weights_only=True)),
    ("safetensors truncated", lambda: __import__("safetensors.torch").torch.load(b"\x08\x00\x00\x00\x00\x00\x00\x00{}")),
    ("yaml", lambda: __import__("yaml").safe_load("a: [1, 2\nb: {")),
    ("yaml nested", lambda: __import__("yaml").safe_load("[" * 100000)),
    ("sqlite", lambda: __import__("sqlite3").connect(":memory:").execute("select * from nowhere")),
    ("json", lambda: json.loads('{"a": 1')),
    ("json nested", lambda: json.loads("[" * 100000 + "]" * 100000)),
    ("httpx", lambda: __import__("httpx").get("http://127.0.0.1:9/v1", timeout=0.5)),
    ("OSError", lambda: open("no-such-folder/file.txt")),  # relative: inside the checkout, never there
    ("RecursionError", lambda: (_ for _ in ()).throw(RecursionError("maximum recursion depth exceeded"))),
    ("MemoryError", lambda: (_ for _ in ()).throw(MemoryError())),
    ("a bug", lambda: None.attribute),
])
def test_the_boundary_turns_library_errors_into_one_line(name, exc, monkeypatch, capsys):
    """Each kind of error a library underneath raises, raised from inside a command, gives one line and exit 2."""
    def command(args):
        exc()
        raise AssertionError(f"{name}: expected an error")

    build = _parser.build_parser

    def with_failing_list():
        parser = build()
        dict(leaf_parsers(parser))[("list",)].set_defaults(func=command)
        return parser

    monkeypatch.setattr(_parser, "build_parser", with_failing_list)
    assert main(["list"]) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert "weights_only" not in line and len(line) < 1200, line
    assert ("internal error" in line) == (name == "a bug"), line


def _pickle_file():
    import os
    import pickle
    import tempfile

    handle, path = tempfile.mkstemp(suffix=".pt")
    with os.fdopen(handle, "wb") as file:
        pickle.dump({"w": __import__("collections").OrderedDict(a=print)}, file)
    return path


def test_unknown_metric_names_say_did_you_mean_and_names_are_case_insensitive(tmp_path, capsys):
    files = _inputs(tmp_path)
    for given, canonical in (("BLEU", "bleu"), ("rougeL", "rouge"), ("bert_score", None), ("Sacre-BLEU", "sacrebleu")):
        if canonical:
            assert main(["score", "-m", given, "-p", files["text"], "-r", files["text2"], "-f", "json"]) == 0
            assert json.loads(capsys.readouterr().out)["metric"] == canonical
    assert main(["score", "-m", "blue", "-p", files["text"], "-r", files["text2"]]) == 2
    assert _one_error_line(capsys.readouterr().err).startswith("nlgmetrics: error: unknown metric 'blue'. Did you "
                                                               "mean 'bleu'?")
    from nlgmetrics.registry import get_spec, metric_name

    assert metric_name("bert_score") == "bertscore" and get_spec("BERTScore").name == "bertscore"
    with pytest.raises(ValueError, match="Did you mean 'moverscore'"):
        metric_name("moverscor")


def test_version_and_list_options(capsys):
    from nlgmetrics import __version__

    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0 and capsys.readouterr().out.strip() == f"nlgmetrics {__version__}"
    assert main(["list", "BLEU"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("bleu: -o KEY=VALUE options") and "  max_order" in out and "an integer (default 4)" in out
    assert main(["list"]) == 0 and "max_order" not in capsys.readouterr().out


def test_score_table_shows_a_mean_for_every_per_example_key(tmp_path, capsys):
    """Issue 36.4: on 10+ lines the table showed no score for per-example lists; JSON/CSV carry the mean too."""
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("".join(f"the cat number {i} sat on the mat\n" for i in range(12)), encoding="utf-8")
    ref.write_text("".join(f"a cat number {i} sat on a mat\n" for i in range(12)), encoding="utf-8")
    argv = ["score", "-m", "rouge", "-p", str(hyp), "-r", str(ref), "-o", "use_aggregator=false"]
    assert main(argv + ["-f", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert len(result["rougeL"]) == 12 and result["mean"]["rougeL"] == pytest.approx(sum(result["rougeL"]) / 12)
    assert main(argv) == 0
    table = capsys.readouterr().out
    assert re.search(r"rougeL \(mean of 12\)\s+0\.7500", table), table
    assert main(argv + ["-f", "csv"]) == 0
    assert "rouge,mean.rougeL,0.75" in capsys.readouterr().out


def test_an_evaluate_module_never_writes_into_a_checkpoint_folder_given_as_config_name(tmp_path):
    """Issue 33: evaluate.load(module, CHECKPOINT_FOLDER) put default_experiment-1-0.arrow and a lock file there."""
    import evaluate

    from conftest import REPO

    folder = tmp_path / "checkpoint"
    folder.mkdir()
    module = evaluate.load(str(REPO / "metrics" / "bleu"), str(folder), cache_dir=str(tmp_path / "cache"))
    module.add_batch(predictions=["a b c d"], references=[["a b c d"]])
    assert module.compute()["bleu"] == 1.0
    assert list(folder.iterdir()) == []
    assert module.data_dir.startswith(str(tmp_path / "cache"))


EXHAUST = r"""
import resource, sys
from nlgmetrics.cli import _parser, main
KEPT = []

def exhaust(args):  # allocates until nothing is left: 1 MiB blocks, then small objects
    held = KEPT if sys.argv[1] == "global" else []
    try:
        while True:
            held.append(bytearray(1 << 20))
    except MemoryError:
        pass
    while True:
        held.append(str(len(held)) * 20)

build = _parser.build_parser
def with_exhausting_list():
    parser = build()
    for action in parser._actions:
        if getattr(action, "choices", None) and "list" in action.choices:
            action.choices["list"].set_defaults(func=exhaust)
    return parser
_parser.build_parser = with_exhausting_list
used = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (used + (192 << 20), resource.RLIM_INFINITY))
sys.exit(main(["list"]))
"""


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/statm"), reason="reads /proc (Linux)")
@pytest.mark.parametrize("held", ["local", "global"])
@pytest.mark.parametrize("traceback_env", ["", "1"])
def test_the_boundary_holds_when_memory_is_exhausted(held, traceback_env):
    """Issue 43: under a 2 GiB cap the CLI boundary itself died with a MemoryError traceback, exit 1 (its handler
    imported and allocated with no memory left). Memory exhausted by a command (held by its frames or globally):
    one line and exit 2; with NLGMETRICS_TRACEBACK=1 the traceback too."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "NLGMETRICS_TRACEBACK": traceback_env}
    done = subprocess.run([sys.executable, "-c", EXHAUST, held], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 2, done.stderr[-3000:]
    lines = done.stderr.strip().splitlines()
    assert lines[-1].startswith("nlgmetrics: error: out of memory") and lines.count(lines[-1]) == 1, done.stderr
    if traceback_env:
        assert lines[0] == "Traceback (most recent call last):" and lines[-2] == "MemoryError", done.stderr
        assert "During handling" not in done.stderr
    else:
        assert len(lines) == 1, done.stderr


def test_nlgmetrics_without_arguments_prints_the_help(capsys):
    """Issue 43: `nlgmetrics` alone printed "the following arguments are required: command"."""
    from nlgmetrics.cli._parser import build_parser

    assert main([]) == 0
    out, err = capsys.readouterr()
    assert out == build_parser().format_help() and err == ""
    for command in ("score", "compare", "agree", "list", "hub"):
        assert command in out


def test_a_name_key_pair_names_its_metric_not_the_closest_spelling(tmp_path, capsys):
    """Issue 43: `nlgmetrics list bleu:scores` answered "Did you mean 'bertscore'?"."""
    from nlgmetrics.errors import OptionError
    from nlgmetrics.registry import metric_name

    assert main(["list", "bleu:scores"]) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert "'bleu:scores' names the result key 'scores' of the metric bleu; here give the metric itself: bleu" in line
    assert "bertscore" not in line
    with pytest.raises(OptionError, match="Did you mean 'bleu'"):
        metric_name("blue:scores")  # an unknown metric before the colon: the closest one, as for any name


def test_an_order_past_its_bound_is_one_line_before_any_counting(tmp_path, capsys):
    """Issue 43: `score -m google_bleu -o max_len=1000000000` on one 1,500-word line took ~2.9 GB."""
    line = tmp_path / "long.txt"
    line.write_text(" ".join(f"w{i}" for i in range(1500)) + "\n", encoding="utf-8")
    assert main(["score", "-m", "google_bleu", "-p", str(line), "-r", str(line), "-o", "max_len=1000000000"]) == 2
    assert "max_len must be an integer in [1, 32] (an n-gram order), got 1000000000" in _one_error_line(
        capsys.readouterr().err)
