"""From a post's HTML to the plain text a director reads, and the font flags of RULES L7.

Shared by every platform parser: they choose the node, this module reads it.
"""

from __future__ import annotations

import re
from typing import Any

# Elements that start a new line in a browser. Inline elements do not.
_BLOCK = frozenset(
    (
        "address article aside blockquote dd div dl dt fieldset figure footer form h1 h2 h3 h4 "
        "h5 h6 header hr li main nav ol p pre section table tbody thead tfoot tr td th ul"
    ).split()
)
_SKIP = frozenset({"script", "style", "template", "noscript", "head", "title"})
# Only these are white space in HTML; the full-width space U+3000 is text and stays.
_HTML_SPACE = re.compile(r"[ \t\n\r\f]+")

Node = Any  # selectolax's LexborNode; it ships no type stubs

# Deeper nesting than any forum renders. lexbor's tree builder takes time quadratic in the
# depth (each block start tag looks down the whole stack of open elements): 100,000 nested
# <div>s took 22 s. Tags below this depth are dropped before parsing; their text stays.
MAX_DEPTH = 2000
# A page with fewer tags than this cannot nest deep enough to be slow (depth ≤ tags).
_SCAN_FROM = 20_000
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:-]*)[^>]*?(/?)>")
_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())


def html_tree(text: str) -> Any:
    """Parse a page with lexbor, its nesting capped at ``MAX_DEPTH`` (see above)."""
    from selectolax.lexbor import LexborHTMLParser

    # A tag takes three characters at least ("<a>"): a short page cannot nest deep enough.
    if len(text) > 3 * _SCAN_FROM and text.count("<") > _SCAN_FROM:
        text = flatten_deep(text)
    # lexbor reads a text as its UTF-8 (a lone surrogate left out), and the same bytes as
    # themselves: the page's UTF-8 from ``utf8``, where it can hold it.
    raw = utf8(text)
    return LexborHTMLParser(raw if raw is not None else text)


# The text encoded last, and its UTF-8 (None: it holds a lone surrogate, which UTF-8
# cannot), kept by the text object itself. A page's text is encoded twice in a row: for
# the digest the parse memo keys it by (``tally.forums.base``), then for lexbor; encoding a
# page takes a tenth of its parse. One slot, swapped whole: a thread that finds another's
# text there encodes its own.
_ENCODED: tuple[str, bytes | None] | None = None


def utf8(text: str) -> bytes | None:
    """``text`` in UTF-8, or None where it holds a lone surrogate; the last text's again
    without encoding it."""
    global _ENCODED
    last = _ENCODED
    if last is not None and last[0] is text:
        return last[1]
    try:
        raw: bytes | None = text.encode("utf-8")
    except UnicodeEncodeError:
        raw = None
    _ENCODED = (text, raw)
    return raw


def find(text: str, needle: str, start: int = 0, end: int | None = None) -> int:
    """``text.find(needle, start, end)``, for a needle whose first character pages hold
    rarely ('G' of "GMT", '回' of "回复:</span>"): each place that character stands is
    looked at first, a few of them at most, then str.find takes over from the last.

    str.find skips ahead past a character only where the needle holds none like it, and a
    needle of markup holds what every line of a page holds (``"``, ``<``, ``>``, ``:``,
    letters): it steps through a page one character at a time (13 µs for "GMT" in the
    last 20,000 characters of a page). One character is looked for as a C loop over the
    text: 0.5 µs for 'G' there."""
    stop = len(text) if end is None else end
    head = needle[:1]
    at = text.find(head, start, stop)
    for _ in range(16):
        if at < 0 or text.startswith(needle, at, stop):
            return at
        at = text.find(head, at + 1, stop)
    # No match starts before ``at``: every one starts with ``head``.
    return text.find(needle, at, stop) if at >= 0 else -1


