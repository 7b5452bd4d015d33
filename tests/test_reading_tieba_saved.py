"""Baidu Tieba: URLs, and threads saved from the desktop site before 2026 (pages, 楼中楼
JSON and fragments, hand-written pages with an ad floor and inline 楼中楼). Live threads,
read through the client API, are in test_reading_tieba_api.py."""

from __future__ import annotations

import json

import pytest

from tally.cli import app
from tally.errors import InputError, NotAThreadError, ParseError, TruncatedPageError
from tally.forums import resolve_url
from tally.forums.tieba import Tieba
from tally.forums.tieba.saved import parse_total_comment

from .conftest import CHINA, CONTRACT_COLUMNS, FIXTURES, Runner, read, read_csv
from .tiebagen import TP, TiebaThread, sample

TIEBA = FIXTURES / "tieba"
runner = Runner()


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


def test_saved_pages_and_comment_files_offline():
    files = sorted(str(p) for p in TIEBA.iterdir() if p.suffix in (".html", ".json"))
    [thread] = read(files)
    check_sample(thread)


def test_saved_files_without_the_long_comment_pages():
    files = [
        str(p) for p in TIEBA.iterdir() if p.suffix in (".html", ".json") and "pid=" not in p.name
    ]
    with pytest.raises(
        InputError, match=r"floor 77 has 14 楼中楼 but 10 were read \(save its /p/totalComment"
    ):
        read(files)


def test_saved_pages_without_comment_json():
    files = [str(p) for p in TIEBA.glob("thread-p*.html")]
    with pytest.raises(InputError, match=r"floor 4 has 3 楼中楼 but 0 were read"):
        read(files)


