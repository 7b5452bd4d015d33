"""A Tieba page whose counts hide 楼中楼 (issue 34): a page that says a floor has none is
not believed for a floor that may hold a ballot, so a 改票 posted there is read and counted
(RULES V3: a change in the 楼中楼 of one's own ballot floor)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from .conftest import read_one
from .test_hostile_tieba_api import tampered_pages
from .tiebaapi import TiebaApi
from .tiebagen import sample

if TYPE_CHECKING:
    from aiotieba.api.get_posts.protobuf import PbPageResIdl_pb2


def counting_none(res: PbPageResIdl_pb2.PbPageResIdl) -> None:
    for post in res.data.post_list:
        post.sub_post_number = 0


@pytest.mark.rules("V3")
def test_a_page_counting_no_comments_does_not_hide_a_change(forum):
    t = sample()
    api = TiebaApi(t)
    tampered_pages(api, counting_none)
    thread = read_one(api.serve(forum))
    ache = next(p for p in thread.posts if p.floor == 4)
    assert [c.text for c in ache.comments] == [
        "改票对象：白桃 改票理由：被说服了",
        "为什么改我",
        "改票对象：长夜 改票理由：再改一次",
    ]
    tangtang = next(
        p for p in thread.posts if p.text.startswith("投票对象：白桃\n投票理由：重新投")
    )
    assert len(tangtang.comments) == 14  # both pages of its 楼中楼
    assert tangtang.comments[-1].text.endswith("楼中楼第二页的改票")


def test_a_floor_of_chatter_the_page_counts_none_under_is_not_asked(forum):
    t = sample()
    api = TiebaApi(t)
    tampered_pages(api, counting_none)
    read_one(api.serve(forum))
    asked = {pid for kind, pid, *_ in api.asked if kind == "floor"}
    chatter = {t.pid(n) for n, p in enumerate(t.floors, start=1) if p.text in ("顶", "楼上说得对")}
    assert chatter and not asked & chatter
