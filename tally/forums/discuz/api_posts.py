"""The posts of Discuz!'s mobile JSON (``tally.forums.discuz.api``) as tally's model.

A post is read strictly where a count rests on it: its id (``pid``), its floor (``position``,
which the database keeps across deletions; ``number`` is recounted per request and is not
the floor), its author's uid and name, its time (``dbdateline``, UNIX seconds in UTC; the
``dateline`` beside it is a display string in the reader's own zone and format) and its
message. The rest is read where it is given: the statuses tally already has (屏蔽, a banned
member, a hidden reply, [hide]), quotes (``div.reply_wrap``) cut out of the words, red font.

The mobile renderer strips the edit mark (本帖最后由 … 编辑) and ``[size]``: every post
read here says so in ``Post.unknown``, never a silent "not edited".

Their 点评 are read by ``tally.forums.discuz.api_comments``.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import tzinfo
from typing import Any

from tally.errors import ParseError
from tally.forums.base import missing_field
from tally.forums.htmltext import Node, font_flags, html_tree, node_text
from tally.i18n import tr
from tally.model import HIDE_CODE, UNKNOWN_EDIT, UNKNOWN_LARGE_FONT, Post, Quote
from tally.times import from_unix

HIDDEN_REPLY = "hidden_reply"  # judging.standing.HIDDEN_REPLY, which forums/ does not import
# What version 4 never says of a post.
_STRIPPED = frozenset({UNKNOWN_EDIT})
# A banned member's user groups (禁止发言, 禁止访问): the forum hides their posts.
_BANNED_GROUPS = frozenset({"4", "5"})
# The user groups that moderate a board as Discuz! X3 installs them, with the titles the
# HTML page shows beside their posts.
_MODERATORS = {
    "1": "管理员", "2": "超级版主", "3": "版主", "16": "实习版主", "17": "网站编辑",
    "18": "信息监察员", "19": "审核员",
}  # fmt: skip
# The forum's notice in place of a post's words: "提示: <em>该帖被管理员或版主屏蔽</em>",
# "提示: <em>作者被禁止或删除 内容自动屏蔽</em>" (a member cannot write <em> in a post).
_NOTICE = re.compile(r"^\s*提示[:：]\s*<em>(?P<said>[^<]*)</em>\s*$")
# A hidden reply (回帖仅作者可见) as the interface shows it to one who may not read it.
_HIDDEN_REPLY_TEXT = frozenset({"该帖仅作者可见", "此帖仅作者可见"})
_QUOTE_PID = re.compile(r"[?&;]pid=(\d+)")


def shown_value(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def ident(value: object, where: str, name: str, *, zero: bool = False) -> str:
    """An id or a number the answer gives as ASCII digits (a string, as PHP writes every
    scalar, or a JSON number): required; 0 only where ``zero`` allows it."""
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "":
        raise missing_field(where, name)
    text = str(value).strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 18 or (int(text) == 0 and not zero):
        raise ParseError(tr("{where}: its {name} {value} is not one.", where=where, name=name,
                            value=shown_value(value)))  # fmt: skip
    return str(int(text))


def text_of(value: str) -> str:
    """Text the forum keeps HTML-escaped (a subject) as a reader sees it."""
    return " ".join(html.unescape(value).split())


@dataclass(frozen=True)
class Reading:
    """What every post of one answer is read with."""

    source: str
    thread_id: str
    page: int
    tz: tzinfo
    hidden_replies: bool  # the thread's replies are shown to their authors only
    reader: str  # the uid of the cookies that read it ("0": a guest)
    sees_all: bool  # a moderator or the thread's author: shown every hidden reply


def read_post(raw: object, reading: Reading) -> Post:
    """One entry of ``Variables.postlist``, without its 点评."""
    if not isinstance(raw, dict):
        raise ParseError(tr("{source}: a post of the answer is {value}.", source=reading.source,
                            value=shown_value(raw)))  # fmt: skip
    pid = ident(raw.get("pid"), tr("{source}: a post", source=reading.source), tr("id (pid)"))
    where = tr("{source}, post {post}", source=reading.source, post=pid)
    if str(raw.get("tid", reading.thread_id)) != reading.thread_id:
        raise ParseError(tr("{where} is of thread {thread}.", where=where,
                            thread=shown_value(raw.get("tid"))))  # fmt: skip
    floor = int(ident(raw.get("position"), where, tr("floor (position)")))
    uid = ident(raw.get("authorid"), where, tr("author's uid (authorid)"), zero=True)
    stamp = ident(raw.get("dbdateline"), where, tr("time (dbdateline)"))
    time = from_unix(stamp, reading.tz, where)
    message = raw.get("message")
    if not isinstance(message, str):
        raise missing_field(where, tr("message"))
    author = _author(raw, where)
    status = int(ident(raw.get("status") or "0", where, tr("status"), zero=True))
    words = read_message(message)
    hidden, text = _hidden(raw, reading, uid, floor, status, message, words)
    groupid = str(raw.get("groupid") or "")
    return Post(
        platform="discuz",
        thread_id=reading.thread_id,
        post_id=pid,
        floor=floor,
        author=author,
        author_id=uid if uid != "0" else None,
        time=time,
        text=text,
        quotes=words.quotes,
        red_font=words.red,
        large_font=words.large,
        hidden=hidden,
        page=reading.page,
        moderator=_MODERATORS.get(groupid),
        unknown=_STRIPPED if words.large else _STRIPPED | {UNKNOWN_LARGE_FONT},
    )


def _author(raw: Mapping[str, Any], where: str) -> str:
    """The name shown: 匿名 for an anonymous post, whoever reads it (a moderator is also
    given the account's uid, as on the HTML page)."""
    if str(raw.get("anonymous") or "0") == "1":
        return "匿名"
    name = raw.get("author")
    if not isinstance(name, str) or not name.strip():
        raise missing_field(where, tr("author"))
    return html.unescape(name).strip()


def _hidden(
    raw: Mapping[str, Any],
    reading: Reading,
    uid: str,
    floor: int,
    status: int,
    message: str,
    words: Words,
) -> tuple[str | None, str]:
    """Why the forum hides the post (``Post.hidden``), and the words it shows of it: none
    where it shows its notice instead; the words where it shows them anyway (to a moderator),
    the post hidden still, so that a count is the same whoever's cookies read it."""
    notice = _NOTICE.match(message)
    said = notice.group("said") if notice else ""
    text = "" if notice else words.text
    if "作者被禁止或删除" in said or str(raw.get("groupid") or "") in _BANNED_GROUPS:
        return "author_banned", text
    if status & 1 or "被管理员或版主屏蔽" in said:
        return "moderated", text
    if reading.hidden_replies and floor != 1:
        if words.text in _HIDDEN_REPLY_TEXT and not reading.sees_all and uid != reading.reader:
            return HIDDEN_REPLY, ""
        # Its author reads it as any post; the thread's author and moderators are shown it.
        return (None if uid == reading.reader else HIDDEN_REPLY), text
    return words.hide, text


@dataclass(frozen=True)
class Words:
    """A message read: the poster's words, the quotes cut from them, their fonts, and the
    [hide] placeholder where the forum shows it."""

    text: str
    quotes: tuple[Quote, ...]
    red: bool
    large: bool
    hide: str | None


def read_message(message: str) -> Words:
    """The mobile renderer's HTML of a post: quotes (``div.reply_wrap``; a quote box typed
    by hand, ``div.quote``) cut out, then the text as a browser lays it out."""
    body = fragment(message)
    quotes = _take_quotes(body)
    hide = None
    for lock in body.css("div.locked"):
        said = node_text(lock)
        # [hide] to one who has not replied; [hide=N] to one with N credits or fewer.
        if "查看本帖隐藏内容" in said or "需要积分高于" in said:
            hide = HIDE_CODE
    red, large = font_flags(body)
    return Words(_words(node_text(body)), quotes, red, large, hide)


def _words(parsed: str) -> str:
    """A post's words as its page shows them: the interface escapes them twice (a reply
    typed A&B is A&amp;amp;B in its message, A&amp;B on the page), the parser undid one."""
    return html.unescape(parsed)


def fragment(markup: str) -> Node:
    tree = html_tree(f"<html><body>{markup}</body></html>")
    return tree.body


def _take_quotes(body: Node) -> tuple[Quote, ...]:
    blocks = body.css("div.reply_wrap, div.quote")
    ids = {int(b.mem_id) for b in blocks}
    quotes = []
    for block in blocks:
        parent = block.parent
        while parent is not None and int(parent.mem_id) not in ids:
            parent = parent.parent
        if parent is not None:
            continue  # inside another quote: part of its text
        post_id = author = None
        link = block.css_first("a[href*='findpost']")
        if link is not None:
            # The link is written escaped twice (&amp;amp;pid=…): the parser leaves one.
            m = _QUOTE_PID.search(link.attributes.get("href") or "")
            post_id = m.group(1) if m else None
            author = node_text(link).split(" 发表于", 1)[0].strip() or None
            link.decompose()
        quotes.append(Quote(text=_words(node_text(block)), post_id=post_id, author=author))
        block.decompose()
    return tuple(quotes)
