"""``nlgmetrics hub build|publish``: a metric's Hugging Face Space."""

from __future__ import annotations

import argparse

from nlgmetrics.cli._boundary import CLIError
from nlgmetrics.cli._paths import InputPath, OutputPath


#: a minimal valid invocation, for the policy tests (tests/test_policy.py): {out} is a new path.
POLICY_ARGS = [["hub", "build", "bleu", "--out", "{out}", "--requirement", "nlgmetrics @ git+https://example.org/x@v0.1.0"]]


def add_parser(sub, progress_help: str) -> argparse.ArgumentParser:
    hub_parser = sub.add_parser("hub", help="build or publish a metric's Hugging Face Space")
    hub_sub = hub_parser.add_subparsers(dest="hub_command", required=True)
    build = hub_sub.add_parser("build", help="assemble a Space folder (module script, card, app.py, requirements.txt, "
                                             "the nlgmetrics wheel)")
    build.add_argument("name", help="metric name (a folder of metrics/ with a card in hub_cards/)")
    build.add_argument("--out", required=True, type=OutputPath("folder"), help="the Space folder to create (evaluate.load(OUT) loads it)")
    build.add_argument("--overwrite", action="store_true",
                       help="replace a previous build in OUT (only folders made by hub build; nothing else is touched)")
    publish = hub_sub.add_parser("publish", help="build the Space and upload it with huggingface_hub")
    publish.add_argument("name", help="metric name")
    publish.add_argument("--repo", required=True, help="the Space id, ORG/NAME")
    publish.add_argument("--tag", default=None, help="tag the uploaded commit, e.g. v0.1.0")
    publish.add_argument("--dry-run", action="store_true", help="build and list exactly what would be uploaded")
    publish.add_argument("--private", action="store_true", help="create the Space private")
    publish.add_argument("--token", default=None, help="Hub token (default: the logged-in one, HF_TOKEN)")
    for command in (build, publish):
        command.add_argument("--source", default=None, type=InputPath(),
                             help="folder with metrics/ and hub_cards/ (default: this installation's)")
        how = command.add_mutually_exclusive_group()
        how.add_argument("--wheel", default=None, type=InputPath(),
                         help="the nlgmetrics wheel the Space carries (default: built from the checkout, or repacked "
                              "from the installed package)")
        how.add_argument("--requirement", default=None, metavar="SPEC",
                         help="install nlgmetrics from SPEC instead of carrying the wheel, e.g. "
                              "'nlgmetrics[encoder] @ git+https://github.com/ORG/nlgmetrics@v0.1.0'")
    hub_parser.set_defaults(func=cmd_hub)
    return hub_parser


def _size(n: int) -> str:
    return f"{n} B" if n < 1000 else f"{n / 1000:.1f} kB" if n < 10**6 else f"{n / 10**6:.1f} MB"


def cmd_hub(args: argparse.Namespace) -> int:
    from nlgmetrics import hub

    try:
        if args.hub_command == "build":
            folder = hub.build_space(args.name, args.out, source=args.source, overwrite=args.overwrite,
                                     wheel=args.wheel, requirement=args.requirement)
            print(f"built the Space folder of {args.name} in {folder}: "
                  f"{', '.join(sorted(p.name for p in folder.iterdir() if p.name != hub.MARKER))}")
            return 0
        result = hub.publish_space(
            args.name, args.repo, tag=args.tag, dry_run=args.dry_run, private=args.private, token=args.token,
            source=args.source, wheel=args.wheel, requirement=args.requirement,
        )
    except hub.HubError as exc:
        raise CLIError(str(exc)) from None
    except OSError as exc:
        raise CLIError(f"cannot write the Space folder ({exc.strerror or exc}: {exc.filename}); choose another "
                       "--out") from None
    action = "would publish" if result.dry_run else "published"
    total = sum(result.sizes.values())
    print(f"{action} {args.name} to https://huggingface.co/spaces/{result.repo_id}: {len(result.files)} files, "
          f"{_size(total)}")
    for name in result.files:
        print(f"  {name}  ({_size(result.sizes[name])})")
    for step in result.steps:
        print(f"  {step}")
    return 0
