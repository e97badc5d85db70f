"""nlgmetrics hub build / publish: Space folders that evaluate.load(DIR) loads offline, an app.py that serves evaluate's
gradio widget, pinned requirements; publishing with huggingface_hub's HfApi mocked at its method boundary."""

from __future__ import annotations

import inspect
import runpy
import sys
import types

import pytest

from nlgmetrics import __version__, hub
from nlgmetrics.cli import main

SPACES = hub.available_spaces()


@pytest.mark.parametrize("name", SPACES)
def test_build_gives_a_space_that_evaluate_loads_offline(name, tmp_path, capsys):
    import evaluate

    out = tmp_path / name
    assert main(["hub", "build", name, "--out", str(out)]) == 0
    assert f"built the Space folder of {name}" in capsys.readouterr().out
    files = {p.name for p in out.iterdir()}
    assert {"README.md", "app.py", "requirements.txt", f"{name}.py"} <= files
    requirements = (out / "requirements.txt").read_text()
    assert requirements.startswith("nlgmetrics") and requirements.strip().endswith(f"=={__version__}")
    card = (out / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n") and "sdk: gradio\n" in card and "app_file: app.py\n" in card
    assert f"sdk_version: {hub.GRADIO_SDK_VERSION}\n" in card
    original = (hub.source_root() / "hub_cards" / name / "README.md").read_text(encoding="utf-8")
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
    assert main(["hub", "build", name, "--out", str(tmp_path / "busy"), "--overwrite"]) == 0
    assert not (tmp_path / "busy" / "file").exists()
    with pytest.raises(hub.HubError, match="cannot be called"):
        hub.build_space(name, tmp_path / "app")


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
    calls = dict((c[0], c[1]) for c in FakeHfApi.calls)
    assert calls["create_repo"] == {"repo_id": "my-org/my-space", "repo_type": "space", "space_sdk": "gradio",
                                    "private": False, "exist_ok": True}
    assert calls["upload_folder"]["repo_id"] == "my-org/my-space" and calls["upload_folder"]["repo_type"] == "space"
    assert calls["files"] == sorted(["README.md", "app.py", "requirements.txt", "my-space.py"])
    assert calls["create_tag"] == {"repo_id": "my-org/my-space", "tag": f"v{__version__}", "repo_type": "space",
                                   "revision": "abc123", "tag_message": f"nlgmetrics {__version__}"}
    assert [c[0] for c in FakeHfApi.calls] == ["init", "create_repo", "upload_folder", "files", "create_tag"]


def test_publish_dry_run_and_bad_arguments(monkeypatch, capsys):
    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "HfApi", FakeHfApi)
    FakeHfApi.calls = []
    name = SPACES[0]
    assert main(["hub", "publish", name, "--repo", "org/space", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "would publish" in out and "create_repo('org/space', repo_type='space', space_sdk='gradio'" in out
    assert FakeHfApi.calls == []  # nothing touched the Hub
    assert main(["hub", "publish", name, "--repo", "no-slash"]) == 2
    assert "ORG/NAME" in capsys.readouterr().err
    assert main(["hub", "publish", name, "--repo", "org/space", "--tag", "0.1"]) == 2
    assert "vX.Y.Z" in capsys.readouterr().err
    assert FakeHfApi.calls == []
