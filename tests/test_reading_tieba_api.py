"""Tieba read as Baidu serves it in 2026: the client's protobuf API, through tally's HTTP.

The API double (tests/tiebaapi.py) answers with messages built from aiotieba's own protobuf
classes; one test reads it with aiotieba.Client itself, so the double speaks what aiotieba
speaks, and tally reads what the double says.
"""

from __future__ import annotations

import asyncio
import json
import os
from datetime import datetime

import pytest

from tally.cli import app
from tally.environment import HttpOptions
from tally.errors import FetchError, NotAThreadError
from tally.forums import resolve_url

from .conftest import CHINA, FakeClock, Runner, read_one
from .tiebaapi import Fault, TiebaApi
from .tiebagen import PLAYERS, TC, TP, TiebaThread, game_toml, sample

runner = Runner()
AFTER_CLOSE = FakeClock(datetime(2024, 5, 10, 12, 0, tzinfo=CHINA)).env()


# -- where the API is asked ---------------------------------------------------------------


@pytest.mark.parametrize(
    "url,api",
    [
        ("https://tieba.baidu.com/p/8800123456", "https://tiebac.baidu.com/"),
        ("http://m.tieba.baidu.com/p/8800123456?pn=2", "https://tiebac.baidu.com/"),
        ("https://jump2.bdimg.com/p/8800123456", "https://tiebac.baidu.com/"),
        ("http://127.0.0.1:8095/p/8800000002", "http://127.0.0.1:8095/"),
        ("https://mirror.example.org/p/88", "https://mirror.example.org/"),
    ],
)
def test_the_api_is_asked_on_baidus_client_host_or_the_urls_own_origin(url, api):
    platform, ref = resolve_url(url)
    request = platform.api.page_request(ref, 3)  # type: ignore[union-attr]
    assert request.url == f"{api}c/f/pb/page?cmd=302001"
    assert ("x_bd_data_type", "protobuf") in request.headers
    assert request.body is not None and request.body.startswith(b"---*_r1999\r\n")


# -- a thread read whole -----------------------------------------------------------------


def check_sample(thread) -> None:
    assert (thread.platform, thread.thread_id, thread.page_count) == ("tieba", "8800123456", 3)
    assert thread.title == "【塔达林】第二天投票帖"
    assert [p.floor for p in thread.posts] == [f for f in range(1, 82) if f not in (10, 24, 32)]
    assert thread.gaps == (10, 24, 32)
    by_floor = {p.floor: p for p in thread.posts}
    sheriff = by_floor[2]
    assert (sheriff.author, sheriff.author_display, sheriff.author_id, sheriff.post_id) == (
        "lengyue2019",
        "冷月",
        "5001",
        "150000002",
    )
    assert sheriff.text == "投票对象：白桃\n投票理由：狼面大"
    assert sheriff.time.isoformat() == "2024-05-08T10:01:00+08:00"
    assert by_floor[3].author_display is None
    assert [
        (c.comment_id, c.author, c.author_display, c.time.strftime("%H:%M"), c.text)
        for c in by_floor[4].comments
    ] == [
        ("160000401", "ache", "阿澈", "16:00", "改票对象：白桃 改票理由：被说服了"),
        # The client writes a reply as "回复 @阿澈 :…"; aiotieba leaves the header out.
        ("160000402", "xiaomi_mi", "小眯", "16:05", "为什么改我"),
        ("160000403", "ache", "阿澈", "17:00", "改票对象：长夜 改票理由：再改一次"),
    ]
    long = by_floor[77].comments
    assert [c.comment_id for c in long] == [str(160007700 + i) for i in range(1, 15)]
    assert long[-1].text == "改票对象：长夜 改票理由：楼中楼第二页的改票"
    assert sum(len(p.comments) for p in thread.posts) == 17


