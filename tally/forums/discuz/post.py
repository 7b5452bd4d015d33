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
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import Any

from tally.errors import ParseError
from tally.forums.base import missing_field
from tally.forums.boards import Board, selected
from tally.forums.discuz.body import read_body
from tally.forums.discuz.comment_items import page_comments
from tally.forums.discuz.shown import PROFILE, exact_time, named_link
from tally.forums.htmltext import Node, id_of, node_text, seen_text
from tally.forums.timeparse import read_forum_time
from tally.i18n import N_, tr
from tally.model import Post

# Where a post node's id says its pid: div#post_N (X2 and later), table#pidN (Discuz! 6/7).
_NODE_ID = re.compile(r"^(?:post_|pid)(\d+)$")
# The ids Discuz!'s scripts give the parts of a post, each ending in the pid.
_INNER_ID = re.compile(r"^(?:postmessage_|authorposton|postnum|favatar|userinfo|pid)(\d+)$")
_ID_DIGITS = re.compile(r"\d+$")
# Where each field was found is said by tally doctor, which translates it (tally.forums.
# discuz.fields): marked here, at no cost to a parse.
_OWN_ID_POST = N_("the post's own id (post_{pid})")
_OWN_ID_PID = N_("the post's own id (pid{pid})")
# What UCenter's check_username refuses in a user name (white space, the ideographic space).
_NOT_IN_NAMES = re.compile(r"[\s\u3000%,*\"<>&]")
_FULL_TIME = re.compile(r"\d{4}-\d{1,2}-\d{1,2}\s+\d{1,2}:\d{2}")
# "发表于 2010-4-8 18:26" (Discuz! 6/7 and themes that print the time as bare text), and the
# exact time a recent post carries in a span's title.
_POSTED = re.compile(
    r"(?:发表于|發表於)\s*(?:<span[^>]*?title=\"(?P<title>[^\"]+)\"[^>]*>)?\s*(?P<shown>[^<]{6,40})"
)
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
    # What names a post of the page and its time, in the run's language: translated once a
    # page and filled for each post (as cheap as the f-strings they were).
    post_where: str = field(default_factory=lambda: tr("{source}, post {post}"), compare=False)
    post_time: str = field(default_factory=lambda: tr("{where}: post time"), compare=False)


