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
from collections.abc import Callable
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


# Where a match of each can begin, as a word it holds and how far before the word it
# begins: a secret's key, after its quote; the word formhash, after `name="` (the form's
# field) or a link's ? & or ;, and a field's `value="` (before the field's name). ``sub``
# tries each pattern at every quote, n, v, & and ; of a page (1.1 ms of CPU for a page of
# 60 kB, at every page read); tried only where these words stand: 0.3 ms, the same matches.
_JSON_STARTS = tuple((k.encode(), (1,)) for k in sorted(SECRETS))
_PAGE_STARTS = ((b"formhash", (6, 1)), (b'value="', (0,)))


def _scrub_text(body: bytes) -> bytes:
    body = _sub(_IN_JSON, _JSON_STARTS, _scrubbed_pair, body)
    return _sub(_IN_PAGE, _PAGE_STARTS, lambda m: m.group("lead") + _SCRUBBED, body)


def _sub(
    pattern: re.Pattern[bytes], starts: tuple[tuple[bytes, tuple[int, ...]], ...],
    replace: Callable[[re.Match[bytes]], bytes], body: bytes,
) -> bytes:  # fmt: skip
    """``pattern.sub(replace, body)``, for a pattern whose every match begins at one of
    ``starts``: the same matches, left to right, none overlapping."""
    at: set[int] = set()
    for word, before in starts:
        i = body.find(word)
        while i >= 0:
            at.update(i - b for b in before if i >= b)
            i = body.find(word, i + 1)
    kept: list[bytes] = []
    done = 0
    for i in sorted(at):
        if i >= done and (m := pattern.match(body, i)) is not None:
            kept += (body[done:i], replace(m))
            done = m.end()
    if not kept:
        return body
    kept.append(body[done:])
    return b"".join(kept)


def _scrubbed_pair(m: re.Match[bytes]) -> bytes:
    if m.group("key") is not None:
        return b'"' + m.group("key") + b'":"' + _SCRUBBED + b'"'
    return b"'" + m.group("skey") + b"':'" + _SCRUBBED + b"'"
