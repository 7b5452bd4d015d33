"""Tieba's client API trusted no further than its own counts allow: a 楼中楼 answer that
claims a billion pages, an answer for another floor, a page of 20,000 floors, reply counts
of 0 or −5. Each was followed or accepted on the main of issue 24; each is one sentence now,
after a handful of requests."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from tally.errors import ParseError

from .conftest import read_one
from .tiebaapi import TiebaApi, pb
from .tiebagen import sample

if TYPE_CHECKING:
    from aiotieba.api.get_comments.protobuf import PbFloorResIdl_pb2
    from aiotieba.api.get_posts.protobuf import PbPageResIdl_pb2


def tampered_pages(api: TiebaApi, edit: Callable[[PbPageResIdl_pb2.PbPageResIdl], None]) -> None:
    honest = api.page

    def page(pn: int) -> bytes:
        res = pb().PbPageResIdl()
        res.ParseFromString(honest(pn))
        edit(res)
        return res.SerializeToString()

    api.page = page  # type: ignore[method-assign]


def tampered_floors(api: TiebaApi, edit: Callable[[PbFloorResIdl_pb2.PbFloorResIdl], None]) -> None:
    honest = api.floor

    def floor(pid: int, pn: int) -> bytes:
        res = pb().PbFloorResIdl()
        res.ParseFromString(honest(pid, pn))
        edit(res)
        return res.SerializeToString()

    api.floor = floor  # type: ignore[method-assign]


def test_a_floor_claiming_a_billion_pages_is_refused_at_once(forum):
    api = TiebaApi(sample())

    def billion(res: PbFloorResIdl_pb2.PbFloorResIdl) -> None:
        res.data.page.total_page = 10**9

    tampered_floors(api, billion)
    with pytest.raises(ParseError, match="claims 1000000000 pages"):
        read_one(api.serve(forum))
    assert len(api.calls("floor")) <= 4  # not followed: 4,328 requests in 200 s before


def test_an_answer_for_another_floor_is_refused(forum):
    api = TiebaApi(sample())

    def other(res: PbFloorResIdl_pb2.PbFloorResIdl) -> None:
        res.data.post.id += 1

    tampered_floors(api, other)
    with pytest.raises(ParseError, match="is the answer for post"):
        read_one(api.serve(forum))


def test_a_negative_comment_count_is_refused(forum):
    api = TiebaApi(sample())

    def negative(res: PbFloorResIdl_pb2.PbFloorResIdl) -> None:
        res.data.page.total_count = -3

    tampered_floors(api, negative)
    with pytest.raises(ParseError, match="counts -3 楼中楼"):
        read_one(api.serve(forum))


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (lambda res: setattr(res.data.thread, "reply_num", -5), "the thread has -5 replies"),
        (lambda res: setattr(res.data.thread, "reply_num", 0), "for 0 replies"),
        (lambda res: setattr(res.data.page, "total_page", 10**6), "pages for"),
    ],
)
def test_counts_that_contradict_the_floors_are_refused(forum, edit, says):
    api = TiebaApi(sample())
    tampered_pages(api, edit)
    with pytest.raises(ParseError, match=says):
        read_one(api.serve(forum))


@pytest.mark.slow
def test_a_page_of_twenty_thousand_floors_is_refused(forum):
    api = TiebaApi(sample())

    def flood(res: PbPageResIdl_pb2.PbPageResIdl) -> None:
        model = res.data.post_list[0]
        for i in range(20_000):
            post = res.data.post_list.add()
            post.CopyFrom(model)
            post.id = model.id + 10_000_000 + i
            post.floor = 1000 + i

    tampered_pages(api, flood)
    with pytest.raises(ParseError, match="20030 floors on a page of 30"):
        read_one(api.serve(forum))


def _crowded(rows: int) -> Callable[[PbFloorResIdl_pb2.PbFloorResIdl], None]:
    """A floor's 楼中楼 page padded with ``rows`` more 楼中楼 than the floor counts."""

    def crowd(res: PbFloorResIdl_pb2.PbFloorResIdl) -> None:
        if not res.data.subpost_list:
            return
        model = res.data.subpost_list[0]
        for i in range(rows):
            sub = res.data.subpost_list.add()
            sub.CopyFrom(model)
            sub.id = model.id + 10_000_000 + i

    return crowd


def test_a_comment_page_of_twenty_thousand_rows_is_refused(forum):
    """Issue 49 (k): 20,000 rows on a page of a floor counting 3 were taken as 楼中楼."""
    api = TiebaApi(sample())
    tampered_floors(api, _crowded(20_000))
    with pytest.raises(ParseError, match="20003 楼中楼 on a page of 10") as caught:
        read_one(api.serve(forum))
    assert "cannot be right" in str(caught.value)
    assert len(api.calls("floor")) <= 4  # stopped at the first floor that has 楼中楼


def test_a_floor_holding_more_comments_than_it_counts_is_refused(forum):
    """Fewer rows than a page holds, but more than every answer for the floor counts."""
    api = TiebaApi(sample())
    tampered_floors(api, _crowded(2))
    with pytest.raises(ParseError, match=r"counts 3 楼中楼 and its pages hold 5"):
        read_one(api.serve(forum))


def test_a_comment_posted_between_two_pages_is_no_fault(forum):
    """A 楼中楼 added while a floor's pages are read: the later page counts it, and it is read."""
    t = sample()
    api = TiebaApi(t)
    floor = next(n for n, p in enumerate(t.floors, start=1) if len(p.comments) > 10)
    honest = api.floor

    def growing(pid: int, pn: int) -> bytes:
        if pid == t.pid(floor) and pn == 2 and len(t.floors[floor - 1].comments) < 15:
            late = t.floors[floor - 1].comments[-1]
            t.floors[floor - 1].comments.append(
                type(late)(late.author, late.time, "楼中楼读到一半时新回的")
            )
        return honest(pid, pn)

    api.floor = growing  # type: ignore[method-assign]
    thread = read_one(api.serve(forum))
    post = next(p for p in thread.posts if p.floor == floor)
    assert post.comments[-1].text == "楼中楼读到一半时新回的"
