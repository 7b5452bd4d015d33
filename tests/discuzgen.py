"""Real-shaped Discuz! X3.5 thread pages for test games.

The markup is not written by hand: every post is a copy of a post block rendered by a
real Discuz! X3.5 (fixtures/discuz/vote-p1.html), with its ids, author, time and message
swapped, and the quote, 回复 header, 点评 and edit-mark markup copied from the same pages.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import Path

from tally.kept import Kept

SOURCE = Path(__file__).resolve().parent.parent / "fixtures" / "discuz" / "vote-p1.html"
_FLOOR_NAMES = {1: "楼主", 2: "沙发", 3: "板凳", 4: "地板"}
PER_PAGE = 10


@dataclass
class Comment:
    author: str
    time: str  # "2024-05-08 16:00" (点评 show minutes only; seconds for the interface's "N 秒前")
    text: str


@dataclass
class P:
    """One post of a generated thread."""

    author: str
    time: str  # "2024-05-08 10:01:00"
    text: str = ""
    quote: int | None = None  # the floor this post quotes (回复 with the quote button)
    reply: int | None = None  # the floor this post answers with the "回复 N#" header
    comments: list[Comment] = field(default_factory=list)
    edited: tuple[str, str] | None = None  # (by, "2024-05-09 22:00")
    red: bool = False
    html: str | None = None  # the message as the forum rendered it (a reply posted by tally)
    # The forum's post id, when it must outlive a delete of a floor before it (the floors
    # after a deleted one are numbered again, their ids stay); None: from the floor.
    post_id: int | None = None


def _load() -> tuple[str, str, str]:
    page = SOURCE.read_text(encoding="utf-8")
    start = page.index('<div id="post_952" >')
    block_start = page.index('<div id="post_957" >')
    block_end = page.index('<div id="post_958" >')
    tail_start = page.index('<div id="postlistreply"')
    head = page[:start]
    block = page[block_start:block_end]
    tail = page[tail_start:]
    block = re.sub(r"(?<!\d)957(?!\d)", "{PID}", block)
    block = re.sub(r"(uid=|showmsg_|touid=|authorid=)24(?!\d)", r"\g<1>{UID}", block)
    block = block.replace("长夜", "{AUTHOR}").replace("发表于 2023-3-14 12:30:00", "发表于 {TIME}")
    block = block.replace("<em>6</em><sup>#</sup>", "{FLOOR}")
    block = re.sub(
        r'(id="postmessage_\{PID\}">\n).*?(</td></tr></table>)', r"\1{MESSAGE}\2", block, flags=re.S
    )
    block = block.replace(
        '<div id="comment_{PID}" class="cm">\n</div>',
        '<div id="comment_{PID}" class="cm">\n{COMMENTS}</div>',
    )
    return head, block, tail


_HEAD, _BLOCK, _TAIL = _load()


def _text_html(text: str) -> str:
    return "<br />\n".join(html.escape(line, quote=False) for line in text.split("\n"))


def _pager(page: int, pages: int, tid: str) -> str:
    if pages == 1:
        return ""
    links = "".join(
        f"<strong>{n}</strong>" if n == page else f'<a href="thread-{tid}-{n}-1.html">{n}</a>'
        for n in range(1, pages + 1)
    )
    return (
        f'<div class="pg">{links}<label><input type="text" name="custompage" class="px" size="2" '
        f'title="输入页码，按回车快速跳转" value="{page}" /><span title="共 {pages} 页"> / {pages} 页</span>'
        "</label></div>"
    )


# The pages made last, by everything they are made from (``Thread.pages``).
_MADE: Kept[str, tuple[list[bytes], dict[str, int]]] = Kept(128)


class Thread:
    """A thread being built: ``Thread(tid, title, uids).add(P(...))…pages()``."""

    def __init__(self, tid: str, title: str, uids: dict[str, int], first_pid: int = 2000):
        self.tid, self.title, self.uids, self.first_pid = tid, title, uids, first_pid
        self.posts: list[P] = []

    def add(self, *posts: P) -> Thread:
        for post in posts:
            if post.post_id is None and any(p.post_id is not None for p in self.posts):
                # After a delete the ids are the forum's own: a new post gets the next one.
                post.post_id = max(p.post_id or 0 for p in self.posts) + 1
            self.posts.append(post)
        return self

    def pid(self, floor: int) -> int:
        given = self.posts[floor - 1].post_id if floor <= len(self.posts) else None
        return given if given is not None else self.first_pid + floor

    def delete(self, floor: int) -> Thread:
        """A moderator's delete: the floor goes, and every post keeps its id."""
        for n, post in enumerate(self.posts, start=1):
            post.post_id = self.pid(n)
        del self.posts[floor - 1]
        return self

    def uid(self, name: str) -> int:
        return self.uids.setdefault(name, 100 + len(self.uids))

    def _message(self, floor: int, post: P) -> str:
        parts = []
        if post.edited:
            parts.append(
                f'<i class="pstatus"> 本帖最后由 {post.edited[0]} 于 {post.edited[1]} 编辑 </i><br />\n<br />\n'
            )
        if post.quote:
            q = self.posts[post.quote - 1]
            short = q.time.rsplit(":", 1)[0] if q.time.count(":") == 2 else q.time
            short = re.sub(r"-0(\d)", r"-\1", short)
            parts.append(
                '<div class="quote"><blockquote><font size="2"><a href="http://127.0.0.1:8080/'
                f'forum.php?mod=redirect&amp;goto=findpost&amp;pid={self.pid(post.quote)}&amp;ptid={self.tid}" '
                f'target="_blank"><font color="#999999">{q.author} 发表于 {short}</font></a></font><br />\n'
                f"{_text_html(q.text)}</blockquote></div><br />\n"
            )
        if post.reply:
            r = self.posts[post.reply - 1]
            parts.append(
                f'<strong>回复 <a href="forum.php?mod=redirect&amp;goto=findpost&amp;pid={self.pid(post.reply)}'
                f'&amp;ptid={self.tid}" target="_blank"><font color="#999999">{post.reply}#</font></a> '
                f"<i>{r.author}</i> </strong><br />\n<br />\n"
            )
        body = post.html if post.html is not None else _text_html(post.text)
        parts.append(f'<font color="#FF0000">{body}</font>' if post.red else body)
        return "".join(parts)

    def _comments(self, post: P) -> str:
        if not post.comments:
            return ""
        out = ['<h3 class="psth xs1"><span class="icon_ring vm"></span>点评</h3>\n']
        for c in reversed(post.comments):  # the forum lists the newest first
            uid = self.uid(c.author)
            out.append(
                '<div class="pstl xs1 cl">\n<div class="psta vm">\n'
                f'<a href="home.php?mod=space&amp;uid={uid}" c="1"><img src="http://127.0.0.1:8080/uc_server/'
                f'avatar.php?uid={uid}&size=small" class="user_avatar"></a>\n'
                f'<a href="home.php?mod=space&amp;uid={uid}" class="xi2 xw1">{c.author}</a>\n</div>\n'
                f'<div class="psti">\n{html.escape(c.text, quote=False)}&nbsp;\n<span class="xg1">\n'
                f"发表于 {_to_the_minute(c.time)}</span>\n</div>\n</div>\n"
            )
        return "".join(out)

    def _post(self, floor: int, post: P) -> str:
        label = _FLOOR_NAMES.get(floor, f"<em>{floor}</em><sup>#</sup>")
        block = _BLOCK.replace("{PID}", str(self.pid(floor))).replace(
            "{UID}", str(self.uid(post.author))
        )
        block = block.replace("{AUTHOR}", post.author).replace("{TIME}", post.time)
        block = block.replace("{FLOOR}", label).replace("tid=23", f"tid={self.tid}")
        block = block.replace("{COMMENTS}", self._comments(post))
        return block.replace("{MESSAGE}", self._message(floor, post))

    def pages(self) -> list[bytes]:
        """The thread's pages. Made once for each state of it: a test game's threads are
        served again unchanged by each command a test runs, and each test that plays the same
        game builds the same threads (643 of the quick loop's 903 makings, 0.5 s of a core)."""
        key = repr((type(self), PER_PAGE, self.tid, self.title, list(self.uids.items()),
                    self.first_pid, self.posts))  # fmt: skip
        made = _MADE.get(key)
        if made is None:
            made = (self._make(), dict(self.uids))
            _MADE.put(key, made)
        pages, uids = made
        self.uids.update(uids)  # the ids the pages gave the names first seen in them
        return list(pages)

    def _make(self) -> list[bytes]:
        count = max(1, -(-len(self.posts) // PER_PAGE))
        out = []
        for page in range(1, count + 1):
            first = (page - 1) * PER_PAGE
            posts = "".join(
                self._post(first + i + 1, p)
                for i, p in enumerate(self.posts[first : first + PER_PAGE])
            )
            text = _HEAD + posts + _TAIL
            text = re.sub(
                r'<div class="pg">.*?</div>', _pager(page, count, self.tid), text, flags=re.S
            )
            text = text.replace("[D01] 月下古堡 第二天投票帖", html.escape(self.title))
            # The header's reply count, as this forum counts it: replies and 点评.
            replies = len(self.posts) - 1 + sum(len(p.comments) for p in self.posts)
            text = text.replace(
                '回复:</span> <span class="xi1">17</span>',
                f'回复:</span> <span class="xi1">{replies}</span>',
            )
            text = re.sub(r"(tid=|thread-|tid = parseInt\(')23(?!\d)", rf"\g<1>{self.tid}", text)
            out.append(text.encode("utf-8"))
        return out

    def serve(self, forum) -> str:  # type: ignore[no-untyped-def]
        for number, body in enumerate(self.pages(), start=1):
            forum.add_discuz_page(self.tid, number, body)
        return forum.url(f"forum.php?mod=viewthread&tid={self.tid}")


def discuz_render(bbcode: str) -> str:
    """The BBCode of a post as Discuz! X3.5 renders it, for the tags tally uses and a few
    players try; checked against real pages in test_announcing's
    test_renderer_matches_real_discuz."""
    html = bbcode.replace("\n", "<br />\n")
    # discuzcode() takes these by str_replace, matched or not (seen on a real X3.5: "[[i][/i]b]"
    # shows as "[<i></i>b]").
    html = html.replace("[i]", "<i>").replace("[/i]", "</i>")
    rules = [
        (r"\[b\](.*?)\[/b\]", r"<strong>\1</strong>"),
        (r"\[color=([#\w]+?)\](.*?)\[/color\]", r'<font color="\1">\2</font>'),
        (r"\[size=(\d+)\](.*?)\[/size\]", r'<font size="\1">\2</font>'),
        (r"\[url=([^\]\s]+?)\](.*?)\[/url\]", r'<a href="\1" target="_blank">\2</a>'),
        (r"\[img\](.*?)\[/img\]", r'<img src="\1" />'),
    ]
    for _ in range(3):  # nested tags
        for pattern, repl in rules:
            html = re.sub(pattern, repl, html, flags=re.I | re.S)
    return html


def _to_the_minute(stamp: str) -> str:
    """A time as a page prints a 点评's: to the minute."""
    return stamp.rsplit(":", 1)[0] if stamp.count(":") == 2 else stamp
