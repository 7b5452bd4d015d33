"""Posts a thread page shows out of their place, put on their floors once every page is read.

Discuz! X3.5 shows a thread's most supported replies (热门回复, labelled 推荐, no floor
number) again above page 1's others, and leaves each out of its own place when that is on
page 1; a page that shows posts above its others (a 置顶回复 or 热门回复, ``Page.top``) can
also lose a reply when the forum merges the two lists on clashing keys. The platform's page
reader marks them (``Page.floating``, ``Page.top``); the floors are decided here, over all
the pages, since a floor can stand on another page than the one showing it. And a post two
pages of one read show on two floors: the forum numbered its floors again between them.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace

from tally.errors import ParseError
from tally.i18n import tr
from tally.model import Page, Post


def place_floating(pages: Sequence[Page], source: str, *, whole: bool) -> list[Page]:
    """The pages, each post one shows out of its place without its floor number (Discuz!'s
    热门回复, ``Page.floating``) on its floor: left to the page that holds it where it
    stands, else on its page among the others by post id (the forum gives ids in the order
    posted, and its floors follow them). A page that shows posts above its others
    (``Page.top``) must then hold every floor in its range: the forum leaves one out when
    it merges the two lists on clashing keys.
    """
    if not any(p.floating or p.top for p in pages):
        return list(pages)
    held = {post.post_id for page in pages for post in page.posts}
    out = []
    for page in pages:
        mine = [p for p in page.floating if p.post_id not in held]
        if mine:
            page = _placed(page, mine, pages, source, whole)
            held.update(p.post_id for p in mine)
        if page.top and (whole or not page.floating):
            _check_holes(page, source)
        out.append(page)
    return out


def _placed(
    page: Page, mine: list[Post], pages: Sequence[Page], source: str, whole: bool
) -> Page:
    """The page with its 热门回复 that stand on it put on their floors.

    Numbered by position, each one's floor is the one its post id leaves between the
    others (X3.5 skips its number where it stands). Numbered by their place (X3.5 once a
    post of the thread is deleted), the forum skips their numbers right after the first
    post's instead, numbering the floors before theirs one too many each: page 1's floors
    are then 1 to the posts it holds, in the forum's order (``place_of``).
    """
    others = [p for q in pages for p in q.posts]
    placed: list[Post] = []
    for post in sorted(mine, key=lambda p: int(p.post_id)):
        floor = _floor_between(post, [*others, *placed], whole)
        if floor is None:
            break
        placed.append(replace(post, floor=floor))
    else:
        return replace(page, posts=(*page.posts, *placed))
    shown = sorted(p.floor for p in page.posts)
    ranked = sorted(page.posts, key=lambda p: p.floor)  # as shown: the forum's own order
    for post in sorted(mine, key=lambda p: int(p.post_id)):
        at = place_of(ranked, post)
        if at is None:
            raise ParseError(
                tr("{source}: page {page} shows post {post} ({author}) above its other posts "
                   "as a 热门回复 (推荐), without its floor number, and the posts of its second "
                   "do not stand in the order of their ids, so its floor cannot be told. Count "
                   "that post by hand.", source=source, page=page.page, post=post.post_id,
                   author=post.author)
            )
        ranked.insert(at, post)
    gone = sorted(set(range(1, len(ranked) + 1)) - set(shown))
    by_place = (
        page.page == 1
        and whole
        and shown == sorted(set(shown))
        and len(gone) == len(mine)
        and set(shown) <= set(range(1, len(ranked) + 1))
        and gone == list(range(gone[0], gone[0] + len(gone)))
        and all(a.floor < b.floor for a, b in itertools.pairwise(
            p for p in page.posts if p.post_id not in page.top))
    )  # fmt: skip
    if not by_place:
        post = next(p for p in sorted(mine, key=lambda p: int(p.post_id))
                    if p.post_id not in {q.post_id for q in placed})  # fmt: skip
        raise ParseError(
            tr("{source}: page {page} shows post {post} ({author}) above its other posts as a "
               "热门回复 (推荐), without its floor number; no page holds it on its floor, and "
               "the floors of the posts around it leave none for it. Read the thread again "
               "with --fresh, or count that post by hand.", source=source, page=page.page,
               post=post.post_id, author=post.author)
        )
    return replace(page, posts=tuple(
        p if p.floor == f else replace(p, floor=f) for f, p in enumerate(ranked, start=1)
    ))  # fmt: skip


def _floor_between(post: Post, others: Sequence[Post], whole: bool) -> int | None:
    """The floor the post's id leaves between those of the others, if one is free."""
    pid = int(post.post_id)
    below = [p for p in others if int(p.post_id) < pid]
    above = [p for p in others if int(p.post_id) > pid]
    taken = {p.floor for p in others}
    before = max(below, key=lambda p: int(p.post_id), default=None)
    after = min(above, key=lambda p: int(p.post_id), default=None)
    if before is None:
        return None
    if after is None:
        # The newest post of the thread: the next floor, when every page was read.
        return before.floor + 1 if whole and before.floor + 1 not in taken else None
    if after.floor - before.floor == 2 and before.floor + 1 not in taken:
        return before.floor + 1
    return None


