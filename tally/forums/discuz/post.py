"""One post of a Discuz! thread page: strict about its id, floor, author and time, tolerant
of the rest (quotes, the reply header, edit marks, 点评, fonts).

Each essential field is read from the first place that holds it, in this order: the board
profile's selectors, then what Discuz! itself relies on whatever the theme (the ids its
scripts use: ``postnum``, ``authorposton``, ``postmessage_``, ``userinfo``, ``favatar``),
then the markup of older templates, then the post's header text. Every reader says where it
found its value, so ``tally doctor`` can show it; a field found nowhere is an error, never a
guess. On default-template pages the first place answers and nothing else is looked at.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any

from tally.errors import ParseError
from tally.forums.base import field_value, missing_field
from tally.forums.boards import Board, selected
from tally.forums.htmltext import Node, font_flags, node_text, seen_text, tidy_text
from tally.forums.timeparse import parse_forum_time, read_forum_time
from tally.model import HIDE_CODE, Comment, Edit, Post, Quote

# Where a post node's id says its pid: div#post_N (X2 and later), table#pidN (Discuz! 6/7).
_NODE_ID = re.compile(r"^(?:post_|pid)(\d+)$")
# The ids Discuz!'s scripts give the parts of a post, each ending in the pid.
_INNER_ID = re.compile(r"^(?:postmessage_|authorposton|postnum|favatar|userinfo|pid)(\d+)$")
_PID = re.compile(r"[?&]pid=(\d+)")
_ID_DIGITS = re.compile(r"\d+$")
_OWN_ID_POST, _OWN_ID_PID = "the post's own id (post_{pid})", "the post's own id (pid{pid})"
# A link to a member's profile, as every version and its URL rewriting write it (and as
# wget -k rewrites "?" to "@" or "%3F"): home.php?mod=space&uid=N, space-uid-N.html,
# space.php?uid=N (Discuz! 6/7), space-username-NAME.html.
_PROFILE = re.compile(
    r"(?:home\.php(?:\?|%3F|@)mod=space|space\.php|space-(?:uid|username)-|/space/uid/)", re.I
)
_UID = re.compile(r"(?:[?&@]|%3[Ff]|%26)uid=(\d+)|space-uid-(\d+)|/space/uid/(\d+)")
# What UCenter's check_username refuses in a user name (white space, the ideographic space).
_NOT_IN_NAMES = re.compile(r"[\s\u3000%,*\"<>&]")
_FULL_TIME = re.compile(r"\d{4}-\d{1,2}-\d{1,2}\s+\d{1,2}:\d{2}")
# "发表于 2010-4-8 18:26" (Discuz! 6/7 and themes that print the time as bare text), and the
# exact time a recent post carries in a span's title.
_POSTED = re.compile(
    r"(?:发表于|發表於)\s*(?:<span[^>]*?title=\"(?P<title>[^\"]+)\"[^>]*>)?\s*(?P<shown>[^<]{6,40})"
)
# The edit mark Discuz! writes into the post in the board's language pack (its post_edit
# string: "本帖最后由 {editor} 于 {edittime} 编辑", "This post was last edited by {editor} at
# {edittime}", Big5's "本帖最後由 … 於 … 編輯"): the editor is the word before the one before
# the time, whatever the words are.
_EDIT_TIME = re.compile(r"\d{4}[-/年]\d{1,2}[-/月]\d{1,2}")
_EDIT_WORDS = re.compile(r"(?:本帖最后由|本帖最後由)\s*(?P<by>\S+?)\s*(?:于|於)\s*")
# A floor label is its number when it holds one: "12#", "<em>12</em><sup>#</sup>", "12楼"
# (Discuz! 6/7), "第12楼", "<em>13</em>#分享本帖地址" (a board's own words after the number),
# and "来自 12#": a reply stuck to the top of page 1 (置顶回复) names the floor it comes from.
_FLOOR_LABEL = re.compile(r"^(?:[顶頂]\s*)?(?:第|来自|來自)?\s*(\d+)(?!\d)")
# A 置顶回复's label ("<em class="replystick">顶</em> 来自 12#"). X3.5 numbers the floors of a
# thread by their position until a post in it is deleted, and after that by their place
# in the page's order (forum_viewthread.php: ++forum_numpost; the thread is then in
# forum_threaddisablepos): a stuck reply from page 1 is then numbered by the place it is
# shown in (来自 2#, the floors before its own each one too many), and one from a later page
# is shown without a number (来自 #), its floor standing on its own page.
_STUCK = re.compile(r"^[顶頂]\s*(?:来自|來自)\s*(\d*)")
# A 热门回复 (the thread's most supported replies, the site's threadhotreplies): X3.5 shows
# them again above the other replies of page 1, numbered -1 and labelled {lang recommend}
# ("推荐", Big5 "推薦") where the floor number stands, and leaves each out of its own place
# when that is on page 1 (the floor's number is skipped there).
_HOT = re.compile(r"^(?:推荐|推薦)$")
# What follows a floor's name ("沙发#", "沙发 楼"), not part of it.
_NAME_TAIL = re.compile(r"[\s#＃楼樓]+$")
# The site setting "postno" names the first floors; these are the defaults (and Big5's). A
# board that names them otherwise says so in its profile (floor_names).
_FLOOR_NAMES = {"楼主": 1, "沙发": 2, "板凳": 3, "地板": 4, "樓主": 1, "沙發": 2}
_HIDDEN = (
    ("作者被禁止或删除", "author_banned"),
    ("被管理员或版主屏蔽", "moderated"),
    # 回帖仅作者可见 (the thread's hiddenreplies): the reply is shown to its author, the
    # thread's author and moderators only.
    ("仅作者可见", "hidden_reply"),
)


@dataclass(frozen=True)
class Place:
    """The page a post node sits on (for ids found outside the node, and the floor of a
    theme that prints none), and the board profile that reads it: one for all its posts."""

    page: int
    tree: Any  # the page's tree
    board: Board
    tz: tzinfo  # the board's zone, else the game's
    source: str
    thread_id: str


def post_id(node: Node) -> tuple[str, str]:
    """The post's id and where it was found: the node's own id, else an inner part's."""
    ident = node.id or ""
    m = _NODE_ID.match(ident)
    if m:
        return m.group(1), _OWN_ID_POST if ident.startswith("post_") else _OWN_ID_PID
    for inner in node.css("[id]"):
        m = _INNER_ID.match(inner.id or "")
        if m:
            return m.group(1), f"#{_ID_DIGITS.sub('{pid}', inner.id)} inside the post"
    raise missing_field("a post on the page", "post id (no post_N, pidN or postmessage_N)")


