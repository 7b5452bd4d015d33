"""A Discuz! post's body: the poster's words, without what the forum writes into it (its
edit mark, the reply button's header, quotes, a [code] block's button), their fonts, and
why the forum hides the post (屏蔽, a banned author, a hidden reply, [hide]) where it shows
a notice instead of the body or beside it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import tzinfo

from tally.forums.discuz.shown import exact_time
from tally.forums.htmltext import Node, font_flags, id_of, node_text, seen_text, tidy_text
from tally.forums.timeparse import parse_forum_time
from tally.i18n import tr
from tally.model import HIDE_CODE, Edit, Quote

_PID = re.compile(r"[?&]pid=(\d+)")
# The edit mark Discuz! writes into the post in the board's language pack (its post_edit
# string: "本帖最后由 {editor} 于 {edittime} 编辑", "This post was last edited by {editor} at
# {edittime}", Big5's "本帖最後由 … 於 … 編輯"): the editor is the word before the one before
# the time, whatever the words are.
_EDIT_TIME = re.compile(r"\d{4}[-/年]\d{1,2}[-/月]\d{1,2}")
_EDIT_WORDS = re.compile(r"(?:本帖最后由|本帖最後由)\s*(?P<by>\S+?)\s*(?:于|於)\s*")
_HIDDEN = (
    ("作者被禁止或删除", "author_banned"),
    ("被管理员或版主屏蔽", "moderated"),
    # 回帖仅作者可见 (the thread's hiddenreplies): the reply is shown to its author, the
    # thread's author and moderators only.
    ("仅作者可见", "hidden_reply"),
)
# A [code] block's 复制代码 button.
_COPY_BUTTON = "div.blockcode > em[onclick*='copycode']"
# What the marks' walk looks for, by the start tags lexbor writes out (names in lower
# case): <i>, <strong>, a [code] button; div.quote by its class, in any case.
_MARKS = re.compile(r"<(?:i|strong)[\s/>]|copycode")
# A reply's own 标题.
_TITLE = "div.pcb > h2"


@dataclass(frozen=True)
class Body:
    """What a post's body gives its ``Post``."""

    text: str = ""
    hidden: str | None = None  # why the forum hides the post (``Post.hidden``)
    edited: Edit | None = None
    reply_to: str | None = None
    quotes: tuple[Quote, ...] = ()
    red_font: bool = False
    large_font: bool = False


def read_body(node: Node, body: Node | None, tz: tzinfo, where: str) -> Body:
    """The body of the post ``node``; ``body`` None for a post the forum hides (its notice,
    div.locked, stands in its place)."""
    if body is None:
        note = node_text(node.css_first("div.locked"))
        return Body(hidden=next((code for marker, code in _HIDDEN if marker in note), "hidden"))
    # A moderator is shown the body of a 屏蔽ed post (and a hidden reply) with the same
    # notice above it ("…，只有管理员或有管理权限的成员可见"): the post is still hidden, so
    # that a count is the same whoever's cookies read it.
    # The notices and the reply's own 标题, found in one walk over the post (told apart by
    # their tags).
    locks: list[Node] = []
    titles: list[Node] = []
    for hit in node.css(f"div.locked, {_TITLE}"):
        (titles if hit.tag == "h2" else locks).append(hit)
    # No notice in the post, none in its body either.
    hidden = _shown_anyway(node, body, locks) or (_hide_code(body) if locks else None)
    # The marks, quotes and [code] buttons taken out of the body, found in one walk: a
    # button inside what is taken out before it is out of the tree already. The body's
    # markup, written out once, says whether there is any to look for (most bodies hold
    # none), and while nothing is taken out it is the body's for its fonts and text too.
    markup: str | None = body.html
    marks = {"i": [], "div": [], "strong": [], "em": []}  # type: dict[str, list[Node]]
    if markup is None or _MARKS.search(markup) or "quote" in markup.lower():
        for hit in body.css(f"i, div.quote, strong, {_COPY_BUTTON}"):
            marks[hit.tag].append(hit)
        markup = None  # they are taken out below
    edited, bracketed = edit_mark(marks["i"], tz, where)
    reply_to = _take_reply_header(marks["strong"])
    quotes = _take_quotes(marks["div"])
    # A [code] block's 复制代码 button: the forum's words under the poster's (they showed
    # in the closing post's line of a ballot written in a code block).
    for button in marks["em"]:
        if button.parent is not None:  # taken out with what held it: out of the tree
            button.decompose()
    red, large = font_flags(body, markup)
    text = node_text(body, markup)
    # A reply's own 标题 stands above its message (the author's words too: a ballot
    # written there was no ballot, and its voter carded L3, on a real X3.5). The first
    # found outside the body is the first still: only what was in the body was taken out.
    title = titles[0] if titles else None
    if title is not None and _within(title, body, node):
        title = node.css_first(_TITLE)
    words = node_text(title).strip() if title is not None else ""
    if words:
        text = tidy_text(f"{words}\n{text}")
    if bracketed:
        # Discuz! 6/7 writes its mark as "[<i> 本帖最后由 … 编辑 </i>]": its brackets go too.
        text = tidy_text(text.replace("[]", "", 1))
    return Body(text, hidden, edited, reply_to, quotes, red, large)


