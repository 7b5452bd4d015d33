"""Baidu Tieba: URLs, pages, 楼中楼 (JSON and fragments), saved files, and the tally on them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tally.cli import app
from tally.errors import InputError, NotAThreadError, ParseError, TruncatedPageError
from tally.fetch import fetch_thread, read_threads
from tally.platforms import resolve_url
from tally.platforms.tieba import Tieba, parse_total_comment

from .conftest import CHINA, CONTRACT_COLUMNS, FIXTURES, read_csv
from .tiebagen import TC, TP, TiebaThread, game_toml, sample

TIEBA = FIXTURES / "tieba"
runner = CliRunner()


@pytest.mark.parametrize(
    "url,base,page",
    [
        ("https://tieba.baidu.com/p/8800123456", "https://tieba.baidu.com/", 1),
        ("https://tieba.baidu.com/p/8800123456?pn=3", "https://tieba.baidu.com/", 3),
        ("http://tieba.baidu.com/p/8800123456?see_lz=1", "https://tieba.baidu.com/", 1),
        ("https://m.tieba.baidu.com/p/8800123456?pn=2&lp=5028", "https://tieba.baidu.com/", 2),
        ("http://127.0.0.1:8080/p/8800123456", "http://127.0.0.1:8080/", 1),
    ],
)
def test_url_forms(url, base, page):
    platform, ref = resolve_url(url)
    assert (platform.name, ref.thread_id, ref.base, ref.page) == ("tieba", "8800123456", base, page)
    assert platform.page_url(ref, 2) == f"{base}p/8800123456?pn=2"  # never see_lz: every floor


def test_fixtures_are_what_the_generator_writes(tmp_path):
    written = sample().save(tmp_path)
    assert sorted(p.name for p in written) == sorted(
        p.name for p in TIEBA.iterdir() if p.suffix in (".html", ".json")
    )
    for path in written:
        assert path.read_bytes() == (TIEBA / path.name).read_bytes(), path.name


def check_sample(thread):
    assert (thread.platform, thread.thread_id, thread.page_count) == ("tieba", "8800123456", 3)
    assert thread.title == "【塔达林】第二天投票帖"
    floors = [p.floor for p in thread.posts]
    # Deleted floors leave gaps; that is no error.
    assert floors == [f for f in range(1, 82) if f not in (10, 24, 32)]
    by_floor = {p.floor: p for p in thread.posts}
    sheriff = by_floor[2]
    assert (sheriff.author, sheriff.author_display, sheriff.author_id) == (
        "lengyue2019",
        "冷月",
        "5001",
    )
    assert sheriff.post_id == "150000002" and sheriff.text == "投票对象：白桃\n投票理由：狼面大"
    assert sheriff.time.isoformat() == "2024-05-08T10:01:00+08:00"
    assert by_floor[3].author_display is None  # "kiwi" shows as itself
    first = by_floor[4].comments
    assert [(c.author, c.author_display, c.time.strftime("%H:%M"), c.text) for c in first] == [
        ("ache", "阿澈", "16:00", "改票对象：白桃 改票理由：被说服了"),
        ("xiaomi_mi", "小眯", "16:05", "回复 阿澈 :为什么改我"),
        ("ache", "阿澈", "17:00", "改票对象：长夜 改票理由：再改一次"),
    ]
    long = by_floor[77].comments
    assert len(long) == 14  # 10 on the first comment page, 4 on the second
    assert [c.comment_id for c in long] == [str(160007700 + i) for i in range(1, 15)]
    assert long[-1].text == "改票对象：长夜 改票理由：楼中楼第二页的改票"
    assert sum(len(p.comments) for p in thread.posts) == 17


def test_thread_with_comments_over_loopback(forum):
    url = sample().serve(forum)
    thread = fetch_thread(url, CHINA)
    check_sample(thread)
    asked = sorted(forum.page_requests)
    assert (
        asked
        == sorted(
            [
                "/p/8800123456?pn=1",
                "/p/8800123456?pn=2",
                "/p/8800123456?pn=3",
                "/p/totalComment?tid=8800123456&fid=4321&pn=1&see_lz=0",  # page 2 has no 楼中楼: not asked
                "/p/totalComment?tid=8800123456&fid=4321&pn=3&see_lz=0",
                "/p/comment?tid=8800123456&pid=150000077&pn=1",
                "/p/comment?tid=8800123456&pid=150000077&pn=2",
            ]
        )
    )


def test_saved_pages_and_comment_files_offline():
    files = sorted(str(p) for p in TIEBA.iterdir() if p.suffix in (".html", ".json"))
    [thread] = read_threads(files, CHINA)
    check_sample(thread)


def test_saved_files_without_the_long_comment_pages():
    files = [
        str(p) for p in TIEBA.iterdir() if p.suffix in (".html", ".json") and "pid=" not in p.name
    ]
    with pytest.raises(
        InputError, match=r"floor 77 has 14 楼中楼 but 10 were read \(save its /p/totalComment"
    ):
        read_threads(files, CHINA)


def test_saved_pages_without_comment_json():
    files = [str(p) for p in TIEBA.glob("thread-p*.html")]
    with pytest.raises(InputError, match=r"floor 4 has 3 楼中楼 but 0 were read"):
        read_threads(files, CHINA)


def test_missing_comment_page_over_loopback_aborts(forum):
    url = sample().serve(forum)
    del forum.routes["p/comment?tid=8800123456&pid=150000077&pn=2"]
    with pytest.raises(Exception, match=r"pid=150000077&pn=2 answered HTTP 404"):
        fetch_thread(url, CHINA)


def test_error_pages():
    tieba = Tieba()
    with pytest.raises(NotAThreadError, match="does not exist or was deleted"):
        tieba.parse_page(
            "<html><title>贴吧404</title><body>很抱歉，该贴已被删除。</body></html>",
            CHINA,
            source="x",
        )
    with pytest.raises(NotAThreadError, match="security check"):
        tieba.parse_page("<html><title>百度安全验证</title><body></body></html>", CHINA, source="x")
    page = sample().page(1).decode()
    with pytest.raises(TruncatedPageError):
        tieba.parse_page(page[: len(page) // 2], CHINA, source="x")
    with pytest.raises(ParseError, match="answered the comment list with an error"):
        parse_total_comment('{"errno": 4, "errmsg": "need login"}', CHINA, source="x")
    with pytest.raises(NotAThreadError, match="is not a Tieba thread page"):
        tieba.parse_page("<html><body>hello</body></html>", CHINA, source="x")


def test_relative_time_is_refused():
    t = TiebaThread("1", "x").add(TP("a", "今天 17:07", "hi"))
    with pytest.raises(ParseError, match="relative time"):
        Tieba().parse_page(t.page(1).decode(), CHINA, source="x")


def game(tmp_path: Path, url: str) -> str:
    path = tmp_path / "game.toml"
    path.write_text(game_toml(url), encoding="utf-8")
    return str(path)


def test_votes_on_a_tieba_game_end_to_end(forum, tmp_path):
    """Ruleset 000: a change is a 楼中楼 under one's own vote floor (V3), once (V4)."""
    url = sample().serve(forum)
    result = runner.invoke(app, ["votes", url, "--game", game(tmp_path, url), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    got = [
        (b["floor"], b["voter"], b["kind"], b["target"], b["status"], b["reason"])
        for b in data["ballots"]
    ]
    assert got == [
        (2, "冷月", "vote", "白桃", "counted", None),
        (3, "kiwi", "vote", "长夜", "counted", None),
        (4, "阿澈", "vote", "小眯", "superseded", None),
        (4, "阿澈", "change", "白桃", "counted", None),  # a 楼中楼 under one's own vote
        (4, "阿澈", "change", "长夜", "void", "second_change"),  # a second 楼中楼 change
        (5, "风铃", "vote", "长夜", "counted", None),
        (6, "老K", "vote", "白桃", "counted", None),
        (77, "糖糖", "vote", "白桃", "superseded", None),
        (77, "糖糖", "change", "长夜", "counted", None),  # on the second comment page
        (78, "老K", "change", "长夜", "void", "change_not_reply"),  # a new floor is no change
        (79, "青山", "vote", "长夜", "counted", None),
        (80, "白桃", "abstain", "弃权", "counted", None),
        (81, "雪见", "vote", "长夜", "void", "after_close"),
    ]
    # 白桃 2.5 + 1 + 1 = 4.5; 长夜 1.5 + 1 + 1 + 1 = 4.5: the sheriff's target goes (C5).
    assert [(t["player"], t["votes"]) for t in data["totals"]] == [("白桃", 4.5), ("长夜", 4.5)]
    assert data["outcome"]["player"] == "白桃" and data["outcome"]["rule"] == "tie_sheriff_target"
    assert data["not_voted"] == ["小眯", "雪见", "南瓜", "长夜"]
    comment = next(b for b in data["ballots"] if b["post_id"] == "160000401")
    assert comment["comment"] and comment["parent_post_id"] == "150000004"


def test_votes_from_saved_tieba_files(tmp_path):
    files = sorted(str(p) for p in TIEBA.iterdir() if p.suffix in (".html", ".json"))
    result = runner.invoke(app, ["votes", *files, "--game", str(TIEBA / "game.toml"), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["outcome"]["player"] == "白桃"


def test_archive_tieba_same_columns(forum, tmp_path):
    url = sample().serve(forum)
    out = tmp_path / "t.csv"
    result = runner.invoke(app, ["archive", url, "-o", str(out)])
    assert result.exit_code == 0, result.output
    rows = read_csv(out)
    assert len(rows) == 78 + 17
    assert list(rows[0])[:10] == CONTRACT_COLUMNS
    first_comment = next(r for r in rows if r["kind"] == "comment")
    assert (first_comment["platform"], first_comment["parent_post_id"], first_comment["floor"]) == (
        "tieba",
        "150000004",
        "4",
    )
    assert first_comment["author"] == "ache" and first_comment["author_display"] == "阿澈"
    assert first_comment["time"] == "2024-05-08T16:00:00+08:00"


def test_thread_that_grew_a_comment_between_json_and_page(forum):
    """A floor says 2 楼中楼, the JSON returns 1: the fragment pages are read for the rest."""
    t = TiebaThread("77", "x").add(
        TP(
            "a",
            "2024-05-08 10:00",
            "hi",
            comments=[TC("b", "2024-05-08 10:01", "one"), TC("c", "2024-05-08 10:02", "two")],
        )
    )
    url = t.serve(forum)
    body = json.loads(t.total_comment(1))
    body["data"]["comment_list"][str(t.pid(1))]["comment_info"].pop()
    from tally.localforum import Reply

    forum.add("p/totalComment?tid=77&fid=4321&pn=1&see_lz=0", Reply(200, json.dumps(body).encode()))
    thread = fetch_thread(url, CHINA)
    assert [c.text for c in thread.posts[0].comments] == ["one", "two"]