def test_the_sample_thread_through_the_api(forum):
    t = sample()
    api = TiebaApi(t)
    thread = read_one(api.serve(forum))
    check_sample(thread)
    # Every page, every page of the 楼中楼 of every floor that has any, and the first of each
    # floor that may hold a ballot (its text says 票), whatever the page counts; nothing else.
    ballots = {("floor", t.pid(n), 1) for n, p in enumerate(t.floors, start=1)
               if "票" in p.text and not p.deleted}  # fmt: skip
    assert ("floor", t.pid(3), 1) in ballots and len(ballots) > 6
    assert sorted(api.asked, key=str) == sorted(
        {
            ("page", 1),
            ("page", 2),
            ("page", 3),
            ("floor", 150000004, 1),
            ("floor", 150000077, 1),
            ("floor", 150000077, 2),
            *ballots,
        },
        key=str,
    )
    sent = api.headers[0]
    assert sent["user-agent"].startswith("tally/") and sent["x_bd_data_type"] == "protobuf"
    assert sent["content-type"] == "multipart/form-data; boundary=-*_r1999"


def big_thread() -> TiebaThread:
    """Five pages (130 live floors), a deleted floor, a floor with 23 楼中楼 on three pages."""
    t = TiebaThread("8800000002", "【塔达林】长帖", nicknames=PLAYERS)
    accounts = list(PLAYERS)
    t.add(TP("daoyan_a", "2024-05-08 09:30", "开门"))
    for i in range(130):
        minute = 10 * 60 + i
        t.add(
            TP(
                accounts[i % len(accounts)],
                f"2024-05-08 {minute // 60:02d}:{minute % 60:02d}",
                f"第{i + 2}楼的发言",
                deleted=i == 40,
            )
        )
    t.floors[99].comments = [
        TC(accounts[i % len(accounts)], f"2024-05-08 15:{i:02d}", f"楼中楼{i + 1}")
        for i in range(23)
    ]
    return t


def test_five_pages_a_deleted_floor_and_23_comments_on_three_pages(forum):
    t = big_thread()
    api = TiebaApi(t)
    thread = read_one(api.serve(forum))
    assert thread.page_count == 5 and api.page_count() == 5
    assert [p.floor for p in thread.posts] == [f for f in range(1, 132) if f != 42]
    assert thread.gaps == (42,)
    for post in thread.posts:
        written = t.floors[post.floor - 1]
        assert post.post_id == str(t.pid(post.floor))
        assert (post.author, post.text) == (written.author, written.text)
        assert post.time == datetime.fromisoformat(written.time).replace(tzinfo=CHINA)
    hundred = next(p for p in thread.posts if p.floor == 100)
    assert [(c.comment_id, c.author, c.text) for c in hundred.comments] == [
        (str(t.cid(100, i + 1)), c.author, c.text) for i, c in enumerate(t.floors[99].comments)
    ]
    assert api.calls("floor") == [("floor", t.pid(100), pn) for pn in (1, 2, 3)]


def test_fragments_become_text(forum):
    t = TiebaThread("8800000003", "x", nicknames=PLAYERS)
    parts = [
        (0, {"text": "投票对象：白桃"}),
        (2, {"text": "image_emoticon25", "c": "滑稽"}),
        (0, {"text": "\n投票理由：问"}),
        (4, {"text": "@长夜", "uid": 5010}),
        (0, {"text": " 看"}),
        (1, {"text": "这个链接", "link": "http://tieba.baidu.com/mo/q/checkurl?url=x"}),
        (3, {"src": "http://tiebapic.baidu.com/forum/pic/item/x.jpg", "bsize": "600,400"}),
    ]
    t.add(
        TP("daoyan_a", "2024-05-08 09:30", "开门"),
        TP("baitao", "2024-05-08 10:00", "", parts=parts),
    )
    thread = read_one(TiebaApi(t).serve(forum))
    # Emoticons as the client types them, @mentions and links as their text, images as nothing.
    assert thread.posts[1].text == "投票对象：白桃#(滑稽)\n投票理由：问@长夜 看这个链接"
    from tally.rules.judging.ballot_text import read_ballot

    assert read_ballot(thread.posts[1].text).ballots[0].target == "白桃"


# -- Baidu's error numbers and the faults of a busy forum ---------------------------------


def test_errorno_4_is_a_thread_that_is_gone(forum):
    api = TiebaApi(sample())
    api.errors = [Fault(errorno=4, errmsg="贴子可能已被删除")]
    with pytest.raises(
        NotAThreadError, match=r"Baidu says the thread does not exist or was deleted \(error 4"
    ) as info:
        read_one(api.serve(forum))
    assert str(info.value) == (
        "page 1 of thread 8800123456: Baidu says the thread does not exist or was deleted "
        "(error 4, “贴子可能已被删除”); check the thread's number in the URL."
    )


