"""What a Discuz! thread page says of itself, beside its posts: which thread and board it
is of, its number and the thread's page count (the pager), its title, the replies its header
counts, the clock its footer prints, and where a saved copy says it was saved from. Each is
read where Discuz!'s own templates and scripts put it, with fallbacks; each says where it
was found (``PageFrame.found``), for ``tally doctor`` and the diagnosis of a page.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Any
from urllib.parse import urlsplit

from tally.errors import InputError
from tally.forums.base import PageText
from tally.forums.discuz.pager import highest_page, stated_pages
from tally.forums.htmltext import find, node_text
from tally.forums.timeparse import Printed
from tally.i18n import N_, tr
from tally.model import origin_of

# A thread id in a link or a form's action, as the forum writes it, as URL rewriting writes
# it (thread-N-P-1.html, also relative), and as wget -k writes it ("?" saved as "@" or %3F).
_TID_IN_HREF = re.compile(r"(?:[?&@]|%3F|%26)p?tid=(\d+)|(?:^|/)thread-(\d+)-\d+-\d+\.html", re.I)
_PAGE_IN_URL = re.compile(r"[?&]page=(\d+)|(?:^|/)thread-\d+-(\d+)-\d+\.html")
# Discuz!'s own scripts, every version: "var fid = parseInt('3'), tid = parseInt('23')".
# (A pattern that starts with its literal is searched for at C speed; "\b" first is not.)
_SCRIPT_TID = re.compile(r"tid\s*=\s*parseInt\(\s*'(\d+)'\s*\)")
_SCRIPT_MAXPAGE = re.compile(r"\bmaxpage\s*=\s*(\d+)\s*;")
_SITEURL = re.compile(r"SITEURL\s*=\s*'(https?://[^']+)'")
# What the savers write at the top of a page they keep: Internet Explorer and Chrome's
# "Save as, complete", HTTrack, SingleFile.
_SAVED = (
    (re.compile(r"<!--\s*saved from url=\(\d+\)(\S+?)\s*-->"), N_("a browser's saved-from mark")),
    (re.compile(r"<!--\s*Mirrored from (\S+) by HTTrack"), N_("HTTrack's mirrored-from mark")),
    (re.compile(r"Page saved with SingleFile\s*\n\s*url:\s*(\S+)"), N_("SingleFile's url mark")),
)
# The footer's clock: "GMT+8, 2026-12-1 17:03", "GMT, …" (offset 0), "GMT-3.5, …".
_FOOTER_ZONE = re.compile(
    r"GMT(?P<off>[+-]\d{1,2}(?:\.\d{1,2})?)?,\s*(?P<y>\d{4})-(?P<mo>\d{1,2})-(?P<d>\d{1,2})\s+"
    r"(?P<h>\d{1,2}):(?P<mi>\d{2})"
)
_REPLIES = re.compile(r"回复:?\s*(\d+)")
_REPLIES_HTML = re.compile(r'回复:</span>\s*<span class="xi1">(\d+)</span>')
# Links and forms that carry the thread's id, most stable first (every version writes them).
_TID_PLACES = (
    ("link[rel='canonical']", "href", N_("the canonical link")),
    ("a[id^='postnum']", "href", N_("a floor's own link (postnum)")),
    ("form#fastpostform", "action", N_("the fast-reply form")),
    ("form[action*='tid=']", "action", N_("a reply form")),
    ("a[href*='repquote=']", "href", N_("a quote link")),
    ("a[href*='rtype=post']", "href", N_("a report link")),
    ("a[href*='authorid=']", "href", N_("the 只看该作者 link")),
)


def saved_from(text: str) -> tuple[str, str] | None:
    """The URL a saved copy says it was saved from, and which saver's mark says so."""
    head = text[:4000]
    if "saved from" not in head and "Mirrored from" not in head and "SingleFile" not in head:
        return None
    for pattern, said in _SAVED:
        m = pattern.search(head)
        if m:
            url = m.group(1)
            return (url if "://" in url else f"http://{url}"), tr(said)
    return None


