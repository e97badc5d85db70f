"""Hugging Face Hub Spaces for the metrics: build a Space folder, publish it.

    nlgmetrics hub build bleu --out spaces/bleu [--overwrite] [--wheel FILE | --requirement SPEC]
    nlgmetrics hub publish bleu --repo my-org/bleu [--tag v0.1.0] [--dry-run]

A Space folder holds the evaluate module script (``metrics/<name>/<name>.py`` and any sibling ``.py`` files), the card
(``hub_cards/<name>/README.md`` and any other files there), an ``app.py`` that serves evaluate's gradio widget
(``evaluate.utils.launch_gradio_widget``), a ``requirements.txt`` and, by default, the nlgmetrics wheel itself.
Modules and cards come from this installation (:func:`nlgmetrics._layout.module_roots`: a checkout or an installed
wheel) or from ``--source DIR`` (a folder with ``metrics/`` and ``hub_cards/``).

nlgmetrics is on no public index, so a Space carries its wheel (pure Python): a Space installs ``requirements.txt``
before it copies the repository (the file is mounted alone), so a wheel path there would not resolve; instead
``requirements.txt`` lists the wheel's own dependencies (with the extras the metric needs, :func:`space_extras`) and
``app.py`` unpacks the bundled wheel onto ``sys.path`` before ``evaluate.load``. The wheel is the one given with
``wheel=``, else built from the checkout this package runs from (``pip wheel``, in a temporary copy), else repacked
from the installed distribution. ``requirement="nlgmetrics[encoder] @ git+https://..."`` writes that line instead
and bundles nothing.

Safety: ``build`` writes into an empty or new folder; ``overwrite=True`` replaces only a folder that a previous
``build`` made (it holds the marker file :data:`MARKER`, which lists the files written) and deletes only the files
listed there: a name it would write that the record does not list is refused, a listed symbolic link is removed
(never followed), and every file is created exclusively (never written through a link). Everything is checked before
anything is written.

The script is named after the folder: ``evaluate.load(DIR)`` reads ``DIR/<basename of DIR>.py``, and
``evaluate.load("org/x")`` reads ``x.py`` of the Space ``org/x`` (so ``publish`` names it after the repository).
evaluate's widget is written against gradio 3 (``gr.inputs``/``gr.outputs``, removed in gradio 4), so the card's
``sdk_version`` is set to :data:`GRADIO_SDK_VERSION`, the gradio that evaluate's own metric Spaces use.

``evaluate-cli create`` is not used: it breaks with huggingface-hub >= 1.0. Publishing calls ``HfApi.create_repo``
(``repo_type="space"``, ``space_sdk="gradio"``), ``upload_folder`` and, with ``tag``, ``create_tag`` on the uploaded
commit.
"""

from __future__ import annotations

import atexit
import base64
import email.message
import email.parser
import hashlib
import importlib.metadata
import json
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nlgmetrics import __version__
from nlgmetrics._layout import PACKAGE_DIR, module_roots
from nlgmetrics._outputs import output_folder
from nlgmetrics.errors import NlgmetricsError, OutputError

GRADIO_SDK_VERSION = "3.19.1"
#: written by ``build`` into every Space folder it makes: the files it wrote (what ``overwrite`` may replace).
MARKER = ".nlgmetrics-space.json"
GENERATED = ("app.py", "requirements.txt", "README.md", MARKER)
_TAG = re.compile(r"^v\d+\.\d+\.\d+([.-]?[A-Za-z0-9.]+)?$")
_REPO = re.compile(r"^[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*$")
_WHEEL_NAME = re.compile(r"^nlgmetrics-[^-]+-[^-]+-[^-]+-[^-]+\.whl$")

