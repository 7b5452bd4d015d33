"""What a Discuz! pager says of the pages it pages: the thread's (``div.pg``, ``div.pages``)
and the 点评 script's, which are the same markup."""

from __future__ import annotations

import re

from tally.forums.htmltext import Node

_PAGE_COUNT = re.compile(r"共\s*(\d+)\s*页")


def stated_pages(pager: Node) -> int | None:
    """The page count the pager states (its ``共 N 页`` title), when it states one."""
    total = pager.css_first("span[title]")
    m = _PAGE_COUNT.search(total.attributes.get("title") or "") if total is not None else None
    return int(m.group(1)) if m else None


def highest_page(pager: Node) -> int | None:
    """The highest page the pager links or shows as the current one (older templates print
    no total; Discuz! always links the last page, "... 12"); None when it shows none."""
    shown = (a.text().strip().strip(". \xa0") for a in pager.css("a, strong"))
    return max((int(t) for t in shown if t.isdecimal()), default=None)