def stuck_label(node: Node, pid: str) -> tuple[bool, bool]:
    """Whether the post is a reply stuck to the top of page 1 (置顶回复), and whether its
    label numbers it (X3.5 leaves out the number of one from a later page)."""
    anchor = node.css_first(f"#postnum{pid}")
    return _stuck(seen_text(anchor)) if anchor is not None else (False, False)


def hot_label(node: Node, pid: str) -> bool:
    """Whether the post is a 热门回复 shown at the top of page 1 (labelled 推荐, no floor)."""
    anchor = node.css_first(f"#postnum{pid}")
    return anchor is not None and _hot(seen_text(anchor))


def _stuck(label: str) -> tuple[bool, bool]:
    m = _STUCK.match(label)
    return (m is not None, bool(m and m.group(1)))


def _hot(label: str) -> bool:
    return _HOT.match(label.strip()) is not None


class PostFields:
    """The essential fields of one post node, each with where it was found."""

    def __init__(self, node: Node, place: Place, index: int):
        self.node = node
        self.place = place
        self.index = index  # its place on the page, from 0
        self.pid, self.pid_where = post_id(node)
        self.where = f"{place.source}, post {self.pid}"
        self.keys, self.exact = _key_nodes(node, self.pid)
        self.tz = place.tz
        self._seen: tuple[Node, str] | None = None  # the floor label and its text, read once

    def labelled(self) -> tuple[bool, bool, bool]:
        """``hot_label`` and ``stuck_label`` (a 热门回复; a 置顶回复, and whether numbered),
        from the label the walk found: the one ``floor`` reads."""
        pid = self.pid
        # The walk keys a node by its id as written; where an id matched another case of
        # the post's (lexbor's selectors in a page without a doctype), it is looked for
        # as those two do.
        anchor = self.keys.get(f"postnum{pid}") if self.exact else (
            self.node.css_first(f"#postnum{pid}")
        )  # fmt: skip
        if anchor is None:
            return False, False, False
        label = self._seen_text(anchor)
        return (_hot(label), *_stuck(label))

    def _seen_text(self, anchor: Node) -> str:
        if self._seen is None or self._seen[0] is not anchor:
            self._seen = (anchor, seen_text(anchor))
        return self._seen[1]

    # -- helpers ------------------------------------------------------------------------

    def _board(self, name: str) -> tuple[Node, str] | None:
        for selector in self.place.board.selectors_for(name):
            hit = selected(self.place.board, name, self.node, selector.replace("{pid}", self.pid))
            if hit is not None:
                return hit, f"{selector} (board {self.place.board.name})"
        return None

    def _outside_text(self, hit: Node) -> bool:
        """Whether ``hit`` is outside what the post's author wrote (body, quotes, 点评,
        signature): a name or a time there is the post's own, not one it mentions."""
        parent = hit
        while parent is not None and parent is not self.node:
            ident = parent.id or ""
            classes = (parent.attributes.get("class") or "").split()
            if ident.startswith(("postmessage_", "comment_")) or "sign" in classes:
                return False
            if "quote" in classes or "t_msgfont" in classes or "t_f" in classes:
                return False
            parent = parent.parent
        return True

    # -- the fields ---------------------------------------------------------------------

    def floor(self) -> tuple[int, str]:
        anchor = self.keys.get(f"postnum{self.pid}")
        if anchor is not None:
            return self._label(anchor, "#postnum{pid}")
        found = self._board("floor")
        if found is not None:
            return self._label(*found)
        label = self.node.css_first("div.pi strong a")
        if label is not None:
            return self._label(label, "div.pi strong a (older templates)")
        return self._by_place()

    def _label(self, anchor: Node, where: str) -> tuple[int, str]:
        """A floor label: its number when it holds one, else a name the board gives its
        first floors (its profile's floor_names, else Discuz!'s defaults); never a guess."""
        label = self._seen_text(anchor)
        m = _FLOOR_LABEL.match(label)
        if m:
            return int(m.group(1)), where
        if _HOT.match(label.strip()):
            raise ParseError(
                f"{self.where} is a 热门回复 shown at the top of page 1 without its floor number "
                f"({label!r}): its floor is the one its post id leaves among the others."
            )
        if _STUCK.match(label):
            raise ParseError(
                f"{self.where} is a reply stuck to the top of page 1 (置顶回复) shown without "
                f"its floor number ({label!r}): it stands on a later page, and is read there."
            )
        name = _NAME_TAIL.sub("", label)
        if not name and self._opens_thread(anchor):
            # A thread shown in reverse order once a post of it is deleted: X3.5 adds the
            # opening post to page 1 after numbering the page, and prints it no number
            # ("<em></em>#"); its link is the thread's own, not a floor's (findpost).
            return 1, f"{where} (the thread's opening post, shown without its number)"
        board = self.place.board
        names = board.floor_names or _FLOOR_NAMES
        if name in names:
            said = f", a name in board {board.name}'s floor_names" if board.floor_names else ""
            return names[name], f"{where}{said}"
        # Not by the post's place: a deleted floor before it would shift it unseen.
        raise ParseError(
            f"{self.where} has a floor label tally cannot number ({label!r}). If the board "
            "names its first floors (Discuz!'s postno setting), list the names in order in "
            "a board profile's floor_names (docs/boards.md)."
        )

    def _opens_thread(self, anchor: Node) -> bool:
        """Whether the label is the thread's opening post's: the first post of page 1,
        whose label links to the thread itself (every other floor's to goto=findpost)."""
        href = anchor.attributes.get("href") or ""
        return (
            self.place.page == 1
            and self.index == 0
            and "mod=viewthread" in href
            and "pid=" not in href
            and "findpost" not in href
        )

    def _by_place(self) -> tuple[int, str]:
        place = self.place
        if place.board.posts_per_page:
            per_page = place.board.posts_per_page
            floor = (place.page - 1) * per_page + self.index + 1
            said = f"{per_page} posts a page, board {place.board.name}"
            return floor, f"its place on page {place.page} ({said})"
        if place.page == 1 and self.index == 0:
            # The thread's opening post leads its first page whatever the theme prints.
            return 1, "the first post of page 1"
        board = place.board
        theme = f" ({board.about})" if board.about and board.origin == "built in" else ""
        raise ParseError(
            f"{self.where} has no floor number: the board's theme{theme} prints none. Give "
            "the board's posts_per_page in a board profile (docs/boards.md) and tally numbers "
            "floors by their place on the page."
        )

    def author(self) -> tuple[tuple[str, str | None], str]:
        name, uid, where = self._author_found()
        if uid is not None and _NOT_IN_NAMES.search(name):
            # UCenter refuses white space and these characters in user names: a name holding
            # them ("小鹿 当前离线") is text the damaged markup let into the author's place.
            raise ParseError(
                f"{self.where}: {name!r} is not a Discuz! user name; the page is damaged."
            )
        card = self.keys.get("card")
        if card is not None and seen_text(card) not in ("", name):
            raise ParseError(
                f"{self.where} names two authors ({name!r} and {seen_text(card)!r}); the "
                "page is damaged."
            )
        return (name, uid), where

    def _author_found(self) -> tuple[str, str | None, str]:
        link = self.keys.get("author")
        href = link.attributes.get("href") or "" if link is not None else ""
        if link is not None and ("home.php?mod=space" in href or _PROFILE.search(href)):
            return *_named_link(link, href), "a.xw1 (the poster's link)"
        found = self._board("author")
        if found is not None:
            hit, where = found
            if hit.tag == "a" and seen_text(hit):
                return *_named_link(hit), where
            name = node_text(hit).split("\n")[0].strip()
            if name:
                return name, None, where
        for selector, said in (
            (f"#favatar{self.pid} .authi a", "#favatar{pid} .authi a"),
            ("td.pls .authi a", "td.pls .authi a (older templates)"),
            (f"#userinfo{self.pid} strong a", "#userinfo{pid} (the user card)"),
            (f"a#userinfo{self.pid}", "a#userinfo{pid} (Discuz! 6/7)"),
        ):
            hit = self.node.css_first(selector)
            if hit is not None and seen_text(hit):
                return *_named_link(hit), said
        for hit in self.node.css("a[href]"):
            if (
                _PROFILE.search(hit.attributes.get("href") or "")
                and seen_text(hit)
                and self._outside_text(hit)
            ):
                return *_named_link(hit), "the first profile link in the post's header"
        beside = self._beside_time()
        if beside is not None:
            return *_named_link(beside), "the profile link beside #authorposton{pid}"
        # Anonymous posts and guests have a name but no profile link, and so has a member
        # deleted since (Discuz! 6/7: the name alone in td.postauthor cite, "该用户已被删除").
        plain = (
            self.node.css_first("td.pls div.pi")
            or self.node.css_first("td.pls .authi")
            or self.node.css_first("td.postauthor cite")
        )
        if plain is not None:
            name = node_text(plain).split("\n")[0].strip()
            if name:
                return (
                    name,
                    None,
                    "the name without a link (a guest, an anonymous post, a deleted member)",
                )
        raise missing_field(self.where, "author")

    def _beside_time(self) -> Node | None:
        """A theme that shows the opening post's author and time in the thread's header,
        outside the post: the profile link next to the time Discuz! ids for this post."""
        stamp = self.place.tree.css_first(f"#authorposton{self.pid}")
        parent = stamp.parent if stamp is not None else None
        for _ in range(3):
            if parent is None:
                break
            for hit in parent.css("a[href]"):
                if _PROFILE.search(hit.attributes.get("href") or "") and seen_text(hit):
                    return hit
            parent = parent.parent
        return None

    def time(self) -> tuple[tuple[datetime, bool], str]:
        """When it was posted, and whether the page shows that to the minute only (a board
        whose admin turned 人性化时间 off, Discuz! 6/7, most themes: no seconds printed)."""
        stamp = self.keys.get(f"authorposton{self.pid}")
        if stamp is not None:
            return self._stamp(stamp), "#authorposton{pid}"
        found = self._board("time")
        if found is not None:
            return self._stamp(found[0]), found[1]
        stamp = self.node.css_first("div.authi em")
        if stamp is not None:
            return self._stamp(stamp), "div.authi em (older templates)"
        stamp = self.place.tree.css_first(f"#authorposton{self.pid}")
        if stamp is not None:
            return self._stamp(stamp), "#authorposton{pid} (outside the post, in the header)"
        header = self.node.html or ""
        body = header.find(f'id="postmessage_{self.pid}"')
        m = _POSTED.search(header[: body if body >= 0 else len(header)])
        if m is not None:
            raw = m["title"] if m["title"] and not _FULL_TIME.search(m["shown"]) else m["shown"]
            return (
                read_forum_time(raw, self.tz, what=f"{self.where}: post time"),
                "the 发表于 text of the post's header",
            )
        raise missing_field(self.where, "post time")

    def _stamp(self, stamp: Node) -> tuple[datetime, bool]:
        shown = seen_text(stamp)
        # Most posts show the full time; only recent ones ("3 小时前") need the span's title.
        raw = shown if _FULL_TIME.search(shown) else (_exact_time(stamp) or shown)
        return read_forum_time(raw, self.tz, what=f"{self.where}: post time")

    def body(self) -> tuple[Node | None, str]:
        """The node of what the author wrote; None for a post the forum hides (``locked``)."""
        body = self.keys.get(f"postmessage_{self.pid}")
        if body is not None:
            return body, "#postmessage_{pid}"
        found = self._board("body")
        if found is not None:
            return found
        if self.node.css_first("div.locked") is not None:
            return None, "div.locked (the forum hides this post)"
        raise missing_field(self.where, "body")


