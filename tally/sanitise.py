"""The one sanitiser for what forum users wrote, before it reaches any output.

Names, targets, reasons, titles and post text come from strangers. Printed raw, an escape
sequence can retitle the director's terminal or hide a line, a carriage return can
overwrite one, a bidi override can reverse one, and a newline in a one-line field (a
投票理由) can forge a line of the announcement. So every such string passes here first:

- ``one_line``: for fields that are one line (names, targets, reasons, notes): line
  breaks and tabs become single spaces;
- ``text_block``: for post text, whose line breaks are the author's;
- in both, control characters are shown as visible stand-ins (ESC as ␛, BEL as ␇; C1
  controls and bidi overrides as <U+202E>), never passed through and never dropped
  silently;
- ``json_text``: JSON keeps the data exact but escapes those characters as \\uXXXX.

Rich console markup is not this module's concern: the console prints player text as
``rich.text.Text``, which is never read as markup (see ``tally.outputs.shown.console``).
"""

from __future__ import annotations

import re

# C0 controls but tab and newline, and DEL: their Unicode "control pictures" (␛ for ESC).
_C0 = {c: chr(0x2400 + c) for c in range(0x20) if c not in (0x09, 0x0A)}
_C0[0x7F] = "\u2421"
# C1 controls (0x9B is a CSI on some terminals), bidi embeddings, overrides and isolates,
# and the line separators that some terminals and editors break lines at.
_VISIBLE = {
    **{c: f"<U+{c:04X}>" for c in range(0x80, 0xA0)},
    **{c: f"<U+{c:04X}>" for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))},
}
_TABLE = {**_C0, **_VISIBLE}
_LINE_BREAKS = re.compile(r"\r\n|[\n\r\x0b\x0c\x85\u2028\u2029]")
_SPACES = re.compile(r"[ \t\n]+")
_JSON_ESCAPE = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def text_block(value: str) -> str:
    """Post text: the author's line breaks kept (any kind becomes "\\n"), controls made visible."""
    return _LINE_BREAKS.sub("\n", value).translate(_TABLE)


def one_line(value: str) -> str:
    """A one-line field: every line break and tab run becomes one space, controls visible."""
    return _SPACES.sub(" ", text_block(value)).strip()


def json_text(dumped: str) -> str:
    """JSON text (from ``json.dumps(..., ensure_ascii=False)``) with the characters a
    terminal acts on escaped as \\uXXXX; it still decodes to the same data."""
    return _JSON_ESCAPE.sub(lambda m: f"\\u{ord(m.group()):04x}", dumped)
