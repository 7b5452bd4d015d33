"""What tally reads from one Discuz! thread page, field by field, and where (``tally doctor``).

For each field a count of the posts it was found in, the places it was found (the selector or
fallback, as the readers of ``tally.forums.discuz.post`` name them), an example, and what
could not be read.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from tally.errors import ParseError
from tally.forums.base import PageFrame, PageText
from tally.forums.discuz.comment_items import MORE_COMMENTS
from tally.forums.discuz.post import READERS, Place, PostFields, hot_label, stuck_label
from tally.forums.fields import Diagnosis, FieldFound, page_field
from tally.forums.htmltext import Node
from tally.i18n import N_, tr
from tally.times import long


def diagnosed(page: PageText, nodes: Sequence[Node], frame: PageFrame, place: Place) -> Diagnosis:
    """The page's own fields (what ``frame`` says of it) and each post's."""
    page_fields = [
        page_field(N_("thread id"), True, frame.thread_id, frame.found["thread_id"]),
        page_field(N_("page"), True, tr("{page} of {pages}", page=frame.page,
                                        pages=frame.page_count), frame.found["page"]),
        page_field(N_("page count"), True, str(frame.page_count), frame.found["page_count"]),
        page_field(N_("title"), False, frame.title or None, frame.found["title"]),
    ]
    return Diagnosis(
        page.source, "Discuz!", page.board, problem=None, posts=len(nodes),
        fields=(*page_fields, *_post_fields(nodes, place), own_floor_comments(page, nodes, place)),
    )  # fmt: skip


# The logged-in member of a Discuz! page (0: a guest), as its scripts name it.
_READER = re.compile(r"discuz_uid\s*=\s*'(\d+)'")
# The 点评 button of a floor, in X3's default templates: a.cmmnt, to misc.php's comment form.
_COMMENT_BUTTON = re.compile(r"mod=misc&(?:amp;)?action=comment&")
OWN_FLOOR = N_("点评 on one's own floor")


def own_floor_comments(page: PageText, nodes: Sequence[Node], place: Place) -> FieldFound:
    """Whether the page's reader may 点评 their own floor, which a change posted as a 点评
    under one's own vote needs (ruleset 000, V3): Discuz! shows the 点评 button only on the
    floors its reader may 点评, and on one's own only where the board allows it (允许点评自己的
    帖子, ``commentpostself``, off as X3.5 installs). Told from the reader's floors but the
    first (the first has a setting of its own) beside others' floors on the same page."""
    reader = _READER.search(page.text)
    uid = reader.group(1) if reader else None
    own: list[tuple[int, bool]] = []
    others: bool | None = None  # None: no floor of another member but the first
    for index, node in enumerate(nodes):
        try:
            fields = PostFields(node, place, index)
            floor, _ = fields.floor()
            (_, author), _ = fields.author()
        except ParseError:
            continue
        button = any(_COMMENT_BUTTON.search(a.attributes.get("href") or "")
                     for a in node.css("a[href]"))  # fmt: skip
        if floor == 1:
            continue
        if uid not in (None, "0") and author == uid:
            own.append((floor, button))
        else:
            others = bool(others) or button
    cannot = _cannot_tell(uid, own, others)
    if cannot is not None:
        return FieldFound(OWN_FLOOR, False, 0, 1, missing=(cannot,))
    floor, button = own[0]
    if button:
        shown = tr("floor {floor}, uid {uid}'s own: a 点评 button", floor=floor, uid=uid)
        allowed = tr("allowed (允许点评自己的帖子 on)")
        return FieldFound(OWN_FLOOR, False, 1, 1, ((shown, 1),), allowed)
    where = ((tr("floor {floor}, uid {uid}'s own: no 点评 button", floor=floor, uid=uid), 1),)
    said = tr(
        "uid {uid} has no 点评 button on their own floor {floor} where others' floors show one: "
        "the board does not let a member 点评 their own floor, so a change posted as a 点评 under "
        "one's own vote (ruleset 000) cannot be made; the board's admin turns on "
        "允许点评自己的帖子 (commentpostself) in 管理中心 → 全局 → 站点功能 → 帖子点评, or the "
        "game takes changes another way ([rules] change_via).", uid=uid, floor=floor
    )  # fmt: skip
    off = tr("not allowed (允许点评自己的帖子 off)")
    return FieldFound(OWN_FLOOR, False, 1, 1, where, off, (said,))