def _check_holes(page: Page, source: str) -> None:
    """A page that shows posts above its others holds every floor from its first reply to
    its last: X3.5 leaves a reply out of page 1 when it merges the 置顶回复 and 热门回复
    (keyed by post id) with the page's replies (keyed by their place) and a post id is
    smaller than the replies a page shows; the reply count then says one is missing."""
    floors = {p.floor for p in page.posts}
    mine = [p.floor for p in page.posts if p.post_id not in page.top and p.floor != 1]
    if not mine:
        return
    holes = [f for f in range(min(mine), max(mine) + 1) if f not in floors]
    if not holes:
        return
    shown = ", ".join(map(str, holes[:10]))
    top = ", ".join(page.top)
    raise ParseError(
        tr("{source}: page {page} shows post(s) {posts} above its other posts (置顶回复 or "
           "热门回复) and does not show floor(s) {floors}: the forum leaves a reply out of the "
           "page when a post it shows above the others has a post id smaller than the replies "
           "a page shows (a new board's first posts). The page cannot be counted from: have a "
           "moderator unstick the reply (解除置顶), or count by hand.", source=source,
           page=page.page, posts=top, floors=shown)
    )


def place_of(order: Sequence[Post], post: Post) -> int | None:
    """Where ``post`` stands among ``order`` (posts in the order the forum shows them) in
    the forum's own order, by time (to the second: Discuz!'s ORDER BY dateline) and, within
    a second, by position, which post ids follow (Discuz! gives them in the order written);
    None where the posts of its second do not stand in the order of their ids (two sent at
    once), so its place among them cannot be told."""
    same = [q for q in order if q.time == post.time]
    if any(int(a.post_id) > int(b.post_id) for a, b in itertools.pairwise(same)):
        return None
    pid = int(post.post_id)
    return next(
        (i for i, q in enumerate(order)
         if q.time > post.time or (q.time == post.time and int(q.post_id) > pid)),
        len(order),
    )  # fmt: skip


def renumbered(pages: Sequence[Page]) -> tuple[Post, Post] | None:
    """A post two pages of one read show on two floors: the forum numbered its floors again
    between the reads of those pages (a post deleted, or held for a moderator, 审核: Discuz!
    X3.5 keeps each post's floor until a page with the hole in it is shown, then numbers
    every page by place). None when the pages agree."""
    first: dict[str, Post] = {}
    for page in sorted(pages, key=lambda p: p.page):
        for post in page.posts:
            seen = first.setdefault(post.post_id, post)
            if seen.floor != post.floor and seen.floor and post.floor:
                return seen, post
    return None


def numbered_again(url: str, one: Post, other: Post) -> ParseError:
    return ParseError(
        tr("{url}: the forum numbered its floors again while tally read its pages, twice "
           "(posts deleted or approved meanwhile): post {post} ({author}) is floor {floor} on "
           "page {page} and floor {other_floor} on page {other_page}; run again.", url=url,
           post=one.post_id, author=one.author, floor=one.floor, page=one.page,
           other_floor=other.floor, other_page=other.page)
    )
