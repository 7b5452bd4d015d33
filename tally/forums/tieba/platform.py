"""Tieba as a platform: its URLs (tieba.baidu.com, m., share links, a test forum's own
host), its one board, its saved pages (``tally.forums.tieba.saved``) and its client API,
through which every live thread is read (``tally.forums.tieba.api``)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, quote, urlsplit

from tally.forums.base import Platform, url_page
from tally.forums.tieba.api import TIEBA_ORIGIN, TiebaApi, baidu
from tally.forums.tieba.saved import SavedPages
from tally.i18n import N_
from tally.model import ThreadRef
from tally.vocabulary import Markup

_THREAD_PATH = re.compile(r"^/p/([0-9]{1,18})/?$")


class Tieba(Platform):
    name = "tieba"
    title = "Tieba"
    markup = Markup.TEXT  # Tieba renders no markup in posts
    no_posting = N_(
        "tally does not post to Tieba: its client API needs your BDUSS login and Baidu's risk "
        "control blocks accounts that post by program; paste the text above by hand."
    )
    # Saved desktop pages (before 2026); live threads come from the client API.
    pages = SavedPages()
    api = TiebaApi()
    example_urls = (
        "https://tieba.baidu.com/p/8800123456",
        "https://tieba.baidu.com/p/8800123456?pn=3",
        "http://m.tieba.baidu.com/p/8800123456?see_lz=1",
        "https://jump2.bdimg.com/p/8800123456",
        "http://127.0.0.1:8095/p/8800000002",
    )

    # -- URLs ------------------------------------------------------------------------------

    def match_url(self, url: str) -> ThreadRef | None:
        parts = urlsplit(url)
        m = _THREAD_PATH.match(parts.path)
        if parts.scheme not in ("http", "https") or not parts.netloc or m is None:
            return None
        host, scheme = parts.netloc, parts.scheme
        if baidu(host):
            # m.tieba, http:// and share links are the same thread: links point at the site.
            host, scheme = "tieba.baidu.com", "https"
        pn = parse_qs(parts.query).get("pn", ["1"])[0]
        return ThreadRef(self.name, m.group(1), f"{scheme}://{host}/", url_page(pn, url))

    def page_url(self, ref: ThreadRef, page: int) -> str:
        # Without see_lz: tally reads every floor, not only the thread owner's.
        return f"{ref.base}p/{ref.thread_id}?pn={page}"

    def thread_url(self, thread_id: str) -> str:
        return f"https://tieba.baidu.com/p/{thread_id}"

    def post_url(self, ref: ThreadRef, post_id: str) -> str:
        return f"{ref.base}p/{ref.thread_id}?pid={post_id}#{post_id}"

    def author_url(self, ref: ThreadRef, author: str, author_id: str | None) -> str | None:
        # Tieba has no per-thread author view that outlives a session: the player's home page.
        return f"{ref.base}home/main?un={quote(author)}"

    def origin(self, ref: ThreadRef) -> str:
        return TIEBA_ORIGIN