def _cannot_tell(
    uid: str | None, own: list[tuple[int, bool]], others: bool | None
) -> str | None:
    if uid in (None, "0"):
        return tr(
            "cannot tell from a guest's page (a guest sees no 点评 button): read a page of the "
            "vote thread with the cookies of a player who has a floor on it (--cookies FILE)."
        )
    if not own:
        return tr(
            "cannot tell: the page's reader, uid {uid}, has no floor on it but the first; read "
            "a page where they have one.", uid=uid
        )  # fmt: skip
    if others is None and not any(button for _, button in own):
        # Only the reader's own floors to look at: no button there is the setting off, or
        # 点评 off altogether; another member's floor beside them tells which.
        return tr(
            "cannot tell yet: the page shows uid {uid}'s own floor with no 点评 button and no "
            "other member's floor but the first, so the board either lets no member 点评 their "
            "own floor (允许点评自己的帖子) or has 点评 off; read the page again once another "
            "player has posted on it.", uid=uid
        )  # fmt: skip
    if not others and not any(button for _, button in own):
        return tr(
            "cannot tell: uid {uid} sees no 点评 button on any floor of the page (the board's "
            "点评 is off, or their user group may not 点评 posts: 允许参与点评).", uid=uid
        )  # fmt: skip
    return None


# How each post field is shown as an example.
_SHOWN: dict[str, Callable[[Any], str]] = {
    "floor": str,
    "author": lambda v: v[0],
    # A time printed without its seconds is said so: a ballot in the closing minute is flagged.
    "time": lambda v: tr("{time} (minutes only)", time=long(v[0])) if v[1] else long(v[0]),
    "body": lambda v: tr("(hidden by the forum)") if v is None else v.text().strip()[:30],
}


def _post_fields(nodes: Sequence[Node], place: Place) -> list[FieldFound]:
    names = (N_("post id"), N_("floor"), N_("author"), N_("uid"), N_("time"), N_("body"))
    wheres: dict[str, Counter[str]] = {n: Counter() for n in names}
    examples: dict[str, str] = {}
    missing: dict[str, list[str]] = {n: [] for n in names}
    for index, node in enumerate(nodes):
        try:
            fields = PostFields(node, place, index)
        except ParseError as exc:
            missing["post id"].append(str(exc))
            continue
        wheres["post id"][tr(fields.pid_where)] += 1
        examples.setdefault("post id", fields.pid)
        # A 置顶回复 from a later page is shown without its number, and read on its own page.
        elsewhere = stuck_label(node, fields.pid) == (True, False)
        hot = hot_label(node, fields.pid)
        for name, read in READERS.items():
            if name == "floor" and elsewhere:
                wheres[name][tr("a 置顶回复 from a later page (its floor is read there)")] += 1
                continue
            if name == "floor" and hot:
                wheres[name][tr("a 热门回复 (推荐): its floor is the one its post id leaves")] += 1
                continue
            try:
                value, where = read(fields)
            except ParseError as exc:
                missing[name].append(str(exc))
                continue
            wheres[name][tr(where)] += 1  # marked where it was found (N_), said here
            examples.setdefault(name, _SHOWN[name](value))
            if name == "author":
                uid = value[1]
                if uid is None:
                    missing["uid"].append(tr("post {post}: {author} has no uid in its link.",
                                             post=fields.pid, author=value[0]))  # fmt: skip
                else:
                    wheres["uid"][tr(where)] += 1
                    examples.setdefault("uid", uid)
    return [*_found(names, wheres, examples, missing, len(nodes)), _comments_whole(nodes)]


def _comments_whole(nodes: Sequence[Node]) -> FieldFound:
    """Which posts show all their 点评: one past the board's commentnumber shows its newest
    and links the forum's commentmore script, which tally reads
    (``tally.forums.discuz.comments``)."""
    cut = [n for n in nodes if n.css_first(MORE_COMMENTS) is not None]
    said = [
        tr("post {post} shows only its newest 点评: reading the thread from the forum, tally "
           "reads the rest from its commentmore script, which Discuz!'s robots.txt closes unless "
           "a board profile says comment_pages = true (docs/boards.md); a saved page of it "
           "cannot be counted.",
           post=(n.attributes.get("id") or "").removeprefix("post_") or "?")
        for n in cut[:3]
    ]  # fmt: skip
    whole = len(nodes) - len(cut)
    where = ((tr("the page"), whole),) if whole else ()
    return FieldFound(N_("点评 whole"), False, whole, len(nodes), where, "", tuple(said))


def _found(
    names: Sequence[str],
    wheres: dict[str, Counter[str]],
    examples: dict[str, str],
    missing: dict[str, list[str]],
    count: int,
) -> list[FieldFound]:
    return [
        FieldFound(
            name,
            name != "uid",  # guests and anonymous posts have none
            sum(wheres[name].values()),
            count,
            tuple(wheres[name].most_common()),
            examples.get(name, ""),
            tuple(missing[name][:3]),
        )
        for name in names
    ]