def board_host(tree: Any, text: str, source: str) -> str | None:
    """The host a page belongs to: its URL's, or for a saved file the one the saver wrote
    down, the canonical link's or the board's own script's (SITEURL)."""
    if "://" in source:
        return urlsplit(source).hostname
    saved = saved_from(text)
    if saved is not None:
        return urlsplit(saved[0]).hostname
    canonical = tree.css_first("link[rel='canonical']")
    href = canonical.attributes.get("href") or "" if canonical is not None else ""
    if "://" in href:
        return urlsplit(href).hostname
    m = head_search(_SITEURL, "SITEURL", text, 20000)
    return urlsplit(m.group(1)).hostname if m else None


def head_search(
    pattern: re.Pattern[str], literal: str, text: str, end: int, start: int = 0
) -> re.Match[str] | None:
    """``pattern.search(text, start, end)``, for a pattern whose every match starts with
    ``literal``: ``find`` goes to the first place it can match many times as fast as re's
    own scan of a long page, and no part of the text is copied."""
    at = find(text, literal, start, end)
    return pattern.search(text, at, end) if at >= 0 else None


def origin_of_page(page: PageText) -> str:
    """The board the page says it is of: its URL's, else the board's own script's
    (SITEURL), the saver's mark, an absolute canonical link."""
    if "://" in page.source:
        return origin_of(page.source)
    m = head_search(_SITEURL, "SITEURL", page.text, 20000)
    if m:
        return origin_of(m.group(1))
    saved = saved_from(page.text)
    if saved is not None:
        return origin_of(saved[0])
    canonical = page.tree.css_first("link[rel='canonical']")
    href = (canonical.attributes.get("href") or "") if canonical is not None else ""
    return origin_of(href) if "://" in href else ""


def _tid_in(value: str) -> str | None:
    m = _TID_IN_HREF.search(value)
    return next((g for g in m.groups() if g), None) if m else None


def thread_id_of(page: PageText) -> tuple[str | None, str]:
    """Which thread the page is of, and where it says so."""
    for m in _SCRIPT_TID.finditer(page.text):
        if not page.text[m.start() - 1 : m.start()].isalnum():  # not "ptid = …"
            return m.group(1), tr("the page's script (tid = parseInt(…))")
    for selector, attribute, said in _TID_PLACES:
        for node in page.tree.css(selector):
            tid = _tid_in(node.attributes.get(attribute) or "")
            if tid:
                return tid, tr(said)
    saved = saved_from(page.text)
    if saved is not None:
        tid = _tid_in(saved[0])
        if tid:
            return tid, saved[1]
    return None, tr("not on the page: no script, link, form or saved-from mark names the thread")


def page_numbers(page: PageText) -> tuple[int, int, str, str]:
    """The page's number and the thread's page count, and where each was read."""
    tree = page.tree
    pager = tree.css_first("div.pg, div.pages")
    current: int | None = None
    where_current = tr("no pager: a thread of one page")
    if pager is not None:
        strong = pager.css_first("strong")
        if strong is not None and strong.text().strip().isdecimal():
            current, where_current = int(strong.text().strip()), tr("the pager")
    saved = saved_from(page.text) if current is None else None
    if saved is not None:
        m = _PAGE_IN_URL.search(saved[0])
        if m:
            current, where_current = int(next(g for g in m.groups() if g)), saved[1]
    current = current or 1
    count, where_count = current, tr("the page's own number (no page count shown)")
    stated = stated_pages(pager) if pager is not None else None
    if stated is not None:
        return current, max(stated, current), where_current, tr("the pager's 共 N 页")
    highest = highest_page(pager) if pager is not None else None
    if highest is not None and highest > count:
        count, where_count = highest, tr("the highest page the pager links")
    # Discuz! 6/7's script knows the page count ("var maxpage = 3;"), when its pager
    # (div.pages) does not show the last page.
    legacy = pager is not None and "pages" in (pager.attributes.get("class") or "")
    maxpage = _SCRIPT_MAXPAGE.search(page.text) if legacy and "maxpage" in page.text else None
    if maxpage and int(maxpage.group(1)) > count:
        count, where_count = int(maxpage.group(1)), tr("the page's script (maxpage)")
    return current, max(count, current), where_current, where_count


