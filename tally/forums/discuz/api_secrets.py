"""What an answer of Discuz!'s mobile JSON holds that tally never keeps or prints.

Every answer echoes the session it was read with: ``auth`` (the login itself: whoever holds
it is logged in as the director), ``saltkey`` and ``formhash`` (what a post is made with).
Version 1 of the interface, all an X2-era board has, also gives each poster's IP address
(``useip``, ``port``) and e-mail. ``scrub`` takes them out of an answer before anything
keeps it (the cache, an archive) or prints it (``tally doctor``, an error).
"""

from __future__ import annotations

import json
import re
from typing import Any

SECRETS = frozenset({"auth", "saltkey", "formhash", "useip", "port", "email"})
_SCRUBBED = b"SCRUBBED"
_KEYS = b"|".join(k.encode() for k in sorted(SECRETS))
# A secret as JSON text writes it, when the answer cannot be read as JSON (cut short, or a
# web page whose script holds a copy, {'formhash':'…'}): its value up to its closing quote,
# or to the end of what came.
_IN_JSON = re.compile(
    rb'"(?P<key>' + _KEYS + rb')"\s*:\s*(?:"(?:[^"\\]|\\.)*"?|[^,}\]\s]*)'
    rb"|'(?P<skey>" + _KEYS + rb")'\s*:\s*(?:'(?:[^'\\]|\\.)*'?|[^,}\]\s]*)"
)
# The form hash as a web page writes it: in a form's field and in links.
_IN_PAGE = re.compile(
    rb'(?P<lead>name="formhash"\s+value="|value="(?=[^"]*"\s+name="formhash")|[?&;]formhash=)'
    rb"[^\"&'\s<>]*"
)


def scrub(body: bytes) -> bytes:
    """``body`` without the answer's secrets: JSON read and written again without those
    keys (an answer that holds none is returned as it came, byte for byte); anything else
    (JSON cut short, a web page) with their values replaced by SCRUBBED."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return _scrub_text(body)
    try:
        if not _holds_secrets(data):
            return body
        cleaned = _without(data)
    except RecursionError:
        return _scrub_text(body)
    # ASCII, as Discuz! writes its answers whatever the board's charset.
    return json.dumps(cleaned, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def _holds_secrets(data: Any) -> bool:
    if isinstance(data, dict):
        return any(k in SECRETS or _holds_secrets(v) for k, v in data.items())
    if isinstance(data, list):
        return any(_holds_secrets(v) for v in data)
    return False


def _without(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _without(v) for k, v in data.items() if k not in SECRETS}
    if isinstance(data, list):
        return [_without(v) for v in data]
    return data


def _scrub_text(body: bytes) -> bytes:
    body = _IN_JSON.sub(_scrubbed_pair, body)
    return _IN_PAGE.sub(lambda m: m.group("lead") + _SCRUBBED, body)


def _scrubbed_pair(m: re.Match[bytes]) -> bytes:
    if m.group("key") is not None:
        return b'"' + m.group("key") + b'":"' + _SCRUBBED + b'"'
    return b"'" + m.group("skey") + b"':'" + _SCRUBBED + b"'"