APP_TEMPLATE = '''\
"""Gradio widget of the {name} metric (nlgmetrics {version}), as evaluate's own metric Spaces."""

import os
{wheel_imports}
import evaluate
from evaluate.utils import launch_gradio_widget

HERE = os.path.dirname(os.path.abspath(__file__))
{wheel_block}
module = evaluate.load(os.path.join(HERE, "{script}"))
launch_gradio_widget(module)
'''
APP_WHEEL_IMPORTS = "import sys\nimport tempfile\nimport zipfile\n"
APP_WHEEL_BLOCK = '''\
# nlgmetrics is on no public index: this Space carries its wheel (pure Python) and unpacks it onto sys.path.
# (requirements.txt holds the wheel's dependencies; a Space installs it before the repository is copied in.)
_unpacked = tempfile.mkdtemp(prefix="nlgmetrics-")
zipfile.ZipFile(os.path.join(HERE, "{wheel}")).extractall(_unpacked)
sys.path.insert(1, _unpacked)  # after the app's folder: evaluate's widget reads README.md from sys.path[0]
'''


class HubError(NlgmetricsError, ValueError):
    """A Space cannot be built or published as asked."""


def sources(root: str | Path | None = None) -> tuple[Path, Path]:
    """``(modules folder, cards folder)``: ``root/metrics`` and ``root/hub_cards``, else this installation's."""
    if root is None:
        try:
            return module_roots()
        except FileNotFoundError as exc:
            raise HubError(f"{exc} Or pass --source DIR (a folder with metrics/ and hub_cards/).") from None
    modules, cards = Path(root) / "metrics", Path(root) / "hub_cards"
    if not (modules.is_dir() and cards.is_dir()):
        raise HubError(f"--source {root}: it needs a metrics/ and a hub_cards/ folder (as an nlgmetrics checkout).")
    return modules, cards


def available_spaces(root: str | Path | None = None) -> list[str]:
    """Names that have both an evaluate module and a card."""
    modules, cards = sources(root)
    return sorted(
        p.name for p in modules.iterdir() if (p / f"{p.name}.py").is_file() and (cards / p.name / "README.md").is_file()
    )


def space_card(card: str) -> str:
    """The card with the Space settings evaluate's widget needs: gradio SDK, ``app.py``, gradio 3."""
    match = re.match(r"---\r?\n(.*?)\r?\n---\r?\n", card, re.DOTALL)
    if not match:
        raise HubError("the card has no YAML front matter (--- ... ---) with the Space settings.")
    lines = [line for line in match.group(1).splitlines() if not re.match(r"(sdk|sdk_version|app_file):", line)]
    lines += ["sdk: gradio", f"sdk_version: {GRADIO_SDK_VERSION}", "app_file: app.py"]
    return "---\n" + "\n".join(lines) + "\n---\n" + card[match.end():]


# -- the wheel a Space carries ------------------------------------------------------------------------------------
_BUILT: dict[str, Path] = {}  # checkout fingerprint -> wheel built in this process


def _checkout_root() -> Path | None:
    """The checkout this package runs from (PYTHONPATH or an editable install), None for an installed wheel."""
    root = PACKAGE_DIR.parent
    return root if (root / "pyproject.toml").is_file() and (root / "setup.py").is_file() else None


def _process_tmp() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="nlgmetrics-wheel-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder


def _build_from_checkout(root: Path) -> Path:
    """``pip wheel`` of the checkout, in a temporary copy (the checkout gets no build/ or egg-info); once per
    process while the files are unchanged."""
    files = sorted(
        [f for f in root.iterdir() if f.is_file()]  # pyproject.toml, setup.py, MANIFEST.in, README.md, ...
        + [f for part in ("nlgmetrics", "metrics", "hub_cards") for f in (root / part).rglob("*")
           if f.is_file() and "__pycache__" not in f.parts]
    )
    digest = hashlib.sha256()
    for f in files:
        stat = f.stat()
        digest.update(f"{f.relative_to(root)}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
    key = digest.hexdigest()
    if key in _BUILT and _BUILT[key].is_file():
        return _BUILT[key]
    work = _process_tmp()
    copy = work / "src"
    for f in files:
        target = copy / f.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, target)
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
               "-w", str(work / "dist"), str(copy)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wheels = sorted((work / "dist").glob("nlgmetrics-*.whl"))
    if done.returncode != 0 or len(wheels) != 1:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise HubError(
            f"could not build the nlgmetrics wheel from the checkout {root} ({' '.join(tail) or 'no wheel'}): "
            "install pip and setuptools in this environment, or pass --wheel FILE (a built wheel) or --requirement "
            "SPEC (e.g. a git URL)."
        )
    _BUILT[key] = wheels[0]
    return wheels[0]


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _repack_installed() -> Path:
    """A wheel of the installed (non-editable) distribution this package belongs to, from its RECORD: the files
    under site-packages (no scripts, caches or installer files), a new RECORD, the original WHEEL tags."""
    site = PACKAGE_DIR.parent
    dist = next(iter(importlib.metadata.Distribution.discover(name="nlgmetrics", path=[str(site)])), None)
    if dist is None or not dist.files:
        raise HubError(
            f"cannot find the installed files of nlgmetrics in {site}: pass --wheel FILE (a built nlgmetrics wheel) "
            "or --requirement SPEC (e.g. nlgmetrics @ git+https://...)."
        )
    dist_info = f"nlgmetrics-{dist.version}.dist-info"
    skip = {f"{dist_info}/{name}" for name in ("RECORD", "INSTALLER", "REQUESTED", "direct_url.json")}
    names = sorted(
        str(f).replace("\\", "/") for f in dist.files
        if not str(f).startswith("..") and "__pycache__" not in f.parts and f.suffix != ".pyc"
        and str(f).replace("\\", "/") not in skip
    )
    wheel_info = (site / dist_info / "WHEEL").read_text(encoding="utf-8")
    tags = [line.split(":", 1)[1].strip() for line in wheel_info.splitlines() if line.startswith("Tag:")]
    target = _process_tmp() / f"nlgmetrics-{dist.version}-{tags[0] if tags else 'py3-none-any'}.whl"
    record = []
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in names:
            data = (site / name).read_bytes()
            archive.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)
            record.append(f"{name},{_record_hash(data)},{len(data)}")
        record.append(f"{dist_info}/RECORD,,")
        archive.writestr(zipfile.ZipInfo(f"{dist_info}/RECORD", date_time=(1980, 1, 1, 0, 0, 0)),
                         "\n".join(record) + "\n")
    return target


def _wheel_metadata(wheel: Path) -> email.message.Message:
    try:
        with zipfile.ZipFile(wheel) as archive:
            names = [n for n in archive.namelist() if re.match(r"^nlgmetrics-[^/]+\.dist-info/METADATA$", n)]
            if len(names) != 1 or "nlgmetrics/__init__.py" not in archive.namelist():
                raise HubError(f"--wheel {wheel} is not an nlgmetrics wheel (no nlgmetrics/__init__.py and METADATA).")
            return email.parser.Parser().parsestr(archive.read(names[0]).decode("utf-8"))
    except (OSError, zipfile.BadZipFile) as exc:
        raise HubError(
            f"--wheel {wheel} cannot be read as a wheel ({exc}); pass a .whl built from nlgmetrics."
        ) from None


def space_wheel(wheel: str | Path | None = None) -> Path:
    """The nlgmetrics wheel a Space carries: ``wheel`` (checked: an nlgmetrics wheel of this version), else one built
    from this checkout, else one repacked from the installed distribution."""
    if wheel is None:
        root = _checkout_root()
        return _build_from_checkout(root) if root is not None else _repack_installed()
    path = Path(wheel)
    if not path.is_file() or not _WHEEL_NAME.match(path.name):
        raise HubError(f"--wheel {wheel}: no such wheel file (expected nlgmetrics-<version>-py3-none-any.whl).")
    version = _wheel_metadata(path)["Version"]
    if version != __version__:
        raise HubError(f"--wheel {wheel} is nlgmetrics {version}, but the module scripts are {__version__}: "
                       f"pass a wheel of nlgmetrics {__version__}.")
    return path


def wheel_requirements(wheel: Path, extras: tuple[str, ...] = ()) -> list[str]:
    """The wheel's dependencies with ``extras`` resolved, as requirement lines (markers of extras dropped)."""
    from packaging.requirements import Requirement

    lines = []
    for spec in _wheel_metadata(wheel).get_all("Requires-Dist") or []:
        requirement = Requirement(spec)
        if requirement.marker is None or "extra" not in str(requirement.marker):
            lines.append(str(requirement))
        elif requirement.name != "nlgmetrics" and any(requirement.marker.evaluate({"extra": e}) for e in extras):
            requirement.marker = None
            lines.append(str(requirement))
    return lines