READERS: dict[str, Callable[[PostFields], tuple[Any, str]]] = {
    "floor": PostFields.floor,
    "author": PostFields.author,
    "time": PostFields.time,
    "body": PostFields.body,
}


def read_post(node: Node, place: Place, index: int, *, floor: int | None = None) -> Post:
    """The post; ``floor`` for one the page shows without its number (a 热门回复, 0)."""
    return read_fields(PostFields(node, place, index), floor=floor)


def read_fields(fields: PostFields, *, floor: int | None = None) -> Post:
    """``read_post`` of the fields already found."""
    node, place = fields.node, fields.place
    pid, where = fields.pid, fields.where
    (author, author_id), _ = fields.author()
    (time, minutes), _ = fields.time()
    if floor is None:
        floor, _ = fields.floor()
    body, _ = fields.body()
    tz = fields.tz
    hidden = None
    text, edited, red, large = "", None, False, False
    reply_to: str | None = None
    quotes: tuple[Quote, ...] = ()
    if body is None:
        note = node_text(node.css_first("div.locked"))
        hidden = next((code for marker, code in _HIDDEN if marker in note), "hidden")
    else:
        # A moderator is shown the body of a 屏蔽ed post (and a hidden reply) with the same
        # notice above it ("…，只有管理员或有管理权限的成员可见"): the post is still hidden, so
        # that a count is the same whoever's cookies read it.
        locks = node.css("div.locked")
        # No notice in the post, none in its body either.
        hidden = _shown_anyway(node, body, locks) or (_hide_code(body) if locks else None)
        # The marks, quotes and [code] buttons taken out of the body, found in one walk: a
        # button inside what is taken out before it is out of the tree already.
        marks = {"i": [], "div": [], "strong": [], "em": []}  # type: dict[str, list[Node]]
        for hit in body.css(f"i, div.quote, strong, {_COPY_BUTTON}"):
            marks[hit.tag].append(hit)
        edited, bracketed = edit_mark(marks["i"], tz, where)
        reply_to = _take_reply_header(marks["strong"])
        quotes = _take_quotes(marks["div"])
        # A [code] block's 复制代码 button: the forum's words under the poster's (they showed
        # in the closing post's line of a ballot written in a code block).
        for button in marks["em"]:
            if button.parent is not None:  # taken out with what held it: out of the tree
                button.decompose()
        red, large = font_flags(body)
        text = node_text(body)
        # A reply's own 标题 stands above its message (the author's words too: a ballot
        # written there was no ballot, and its voter carded L3, on a real X3.5).
        subject = node.css_first("div.pcb > h2")
        words = node_text(subject).strip() if subject is not None else ""
        if words:
            text = tidy_text(f"{words}\n{text}")
        if bracketed:
            # Discuz! 6/7 writes its mark as "[<i> 本帖最后由 … 编辑 </i>]": its brackets go too.
            text = tidy_text(text.replace("[]", "", 1))
    shown, cut = _comments(fields.keys.get(f"comment_{pid}"), pid, tz, where)
    return Post(
        platform="discuz",
        thread_id=place.thread_id,
        post_id=pid,
        floor=floor,
        author=author,
        author_id=author_id,
        time=time,
        text=text,
        quotes=quotes,
        reply_to=reply_to,
        edited=edited,
        comments=shown,
        comments_cut=cut,
        red_font=red,
        large_font=large,
        hidden=hidden,
        page=place.page,
        moderator=_moderator(node),
        to_the_minute=minutes,
    )