def flatten_deep(text: str, limit: int = MAX_DEPTH) -> str:
    """``text`` with every tag nested deeper than ``limit`` removed (the text is kept)."""
    import numpy as np

    # The page cut at its tags (as _TAG finds them): text, tag, text, tag, …, text.
    pieces = _TAGS.split(text)
    tags = pieces[1::2]
    if len(tags) <= limit:
        return text  # no deeper than its number of tags
    # What each tag does to the depth: a deep page repeats a few tags thousands of times,
    # each read once; the depths are then numpy's, not a Python loop's (a second a page).
    steps = np.fromiter(map(_Steps().__getitem__, tags), dtype=np.int64, count=len(tags))
    # The depth after each tag, never below 0 (a stray closing tag): the running sum less
    # the lowest it fell below 0 so far; before each, the one after the tag before.
    total = np.cumsum(steps)
    after = total - np.minimum(np.minimum.accumulate(total), 0)
    before = np.concatenate(([0], after[:-1]))
    # An opening tag that goes past the limit, a closing one that closes past it.
    drop = ((steps == 1) & (after > limit)) | ((steps == -1) & (before > limit))
    dropped = np.flatnonzero(drop).tolist()
    if not dropped:
        return text
    for k in dropped:
        pieces[2 * k + 1] = ""
    return "".join(pieces)


# The tags _TAG finds, as one group (re.split keeps them between the texts): a tag runs to
# its first ">" in both, name and all.
_TAGS = re.compile(r"(</?[A-Za-z][^>]*>)")


class _Steps(dict[str, int]):
    """A tag's step in depth: +1 opening, -1 closing, 0 a void element or self-closing."""

    def __missing__(self, tag: str) -> int:
        m = _TAG.match(tag)
        assert m is not None  # the tag _TAGS found
        closing, name, selfclosing = m.group(1), m.group(2).lower(), m.group(3)
        step = 0 if name in _VOID or selfclosing else -1 if closing else 1
        self[tag] = step
        return step


# A line break that white-space folding must not touch; HTML text never holds NUL (the
# parser turns it into U+FFFD).
_BREAK = "\x00"
_END_OF_BLOCK = object()


# What a page hides from its reader: Discuz!'s display_none class (the viewbox theme's
# "作者：" label inside the author link), an inline display:none (Discuz!'s jammer text in a
# post body), the hidden attribute, and the jammer's other form, font.jammer, which
# Discuz!'s module.css paints in the page's background colour. Text a reader does not see
# is never a field.
HIDDEN = (
    ".display_none, [hidden], [style*='display:none' i], [style*='display: none' i], "
    "[style*='display :none' i], font.jammer"
)


def hides(node: Node, markup: str | None = None) -> bool:
    """Whether ``node`` holds an element its page hides (a cheap test before the walk);
    ``markup``: ``node.html``, where the caller has it already."""
    # Each of HIDDEN's selectors needs an attribute: a class (display_none, jammer, in any
    # case in a page without a doctype), hidden or style. lexbor writes every attribute out
    # as `name="…"`, its name in lower case, so markup without these words holds none
    # below the node: a name's or a label's markup is written out in less time than lexbor
    # takes to parse HIDDEN, and a body's own class (td.t_f) says nothing of its insides.
    # Most nodes' markup, their own start tag's included, holds none of them: that said
    # first costs less than reading the node's attributes.
    if markup is None:
        markup = node.html
    if markup is not None and "class=" not in markup and "style=" not in markup and (
        "hidden" not in markup
    ):
        return False
    attributes = node.attributes
    classes = (attributes.get("class") or "").lower()
    if "hidden" in attributes or "style" in attributes or "display_none" in classes or (
        "jammer" in classes
    ):
        return node.css_first(HIDDEN) is not None
    if markup is not None:
        inside = markup[markup.find(">") + 1 :]  # at or before its own start tag's end
        if "class=" not in inside and "style=" not in inside and "hidden" not in inside:
            return False
    return node.css_first(HIDDEN) is not None


def seen_text(node: Node) -> str:
    """The text of ``node`` a reader sees, on one line: ``node.text()`` without what the
    page hides inside it."""
    # Most names, times and labels hold only text: nothing inside them can be hidden.
    if next(node.iter(), None) is None or not hides(node):
        return str(node.text()).strip()
    return _HTML_SPACE.sub(" ", "".join(_seen_parts(node))).replace("\xa0", " ").strip()


def _seen_parts(node: Node) -> list[str]:
    hidden = {id_of(n) for n in node.css(HIDDEN)}
    parts: list[str] = []
    stack: list[Any] = list(node.iter(include_text=True))
    stack.reverse()
    while stack:
        item = stack.pop()
        if item.tag == "-text":
            parts.append(item.text_content or "")
        elif item.tag and item.tag not in _SKIP and item.tag[0] not in "-!":
            if id_of(item) in hidden:
                continue
            children = list(item.iter(include_text=True))
            children.reverse()
            stack.extend(children)
    return parts


