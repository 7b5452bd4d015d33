"""Discuz! as a platform: its URLs, the requests that answer a thread's pages, its pages
read (``tally.forums.discuz.pages``) with every 点评 (``comments``), and its reply form: its
mobile interface's where the board serves it (``mobile_reply``), else the page's (``reply``)."""

from __future__ import annotations

from dataclasses import replace
from datetime import tzinfo
from urllib.parse import parse_qs, urljoin, urlsplit

from tally.forums.asking import Getter, Request
from tally.forums.base import Platform, url_id, url_page
from tally.forums.boards import Boards
from tally.forums.discuz.comments import answer_cut, with_every_comment
from tally.forums.discuz.interface import DiscuzApi
from tally.forums.discuz.mobile_reply import interface_form as mobile_form
from tally.forums.discuz.mobile_reply import send as send_mobile
from tally.forums.discuz.pages import ARCHIVER, REWRITE, DiscuzPages, site_root
from tally.forums.discuz.reply import reply_form as form_on_page
from tally.forums.discuz.reply import send
from tally.forums.replies import INTERFACE, Accepted, Ask, ReplyForm, Submit, Unserved
from tally.i18n import tr
from tally.model import Page, ThreadRef
from tally.vocabulary import Markup


class Discuz(Platform):
    name = "discuz"
    title = "Discuz!"
    markup = Markup.BBCODE
    pages = DiscuzPages()
    comment_word = "点评"
    comment_minutes = True
    mentions = True  # Discuz! X: "@name " notifies the user (its @ feature)
    # Its JSON for mobile clients, the first way a live board is read (its pages the fallback).
    api = DiscuzApi()
    no_posting = ""  # its fast-reply form, as the logged-in director (tally.forums.discuz.reply)
    example_urls = (
        "https://bbs.example.com/forum.php?mod=viewthread&tid=101",
        "https://bbs.example.com/forum.php?mod=viewthread&tid=101&extra=page%3D1&page=3",
        "http://www.example.com/bbs/forum.php?mod=viewthread&tid=101&authorid=7",
        "https://bbs.example.com/thread-101-2-1.html",
        "https://bbs.example.com/archiver/tid-101.html",
        "http://www.example.com/forum/viewthread.php?tid=101",
        "http://www.example.com/forum/viewthread.php?tid=101&extra=page%3D1&page=2",
        "https://bbs.example.com/forum.php?mod=redirect&goto=findpost&ptid=101&pid=2024",
        "http://www.example.com/forum/redirect.php?tid=101&goto=lastpost",
    )

    def match_url(self, url: str) -> ThreadRef | None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return None
        query = parse_qs(parts.query)
        legacy = parts.path.endswith("/viewthread.php")
        if (parts.path.endswith("forum.php") and query.get("mod") == ["viewthread"]) or legacy:
            tid = query.get("tid", [""])[0]
            if not url_id(tid):
                return None
            page = query.get("page", ["1"])[0]
            return ThreadRef(
                self.name,
                tid,
                site_root(url),
                url_page(page, url),
                script="viewthread.php" if legacy else "",
            )
        old_redirect = parts.path.endswith("/redirect.php")
        if (parts.path.endswith("forum.php") and query.get("mod") == ["redirect"]) or old_redirect:
            # A floor's link (goto=findpost&ptid=N&pid=M, what tally writes in its posts
            # too) or the newest post's (tid=N&goto=lastpost): the thread they are in.
            tid = (query.get("ptid") or query.get("tid") or [""])[0]
            if not url_id(tid):
                return None
            script = "viewthread.php" if old_redirect else ""
            return ThreadRef(self.name, tid, site_root(url), 1, script=script)
        m = REWRITE.search(parts.path)
        if m:
            return ThreadRef(self.name, m.group(1), site_root(url), url_page(m.group(2), url))
        m = ARCHIVER.search(parts.path)
        if m:
            root = urljoin(url, "../")
            return ThreadRef(self.name, m.group(1), root, 1)
        return None

    def read_page(
        self, ref: ThreadRef, number: int, get: Getter, tz: tzinfo, boards: Boards | None = None
    ) -> Page:
        """The page, with every 点评 of a floor that shows only its newest
        (``tally.forums.discuz.comments``)."""
        page = super().read_page(ref, number, get, tz, boards)
        if not any(p.comments_cut for p in page.posts):
            return page
        # The rest of a floor's 点评 are printed at the offset the page's own times are.
        clock = page.clock or tz
        posts = tuple(
            with_every_comment(p, ref, get, clock, boards) if p.comments_cut else p
            for p in page.posts
        )
        return replace(page, posts=posts)

    def truncated(self, request: Request, body: bytes) -> bool:
        cut = answer_cut(request, body)
        return super().truncated(request, body) if cut is None else cut

    def page_url(self, ref: ThreadRef, page: int) -> str:
        # Always the plain viewthread URL: it works with and without URL rewriting,
        # and drops filters a pasted URL may carry (authorid=, ordertype=).
        if ref.script == "viewthread.php":
            return f"{ref.base}viewthread.php?tid={ref.thread_id}&page={page}"
        return f"{ref.base}forum.php?mod=viewthread&tid={ref.thread_id}&page={page}"

    def post_url(self, ref: ThreadRef, post_id: str) -> str:
        if ref.script == "viewthread.php":
            return f"{ref.base}redirect.php?goto=findpost&ptid={ref.thread_id}&pid={post_id}"
        return f"{ref.base}forum.php?mod=redirect&goto=findpost&ptid={ref.thread_id}&pid={post_id}"

    def author_url(self, ref: ThreadRef, author: str, author_id: str | None) -> str | None:
        # The forum's own "只看该作者" view of the thread.
        if not author_id:
            return None
        if ref.script == "viewthread.php":
            return f"{ref.base}viewthread.php?tid={ref.thread_id}&authorid={author_id}"
        return f"{ref.base}forum.php?mod=viewthread&tid={ref.thread_id}&authorid={author_id}"

    def author_id_url(self, ref: ThreadRef, author_id: str) -> str | None:
        return self.author_url(ref, "", author_id)  # the 只看该作者 view needs the uid alone

    def desktop_url(self, url: str, ref: ThreadRef) -> tuple[str, str] | None:
        # The URL a phone shows (mobile=2 on X3, mobile=yes or 1 on X2): the forum answers
        # it with its touch template, another page than the one tally reads.
        if not parse_qs(urlsplit(url).query).get("mobile"):
            return None
        desktop = self.page_url(ref, ref.page)
        return desktop, tr(
            "the touch template's URL (mobile=…): tally reads the desktop page {url} instead, "
            "as every command does; give that URL", url=desktop)  # fmt: skip

    def reply_form(self, text: str, page_url: str, charset: str) -> ReplyForm | None:
        return form_on_page(text, page_url, charset)

    def interface_form(self, ref: ThreadRef, ask: Ask) -> ReplyForm | Unserved | None:
        if ref.script == "viewthread.php":
            return None  # Discuz! 6 and 7 (viewthread.php) came before the mobile interface
        return mobile_form(ref, ask)

    def send_reply(self, form: ReplyForm, text: str, ref: ThreadRef, submit: Submit) -> Accepted:
        if form.via == INTERFACE:
            return send_mobile(form, text, submit, lambda pid: self.post_url(ref, pid))
        return send(form, text, ref.base, submit)