def post_id(node: Node) -> tuple[str, str]:
    """The post's id and where it was found: the node's own id, else an inner part's."""
    ident = node.id or ""
    m = _NODE_ID.match(ident)
    if m:
        return m.group(1), _OWN_ID_POST if ident.startswith("post_") else _OWN_ID_PID
    for inner in node.css("[id]"):
        m = _INNER_ID.match(inner.id or "")
        if m:
            selector = f"#{_ID_DIGITS.sub('{pid}', inner.id)}"
            return m.group(1), tr("{selector} inside the post", selector=selector)
    raise missing_field(tr("a post on the page"), tr("post id (no post_N, pidN or postmessage_N)"))


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
        self.where = place.post_where.format(source=place.source, post=self.pid)
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
                return hit, tr("{selector} (board {board})", selector=selector,
                               board=self.place.board.name)
        return None

    def _outside_text(self, hit: Node) -> bool:
        """Whether ``hit`` is outside what the post's author wrote (body, quotes, 点评,
        signature): a name or a time there is the post's own, not one it mentions."""
        # Up to the post's own node (by its identity in the tree: ``is`` compares
        # selectolax's wrappers, a new one for each access), not past it.
        top = id_of(self.node)
        parent = hit
        while parent is not None and id_of(parent) != top:
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
            return self._label(label, tr("div.pi strong a (older templates)"))
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
                tr("{where} is a 热门回复 shown at the top of page 1 without its floor number "
                   "({label}): its floor is the one its post id leaves among the others.",
                   where=self.where, label=repr(label))
            )
        if _STUCK.match(label):
            raise ParseError(
                tr("{where} is a reply stuck to the top of page 1 (置顶回复) shown without its "
                   "floor number ({label}): it stands on a later page, and is read there.",
                   where=self.where, label=repr(label))
            )
        name = _NAME_TAIL.sub("", label)
        if not name and self._opens_thread(anchor):
            # A thread shown in reverse order once a post of it is deleted: X3.5 adds the
            # opening post to page 1 after numbering the page, and prints it no number
            # ("<em></em>#"); its link is the thread's own, not a floor's (findpost).
            return 1, tr("{where} (the thread's opening post, shown without its number)",
                         where=where)
        board = self.place.board
        names = board.floor_names or _FLOOR_NAMES
        if name in names:
            if board.floor_names:
                return names[name], tr("{where}, a name in board {board}'s floor_names",
                                       where=where, board=board.name)
            return names[name], where
        # Not by the post's place: a deleted floor before it would shift it unseen.
        raise ParseError(
            tr("{where} has a floor label tally cannot number ({label}). If the board names its "
               "first floors (Discuz!'s postno setting), list the names in order in a board "
               "profile's floor_names (docs/boards.md).", where=self.where, label=repr(label))
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
            return floor, tr("its place on page {page} ({n} posts a page, board {board})",
                             page=place.page, n=per_page, board=place.board.name)
        if place.page == 1 and self.index == 0:
            # The thread's opening post leads its first page whatever the theme prints.
            return 1, tr("the first post of page 1")
        board = place.board
        if board.about and board.origin == "built in":
            raise ParseError(
                tr("{where} has no floor number: the board's theme ({theme}) prints none. Give "
                   "the board's posts_per_page in a board profile (docs/boards.md) and tally "
                   "numbers floors by their place on the page.", where=self.where,
                   theme=board.about)
            )
        raise ParseError(
            tr("{where} has no floor number: the board's theme prints none. Give the board's "
               "posts_per_page in a board profile (docs/boards.md) and tally numbers floors by "
               "their place on the page.", where=self.where)
        )

    def author(self) -> tuple[tuple[str, str | None], str]:
        name, uid, where = self._author_found()
        if uid is not None and _NOT_IN_NAMES.search(name):
            # UCenter refuses white space and these characters in user names: a name holding
            # them ("小鹿 当前离线") is text the damaged markup let into the author's place.
            raise ParseError(
                tr("{where}: {name} is not a Discuz! user name; the page is damaged.",
                   where=self.where, name=repr(name))
            )
        card = self.keys.get("card")
        if card is not None and seen_text(card) not in ("", name):
            raise ParseError(
                tr("{where} names two authors ({name} and {other}); the page is damaged.",
                   where=self.where, name=repr(name), other=repr(seen_text(card)))
            )
        return (name, uid), where

    def _author_found(self) -> tuple[str, str | None, str]:
        link = self.keys.get("author")
        href = link.attributes.get("href") or "" if link is not None else ""
        if link is not None and ("home.php?mod=space" in href or PROFILE.search(href)):
            return *named_link(link, href), N_("a.xw1 (the poster's link)")
        found = self._board("author")
        if found is not None:
            hit, where = found
            if hit.tag == "a" and seen_text(hit):
                return *named_link(hit), where
            name = node_text(hit).split("\n")[0].strip()
            if name:
                return name, None, where
        for selector, said in (
            (f"#favatar{self.pid} .authi a", "#favatar{pid} .authi a"),
            ("td.pls .authi a", N_("td.pls .authi a (older templates)")),
            (f"#userinfo{self.pid} strong a", N_("#userinfo{pid} (the user card)")),
            (f"a#userinfo{self.pid}", N_("a#userinfo{pid} (Discuz! 6/7)")),
        ):
            hit = self.node.css_first(selector)
            if hit is not None and seen_text(hit):
                return *named_link(hit), said
        for hit in self.node.css("a[href]"):
            if (
                PROFILE.search(hit.attributes.get("href") or "")
                and seen_text(hit)
                and self._outside_text(hit)
            ):
                return *named_link(hit), N_("the first profile link in the post's header")
        beside = self._beside_time()
        if beside is not None:
            return *named_link(beside), N_("the profile link beside #authorposton{pid}")
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
                    N_("the name without a link (a guest, an anonymous post, a deleted member)"),
                )
        raise missing_field(self.where, tr("author"))

    def _beside_time(self) -> Node | None:
        """A theme that shows the opening post's author and time in the thread's header,
        outside the post: the profile link next to the time Discuz! ids for this post."""
        stamp = self.place.tree.css_first(f"#authorposton{self.pid}")
        parent = stamp.parent if stamp is not None else None
        for _ in range(3):
            if parent is None:
                break
            for hit in parent.css("a[href]"):
                if PROFILE.search(hit.attributes.get("href") or "") and seen_text(hit):
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
            return self._stamp(stamp), N_("div.authi em (older templates)")
        stamp = self.place.tree.css_first(f"#authorposton{self.pid}")
        if stamp is not None:
            return self._stamp(stamp), N_("#authorposton{pid} (outside the post, in the header)")
        header = self.node.html or ""
        body = header.find(f'id="postmessage_{self.pid}"')
        m = _POSTED.search(header[: body if body >= 0 else len(header)])
        if m is not None:
            raw = m["title"] if m["title"] and not _FULL_TIME.search(m["shown"]) else m["shown"]
            return (
                read_forum_time(raw, self.tz, what=self._time_said()),
                N_("the 发表于 text of the post's header"),
            )
        raise missing_field(self.where, tr("post time"))

    def _time_said(self) -> str:
        return self.place.post_time.format(where=self.where)

    def _stamp(self, stamp: Node) -> tuple[datetime, bool]:
        shown = seen_text(stamp)
        # Most posts show the full time; only recent ones ("3 小时前") need the span's title.
        raw = shown if _FULL_TIME.search(shown) else (exact_time(stamp) or shown)
        return read_forum_time(raw, self.tz, what=self._time_said())

    def body(self) -> tuple[Node | None, str]:
        """The node of what the author wrote; None for a post the forum hides (``locked``)."""
        body = self.keys.get(f"postmessage_{self.pid}")
        if body is not None:
            return body, "#postmessage_{pid}"
        found = self._board("body")
        if found is not None:
            return found
        if self.node.css_first("div.locked") is not None:
            return None, N_("div.locked (the forum hides this post)")
        raise missing_field(self.where, tr("body"))


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
    pid, where, tz = fields.pid, fields.where, fields.tz
    (author, author_id), _ = fields.author()
    (time, minutes), _ = fields.time()
    if floor is None:
        floor, _ = fields.floor()
    body, _ = fields.body()
    read = read_body(node, body, tz, where)
    shown, cut = page_comments(fields.keys.get(f"comment_{pid}"), pid, tz, where)
    return Post(
        platform="discuz",
        thread_id=place.thread_id,
        post_id=pid,
        floor=floor,
        author=author,
        author_id=author_id,
        time=time,
        text=read.text,
        quotes=read.quotes,
        reply_to=read.reply_to,
        edited=read.edited,
        comments=shown,
        comments_cut=cut,
        red_font=read.red_font,
        large_font=read.large_font,
        hidden=read.hidden,
        page=place.page,
        moderator=_moderator(node),
        to_the_minute=minutes,
    )