def test_429_then_too_frequent_then_the_answer(forum):
    api = TiebaApi(sample())
    url = api.serve(forum)
    clean = read_one(url)
    api.asked.clear()
    api.errors = [
        Fault(status=429, headers={"Retry-After": "3"}),
        Fault(errorno=220034, errmsg="您的操作太频繁了"),
    ]
    clock = FakeClock()
    thread = read_one(url, env=clock.env(http=HttpOptions(host_delay=0, backoff=0.5)))
    assert thread.posts == clean.posts
    assert api.calls("page")[:3] == [("page", 1)] * 3  # asked three times, answered once
    waits = [s for s in clock.sleeps if s > 0]
    assert waits[0] == 3.0 and 1.0 <= waits[1] <= 2.0  # Retry-After, then backoff


def test_another_error_number_is_one_sentence(forum, tmp_path):
    api = TiebaApi(sample())
    api.errors = [Fault(errorno=300000, errmsg="参数错误")] * 4
    url = api.serve(forum)
    with pytest.raises(FetchError, match=r"Baidu answered error 300000, “参数错误”"):
        read_one(url)
    api.errors = [Fault(errorno=4, errmsg="贴子可能已被删除")]
    result = runner.invoke(app, ["archive", url, "-o", str(tmp_path / "x.csv")], obj=AFTER_CLOSE)
    assert result.exit_code == 4 and result.stderr.count("\n") == 1


