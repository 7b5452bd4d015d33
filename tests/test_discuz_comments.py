"""点评 past the five a Discuz! page shows, on pages a real Discuz! X3.5 rendered.

fixtures/discuz-x35-changes/comments-*: a vote thread whose floor 2 (alice's ballot, pid 13)
holds six 点评; the page shows the newest five and a 下一页 link, and the forum's commentmore
script serves all six, five a page, newest first. The oldest, on its page 2 and on no thread
page, is alice's 改票 (RULES V3: a change as a 点评 under one's own vote floor). Discuz!'s
robots.txt closes that script: tally reads it where a board profile says the board's admin
lets it (``comment_pages``), or where robots.txt allows it, and stops elsewhere.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tally.cli import app
from tally.demo.localforum import LocalForum, Reply
from tally.errors import FetchError, InputError, ParseError
from tally.forums import by_name
from tally.forums.boards import parse_boards
from tally.forums.discuz_comments import parse_comment_answer
from tally.forums.http import HttpOptions

from .conftest import FIXTURES, FakeClock, Runner

CHANGES = FIXTURES / "discuz-x35-changes"
DISCUZ = FIXTURES / "discuz"
CHINA = ZoneInfo("Asia/Shanghai")
XML = {"Content-Type": "text/xml; charset=utf-8"}
MORE = "forum.php?mod=misc&action=commentmore&tid=4&pid=13&page={}&inajax=1"
runner = Runner()


def serve(forum: LocalForum, reader: str = "guest", robots: bool = True) -> str:
    forum.add_discuz_page("4", 1, (CHANGES / f"comments-{reader}.html").read_bytes())
    for number in (1, 2):
        body = (CHANGES / f"comments-more-{number}-{reader}.xml").read_bytes()
        forum.add(MORE.format(number), Reply(200, body, XML))
    if robots:  # Discuz! X3.5's own robots.txt: Disallow: /*?mod=misc*
        text = (DISCUZ / "robots.txt").read_bytes()
        forum.add("robots.txt", Reply(200, text, {"Content-Type": "text/plain"}))
    return forum.url("forum.php?mod=viewthread&tid=4")


def files(tmp_path: Path, url: str, profile: str | None) -> list[str]:
    game = tmp_path / "game.toml"
    game.write_text(
        f"""
name = "点评局"
ruleset = "default"
directors = ["admin"]
players = ["alice", "bob", "carol", "dave", "eve"]

[[days]]
day = 2
opens = 2026-12-02T06:00:00
closes = 2026-12-02T08:00:00
vote = "{url}"
""",
        encoding="utf-8",
    )
    args = ["--game", str(game), "--cache-dir", str(tmp_path / "cache")]
    if profile is not None:
        boards = tmp_path / "boards.toml"
        boards.write_text(profile, encoding="utf-8")
        args += ["--boards", str(boards)]
    return args


ALLOWED = '[board.test]\nhosts = ["127.0.0.1"]\ncomment_pages = true\n'


def votes(forum: LocalForum, tmp_path: Path, profile: str | None, reader: str = "guest"):
    url = serve(forum, reader)
    clock = FakeClock(datetime(2026, 12, 2, 8, 5, tzinfo=CHINA).astimezone(UTC))
    env = clock.env(http=HttpOptions(host_delay=0))  # type: ignore[arg-type]
    args = ["votes", url, *files(tmp_path, url, profile), "--json"]
    return runner.invoke(app, args, obj=env)


@pytest.mark.rules("V3", "C1")
@pytest.mark.parametrize("reader", ["guest", "admin"])
def test_V3_a_change_past_the_five_shown_is_read_and_counts(forum, tmp_path, reader):
    """Without the sixth 点评, alice's vote for bob stood and bob was out; her change to
    carol, on the script's page 2 alone, makes carol the one out."""
    result = votes(forum, tmp_path, ALLOWED, reader)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["outcome"]["result"], data["outcome"]["player"]) == ("eliminated", "carol")
    change = next(b for b in data["ballots"] if b["kind"] == "change")
    assert (change["author"], change["target"], change["status"]) == ("alice", "carol", "counted")
    # Numbered oldest first over all six: the change is the floor's 点评 1 (a ruling's
    # comment = 1), whatever the page showed.
    assert change["post_id"] == "13.1" and change["author_id"] == "2"
    asked = [r for r in forum.page_requests if "commentmore" in r]
    assert asked == ["/" + MORE.format(n) for n in (1, 2, 1)]