# The user groups that moderate a board, as Discuz! X3 installs them (radminid > 0), by the
# id the author's column links to (home.php?mod=spacecp&ac=usergroup&gid=N).
_MODERATING = frozenset({"1", "2", "3", "16", "17", "18", "19"})
_GROUP = re.compile(r"ac=usergroup&(?:amp;)?gid=(\d+)")
# A [code] block's 复制代码 button.
_COPY_BUTTON = "div.blockcode > em[onclick*='copycode']"


def _moderator(node: Node) -> str | None:
    """The author's user group, when it moderates the board; None for any other or none
    shown (optional: a theme may not show it)."""
    for link in node.css("a[href*='ac=usergroup']"):
        m = _GROUP.search(link.attributes.get("href") or "")
        if m is not None:
            return (seen_text(link) or "版主") if m.group(1) in _MODERATING else None
    return None


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
        parent = lock.parent
        while parent is not None and parent is not node and parent is not body:
            parent = parent.parent
        if parent is body:
            continue  # inside what the author wrote: the author's words, not the forum's
        note = node_text(lock)
        code = next((code for marker, code in _HIDDEN if marker in note), None)
        if code is not None:
            return code
    return None


def _key_nodes(node: Node, pid: str) -> tuple[dict[str, Node], bool]:
    """The nodes a post is read from, found in one walk over it (the walk is the cost), and
    whether each of the post's ids found is keyed as the selectors matched it: False where
    a node's id is another case of one (lexbor matches ids so in a page without a doctype,
    where the key is the id as written)."""
    found: dict[str, Node] = {}
    ids = (f"postnum{pid}", f"authorposton{pid}", f"postmessage_{pid}", f"comment_{pid}")
    selector = f"#{', #'.join(ids)}, a.xw1, #userinfo{pid} strong a"
    exact = True
    for hit in node.css(selector):
        # The first a.xw1 is the poster's; later ones are 点评 authors. The user card
        # (#userinfo…) names the poster a second time.
        ident = hit.id
        key = ident or ("author" if "xw1" in (hit.attributes.get("class") or "") else "card")
        if ident and ident not in ids and ident.lower() in ids:
            exact = False
        found.setdefault(key, hit)
    return found, exact