def test_a_cut_answer_is_fetched_again(forum):
    api = TiebaApi(sample())
    url = api.serve(forum)
    whole = api.page(2)
    cuts = iter([whole[: len(whole) // 2], whole[:0]])

    def cut(path: str, headers: dict[str, str], body: bytes):
        from tally.demo.localforum import Reply

        answer = api.answer(path, headers, body)
        # Page 2's answer by its bytes: the pages are asked for four at a time, and under
        # load another page's request may be the last asked when this one is answered.
        if answer.body == whole:
            piece = next(cuts, None)
            if piece is not None:
                return Reply(200, piece, {"Content-Type": "application/x-protobuf"})
        return answer

    forum.post_hook = cut
    check_sample(read_one(url))
    assert api.calls("page").count(("page", 2)) == 3


# -- the cookie file: BDUSS when Baidu shuts the guest API --------------------------------


def test_bduss_from_the_cookie_file_goes_into_the_request(forum, tmp_path):
    from aiotieba.api.get_posts.protobuf import PbPageReqIdl_pb2

    from .tiebaapi import form_data

    api = TiebaApi(sample())
    url = api.serve(forum)
    cookies = tmp_path / "cookies.txt"
    cookies.write_text("127.0.0.1\tFALSE\t/\tFALSE\t0\tBDUSS\tsecret-bduss\n", encoding="utf-8")
    os.chmod(cookies, 0o600)
    seen: list[str] = []
    inner = api.answer

    def spy(path: str, headers: dict[str, str], body: bytes):
        if path.startswith("/c/f/pb/page"):
            req = PbPageReqIdl_pb2.PbPageReqIdl()
            req.ParseFromString(form_data(headers, body))
            seen.append(req.data.common.BDUSS)
        return inner(path, headers, body)

    forum.post_hook = spy
    read_one(url, cookies=cookies)
    assert seen and set(seen) == {"secret-bduss"}
    seen.clear()
    read_one(url)
    assert set(seen) == {""}  # a guest


# -- the double speaks what aiotieba speaks ------------------------------------------------


def test_aiotieba_itself_reads_the_double(forum, monkeypatch):
    """aiotieba.Client, its host pointed at the double, reads the floors and the 楼中楼."""
    import aiotieba
    import yarl
    from aiotieba.api.get_comments import _api as comments_api
    from aiotieba.api.get_posts import _api as posts_api

    api = TiebaApi(sample())
    api.serve(forum)
    host, port = forum.base.split("//")[1].rstrip("/").split(":")

    class Yarl:
        class URL:
            @staticmethod
            def build(**parts):
                return yarl.URL.build(
                    **{**parts, "scheme": "http", "host": host, "port": int(port)}
                )

    monkeypatch.setattr(posts_api, "yarl", Yarl)
    monkeypatch.setattr(comments_api, "yarl", Yarl)

    async def read():
        async with aiotieba.Client() as client:
            pages = [await client.get_posts(8800123456, pn) for pn in (1, 2, 3)]
            comments = await client.get_comments(8800123456, 150000077, 2)
            return pages, comments

    pages, comments = asyncio.run(read())
    for page in pages:
        assert page.err is None, page.err
    floors = [p.floor for page in pages for p in page.objs]
    assert floors == [f for f in range(1, 82) if f not in (10, 24, 32)]
    first = pages[0].objs[1]
    assert (first.user.user_name, first.user.nick_name, first.text) == (
        "lengyue2019",
        "冷月",
        "投票对象：白桃\n投票理由：狼面大",
    )
    assert pages[0].thread.title == "【塔达林】第二天投票帖" and pages[0].page.total_page == 3
    assert [c.text for c in comments.objs] == [f"楼中楼闲聊 {i}" for i in range(11, 14)] + [
        "改票对象：长夜 改票理由：楼中楼第二页的改票"
    ]


# -- the whole day, counted --------------------------------------------------------------

EXPECTED = [
    (2, "冷月", "vote", "白桃", "counted", None),
    (3, "kiwi", "vote", "长夜", "counted", None),
    (4, "阿澈", "vote", "小眯", "superseded", None),
    (4, "阿澈", "change", "白桃", "counted", None),  # a 楼中楼 under one's own vote (V3)
    (4, "阿澈", "change", "长夜", "void", "second_change"),  # a second change (V4)
    (5, "风铃", "vote", "长夜", "counted", None),
    (6, "老K", "vote", "白桃", "counted", None),
    (77, "糖糖", "vote", "白桃", "superseded", None),
    (77, "糖糖", "change", "长夜", "counted", None),  # on the second 楼中楼 page
    (78, "老K", "change", "长夜", "void", "change_not_reply"),  # a new floor is no change
    (79, "青山", "vote", "长夜", "counted", None),
    (80, "白桃", "abstain", "弃权", "counted", None),
    (81, "雪见", "vote", "长夜", "void", "after_close"),
]


def tally_votes(url: str, game: str, cache: str):
    result = runner.invoke(
        app, ["votes", url, "--game", game, "--json", "--cache-dir", cache], obj=AFTER_CLOSE
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("faults", [False, True], ids=["clean", "through 429 and errno"])
def test_tally_votes_on_a_tieba_game_through_the_api(forum, tmp_path, faults):
    """Ruleset 000 (C1 2.5/1.5, V3 楼中楼 changes, V4 one change), exactly."""
    api = TiebaApi(sample())
    url = api.serve(forum)
    game = tmp_path / "game.toml"
    game.write_text(game_toml(url), encoding="utf-8")
    if faults:
        api.errors = [
            Fault(status=429, headers={"Retry-After": "0"}),
            Fault(errorno=110001, errmsg="访问太频繁"),
            Fault(status=503),
        ]
    data = tally_votes(url, str(game), str(tmp_path / "cache"))
    got = [
        (b["floor"], b["voter"], b["kind"], b["target"], b["status"], b["reason"])
        for b in data["ballots"]
        if b["status"] != "not_a_ballot"
    ]
    assert got == EXPECTED
    # Every other post is listed, never counted: 67 chatter floors (70, 3 deleted), a
    # 楼中楼 that answers 阿澈, and 13 楼中楼 of chatter under 糖糖's vote.
    others = [b for b in data["ballots"] if b["status"] == "not_a_ballot"]
    assert len(others) == 81 and all(b["kind"] is None for b in others)
    assert (others[0]["floor"], others[0]["voter"], others[0]["words"]) == (4, "小眯", "为什么改我")
    # 白桃 2.5 + 1 + 1 = 4.5; 长夜 1.5 + 1 + 1 + 1 = 4.5: the sheriff's target goes (C5).
    assert [(t["player"], t["votes"]) for t in data["totals"]] == [("白桃", 4.5), ("长夜", 4.5)]
    assert data["outcome"]["player"] == "白桃" and data["outcome"]["rule"] == "tie_sheriff_target"
    assert data["not_voted"] == ["小眯", "雪见", "南瓜", "长夜"]
    change = next(b for b in data["ballots"] if b["post_id"] == "160000401")
    assert change["comment"] and change["parent_post_id"] == "150000004"
    assert data["provisional"] is False

    # A re-run of the closed day's count on the unchanged thread: every page and every
    # floor's 楼中楼 again (the count decides the day; a moderator may have changed any page
    # since), the last page first.
    api.asked.clear()
    assert tally_votes(url, str(game), str(tmp_path / "cache"))["ballots"] == data["ballots"]
    pages = [a for a in api.asked if a[0] == "page"]
    assert pages[0] == ("page", 3) and sorted(pages) == [("page", n) for n in (1, 2, 3)]
    assert any(a[0] == "floor" for a in api.asked)


def test_a_rerun_reads_the_comments_of_a_floor_whose_count_changed(forum, tmp_path):
    t = sample()
    api = TiebaApi(t)
    url = api.serve(forum)
    cache = tmp_path / "cache"
    read_one(url, cache_dir=cache)
    t.floors[76].comments.append(TC("baitao", "2024-05-08 20:00", "又一条"))  # floor 77, page 3
    api.asked.clear()
    thread = read_one(url, cache_dir=cache)
    assert api.asked == [("page", 3), ("floor", 150000077, 1), ("floor", 150000077, 2)]
    assert len(next(p for p in thread.posts if p.floor == 77).comments) == 15


def test_a_floor_short_of_its_comments_is_an_error(forum):
    t = sample()
    api = TiebaApi(t)
    url = api.serve(forum)
    inner = api.floor

    def short(pid: int, pn: int) -> bytes:
        from aiotieba.api.get_comments.protobuf import PbFloorResIdl_pb2

        res = PbFloorResIdl_pb2.PbFloorResIdl()
        res.ParseFromString(inner(pid, pn))
        if pid == t.pid(77) and pn == 2:
            del res.data.subpost_list[-1]  # a 楼中楼 the count has, the page does not
        return res.SerializeToString()

    api.floor = short
    with pytest.raises(
        FetchError, match=r"floor 77 of thread 8800123456 has 14 楼中楼 but 13 were read"
    ):
        read_one(url)


# -- tally doctor on a live Tieba thread --------------------------------------------------


def test_doctor_reads_a_live_thread_through_the_api(forum):
    """Tieba's pages are answered by its API, not HTML: doctor reads the thread as every
    command does and says what it found, each essential field in every floor."""
    import json

    api = TiebaApi(sample())
    url = api.serve(forum)
    result = runner.invoke(app, ["doctor", url, "--json"], obj=AFTER_CLOSE)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    floors = len(read_one(url).posts)
    assert report["software"] == "Tieba" and report["readable"] and report["posts"] == floors
    assert {f["name"] for f in report["fields"]} == {"post id", "floor", "author", "time", "body"}
    for f in report["fields"]:
        assert (f["found"], f["of"]) == (floors, floors)
        assert f["where"] == [{"place": "the Tieba reader, every page of its API", "posts": floors}]


def test_doctor_on_a_tieba_thread_that_is_gone_says_so_in_one_sentence(forum):
    api = TiebaApi(sample())
    api.errors = [Fault(errorno=4, errmsg="贴子可能已被删除")]
    result = runner.invoke(app, ["doctor", api.serve(forum)], obj=AFTER_CLOSE)
    assert result.exit_code == 4
    assert "Baidu says the thread does not exist or was deleted" in result.stdout


def test_a_count_reads_every_楼中楼_again_even_when_a_floors_count_is_unchanged(forum, tmp_path):
    """One 楼中楼 deleted and one added keep a floor's count: a read that decides (a count)
    takes no 楼中楼 from the cache, so the new 改票 is read (found in a cold read); a read
    that decides nothing may still reuse them."""
    from .conftest import reader

    t = sample()
    api = TiebaApi(t)
    url = api.serve(forum)
    cache = tmp_path / "cache"
    with reader(cache_dir=cache) as r:
        r.read([url], CHINA)
    t.floors[76].comments[-1] = TC("baitao", "2024-05-08 20:00", "改票对象：新的")
    with reader(cache_dir=cache) as r:
        [kept] = r.read([url], CHINA)
    assert next(p for p in kept.posts if p.floor == 77).comments[-1].text != "改票对象：新的"
    with reader(cache_dir=cache) as r:
        [thread] = r.read([url], CHINA, decides=True)
    assert next(p for p in thread.posts if p.floor == 77).comments[-1].text == "改票对象：新的"