def space_extras(name: str) -> tuple[str, ...]:
    """The pip extras a Space of ``name`` needs besides nlgmetrics itself (the offline resources the metric uses by
    default, from its spec); the ``nlg_suite`` module: those of every metric."""
    from nlgmetrics.registry import SPECS

    specs = SPECS.values() if name == "nlg_suite" else [SPECS[name]] if name in SPECS else []
    return tuple(sorted({extra for spec in specs for extra in spec.extras}))


def requirements_txt(name: str, *, wheel: Path | None = None, requirement: str | None = None) -> str:
    """``requirements.txt`` of the Space of ``name``: ``requirement`` as given, or the bundled wheel's dependencies."""
    if wheel is None:
        if requirement is None:
            raise TypeError("requirements_txt needs the bundled wheel or a requirement")
        return f"{requirement}\n"
    extras = space_extras(name)
    header = (
        f"# nlgmetrics{'[' + ','.join(extras) + ']' if extras else ''} {__version__} comes as {wheel.name} in this "
        "Space (app.py puts it on sys.path);\n# these are its dependencies, from public PyPI.\n"
    )
    return header + "".join(f"{line}\n" for line in wheel_requirements(wheel, extras))


def _check_requirement(requirement: str) -> str:
    """``requirement`` as a line of a Space's requirements.txt: a pip requirement naming nlgmetrics, without a
    credential (the file is uploaded with the Space: :func:`nlgmetrics._secrets.refuse_credentials`)."""
    from packaging.requirements import InvalidRequirement, Requirement

    from nlgmetrics._secrets import refuse_credentials

    refuse_credentials("hub build", {"--requirement": requirement}, carrier="it is written into the Space's "
                       "requirements.txt, which hub publish uploads",
                       fix="Use a URL without credentials (a public repository), or --wheel FILE to bundle a built "
                           "wheel; a private repository's token belongs in the Space's secrets, not in its files.")
    try:
        parsed = Requirement(requirement)
    except InvalidRequirement as exc:
        raise HubError(f"--requirement {requirement!r} is not a pip requirement ({exc}); e.g. "
                       "'nlgmetrics[encoder] @ git+https://github.com/ORG/nlgmetrics@v0.1.0'.") from None
    if parsed.name.lower() != "nlgmetrics":
        raise HubError(f"--requirement must name nlgmetrics (it replaces the bundled wheel), got {parsed.name!r}.")
    return requirement.strip()


# -- building -----------------------------------------------------------------------------------------------------
def _previous_build(out: Path) -> list[str]:
    """The files a previous ``build`` wrote into ``out`` (from its marker); HubError when ``out`` is not one."""
    marker = out / MARKER
    if marker.is_symlink():
        raise HubError(f"{marker} is a symbolic link, not a record written by nlgmetrics hub build; --overwrite "
                       "never follows links. Choose a new or empty folder for --out.")
    try:
        files = json.loads(marker.read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError):
        raise HubError(
            f"{out} is not empty and was not made by nlgmetrics hub build (no valid {MARKER} in it): --overwrite only "
            "replaces a previous Space build, never other files. Choose a new or empty folder for --out."
        ) from None
    if not isinstance(files, list) or not all(
        isinstance(f, str) and f not in ("", ".", "..") and Path(f).name == f for f in files
    ):
        raise HubError(f"{marker} is damaged (its file list is not plain file names); remove {out} yourself.")
    return files


def _module_name(name: str, what: str) -> str:
    """``name`` if a Space's script can be named after it: ``evaluate.load(DIR)`` (or ``"org/NAME"``) imports
    ``<name>.py`` as a Python module, so no dots and not empty; a HubError naming ``what`` otherwise."""
    if name in ("", ".", "..") or "." in name:
        raise HubError(f"{what}: evaluate.load imports the Space's script <folder name>.py as a Python module, so the "
                       f"name must be a plain name without dots (e.g. {name.replace('.', '_').strip('_') or 'space'}); "
                       f"got {name!r}.")
    return name


