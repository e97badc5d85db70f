"""Hugging Face Hub Spaces for the metrics: build a Space folder, publish it.

    nlgmetrics hub build bleu --out spaces/bleu
    nlgmetrics hub publish bleu --repo my-org/bleu [--tag v0.1.0] [--dry-run]

A Space folder holds the evaluate module script (``metrics/<name>/<name>.py`` and any sibling ``.py`` files), the card
(``hub_cards/<name>/README.md`` and any other files there), an ``app.py`` that serves evaluate's gradio widget
(``evaluate.utils.launch_gradio_widget``) and a ``requirements.txt`` pinning this version of nlgmetrics.

The script is named after the folder: ``evaluate.load(DIR)`` reads ``DIR/<basename of DIR>.py``, and
``evaluate.load("org/x")`` reads ``x.py`` of the Space ``org/x`` (so ``publish`` names it after the repository).
evaluate's widget is written against gradio 3 (``gr.inputs``/``gr.outputs``, removed in gradio 4), so the card's
``sdk_version`` is set to :data:`GRADIO_SDK_VERSION`, the gradio that evaluate's own metric Spaces use.

``evaluate-cli create`` is not used: it breaks with huggingface-hub >= 1.0. Publishing calls ``HfApi.create_repo``
(``repo_type="space"``, ``space_sdk="gradio"``), ``upload_folder`` and, with ``tag``, ``create_tag`` on the uploaded
commit.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nlgmetrics import __version__

GRADIO_SDK_VERSION = "3.19.1"
#: pip extras a Space needs besides nlgmetrics itself (offline resources the metric uses by default).
EXTRAS: dict[str, tuple[str, ...]] = {
    "meteor": ("wordnet",),
    "bertscore": ("encoder",),
    "moverscore": ("encoder",),
    "nlg_suite": ("encoder", "wordnet"),
}
GENERATED = ("app.py", "requirements.txt")
_TAG = re.compile(r"^v\d+\.\d+\.\d+([.-]?[A-Za-z0-9.]+)?$")
_REPO = re.compile(r"^[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*$")

APP_TEMPLATE = '''\
"""Gradio widget of the {name} metric (nlgmetrics {version}), as evaluate's own metric Spaces."""

import os

