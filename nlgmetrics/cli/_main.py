"""``nlgmetrics`` (the console script): parse the command line, check every output path, run the command inside the
one error boundary (:mod:`nlgmetrics.cli._boundary`: one stderr line and exit 2 for any error, one line per warning).

The boundary holds under memory exhaustion too: what it needs is imported up front, a small reserve is given back
and the failing frames' locals (the allocations that exhausted memory) are released before the line is written, so a
MemoryError is one line and exit 2 like any error, never a traceback from inside the handler. ``nlgmetrics`` without
arguments prints the help."""

from __future__ import annotations

import os
import sys
import traceback
import warnings
from collections.abc import Sequence

from nlgmetrics._quiet import quiet_third_party
from nlgmetrics._secrets import redact
from nlgmetrics.cli._boundary import _show_warning, describe
from nlgmetrics.extras import require_extra

#: the line written when even the handler runs out of memory (no allocation needed to write it)
_OUT_OF_MEMORY = (b"nlgmetrics: error: out of memory: lower --batch-size, --n-resamples or --k, or score fewer lines "
                  b"per run (MemoryError)\n")
_RESERVE_BYTES = 1 << 22


def main(argv: Sequence[str] | None = None) -> int:
    from nlgmetrics.cli._parser import build_parser
    from nlgmetrics.cli._paths import check_outputs

    parser = build_parser()
    if not (sys.argv[1:] if argv is None else argv):
        parser.print_help()
        return 0
    args = parser.parse_args(argv)
    shown = warnings.showwarning
    warnings.showwarning = _show_warning
    reserve = bytearray(_RESERVE_BYTES)  # given back on a MemoryError, so the handler has room to report it
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
        if isinstance(exc, MemoryError):
            del reserve
            _release_frames(exc)
        try:
            if os.environ.get("NLGMETRICS_TRACEBACK", "").lower() in ("1", "true", "yes", "on"):
                print("\n".join(redact(line) for line in traceback.format_exc().splitlines()), file=sys.stderr)
            print(f"nlgmetrics: error: {describe(exc)}", file=sys.stderr)
        except MemoryError:
            os.write(2, _OUT_OF_MEMORY)
        return 2
    finally:
        warnings.showwarning = shown


def _release_frames(exc: BaseException) -> None:
    """Drop the locals of the frames ``exc`` was raised through (below this one): what they allocated is freed."""
    tb = exc.__traceback__.tb_next if exc.__traceback__ is not None else None
    while tb is not None:
        try:
            tb.tb_frame.clear()
        except RuntimeError:  # a frame still running (a generator's): kept
            pass
        tb = tb.tb_next