def build_space(
    name: str, out: str | Path, *, source: str | Path | None = None, overwrite: bool = False,
    wheel: str | Path | None = None, requirement: str | None = None, marker: bool = True,
) -> Path:
    """Assemble the Space folder of metric ``name`` in ``out`` (the script is named ``<basename of out>.py``).

    ``out`` must be new or empty; with ``overwrite``, a folder a previous build made (only the files listed in its
    :data:`MARKER` are replaced; nothing else is touched). ``wheel``/``requirement``: see the module docstring.
    ``marker=False`` (publish's temporary folder) writes no marker.
    """
    modules, cards = sources(source)
    module_dir, card_dir = modules / name, cards / name
    script = module_dir / f"{name}.py"
    if not re.match(r"^[A-Za-z0-9_]+$", name) or not script.is_file() or not (card_dir / "README.md").is_file():
        raise HubError(
            f"no Space can be built for {name!r}: it needs metrics/{name}/{name}.py and hub_cards/{name}/README.md; "
            f"available: {', '.join(available_spaces(source)) or 'none'}."
        )
    try:  # never a link or a file, its parent folder existing (nlgmetrics._outputs' rule)
        out = output_folder(out, what="Space folder")
    except OutputError as exc:
        raise HubError(f"--out {exc}") from None
    previous: list[str] = []
    if out.is_dir() and any(out.iterdir()):
        if not overwrite:
            raise HubError(f"{out} exists and is not empty; choose another --out, or pass --overwrite to replace a "
                           "previous Space build there.")
        previous = [*_previous_build(out), MARKER]
    folder_name = _module_name(out.name, f"--out {out}")  # as given: evaluate.load(DIR) does not resolve links
    script_name = f"{folder_name}.py"
    siblings = [p for p in sorted(module_dir.glob("*.py")) if p != script]
    card_files = [p for p in sorted(card_dir.iterdir()) if p.is_file() and p.name not in GENERATED]
    taken = set(GENERATED) | {p.name for p in siblings} | {p.name for p in card_files}
    if script_name == ".py" or script_name in taken:
        raise HubError(f"the folder cannot be called {folder_name!r}: its script {script_name} would clash "
                       "with another file of the Space; choose another --out.")
    if requirement is not None and wheel is not None:
        raise HubError("pass either --wheel (bundled) or --requirement (installed from elsewhere), not both.")
    if requirement is not None:
        requirement = _check_requirement(requirement)
    bundled = space_wheel(wheel) if requirement is None else None
    requirements = requirements_txt(name, wheel=bundled, requirement=requirement)
    app = APP_TEMPLATE.format(
        name=name, version=__version__, script=script_name,
        wheel_imports=APP_WHEEL_IMPORTS if bundled else "",
        wheel_block=APP_WHEEL_BLOCK.format(wheel=bundled.name) if bundled else "",
    )
    card = space_card((card_dir / "README.md").read_text(encoding="utf-8"))
    written = sorted([script_name, "README.md", "app.py", "requirements.txt"] + [p.name for p in siblings]
                     + [p.name for p in card_files] + ([bundled.name] if bundled else []))

    for target in [*written, MARKER]:  # a name the previous build did not write is the user's: never replaced
        path = out / target
        if target not in previous and (path.exists() or path.is_symlink()):
            raise HubError(f"{path} exists but the previous build's record ({MARKER}) does not list it: --overwrite "
                           "replaces only files a build wrote. Move it away, or choose a new folder for --out.")

    # everything is checked: now write
    out.mkdir(exist_ok=True)
    for old in previous:
        path = out / old
        if path.is_symlink() or path.is_file():
            path.unlink()  # a link itself is removed, never what it points to
    if marker:
        _write_new(out / MARKER, (json.dumps({"nlgmetrics": __version__, "metric": name, "files": written},
                                             indent=1) + "\n").encode("utf-8"))
    _write_new(out / script_name, script.read_bytes())
    for path in siblings + card_files:
        _write_new(out / path.name, path.read_bytes())
    if bundled:
        _write_new(out / bundled.name, bundled.read_bytes())
    _write_new(out / "README.md", card.encode("utf-8"))
    _write_new(out / "app.py", app.encode("utf-8"))
    _write_new(out / "requirements.txt", requirements.encode("utf-8"))
    return out


def _write_new(path: Path, data: bytes) -> None:
    """Create ``path`` with ``data``; exclusive creation, so an existing file or a symbolic link (even one made
    after the checks) is never written through."""
    with open(path, "xb") as file:
        file.write(data)