import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "{script}"))
launch_gradio_widget(module)
'''


class HubError(ValueError):
    """A Space cannot be built or published as asked."""


def source_root(root: str | Path | None = None) -> Path:
    """The folder holding ``metrics/`` and ``hub_cards/``: ``root``, else the checkout this package runs from, else
    the current folder."""
    candidates = [Path(root)] if root is not None else [Path(__file__).resolve().parent.parent, Path.cwd()]
    for candidate in candidates:
        if (candidate / "metrics").is_dir() and (candidate / "hub_cards").is_dir():
            return candidate
    where = ", ".join(str(c) for c in candidates)
    raise HubError(f"no metrics/ and hub_cards/ folders in {where}: run from an nlgmetrics checkout or pass --source.")


def available_spaces(root: str | Path | None = None) -> list[str]:
    """Names that have both an evaluate module and a card."""
    base = source_root(root)
    return sorted(
        p.name for p in (base / "metrics").iterdir()
        if (p / f"{p.name}.py").is_file() and (base / "hub_cards" / p.name / "README.md").is_file()
    )


def requirements(name: str, version: str = __version__) -> str:
    """``requirements.txt`` of a Space: nlgmetrics pinned to ``version`` (with the extras the metric needs)."""
    extras = EXTRAS.get(name, ())
    return f"nlgmetrics{'[' + ','.join(extras) + ']' if extras else ''}=={version}\n"


def space_card(card: str) -> str:
    """The card with the Space settings evaluate's widget needs: gradio SDK, ``app.py``, gradio 3."""
    match = re.match(r"---\r?\n(.*?)\r?\n---\r?\n", card, re.S)
    if not match:
        raise HubError("the card has no YAML front matter (--- ... ---) with the Space settings.")
    lines = [line for line in match.group(1).splitlines() if not re.match(r"(sdk|sdk_version|app_file):", line)]
    lines += ["sdk: gradio", f"sdk_version: {GRADIO_SDK_VERSION}", "app_file: app.py"]
    return "---\n" + "\n".join(lines) + "\n---\n" + card[match.end():]


def build_space(
    name: str, out: str | Path, *, source: str | Path | None = None, overwrite: bool = False,
    version: str = __version__,
) -> Path:
    """Assemble the Space folder of metric ``name`` in ``out`` (the script is named ``<basename of out>.py``)."""
    base = source_root(source)
    module_dir, card_dir = base / "metrics" / name, base / "hub_cards" / name
    script = module_dir / f"{name}.py"
    if not script.is_file() or not (card_dir / "README.md").is_file():
        raise HubError(
            f"no Space can be built for {name!r}: it needs {script.relative_to(base)} and "
            f"hub_cards/{name}/README.md; available: {', '.join(available_spaces(base)) or 'none'}."
        )
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        if not overwrite:
            raise HubError(f"{out} exists and is not empty; choose another --out or pass --overwrite.")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    script_name = f"{out.resolve().name}.py"
    if script_name in GENERATED + ("README.md",):
        raise HubError(f"the folder cannot be called {out.name!r}: its script would replace {script_name}.")
    for path in sorted(module_dir.glob("*.py")):
        shutil.copyfile(path, out / (script_name if path == script else path.name))
    for path in sorted(card_dir.iterdir()):
        if path.is_file() and path.name not in GENERATED:
            shutil.copyfile(path, out / path.name)
    (out / "README.md").write_text(space_card((card_dir / "README.md").read_text(encoding="utf-8")), encoding="utf-8")
    (out / "app.py").write_text(APP_TEMPLATE.format(name=name, version=version, script=script_name), encoding="utf-8")
    (out / "requirements.txt").write_text(requirements(name, version), encoding="utf-8")
    return out


@dataclass
class PublishResult:
    """What :func:`publish_space` did (or, with ``dry_run``, would do)."""

    repo_id: str
    files: list[str]
    dry_run: bool
    tag: str | None = None
    url: str | None = None
    commit: str | None = None
    steps: list[str] = field(default_factory=list)


def publish_space(
    name: str, repo_id: str, *, tag: str | None = None, dry_run: bool = False, private: bool = False,
    token: str | None = None, source: str | Path | None = None, api: Any = None,
) -> PublishResult:
    """Build the Space of ``name`` and publish it as the Space ``repo_id`` (created if missing, gradio SDK).

    ``tag`` (``vX.Y.Z``) tags the uploaded commit. ``dry_run`` builds and checks everything and returns the plan
    without touching the Hub. ``api``: an ``HfApi``-like client (default ``huggingface_hub.HfApi(token=token)``).
    """
    if not _REPO.match(repo_id):
        raise HubError(f"--repo must be ORG/NAME (a Space id), got {repo_id!r}.")
    if tag is not None and not _TAG.match(tag):
        raise HubError(f"--tag must look like vX.Y.Z (e.g. v{__version__}), got {tag!r}.")
    space_name = repo_id.split("/", 1)[1]
    steps = [
        f"create_repo({repo_id!r}, repo_type='space', space_sdk='gradio', private={private}, exist_ok=True)",
        f"upload_folder(repo_id={repo_id!r}, repo_type='space')",
    ] + ([f"create_tag({repo_id!r}, tag={tag!r}, repo_type='space')"] if tag else [])
    with tempfile.TemporaryDirectory(prefix="nlgmetrics-space-") as tmp:
        folder = build_space(name, Path(tmp) / space_name, source=source)
        files = sorted(p.name for p in folder.iterdir())
        if dry_run:
            return PublishResult(repo_id, files, True, tag, steps=steps)
        if api is None:
            from huggingface_hub import HfApi

            api = HfApi(token=token)
        url = api.create_repo(repo_id, repo_type="space", space_sdk="gradio", private=private, exist_ok=True)
        commit = api.upload_folder(
            repo_id=repo_id, repo_type="space", folder_path=str(folder),
            commit_message=f"{name}: nlgmetrics {__version__}",
        )
        oid = getattr(commit, "oid", None)
        if tag:
            api.create_tag(repo_id, tag=tag, tag_message=f"nlgmetrics {__version__}", revision=oid, repo_type="space")
    return PublishResult(repo_id, files, False, tag, url=str(url), commit=oid, steps=steps)
