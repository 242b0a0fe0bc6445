"""Text about a failure, fit to show: no credentials, no query values, and for anyone who
asks without a token, no internal hosts either.

A source's failure is stored with its run and shown on /providers to any caller, and printed
by `breakeven refresh`. Its text comes from the HTTP stack, which writes the URL it tried:
a user and password in a source URL (``http://user:pw@host``), an API key in a query string.
:func:`redact` masks those wherever a failure is written (the store, the log, the CLI);
:func:`public_error` cuts a stored failure to its kind for /providers (the detail stays in
the server's log).
"""

from __future__ import annotations

import re

MASK = "\N{HORIZONTAL ELLIPSIS}"
# A URL's userinfo: scheme://user:password@ (or a token alone before the @).
_USERINFO = re.compile(r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.-]*://)[^/@\s'\"<>]+@")
# A query value: ?key=value or &key=value, in a URL or a path a message quotes alone.
_QUERY_VALUE = re.compile(r"(?P<name>[?&][A-Za-z0-9_.%\[\]-]+=)(?:(?!: )[^&#\s'\"<>)])*")
# How a failure reads to a caller with no token: the first pattern that matches says it.
_KINDS = (
    (
        re.compile(r"\bHTTP (\d{3})\b|\b([1-5]\d\d) (?:GET|POST)\b"),
        lambda m: f"HTTP {m[1] or m[2]}",
    ),
    (re.compile(r"[Tt]imed? ?out|Timeout"), lambda m: "timed out"),
    (
        re.compile(r"Connection(Error|Refused)|ProxyError|NewConnectionError|Failed to establish"),
        lambda m: "could not connect",
    ),
    (re.compile(r"SSLError|certificate"), lambda m: "TLS failed"),
)


# A query parameter whose name says it carries a secret: its value stays out of access logs
# (a token sent as ?token= is refused, and was written to the log whole).
_SECRET_PARAMETER = re.compile(
    r"(?P<name>[?&][A-Za-z0-9_.-]*(?:token|key|secret|passw|auth|signature)[A-Za-z0-9_.-]*=)"
    r"[^&#\s]*",
    re.IGNORECASE,
)


def redact_secret_parameters(text: str) -> str:
    """``text`` (a request line, a query string) with the values of parameters named like
    secrets masked; the rest of the query kept, for the log to say what was asked."""
    return _SECRET_PARAMETER.sub(lambda m: f"{m['name']}{MASK}", text)


def redact(text: str) -> str:
    """``text`` with every URL's userinfo and every query value masked."""
    text = _USERINFO.sub(lambda m: f"{m['scheme']}{MASK}@", text)
    return _QUERY_VALUE.sub(lambda m: f"{m['name']}{MASK}", text)


def public_error(text: str) -> str:
    """A stored failure as anyone may read it: its kind and a short class ("could not
    connect", "HTTP 503"); text that names no place (a refused run, a missing key) as it is."""
    if not text:
        return text
    kind = text.split(":", 1)[0] if ":" in text else "error"
    for pattern, said in _KINDS:
        found = pattern.search(text)
        if found:
            return f"{kind}: {said(found)} (details in the server's log)"
    if "://" in text or re.search(r"\bhost=|\bport=|@", text):
        return f"{kind}: see the server's log"
    return redact(text)