def test_error_pages():
    tieba = Tieba().pages
    with pytest.raises(NotAThreadError, match="does not exist or was deleted"):
        tieba.parse_page(
            "<html><title>贴吧404</title><body>很抱歉，该贴已被删除。</body></html>",
            CHINA,
            source="x",
        )
    with pytest.raises(NotAThreadError, match="security check"):
        tieba.parse_page("<html><title>百度安全验证</title><body></body></html>", CHINA, source="x")
    page = sample().page(1).decode()
    with pytest.raises(TruncatedPageError, match="ends before the forum finished the page"):
        tieba.parse_page(page[: len(page) // 2], CHINA, source="x")
    with pytest.raises(ParseError, match="answered the comment list with an error"):
        parse_total_comment('{"errno": 4, "errmsg": "need login"}', CHINA, source="x")
    with pytest.raises(NotAThreadError, match="is not a Tieba thread page"):
        tieba.parse_page("<html><body>hello</body></html>", CHINA, source="x")


def test_relative_time_is_refused():
    t = TiebaThread("1", "x").add(TP("a", "今天 17:07", "hi"))
    with pytest.raises(ParseError, match="relative time"):
        Tieba().pages.parse_page(t.page(1).decode(), CHINA, source="x")


def test_votes_from_saved_tieba_files(tmp_path):
    files = sorted(str(p) for p in TIEBA.iterdir() if p.suffix in (".html", ".json"))
    result = runner.invoke(app, ["votes", *files, "--game", str(TIEBA / "game.toml"), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["outcome"]["player"] == "白桃"


# -- pages saved from a browser before 2026, written by hand (fixtures/tieba-saved/) ---------

SAVED = FIXTURES / "tieba-saved"
WHOLE = [SAVED / "p1.html", SAVED / "p2.html", SAVED / "comment-pid=150999004-pn2.html"]


def test_a_saved_page_with_an_ad_floor_and_inline_comments():
    [thread] = read([str(p) for p in WHOLE])
    assert (thread.thread_id, thread.title, thread.page_count) == (
        "8800999001",
        "【塔达林】第三天投票帖",
        2,
    )
    # The advertising floor between 3 and 4 is no floor; floor 7 was deleted.
    assert [p.floor for p in thread.posts] == [1, 2, 3, 4, 5, 6, 8] and thread.gaps == (7,)
    by_floor = {p.floor: p for p in thread.posts}
    two = by_floor[2]
    assert (two.post_id, two.author, two.author_display, two.author_id) == (
        "150999002",
        "lengyue2019",
        "冷月",
        "5001",
    )
    assert two.text == "投票对象：白桃\n投票理由：昨天的发言对不上"  # the emoticon image is no text
    assert two.time.isoformat() == "2024-05-10T10:02:00+08:00"  # after "来自Android客户端"
    assert [
        (c.comment_id, c.author, c.author_display, c.time.strftime("%H:%M"), c.text)
        for c in two.comments
    ] == [
        ("160999201", "xiaomi_mi", "小眯", "10:15", "白桃昨天站边很怪"),
        ("160999202", "lengyue2019", "冷月", "10:20", "回复 小眯 :是的"),
        ("160999203", "lengyue2019", "冷月", "15:40", "改票对象：长夜 改票理由：听了小眯的"),
    ]
    four = by_floor[4].comments
    assert len(four) == 12 and [c.comment_id for c in four] == [
        str(160999400 + i) for i in range(1, 13)
    ]
    assert four[-1].text == "改票对象：长夜 改票理由：楼中楼第二页"
    assert (
        by_floor[3].author_display is None
        and by_floor[8].text == "投票对象：长夜\n投票理由：站边冷月"
    )


def test_a_floor_with_more_comments_than_inline_names_the_floor():
    with pytest.raises(InputError, match="floor 4 has 12 楼中楼 but 10 were read") as info:
        read([str(SAVED / "p1.html"), str(SAVED / "p2.html")])
    assert str(info.value) == (
        f"{SAVED / 'p1.html'}: floor 4 has 12 楼中楼 but 10 were read (save its "
        "/p/totalComment JSON and, past the first 10, its /p/comment pages)."
    )


def test_votes_on_the_hand_written_saved_thread(tmp_path):
    """Ruleset 000: 冷月's 楼中楼 change and 糖糖's on the second comment page both count."""
    game = tmp_path / "g.toml"
    game.write_text(
        (TIEBA / "game.toml")
        .read_text(encoding="utf-8")
        .replace("8800123456", "8800999001")
        .replace("day = 2\n", "day = 3\n")  # the saved thread is 第三天投票帖
        .replace("2024-05-08T09:30:00", "2024-05-10T09:30:00")
        .replace("2024-05-09T21:30:00", "2024-05-11T21:30:00"),
        encoding="utf-8",
    )
    result = runner.invoke(app, ["votes", *map(str, WHOLE), "--game", str(game), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    got = [
        (b["floor"], b["voter"], b["kind"], b["target"], b["status"])
        for b in data["ballots"]
        if b["status"] != "not_a_ballot"  # the chatter, listed apart
    ]
    assert got == [
        (2, "冷月", "vote", "白桃", "superseded"),
        (2, "冷月", "change", "长夜", "counted"),
        (3, "kiwi", "vote", "长夜", "counted"),
        (4, "糖糖", "vote", "白桃", "superseded"),
        (4, "糖糖", "change", "长夜", "counted"),
        (5, "白桃", "abstain", "弃权", "counted"),
        (6, "长夜", "vote", "白桃", "counted"),
        (8, "青山", "vote", "长夜", "counted"),
    ]
    # 长夜: 冷月 2.5 + kiwi 1.5 + 糖糖 + 青山 = 6; 白桃: 长夜 1.
    assert [(t["player"], t["votes"]) for t in data["totals"]] == [("长夜", 6), ("白桃", 1)]
    assert data["provisional"] is True  # saved pages end at 16:00, before the 21:30 close


def test_partial_archive_writes_what_is_there_and_lists_what_is_missing(tmp_path):
    out = tmp_path / "partial.csv"
    refused = runner.invoke(app, ["archive", str(SAVED / "p1.html"), "-o", str(out)])
    assert refused.exit_code == 2 and "page(s) 2 were not given" in refused.stderr
    assert not out.exists()
    result = runner.invoke(app, ["archive", "--partial", str(SAVED / "p1.html"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "tally: warning: thread 8800999001 is partial: page 2 of 2 missing" in result.stderr
    assert "tally: warning: thread 8800999001 is partial: floor 4: 10 of its 12 楼中楼 missing" in (
        result.stderr
    )
    rows = read_csv(out)
    assert list(rows[0])[:10] == CONTRACT_COLUMNS
    floors = [(r["floor"], r["kind"]) for r in rows]
    assert floors.count(("4", "comment")) == 10 and floors.count(("2", "comment")) == 3
    assert sorted({int(r["floor"]) for r in rows}) == [1, 2, 3, 4, 5]
    assert next(r for r in rows if r["post_id"] == "160999203")["parent_post_id"] == "150999002"


def test_votes_never_take_a_partial_thread(tmp_path):
    result = runner.invoke(
        app, ["votes", str(SAVED / "p1.html"), "--game", str(TIEBA / "game.toml")]
    )
    assert result.exit_code == 2 and "were not given" in result.stderr


def test_a_page_saved_from_the_2026_front_end_is_refused():
    result = runner.invoke(app, ["archive", str(SAVED / "new-front-end.html"), "-o", "x.csv"])
    assert result.exit_code == 2
    assert result.stderr == (
        f"tally: {SAVED / 'new-front-end.html'} was saved from Tieba's 2026 web front end, "
        "whose HTML holds no floors; give tally the thread's URL "
        "(https://tieba.baidu.com/p/8800999001) instead.\n"
    )
