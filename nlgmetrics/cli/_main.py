"""``nlgmetrics`` (the console script): parse the command line, check every output path, run the command inside the
one error boundary (:mod:`nlgmetrics.cli._boundary`: one stderr line and exit 2 for any error, one line per warning)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from nlgmetrics._quiet import quiet_third_party
from nlgmetrics.cli._boundary import _show_warning, describe
from nlgmetrics.extras import require_extra


def main(argv: Sequence[str] | None = None) -> int:
    import warnings

    from nlgmetrics.cli._parser import build_parser
    from nlgmetrics.cli._paths import check_outputs

    parser = build_parser()
    args = parser.parse_args(argv)
    shown = warnings.showwarning
    warnings.showwarning = _show_warning
    try:
        with quiet_third_party(enabled=getattr(args, "progress", "auto") != "on"):
            for extra in getattr(sys.modules[args.func.__module__], "EXTRAS", ()):  # the command's own extras
                require_extra(extra, f"nlgmetrics {args.command}")
            check_outputs(parser, args)  # every output path, before any work
            return args.func(args)
    except KeyboardInterrupt:
        print("nlgmetrics: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into e.g. `head`
        sys.stderr.close()
        return 0
    except (Exception, RecursionError, MemoryError) as exc:
        if os.environ.get("NLGMETRICS_TRACEBACK", "").lower() in ("1", "true", "yes", "on"):
            import traceback

            traceback.print_exc()
        print(f"nlgmetrics: error: {describe(exc)}", file=sys.stderr)
        return 2
    finally:
        warnings.showwarning = shown
