"""How a Discuz! page shows a member and a time beside a post or a 点评: a link to the
member's profile (and its uid, as every version and URL rewriting write it) and the exact
time a recent time ("3 小时前") carries in a span's title."""

from __future__ import annotations

import re

from tally.forums.htmltext import Node, seen_text

# A link to a member's profile, as every version and its URL rewriting write it (and as
# wget -k rewrites "?" to "@" or "%3F"): home.php?mod=space&uid=N, space-uid-N.html,
# space.php?uid=N (Discuz! 6/7), space-username-NAME.html.
PROFILE = re.compile(
    r"(?:home\.php(?:\?|%3F|@)mod=space|space\.php|space-(?:uid|username)-|/space/uid/)", re.I
)
_UID = re.compile(r"(?:[?&@]|%3[Ff]|%26)uid=(\d+)|space-uid-(\d+)|/space/uid/(\d+)")


def named_link(link: Node, href: str | None = None) -> tuple[str, str | None]:
    m = _UID.search(href if href is not None else link.attributes.get("href") or "")
    return seen_text(link), (m.group(1) or m.group(2) or m.group(3)) if m else None


def exact_time(node: Node) -> str | None:
    """Recent times read "3 小时前" and carry the exact time in a span's title."""
    span = node.css_first("span[title]")
    title = span.attributes.get("title") if span is not None else None
    return title if title and re.search(r"\d{4}-\d", title) else None