# The user groups that moderate a board, as Discuz! X3 installs them (radminid > 0), by the
# id the author's column links to (home.php?mod=spacecp&ac=usergroup&gid=N).
_MODERATING = frozenset({"1", "2", "3", "16", "17", "18", "19"})
_GROUP = re.compile(r"ac=usergroup&(?:amp;)?gid=(\d+)")

def _moderator(node: Node) -> str | None:
    """The author's user group, when it moderates the board; None for any other or none
    shown (optional: a theme may not show it)."""
    for link in node.css("a[href*='ac=usergroup']"):
        m = _GROUP.search(link.attributes.get("href") or "")
        if m is not None:
            return (seen_text(link) or "版主") if m.group(1) in _MODERATING else None
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
    # A link inside the floor's 点评 (lexbor tests the ancestors, at C speed).
    commented = f"#comment_{pid} a, div.pstl a"
    for hit in node.css(selector):
        ident = hit.id
        if not ident:
            # The first a.xw1 outside the floor's 点评 is the poster's: X3.5 prints the
            # poster's so only with 用户名显示在头像上方 (authoronleft) on, and a theme may not
            # at all, while every 点评 author's link is an a.xw1. The user card (#userinfo…)
            # names the poster a second time.
            key = "author" if "xw1" in (hit.attributes.get("class") or "") else "card"
            if key not in found and not hit.css_matches(commented):
                found[key] = hit
            continue
        if ident not in ids and ident.lower() in ids:
            exact = False
        found.setdefault(ident, hit)
    return found, exact