def test_robots_closes_the_script_and_nothing_says_the_admin_allows_it(forum, tmp_path):
    result = votes(forum, tmp_path, None)
    assert result.exit_code == 3
    assert result.stdout == ""
    message = " ".join(result.stderr.split())
    assert "floor 2 (post 13) has more 点评 than the page shows" in message
    assert "robots.txt closes to tally" in message
    assert "board profile for 127.0.0.1 (comment_pages = true; docs/boards.md)" in message
    assert not [r for r in forum.requests if "commentmore" in r]


def test_a_profile_for_another_host_gives_no_leave(forum, tmp_path):
    result = votes(forum, tmp_path, '[board.x]\nhosts = ["bbs.example.com"]\ncomment_pages = true\n')
    assert result.exit_code == 3 and "robots.txt closes to tally" in result.stderr
    assert not [r for r in forum.requests if "commentmore" in r]


def test_where_robots_allows_the_script_no_profile_is_needed(forum, tmp_path):
    url = serve(forum, robots=False)  # no robots.txt: no rule
    clock = FakeClock(datetime(2026, 12, 2, 8, 5, tzinfo=CHINA).astimezone(UTC))
    env = clock.env(http=HttpOptions(host_delay=0))  # type: ignore[arg-type]
    result = runner.invoke(app, ["votes", url, *files(tmp_path, url, None), "--json"], obj=env)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["outcome"]["player"] == "carol"


def test_a_page_of_comments_that_moved_while_read_is_read_again(forum, tmp_path):
    """A 点评 added between the script's pages pushes one down a page: its first page read
    again differs, and the floor is read again, once."""
    url = serve(forum)
    first = (CHANGES / "comments-more-1-guest.xml").read_bytes()
    asked: list[int] = []

    def moved(path: str) -> Reply | None:
        if path == "/" + MORE.format(1):
            asked.append(1)
            if len(asked) == 2:  # the check at the end of the first read: another list
                return Reply(200, first.replace("carol：楼上改得好快".encode(), "新点评".encode()), XML)
        return None

    forum.hook = moved
    clock = FakeClock(datetime(2026, 12, 2, 8, 5, tzinfo=CHINA).astimezone(UTC))
    env = clock.env(http=HttpOptions(host_delay=0))  # type: ignore[arg-type]
    result = runner.invoke(app, ["votes", url, *files(tmp_path, url, ALLOWED), "--json"], obj=env)
    assert result.exit_code == 0, result.output
    assert len(asked) == 4  # read, checked (changed), read again, checked
    ballots = json.loads(result.stdout)["ballots"]
    assert "新点评" not in json.dumps(ballots, ensure_ascii=False)
    # Six 点评, the director's own (admin) no ballot row.
    assert len([b for b in ballots if b["comment"]]) == 5


def test_comments_that_keep_changing_stop_the_count(forum, tmp_path):
    serve(forum)
    first = (CHANGES / "comments-more-1-guest.xml").read_bytes()
    calls = iter(range(1000))

    def restless(path: str) -> Reply | None:
        if path == "/" + MORE.format(1):
            return Reply(200, first.replace("admin：".encode(), f"admin{next(calls)}：".encode()), XML)
        return None

    forum.hook = restless
    result = votes(forum, tmp_path, ALLOWED)
    assert result.exit_code == 3
    assert "the 点评 of floor 2 (post 13) changed twice while tally read their 2 pages" in (
        " ".join(result.stderr.split())
    )


def test_a_saved_page_that_shows_only_the_newest_comments_is_refused(tmp_path):
    saved = tmp_path / "vote.html"
    saved.write_bytes((CHANGES / "comments-guest.html").read_bytes())
    platform = by_name("discuz")
    with pytest.raises(InputError, match="floor 2 shows only the newest of its 点评"):
        platform.pages.parse_saved(saved.read_text(encoding="utf-8"), CHINA, source=str(saved))


def test_the_script_answer_as_a_guest_and_as_the_admin():
    """The admin's answer adds each 点评's IP and a 删除 link: the same 点评 are read."""
    read = {}
    for who in ("guest", "admin"):
        pages = [
            parse_comment_answer(
                (CHANGES / f"comments-more-{n}-{who}.xml").read_text(encoding="utf-8"), CHINA, "x"
            )
            for n in (1, 2)
        ]
        assert [count for _, count in pages] == [2, 2]
        read[who] = [(c.author, c.author_id, c.time, c.text) for items, _ in pages for c in items]
    assert read["guest"] == read["admin"]
    assert [a for a, *_ in read["guest"]] == ["admin", "carol", "bob", "eve", "dave", "alice"]
    assert read["guest"][-1][3] == "改票对象：carol 改票理由：她替bob说话"
    assert read["guest"][-1][2] == datetime(2026, 12, 2, 6, 28, tzinfo=CHINA)


