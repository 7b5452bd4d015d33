"""A preview of an announcement as the forum will show it: BBCode's few tags tally's
templates use (b, i, u, s, color, size, url, quote) made HTML, everything else text.

The text is escaped first; a tag becomes markup only when it is whole and its value is of
the safe kind (a colour name or #hex, a size number, an http(s) link), so a player's
name or reason can never become markup here whatever it holds."""

from __future__ import annotations

import html
import re

from markupsafe import Markup

_SIMPLE = {"b": "strong", "i": "em", "u": "u", "s": "s", "quote": "blockquote"}
_COLOUR = re.compile(r"#[0-9a-fA-F]{3,6}|[a-zA-Z]{3,20}")
_SIZE = re.compile(r"[1-7]")
_LINK = re.compile(r"https?://[^\s\"'<>\[\]]+")
# A tag as it stands in the escaped text (``=`` values have no quotes: escaping made them
# entities, which the patterns above refuse).
_TAG = re.compile(r"\[(/?)(b|i|u|s|quote|color|size|url)(?:=([^\]]*))?\]", re.IGNORECASE)


def preview(text: str, *, bbcode: bool = True) -> Markup:
    escaped = html.escape(text, quote=True)
    if not bbcode:
        return Markup(escaped.replace("\n", "<br>\n"))
    out: list[str] = []
    open_tags: list[str] = []
    last = 0
    for m in _TAG.finditer(escaped):
        out.append(escaped[last : m.start()])
        last = m.end()
        closing, name, value = m.group(1), m.group(2).lower(), m.group(3)
        html_tag = _open(name, value) if not closing else None
        if closing:
            if name in open_tags:
                while open_tags:  # close what is still open inside it, then it
                    inner = open_tags.pop()
                    out.append(_close(inner))
                    if inner == name:
                        break
                continue
            out.append(m.group(0))
        elif html_tag is not None:
            open_tags.append(name)
            out.append(html_tag)
        else:
            out.append(m.group(0))  # a tag with a value of no safe kind: its text
    out.append(escaped[last:])
    out.extend(_close(name) for name in reversed(open_tags))
    return Markup("".join(out).replace("\n", "<br>\n"))


def _open(name: str, value: str | None) -> str | None:
    if name in _SIMPLE:
        return f"<{_SIMPLE[name]}>" if value is None else None
    if value is None:
        return '<a class="bb-url">' if name == "url" else None
    value = html.unescape(value)
    if name == "color" and _COLOUR.fullmatch(value):
        return f'<span style="color:{value}">'
    if name == "size" and _SIZE.fullmatch(value):
        return f'<span class="bb-size{value}">'
    if name == "url" and _LINK.fullmatch(value):
        return f'<a href="{html.escape(value, quote=True)}" rel="noopener noreferrer">'
    return None


def _close(name: str) -> str:
    if name in _SIMPLE:
        return f"</{_SIMPLE[name]}>"
    return "</a>" if name == "url" else "</span>"