def id_of(node: Node) -> int:
    """The identity of a node across selectolax's wrappers (each query makes new ones)."""
    return int(node.mem_id)


def node_text(node: Node, markup: str | None = None) -> str:
    """The text of ``node`` as a browser lays it out: <br> and blocks make new lines; what
    the page hides is left out. ``markup``: ``node.html``, where the caller has it."""
    hidden = {id_of(n) for n in node.css(HIDDEN)} if hides(node, markup) else None
    parts: list[str] = []
    push = parts.append
    # An explicit stack, not recursion: a mangled page may nest thousands of tags deep.
    stack: list[Any] = list(node.iter(include_text=True))
    stack.reverse()
    pop = stack.pop
    while stack:
        item = pop()
        if item is _END_OF_BLOCK:
            push(_BREAK)
            continue
        tag = item.tag
        if tag == "-text":
            push(item.text_content or "")
        elif tag == "br":
            push(_BREAK)
        elif tag and tag not in _SKIP and tag[0] not in "-!":
            if hidden is not None and id_of(item) in hidden:
                continue
            children = list(item.iter(include_text=True))
            if tag in _BLOCK:
                push(_BREAK)
                stack.append(_END_OF_BLOCK)
            children.reverse()
            stack.extend(children)
    return tidy_text(_HTML_SPACE.sub(" ", "".join(parts)).replace(_BREAK, "\n"))


def tidy_text(text: str) -> str:
    """Strip every line, keep single blank lines between paragraphs, drop the rest."""
    lines = [line.replace("\xa0", " ").strip(" \t\xa0") for line in text.split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out)


_STYLE_COLOR = re.compile(r"(?<![-\w])color\s*:\s*([^;\"']+)", re.I)
_STYLE_SIZE = re.compile(r"font-size\s*:\s*([\d.]+)\s*(px|pt|em|rem|%)?", re.I)
_NAMED_RED = {"red": (255, 0, 0), "crimson": (220, 20, 60), "orangered": (255, 69, 0)}


def _rgb(value: str) -> tuple[int, int, int] | None:
    v = value.strip().lower()
    if v in _NAMED_RED:
        return _NAMED_RED[v]
    m = re.fullmatch(r"#?([0-9a-f]{6}|[0-9a-f]{3})", v)
    if m:
        h = m.group(1)
        if len(h) == 3:
            h = "".join(c * 2 for c in h)
        return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)
    m = re.fullmatch(r"rgba?\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3}).*\)", v)
    if m:
        return int(m.group(1)), int(m.group(2)), int(m.group(3))
    return None


def is_red(value: str) -> bool:
    """#FF0000 "or close" (RULES L7): a strong red channel with little green and blue."""
    rgb = _rgb(value)
    return rgb is not None and rgb[0] >= 200 and rgb[1] <= 90 and rgb[2] <= 90


def is_enlarged(size_attr: str | None, style: str | None) -> bool:
    """Larger than the forum's body text: <font size> above 3 (16px), or a CSS size above 16px."""
    if size_attr:
        s = size_attr.strip()
        if s.startswith("+"):
            return s[1:].isdecimal() and int(s[1:]) > 0
        if s.isdecimal():
            return int(s) > 3
        return is_enlarged(None, f"font-size:{s}")
    if style:
        m = _STYLE_SIZE.search(style)
        if m:
            number, unit = float(m.group(1)), (m.group(2) or "px").lower()
            px = {"px": number, "pt": number * 4 / 3, "em": number * 16, "rem": number * 16}.get(
                unit, number * 16 / 100
            )
            return px > 16.5
    return False


def font_flags(node: Node, markup: str | None = None) -> tuple[bool, bool]:
    """(red font used, enlarged font used) anywhere inside ``node``; ``markup``:
    ``node.html``, where the caller has it."""
    # Only a color, style or size attribute flags a font, and lexbor writes every attribute
    # out by its name in lower case: markup without these words holds none (most bodies).
    if markup is not None and "color" not in markup and "style" not in markup and (
        "size" not in markup
    ):
        return False, False
    red = large = False
    for el in node.css("font, span, p, div, strong, b"):
        attrs = el.attributes
        style = attrs.get("style") or ""
        color = attrs.get("color")
        if color and is_red(color):
            red = True
        m = _STYLE_COLOR.search(style)
        if m and is_red(m.group(1)):
            red = True
        if is_enlarged(attrs.get("size") if el.tag == "font" else None, style):
            large = True
        if red and large:
            break
    return red, large
