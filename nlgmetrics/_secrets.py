"""Secrets: the one redaction every output goes through (signatures, cache rows, error messages, warnings, reprs,
per-sample values of the framework adapters).

Rule: a credential never leaves the process except to the server it is meant for.

- ``api_key`` options (:data:`CREDENTIAL_OPTIONS` lists every option that carries one) are never written: a
  signature, a cache row or a message shows ``***``, and a cache key that needs to tell two of them apart stores a
  salted digest (:func:`digest`), never the value;
- a URL loses its userinfo (``http://user:pass@host`` -> ``http://***@host``) and the values of its query string
  (``?api-key=XYZ&v=2`` -> ``?api-key=***&v=***``): a query value may be a key, and we cannot tell which;
- an ``Authorization:`` (or ``Proxy-Authorization:``/``api-key:``/``x-api-key:``) header's value becomes ``***``, and
  so does a ``Bearer``/``Basic`` token in free text;
- every credential value seen by :func:`remember` (the judge's ``api_key``, the userinfo and query values of its
  ``base_url``) is also replaced wherever it occurs in a text passed to :func:`redact`, so a server's error message
  that echoes the key is scrubbed too;
- options that an adapter ships to another process or writes into a file (lm-eval's results file and logged samples,
  Ray's task specs and object store, spilled to disk under memory pressure) must not carry a credential at all
  (:func:`check_shipped_options`): the user names an environment variable instead (``api_key_env: NAME``), read
  where the metric runs (:func:`key_from_environment`), or sets ``$OPENAI_API_KEY`` there;
- a value the user gives that a command writes into a file (a Space's ``requirements.txt`` from ``hub build
  --requirement``, which ``hub publish`` uploads) must not carry one either (:func:`refuse_credentials`, the rule
  both build on): the error names the option, never the value;
- every error of the project is redacted when it is made (:class:`nlgmetrics.errors.NlgmetricsError`), every line the
  command line prints, and the traceback ``NLGMETRICS_TRACEBACK=1`` adds (:mod:`nlgmetrics.cli._main`).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from typing import Any

from nlgmetrics._redact import MASK, redact, redact_url, remember, remember_url  # noqa: F401  (re-exported)
from nlgmetrics.errors import OptionError


#: options that carry a credential, by kind: ``"secret"`` (the value is a credential) or ``"url"`` (a URL that may hold
#: userinfo or a key in its query string). The policy test (tests/test_secrets_policy.py) walks every entry point's
#: options and fails for an option that looks like a credential but is not listed here.
CREDENTIAL_OPTIONS: dict[str, str] = {"api_key": "secret", "base_url": "url"}
# (the text redaction itself, redact/remember/redact_url, lives in nlgmetrics._redact, which imports nothing of
# nlgmetrics, so that the error classes can apply it; it is re-exported here, the rule's home)

#: the option that names the environment variable holding the key, for options that travel (see
#: :func:`check_shipped_options`); the credential option it fills
KEY_ENV_OPTION, KEY_OPTION = "api_key_env", "api_key"

_SALT = b"nlgmetrics-secret-digest-v1"
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def redact_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` for display: a credential option's value -> ``***`` (``None`` kept), a URL option's value through
    :func:`redact_url`, any other string through :func:`redact`."""
    out: dict[str, Any] = {}
    for key, value in options.items():
        kind = CREDENTIAL_OPTIONS.get(key)
        if value is None:
            out[key] = None
        elif kind == "secret":
            out[key] = MASK
        elif kind == "url" and isinstance(value, str):
            out[key] = redact_url(value)
        elif isinstance(value, str):
            out[key] = redact(value)
        else:
            out[key] = value
    return out


def holds_credential(key: str, value: Any) -> bool:
    """Whether option ``key=value`` carries a credential: a non-empty credential option, or a value that
    :func:`redact` changes (a URL with userinfo or a query string, an Authorization header, a remembered key)."""
    if value is None:
        return False
    if CREDENTIAL_OPTIONS.get(key) == "secret":
        return value != ""
    if isinstance(value, str):
        return redact(value) != value
    if isinstance(value, Mapping):
        return any(holds_credential(str(k), v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(holds_credential("", v) for v in value)
    return False


def digest(value: str) -> str:
    """A salted SHA-256 (16 hex digits) of ``value``: tells two credentials apart in a cache key without storing
    either."""
    return hashlib.sha256(_SALT + value.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def refuse_credentials(owner: str, values: Mapping[str, Any], *, carrier: str, fix: str,
                       what: str = "option(s)") -> None:
    """An :class:`OptionError` when one of ``values`` (option name -> value) carries a credential
    (:func:`holds_credential`) and is about to leave the process or land in a file (``carrier`` says where): the error
    names the ``what`` (option or options), never a value, and ``fix``."""
    secret = sorted(key for key, value in values.items() if holds_credential(key, value))
    if secret:
        raise OptionError(f"{owner}: the {what} {', '.join(secret)} carry a credential, and {carrier}. {fix}")


def check_shipped_options(owner: str, options: Mapping[str, Any], *, takes_key: bool, carrier: str,
                          reader: str) -> None:
    """Refuse options that are about to travel to another process or into a file (``carrier`` says where, e.g.
    "lm-eval writes every metric option into its results file and logged samples") when one carries a credential
    (:func:`holds_credential`): the error names the option(s), never a value, and the fix: ``$OPENAI_API_KEY`` or
    ``api_key_env`` naming a variable set in ``reader`` (the process that runs the metric, e.g. "each Ray worker").
    ``api_key_env`` itself must be a variable name, and only for an ``owner`` that ``takes_key``."""
    refuse_credentials(
        owner, options, carrier=carrier, what="metric option(s)",
        fix=f"Remove it and set $OPENAI_API_KEY (and a base_url without credentials), or give the option "
            f"{KEY_ENV_OPTION}=NAME ('{KEY_ENV_OPTION}: NAME' in YAML) to read the key from the environment variable "
            f"NAME in {reader}.")
    if KEY_ENV_OPTION in options:
        variable = options[KEY_ENV_OPTION]
        if not takes_key:
            raise OptionError(f"{owner}: {KEY_ENV_OPTION} is for metrics that take {KEY_OPTION} (llm_judge); "
                              "remove it.")
        if not isinstance(variable, str) or not _VARIABLE.fullmatch(variable):
            raise OptionError(f"{owner}: {KEY_ENV_OPTION} must name an environment variable (e.g. MY_JUDGE_KEY), "
                              "got something else (a name is letters, digits and _).")


def key_from_environment(owner: str, options: Mapping[str, Any], *, reader: str) -> dict[str, Any]:
    """``options`` with ``api_key_env: NAME`` replaced by ``api_key`` read from ``$NAME`` in this process (the one
    that runs the metric, which ``reader`` names in the error for an unset variable); the key is
    :func:`remember`-ed, so a later :func:`redact` scrubs it."""
    out = dict(options)
    variable = out.pop(KEY_ENV_OPTION, None)
    if variable is None:
        return out
    value = os.environ.get(variable)
    if not value:
        raise OptionError(f"{owner}: {KEY_ENV_OPTION}: {variable} but ${variable} is not set (or empty) in {reader}; "
                          "export it there.")
    remember(value)
    out[KEY_OPTION] = value
    return out