def _named_link(link: Node, href: str | None = None) -> tuple[str, str | None]:
    m = _UID.search(href if href is not None else link.attributes.get("href") or "")
    return seen_text(link), (m.group(1) or m.group(2) or m.group(3)) if m else None


def _exact_time(node: Node) -> str | None:
    """Recent times read "3 小时前" and carry the exact time in a span's title."""
    span = node.css_first("span[title]")
    title = span.attributes.get("title") if span is not None else None
    return title if title and re.search(r"\d{4}-\d", title) else None


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
    raw = _exact_time(mark) or text[stamp.start() :]
    at = parse_forum_time(raw, tz, what=f"{where}: edit time")
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


# The 下一页 link under a floor's 点评 when it holds more than the page shows.
MORE_COMMENTS = "a[onclick*='commentmore'], a[href*='commentmore']"


def _comments(
    box: Node | None, pid: str, tz: tzinfo, where: str
) -> tuple[tuple[Comment, ...], bool]:
    """The 点评 the page shows under a post, and whether it shows only the newest of them:
    past the board's commentnumber (5 by default) the page links to the forum's commentmore
    script for the rest, and their ids are numbered again once all are read
    (``tally.forums.discuz.comments``)."""
    # Most posts have an empty 点评 box: no text in it means nothing to look for.
    if box is None or not box.text(deep=True).strip():
        return (), False
    cut = box.css_first(MORE_COMMENTS) is not None
    return numbered(comment_items(box.css("div.pstl"), tz, where), pid), cut