def _within(hit: Node, body: Node, node: Node) -> bool:
    """Whether ``hit``, inside the post ``node``, is inside its ``body``."""
    # By identity in the tree: selectolax's == compares two nodes' serialized HTML (two
    # serializations of a subtree at each step, and equal for two nodes that read alike).
    top, own = id_of(node), id_of(body)
    parent: Node | None = hit
    while parent is not None and id_of(parent) != top:
        if id_of(parent) == own:
            return True
        parent = parent.parent
    return False


# The [hide] BBCode (回复可见): to a reader who has not replied in the thread, the forum
# shows "游客，如果您要查看本帖隐藏内容请回复" in the post's own body instead of what is inside.
def _hide_code(body: Node) -> str | None:
    for lock in body.css("div.locked"):
        said = node_text(lock)
        # [hide] to one who has not replied; [hide=N] to one with N credits or fewer
        # (discuzcode.htm: "本帖隐藏的内容需要积分高于 N 才可浏览").
        if "查看本帖隐藏内容" in said or "需要积分高于" in said:
            return HIDE_CODE
    return None


def _shown_anyway(node: Node, body: Node, locks: list[Node]) -> str | None:
    """Why the forum hides a post whose body it still shows (to a moderator), from the
    notices (div.locked: ``locks``, the post's) beside the body; None for a post shown to
    all."""
    for lock in locks:
        if _within(lock, body, node):
            continue  # inside what the author wrote: the author's words, not the forum's
        note = node_text(lock)
        code = next((code for marker, code in _HIDDEN if marker in note), None)
        if code is not None:
            return code
    return None


def edit_mark(found: list[Node], tz: tzinfo, where: str) -> tuple[Edit | None, bool]:
    """Discuz!'s own edit mark, ``<i class="pstatus">`` (what [i=s] renders), in any
    language pack: its time read, its words left out of the post's text; else, by its
    Chinese words, Discuz! 6/7's plain ``<i>`` (and whether it stood in brackets)."""
    own = [i for i in found if "pstatus" in (i.attributes.get("class") or "").split()]
    legacy = not own
    if legacy:
        own = [i for i in found if _EDIT_WORDS.match(seen_text(i))]
    if not own:
        return None, False
    mark = own[0]
    text = seen_text(mark)
    stamp = _EDIT_TIME.search(text)
    if stamp is None:
        return None, False
    raw = exact_time(mark) or text[stamp.start() :]
    at = parse_forum_time(raw, tz, what=tr("{where}: edit time", where=where))
    mark.decompose()
    return Edit(by=_editor(text[: stamp.start()]), at=at), legacy


def _editor(before: str) -> str:
    m = _EDIT_WORDS.search(before)
    if m:
        return m.group("by")
    words = before.split()
    # "… edited by NAME at": a user name holds no white space, and one word stands
    # between it and the time.
    return words[-2] if len(words) >= 2 else (words[-1] if words else "")


def _inside_quote(node: Node) -> bool:
    parent = node.parent
    while parent is not None and parent.tag != "td":
        if parent.tag == "div" and "quote" in (parent.attributes.get("class") or "").split():
            return True
        parent = parent.parent
    return False


def _take_reply_header(found: list[Node]) -> str | None:
    """The "回复 2# 月影" header the forum's reply button writes: a link, not the poster's words."""
    for strong in found:
        if _inside_quote(strong):
            continue  # a header inside a quote belongs to the quoted post
        link = strong.css_first("a[href*='findpost']")
        if link is not None and strong.text().strip().startswith("回复"):
            m = _PID.search(link.attributes.get("href") or "")
            strong.decompose()
            return m.group(1) if m else None
    return None


def _take_quotes(found: list[Node]) -> tuple[Quote, ...]:
    """Remove quoted blocks from the body and return them: they are not the poster's words."""
    quotes = []
    for block in found:
        post_id = author = None
        link = block.css_first("a[href*='findpost']")
        if link is not None:
            m = _PID.search(link.attributes.get("href") or "")
            post_id = m.group(1) if m else None
            header = node_text(link)
            author = header.split(" 发表于", 1)[0].strip() or None
            link_parent = link.parent
            # The header line ("青山 发表于 …") sits in a <font size=2> wrapper.
            (
                link_parent if link_parent is not None and link_parent.tag == "font" else link
            ).decompose()
        quotes.append(Quote(text=node_text(block), post_id=post_id, author=author))
        block.decompose()
    return tuple(quotes)