def test_an_answer_that_is_no_list_of_comments():
    with pytest.raises(ParseError, match="not the forum's ajax answer"):
        parse_comment_answer("<html><body>登录</body></html>", CHINA, "x")
    message = '<?xml version="1.0"?>\n<root><![CDATA[<div class="alert_error">点评功能已关闭</div>]]></root>'
    with pytest.raises(FetchError, match="answered with no 点评 but its message '点评功能已关闭'"):
        parse_comment_answer(message, CHINA, "x")


def test_comment_pages_is_true_or_false():
    with pytest.raises(InputError, match="comment_pages must be true or false"):
        parse_boards('[board.x]\nhosts = ["a.example"]\ncomment_pages = "yes"\n', "b.toml")
    (board,) = parse_boards('[board.x]\nhosts = ["a.example"]\ncomment_pages = true\n', "b.toml")
    assert board.comment_pages and not board.acts  # it changes no reading of a page


def test_a_scored_comment_is_read_and_the_score_summary_is_no_comment(forum, tmp_path):
    """Any member may send scores with a 点评 (commentitem[...]: X3.5 checks them against
    nothing): Discuz! then writes the scores' summary as the first div.pstl of the floor's
    点评, with no author. It stopped the count ("a 点评 has no author"); it is no 点评."""
    forum.add_discuz_page("4", 1, (CHANGES / "comments-scored-guest.html").read_bytes())
    for number in (1, 2):
        body = (CHANGES / f"comments-more-{number}-guest.xml").read_bytes()
        forum.add(MORE.format(number), Reply(200, body, XML))
    url = forum.url("forum.php?mod=viewthread&tid=4")
    clock = FakeClock(datetime(2026, 12, 2, 8, 5, tzinfo=CHINA).astimezone(UTC))
    env = clock.env(http=HttpOptions(host_delay=0))  # type: ignore[arg-type]
    result = runner.invoke(app, ["votes", url, *files(tmp_path, url, ALLOWED), "--json"], obj=env)
    assert result.exit_code == 0, result.output
    scored = [b for b in json.loads(result.stdout)["ballots"] if b["parent_post_id"] == "14"]
    assert [(b["post_id"], b["author"], b["words"]) for b in scored] == [
        ("14.1", "dave", "观点: 4 逻辑: 2 同意这票")
    ]
    items, pages = parse_comment_answer(
        (CHANGES / "comments-scored-more-1-guest.xml").read_text(encoding="utf-8"), CHINA, "x"
    )
    assert ([c.author for c in items], pages) == (["dave"], 1)


def test_an_authorless_comment_that_is_no_score_summary_still_stops():
    text = (CHANGES / "comments-scored-more-1-guest.xml").read_text(encoding="utf-8")
    with pytest.raises(ParseError, match="a 点评 has no author"):
        parse_comment_answer(text.replace('class="cmstarv"', 'class="x"'), CHINA, "x")


def test_doctor_says_which_posts_show_only_their_newest_comments(tmp_path):
    saved = tmp_path / "vote.html"
    saved.write_bytes((CHANGES / "comments-guest.html").read_bytes())
    result = runner.invoke(app, ["doctor", str(saved), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    whole = next(f for f in data["fields"] if f["name"] == "点评 whole")
    assert (whole["found"], whole["of"], whole["essential"]) == (3, 4, False)
    assert whole["missing"][0].startswith("post 13 shows only its newest 点评")


def test_a_gbk_boards_answer_is_read_in_its_charset_with_or_without_the_header():
    """A GBK board answers in GBK (Discuz!'s ajax header names CHARSET, its XML declaration too)."""
    from tally.forums.base import Answer

    text = (CHANGES / "comments-more-2-guest.xml").read_text(encoding="utf-8")
    body = text.replace('encoding="utf-8"', 'encoding="gbk"').encode("gbk")
    for content_type in ("text/xml; charset=gbk", "text/xml", None):
        items, _ = parse_comment_answer(Answer(body, content_type).text("x"), CHINA, "x")
        assert items[0].text == "改票对象：carol 改票理由：她替bob说话"