def comment_items(items: Sequence[Node], tz: tzinfo, where: str) -> list[CommentItem]:
    """Each 点评 of ``items`` (its ``div.pstl``), in the order shown (newest first): the
    thread page's and the commentmore answer's are the same markup but for a class."""
    found = []
    for item in items:
        if item.css_first("div.psta") is None and item.css_first("i.cmstarv") is not None:
            # The 点评观点 summary (each item's mean score as stars), which Discuz! writes as
            # the first div.pstl once anyone's 点评 carries scores: any member can send them,
            # whatever the board configured. No one wrote it.
            continue
        link = item.css_first("div.psta a.xi2") or item.css_first("div.psta a:last-child")
        if link is None or not link.text().strip():
            raise missing_field(f"{where}: a 点评", "author")
        name, uid = _named_link(link)
        body = field_value(item.css_first("div.psti"), f"{where}: a 点评", "text")
        stamp = field_value(body.css_first("span.xg1"), f"{where}: a 点评", "time")
        raw = _exact_time(stamp) or stamp.text()
        time, minutes = read_forum_time(raw, tz, what=f"{where}: 点评 time")
        stamp.decompose()
        red = font_flags(body)[0]
        found.append(CommentItem(name, uid, time, node_text(body), minutes, red))
    return found


@dataclass(frozen=True)
class CommentItem:
    author: str
    author_id: str | None
    time: datetime
    text: str
    to_the_minute: bool
    red_font: bool = False


def numbered(newest_first: Sequence[CommentItem], pid: str) -> tuple[Comment, ...]:
    """The forum lists 点评 newest first; they are numbered oldest first, so that ids stay
    put when more are added."""
    return tuple(
        Comment(
            comment_id=f"{pid}.{i}", author=c.author, author_id=c.author_id, time=c.time,
            text=c.text, to_the_minute=c.to_the_minute, red_font=c.red_font,
        )
        for i, c in enumerate(reversed(newest_first), start=1)
    )  # fmt: skip