# -- publishing ---------------------------------------------------------------------------------------------------
def _check_repo_id(repo_id: str) -> None:
    """A Space id the Hub accepts (huggingface_hub's own rule: no ``--`` or ``..``, at most 96 characters, no
    leading or trailing ``-``/``.``, not ending in ``.git``), in the ``ORG/NAME`` form, whose NAME can name the script."""
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    if not isinstance(repo_id, str) or not _REPO.match(repo_id):
        raise HubError(f"--repo must be ORG/NAME (a Space id), got {repo_id!r}.")
    try:
        validate_repo_id(repo_id)
    except HFValidationError as exc:
        raise HubError(f"--repo {repo_id!r} is not a Space id the Hub accepts: {exc}") from None
    _module_name(repo_id.split("/", 1)[1], f"--repo {repo_id}")


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
    sizes: dict[str, int] = field(default_factory=dict)


def _hub_failure(exc: Exception, repo_id: str, token: str | None) -> HubError:
    """A HubError naming what went wrong talking to the Hub and the fix (never the token)."""
    message = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]
    if token:
        message = message.replace(token, "***")
    names = " ".join(cls.__name__ for cls in type(exc).__mro__)
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if status in (401, 403):
        return HubError(f"the Hugging Face Hub refused to publish {repo_id} ({message}): check the token (--token, "
                        "HF_TOKEN or `hf auth login`) and that it may write to that organisation.")
    if "Offline" in names or "Connect" in names or "Timeout" in names or isinstance(exc, OSError):
        return HubError(f"cannot reach the Hugging Face Hub ({message}): publishing needs the network (and "
                        "HF_HUB_OFFLINE unset). Check the connection and run the command again; --dry-run works "
                        "offline.")
    return HubError(f"publishing {repo_id} failed ({message}); nothing more was uploaded after that step.")


def publish_space(
    name: str, repo_id: str, *, tag: str | None = None, dry_run: bool = False, private: bool = False,
    token: str | None = None, source: str | Path | None = None, api: Any = None,
    wheel: str | Path | None = None, requirement: str | None = None,
) -> PublishResult:
    """Build the Space of ``name`` and publish it as the Space ``repo_id`` (created if missing, gradio SDK).

    ``tag`` (``vX.Y.Z``) tags the uploaded commit. ``dry_run`` builds and checks everything and returns the plan
    (the exact files that would be uploaded) without touching the Hub. ``api``: an ``HfApi``-like client (default
    ``huggingface_hub.HfApi(token=token)``). Failures talking to the Hub raise :class:`HubError`.
    """
    _check_repo_id(repo_id)
    if tag is not None and not _TAG.match(tag):
        raise HubError(f"--tag must look like vX.Y.Z (e.g. v{__version__}), got {tag!r}.")
    space_name = repo_id.split("/", 1)[1]
    steps = [
        f"create_repo({repo_id!r}, repo_type='space', space_sdk='gradio', private={private}, exist_ok=True)",
        f"upload_folder(repo_id={repo_id!r}, repo_type='space')",
    ] + ([f"create_tag({repo_id!r}, tag={tag!r}, repo_type='space')"] if tag else [])
    with tempfile.TemporaryDirectory(prefix="nlgmetrics-space-") as tmp:
        folder = build_space(name, Path(tmp) / space_name, source=source, wheel=wheel, requirement=requirement,
                             marker=False)
        paths = sorted(p for p in folder.rglob("*") if p.is_file())
        files = [p.relative_to(folder).as_posix() for p in paths]
        sizes = {f: p.stat().st_size for f, p in zip(files, paths)}
        if dry_run:
            return PublishResult(repo_id, files, True, tag, steps=steps, sizes=sizes)
        try:
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
                api.create_tag(repo_id, tag=tag, tag_message=f"nlgmetrics {__version__}", revision=oid,
                               repo_type="space")
        except Exception as exc:  # noqa: BLE001  (network, HTTP and auth failures of the Hub client: no traceback)
            raise _hub_failure(exc, repo_id, token) from None
    return PublishResult(repo_id, files, False, tag, url=str(url), commit=oid, steps=steps, sizes=sizes)
