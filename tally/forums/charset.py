"""Turning a page's bytes into text, the way a browser would pick the charset."""

from __future__ import annotations

import re

from tally.errors import ParseError
from tally.i18n import tr

_HEADER_CHARSET = re.compile(r"charset\s*=\s*[\"']?([\w.:-]+)", re.I)
# <meta charset="gbk"> and <meta http-equiv="Content-Type" content="text/html; charset=gbk">
_META_CHARSET = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?([\w.:-]+)", re.I)
# An XML answer's own declaration (Discuz!'s ajax answers: <?xml version="1.0" encoding="gbk"?>).
_XML_ENCODING = re.compile(rb"^<\?xml[^>]*?\sencoding\s*=\s*[\"']([\w.:-]+)")

# GBK and GB2312 pages routinely hold characters only GB18030 defines (browsers decode
# them all as GB18030, as the WHATWG encoding standard says), so decode them as GB18030.
_ALIASES = {
    "gbk": "gb18030",
    "gb2312": "gb18030",
    "gb_2312": "gb18030",
    "gb_2312-80": "gb18030",
    "x-gbk": "gb18030",
    "cp936": "gb18030",
    "utf8": "utf-8",
}


def charset_of(body: bytes, content_type: str | None = None) -> str:
    """The charset to decode with: the HTTP header's, else an XML answer's declaration, else
    the page's <meta>, else UTF-8."""
    declared = None
    if content_type:
        m = _HEADER_CHARSET.search(content_type)
        if m:
            declared = m.group(1)
    if declared is None:
        xml = _XML_ENCODING.match(body[:200])
        if xml:
            declared = xml.group(1).decode("ascii", "replace")
    if declared is None:
        # The standard has browsers look for <meta> in the first 1024 bytes; forums put
        # long comments first at times, so look a little further.
        meta = _META_CHARSET.search(body[:4096])
        if meta:
            declared = meta.group(1).decode("ascii", "replace")
    name = (declared or "utf-8").strip().lower()
    return _ALIASES.get(name, name)


# At most this many bytes that are not in the charset are read as U+FFFD (see decode_page).
MAX_REPLACED = 16


def decode_page(body: bytes, content_type: str | None = None, *, source: str = "page") -> str:
    """Decode a page in its declared charset.

    Up to ``MAX_REPLACED`` bytes that are not in the charset are read as U+FFFD (shown as
    �, never dropped); more are an error.
    """
    charset = charset_of(body, content_type)
    # A byte-order mark names the encoding above any label, as in a browser (Notepad saves
    # "Unicode" as UTF-16 with one).
    if body.startswith(b"\xef\xbb\xbf"):
        charset, body = "utf-8", body[3:]
    elif body.startswith((b"\xff\xfe", b"\xfe\xff")):
        charset = "utf-16"
    try:
        return body.decode(charset)
    except LookupError:
        raise ParseError(
            tr(
                "{source} declares an unknown charset {charset}.",
                source=source,
                charset=repr(charset),
            )
        ) from None
    except UnicodeDecodeError as exc:
        first = exc.start
    # A few bad bytes (a post cut mid-character by the forum itself) become U+FFFD, and a
    # ballot in such a floor is flagged for the director; many mean the page is not in
    # this charset at all, and reading it would change every name.
    replaced = body.decode(charset, "replace")
    bad = replaced.count("\ufffd") - body.decode(charset, "ignore").count("\ufffd")
    if bad > MAX_REPLACED:
        raise ParseError(
            tr(
                "{source} is not valid {charset} ({bad} bad byte sequences, the first at byte "
                "{first} of {size}); the page may be damaged or mislabelled.",
                source=source,
                charset=charset,
                bad=format(bad, ","),
                first=format(first, ","),
                size=format(len(body), ","),
            )
        )
    return replaced