def check_zone(page: PageText) -> datetime | None:
    """The zone the times are read in against the one the page prints them in: every
    Discuz! footer says "GMT+8, 2026-12-1 17:03" (the board's, or the member's own, offset).

    Discuz! knows no summer time: it adds one offset, the one its footer says, to every time
    it prints on a page, whenever the post was made. So where the footer's offset is the
    zone's now, the page's times are read at that offset (``memo["clock"]``), not at the
    zone's offset of each one: on a board whose admin moved the offset when summer time
    began, Saturday's posts, made in winter, are printed in summer time too, an hour on.
    The time it says, when it says one: when the forum made the page (``Page.printed_at``)."""
    text = page.text
    m = head_search(_FOOTER_ZONE, "GMT", text, len(text), max(0, len(text) - 20000))
    if m is None:
        return None
    zone = page.board.zone or page.tz
    try:
        shown = datetime(int(m["y"]), int(m["mo"]), int(m["d"]), int(m["h"]), int(m["mi"]))
        # Discuz! prints the setting (+5.5) but shifts the times by its whole hours
        # (dgmdate's intval): the times are at +5.
        said = timedelta(hours=int(float(m["off"] or 0)))
        printed = shown.replace(tzinfo=timezone(said))
    except (ValueError, OverflowError):
        return None
    read = zone.utcoffset(shown) or timedelta()
    if read == said:
        page.memo["clock"] = Printed(said, zone)
        return printed
    footer = f"GMT{m['off'] or ''}"
    if said != timedelta(hours=float(m["off"] or 0)):
        footer = tr("{footer}, shifted by whole hours: UTC{offset}", footer=footer,
                    offset=_offset(said))  # fmt: skip
    raise InputError(
        tr("{source} prints its times in {footer} (its footer), but tally would read them in "
           "{zone} (UTC{offset}), {off} h off: a member's own 时区 (个人资料 → 设置) shifts every "
           "time the forum shows them; set the account whose cookies tally reads with back to "
           "使用默认 (the board's), or if the board itself is in that zone, say so with timezone "
           "in the game file (all its days' times are then in it too), a board profile or the "
           "config.", source=page.source, footer=footer, zone=zone, offset=_offset(read),
           off=_offset(said - read))
    )


def _offset(delta: timedelta) -> str:
    hours = delta.total_seconds() / 3600
    return f"{hours:+g}"


def title_of(page: PageText) -> tuple[str, str]:
    for selector in (
        *page.board.selectors_for("title"),
        "#thread_subject",
        "div.mainbox.viewthread h1",
    ):
        node = page.tree.css_first(selector)
        title = node_text(node).strip() if node is not None else ""
        if title:
            return title, selector
    return "", tr("not on the page (the title is optional)")


def reply_count_of(page: PageText) -> int | None:
    # The default template's header, read straight from the text; then its elements,
    # whatever the language pack's words (views, then replies, each in a span.xi1); then
    # the Chinese words of other templates.
    m = head_search(_REPLIES_HTML, "回复:</span>", page.text, 40000)  # above the first post
    if m:
        return int(m.group(1))
    if 'ptn"' not in page.text:
        return None  # later pages carry no header (a saved page's head may be long)
    header = page.tree.css_first("div.hm.ptn") or page.tree.css_first("td.pls.ptn")
    if header is None:
        return None
    counts = [n.text().strip() for n in header.css("span.xi1")]
    if len(counts) == 2 and all(c.isdecimal() for c in counts):
        return int(counts[1])
    m = _REPLIES.search(header.text())
    return int(m.group(1)) if m else None
