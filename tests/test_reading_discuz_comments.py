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
from tally.environment import HttpOptions
from tally.errors import FetchError, InputError, ParseError
from tally.forums import by_name
from tally.forums.boards import parse_boards
from tally.forums.discuz.comments import parse_comment_answer

from .conftest import FIXTURES, FakeClock, Runner
from .gamefiles import day, write_game

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
    tmp_path.mkdir(parents=True, exist_ok=True)
    game = write_game(
        tmp_path / "game.toml", day(2, url, "2026-12-02T06:00:00", "2026-12-02T08:00:00"),
        name="点评局", ruleset="default", directors=["admin"],
        players=["alice", "bob", "carol", "dave", "eve"],
    )  # fmt: skip
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
    # Every page, twice: two reads in a row that agree are the floor's 点评.
    assert asked == ["/" + MORE.format(n) for n in (1, 2, 1, 2)]


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
    """A 点评 added while the script's pages are read: the second read differs from the
    first, and the floor is read until two reads in a row agree."""
    url = serve(forum)
    first = (CHANGES / "comments-more-1-guest.xml").read_bytes()
    asked: list[int] = []

    def moved(path: str) -> Reply | None:
        if path == "/" + MORE.format(1):
            asked.append(1)
            if len(asked) == 2:  # the second read: another list
                return Reply(200, first.replace("carol：楼上改得好快".encode(), "新点评".encode()), XML)
        return None

    forum.hook = moved
    clock = FakeClock(datetime(2026, 12, 2, 8, 5, tzinfo=CHINA).astimezone(UTC))
    env = clock.env(http=HttpOptions(host_delay=0))  # type: ignore[arg-type]
    result = runner.invoke(app, ["votes", url, *files(tmp_path, url, ALLOWED), "--json"], obj=env)
    assert result.exit_code == 0, result.output
    assert len(asked) == 4  # A, B (changed), A, A
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
    assert "the 点评 of floor 2 (post 13) changed each of the 4 times tally read them" in (
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
    page = "<html><head><title>提示信息</title></head><body>请先登录</body></html>"
    with pytest.raises(FetchError, match=r"answered with a web page, not its list of 点评 \(titled '提示信息'"):
        parse_comment_answer(page, CHINA, "x")
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
    from tally.forums.asking import Answer

    text = (CHANGES / "comments-more-2-guest.xml").read_text(encoding="utf-8")
    body = text.replace('encoding="utf-8"', 'encoding="gbk"').encode("gbk")
    for content_type in ("text/xml; charset=gbk", "text/xml", None):
        items, _ = parse_comment_answer(Answer(body, content_type).text("x"), CHINA, "x")
        assert items[0].text == "改票对象：carol 改票理由：她替bob说话"


def run(forum: LocalForum, tmp_path: Path, url: str, profile: str | None = ALLOWED):
    clock = FakeClock(datetime(2026, 12, 2, 8, 5, tzinfo=CHINA).astimezone(UTC))
    env = clock.env(http=HttpOptions(host_delay=0))  # type: ignore[arg-type]
    return runner.invoke(app, ["votes", url, *files(tmp_path, url, profile), "--json"], obj=env)


def test_leave_past_robots_is_for_the_script_alone_never_a_redirect_from_it(forum, tmp_path):
    """A redirect from the 点评 script, to a path robots.txt closes on the board or to
    another host, is asked of robots.txt like any page: the leave was for the script."""
    url = serve(forum)
    body = (CHANGES / "comments-more-1-guest.xml").read_bytes()
    forum.add(MORE.format(1), Reply(302, b"", {"Location": "/api/page1.xml"}))
    forum.add("api/page1.xml", Reply(200, body, XML))  # /api/: closed by Discuz!'s robots.txt
    result = run(forum, tmp_path, url)
    assert result.exit_code == 3
    assert "robots.txt does not allow tally to read" in result.stderr
    # Past robots.txt: the script, and the board's mobile interface (its probe, by design:
    # docs/boards.md), never the redirect's target.
    assert not [r for r in forum.requests if r.startswith("/api/") and "module=viewthread" not in r]
    other = forum.url("api/x.xml").replace("127.0.0.1", "localhost")
    forum.add(MORE.format(1), Reply(302, b"", {"Location": other}))
    result = run(forum, tmp_path / "2", url)
    assert result.exit_code == 3
    assert not [r for r in forum.requests if r.startswith("/api/") and "module=viewthread" not in r]


def test_a_web_page_in_place_of_the_answer_is_said_as_such(forum, tmp_path):
    url = serve(forum)
    page = "<!DOCTYPE html><html><head><title>提示信息 - 版杀</title></head><body><p>请先登录</p></body></html>"
    forum.add(MORE.format(1), Reply(200, page.encode(), {"Content-Type": "text/html; charset=utf-8"}))
    result = run(forum, tmp_path, url)
    assert result.exit_code == 3
    message = " ".join(result.stderr.split())
    assert "answered with a web page, not its list of 点评 (titled '提示信息 - 版杀')" in message
    # Not read again as cut (the probe of the board's mobile interface aside).
    assert len([r for r in forum.requests if "mod=viewthread" in r]) == 1


def test_a_floor_whose_comments_are_all_gone_since_is_no_hand_count(forum, tmp_path):
    """The script's empty list is read as one (every 点评 deleted since the page was read):
    the page, which still counts them among its replies, is read again, and a thread whose
    page and script still disagree says to run again."""
    url = serve(forum)
    empty = '<?xml version="1.0" encoding="utf-8"?>\n<root><![CDATA[<div class="pgs mbm cl"></div>]]></root>'
    forum.add(MORE.format(1), Reply(200, empty.encode(), XML))
    result = run(forum, tmp_path, url)
    message = " ".join(result.stderr.split())
    assert result.exit_code == 3 and "count the day by hand" not in message
    assert "the thread says it has 9 replies but tally read 3 (and 0 comments)" in message


def test_the_forums_speed_limit_says_how_to_slow_down(forum, tmp_path):
    """X3.5's 防CC answer to an ajax request (lang_security.php, attackevasive_1)."""
    url = serve(forum)
    limit = (
        '<?xml version="1.0" encoding="utf-8"?>\n<root><![CDATA[<div id="attackevasive_1" '
        'class="popupmenu_option"><b style="font-size: 16px">频繁刷新限制</b><br /><br />'
        "您访问本站速度过快或者刷新间隔时间小于两秒！请等待页面自动跳转 ...</div>]]></root>"
    )
    forum.add(MORE.format(2), Reply(200, limit.encode(), XML))
    result = run(forum, tmp_path, url)
    assert result.exit_code == 3
    assert "set politeness = 2 in the config file" in " ".join(result.stderr.split())


def _item(author: str, uid: int, text: str, minute: int) -> str:
    return (
        f'<div class="pstl">\n<div class="psta">\n<a href="home.php?mod=space&amp;uid={uid}" '
        f'class="xi2 xw1">{author}</a>\n</div>\n<div class="psti">\n&nbsp;{text}&nbsp;\n'
        f'<span class="xg1">\n发表于 <span title="2026-12-2 06:{minute:02d}">1&nbsp;分钟前</span>'
        "</span>\n</div>\n</div>\n"
    )


def _answer(items: list[str], number: int, pages: int) -> bytes:
    pager = (
        f'<div class="pgs mbm cl"><div class="pg"><strong>{number}</strong><label>'
        f'<span title="共 {pages} 页"> / {pages} 页</span></label></div></div>'
    )
    body = '<h3 class="psth cm">点评</h3>\n' + "".join(items) + pager
    return f'<?xml version="1.0" encoding="utf-8"?>\n<root><![CDATA[{body}]]></root>'.encode()


@pytest.mark.rules("V3")
def test_a_comment_deleted_on_a_middle_page_while_read_loses_no_other(forum, tmp_path):
    """Twelve 点评 (pages of 5, 5, 2), alice's 改票 the newest of page 3. A moderator deletes
    one of page 2 just after tally read it: page 3's first moves to page 2, and the pages
    as read hold it nowhere. The floor is read again until two reads agree."""
    url = serve(forum)
    chat = [_item("admin", 1, f"闲聊{i}", 40 - i) for i in range(10)]
    change = _item("alice", 2, "改票对象：carol 改票理由：她替bob说话", 29)
    state = {"list": [*chat, change, _item("admin", 1, "最早的点评", 28)], "deleted": False}

    def hook(path: str) -> Reply | None:
        for n in (1, 2, 3):
            if path == "/" + MORE.format(n):
                items = state["list"]
                pages = [items[i : i + 5] for i in range(0, len(items), 5)]
                reply = Reply(200, _answer(pages[n - 1] if n <= len(pages) else [], n, len(pages)), XML)
                if n == 2 and not state["deleted"]:
                    state["deleted"] = True
                    state["list"] = [c for c in items if "闲聊7" not in c]
                return reply
        return None

    forum.hook = hook
    result = run(forum, tmp_path, url)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["outcome"]["player"] == "carol"
    assert len([b for b in data["ballots"] if b["parent_post_id"] == "13"]) == 1  # alice's


def test_a_ballot_in_a_code_block_is_read_without_the_forums_copy_button():
    """The adversary's [code] ballot: its line in the closing post ended "复制代码"."""
    from tally.forums.discuz import DiscuzPages

    text = (CHANGES / "code-guest.html").read_text(encoding="utf-8")
    post = next(p for p in DiscuzPages().parse_page(text, CHINA, source="x").posts if p.post_id == "16")
    assert "复制代码" not in post.text
    assert post.text.split() == ["投票对象：carol", "投票理由：代码框"]


@pytest.mark.rules("V1", "V7", "L3")
def test_a_ballot_in_a_quote_box_typed_by_hand_is_the_posters_own_and_flagged(forum, tmp_path):
    """The adversary's [quote] around one's own ballot: it quotes no post (no 发表于 header,
    no link), and tally read it as a quote, so no ballot, and an L3 card. It is read as the
    poster's words, flagged for the director."""
    forum.add_discuz_page("4", 1, (CHANGES / "quote-box-guest.html").read_bytes())
    for number in (1, 2):
        body = (CHANGES / f"comments-more-{number}-guest.xml").read_bytes()
        forum.add(MORE.format(number), Reply(200, body, XML))
    url = forum.url("forum.php?mod=viewthread&tid=4")
    result = run(forum, tmp_path, url)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    [eve] = [b for b in data["ballots"] if b["post_id"] == "31"]
    assert (eve["voter"], eve["target"], eve["status"]) == ("eve", "bob", "counted")
    assert [f["rule"] for f in data["flags"] if f["post_id"] == "31"] == ["quote box"]
    assert "eve" not in data["not_voted"]


def test_a_quote_of_another_post_stays_a_quote():
    """A quote with its 发表于 header, or a link to the post it quotes, is no one's own words."""
    from tally.forums.discuz import DiscuzPages

    text = (CHANGES / "quote-box-guest.html").read_text(encoding="utf-8").replace(
        '<div class="quote"><blockquote>投票对象：bob',
        '<div class="quote"><blockquote>bob 发表于 2026-12-2 06:27<br />投票对象：bob', 1
    )
    post = next(p for p in DiscuzPages().parse_page(text, CHINA, source="x").posts if p.post_id == "31")
    from tally.model import Writing
    from tally.rules.judging.sorting import _typed_quote

    writing = Writing(post, None, post.post_id, post.author, None, post.time, post.text)
    assert _typed_quote(writing) == ""


def _at(hour: int, minute: int) -> object:
    clock = FakeClock(datetime(2026, 12, 2, hour, minute, tzinfo=CHINA).astimezone(UTC))
    return clock.env(http=HttpOptions(host_delay=0))  # type: ignore[arg-type]


@pytest.mark.rules("L3", "S2")
def test_a_vote_thread_closed_before_the_close_is_said_and_named_on_the_l3_cards(forum, tmp_path):
    """The adversary closed (关闭) the vote thread 20 minutes before the close: nothing said
    so, and the players who could not vote since were carded L3 without a word."""
    url = serve(forum)
    forum.add_discuz_page("4", 1, (CHANGES / "closed-guest.html").read_bytes())
    args = files(tmp_path, url, ALLOWED)
    game = tmp_path / "game.toml"
    text = game.read_text(encoding="utf-8").replace('"eve"]', '"eve", "frank"]')  # frank never votes
    game.write_text(text + f'discussion = "{url}"\n', encoding="utf-8")  # one thread for both
    during = runner.invoke(app, ["votes", url, *args, "--json"], obj=_at(7, 40))
    assert during.exit_code == 0, during.output
    [flag] = [f for f in json.loads(during.stdout)["flags"] if f["rule"] == "closed"]
    assert flag["note"].startswith("the vote thread was closed (关闭) when tally read it 12-02 07:40; the day")
    after = runner.invoke(app, ["lurkers", *args, "--day", "2", "--no-write"], obj=_at(8, 5))
    assert after.exit_code == 0, after.output
    # The lurker check read it closed again at 08:05: one run of closed reads, 07:40 to 08:05.
    assert "frank: yellow card (L3) — 第2天未投票（投票帖12-02 07:40至12-02 08:05读到已关闭）" in after.stdout
    # Reopened before the close (the second real-forum session): it was closed all the same.
    forum.add_discuz_page("4", 1, (CHANGES / "comments-guest.html").read_bytes())
    again = runner.invoke(app, ["votes", url, *args, "--json"], obj=_at(8, 5))
    assert [f["rule"] for f in json.loads(again.stdout)["flags"]].count("closed") == 1
    never = tmp_path / "open"
    later = runner.invoke(app, ["votes", url, *files(never, url, ALLOWED), "--json"], obj=_at(8, 5))
    assert not [f for f in json.loads(later.stdout)["flags"] if f["rule"] == "closed"]


def test_a_quote_box_holding_another_floors_words_is_a_quote(forum, tmp_path):
    """From the second cold read: eve pastes floor 2's ballot into a [quote] (or cuts the
    引用 box's header away) and adds her remark: the words are alice's, not eve's ballot."""
    text = (CHANGES / "quote-box-guest.html").read_text(encoding="utf-8")
    old = ('<div class="quote"><blockquote>投票对象：bob<br />\n投票理由：手写的引用框</blockquote>'
           "</div>以上是我的票，法官查收")  # fmt: skip
    assert old in text
    pasted = '<div class="quote"><blockquote>投票对象：bob<br />\n投票理由：发言划水</blockquote></div>这理由太敷衍了吧'
    forum.add_discuz_page("4", 1, text.replace(old, pasted).encode("utf-8"))
    for number in (1, 2):
        body = (CHANGES / f"comments-more-{number}-guest.xml").read_bytes()
        forum.add(MORE.format(number), Reply(200, body, XML))
    result = run(forum, tmp_path, forum.url("forum.php?mod=viewthread&tid=4"))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    [eve] = [b for b in data["ballots"] if b["post_id"] == "31"]
    assert eve["status"] == "not_a_ballot" and "eve" in data["not_voted"]


@pytest.mark.rules("V6", "V7")
def test_a_quote_box_ballot_beside_another_is_two_ballots_in_one_post(forum, tmp_path):
    """From the second real-forum session: a typed box with one ballot and another ballot
    under it counted the one outside; without the box the post is void (two ballots)."""
    text = (CHANGES / "quote-box-guest.html").read_text(encoding="utf-8")
    old = "</blockquote></div>以上是我的票，法官查收"
    assert old in text
    text = text.replace(old, "</blockquote></div>投票对象：carol<br />\n投票理由：框外", 1)
    forum.add_discuz_page("4", 1, text.encode("utf-8"))
    for number in (1, 2):
        body = (CHANGES / f"comments-more-{number}-guest.xml").read_bytes()
        forum.add(MORE.format(number), Reply(200, body, XML))
    result = run(forum, tmp_path, forum.url("forum.php?mod=viewthread&tid=4"))
    assert result.exit_code == 0, result.output
    [eve] = [b for b in json.loads(result.stdout)["ballots"] if b["post_id"] == "31"]
    assert (eve["status"], eve["reason"]) == ("void", "several_ballots")


@pytest.mark.rules("V3")
def test_a_comment_under_the_opening_post_is_a_writing_like_any(forum, tmp_path):
    """From the second real-forum session: a M126 change 点评'd under the director's header
    vanished (no row, its voter 'not voted'): the header floor was passed over with its 点评."""
    text = (CHANGES / "comments-guest.html").read_text(encoding="utf-8")
    box = '<div id="comment_12" class="cm">\n</div>'
    assert box in text
    comment = (
        '<div id="comment_12" class="cm">\n<h3 class="psth xs1"><span class="icon_ring vm"></span>点评</h3>\n'
        '<div class="pstl xs1 cl">\n<div class="psta vm">\n<a href="home.php?mod=space&amp;uid=5" '
        'class="xi2 xw1">dave</a>\n</div>\n<div class="psti">\n投票对象：carol&nbsp;\n<span class="xg1">\n'
        '发表于 <span title="2026-12-2 06:40">1&nbsp;分钟前</span></span>\n</div>\n</div>\n</div>'
    )
    forum.add_discuz_page("4", 1, text.replace(box, comment, 1).encode("utf-8"))
    for number in (1, 2):
        body = (CHANGES / f"comments-more-{number}-guest.xml").read_bytes()
        forum.add(MORE.format(number), Reply(200, body, XML))
    url = forum.url("forum.php?mod=viewthread&tid=4")
    args = files(tmp_path, url, ALLOWED)
    game = tmp_path / "game.toml"
    game.write_text(game.read_text(encoding="utf-8").replace('ruleset = "default"', 'ruleset = "M126"'),
                    encoding="utf-8")  # fmt: skip
    result = runner.invoke(app, ["votes", url, *args, "--json"], obj=_at(8, 5))
    assert result.exit_code == 0, result.output
    [dave] = [b for b in json.loads(result.stdout)["ballots"] if b["post_id"] == "12.1"]
    assert (dave["voter"], dave["target"], dave["status"]) == ("dave", "carol", "counted")


@pytest.mark.parametrize("page", ["comment-authoronleft-off-guest.html", "comment-renamed-theme-guest.html"])
def test_a_comment_authors_link_is_never_the_floors_author(page):
    """From the third real-forum session: a 点评's author link is an a.xw1, and X3.5 prints the
    poster's as one only with authoronleft on, as a renamed theme may not at all. The admin's
    点评 under bob's ballot made the floor the admin's: two authors (the page "damaged") with
    authoronleft off, and silently the admin's, bob's ballot a director's proxy, on the theme."""
    from tally.forums.discuz import DiscuzPages

    text = (CHANGES / page).read_text(encoding="utf-8")
    posts = DiscuzPages().parse_page(text, CHINA, source="x").posts
    assert [(p.post_id, p.author, p.author_id) for p in posts] == [
        ("41", "admin", "1"), ("42", "alice", "2"), ("43", "carol", "4"),
        ("44", "eve", "6"), ("45", "bob", "3"), ("46", "dave", "5"),
    ]  # fmt: skip
    [bob] = [p for p in posts if p.post_id == "45"]
    assert [(c.author, c.author_id, c.text) for c in bob.comments] == [("admin", "1", "点评：bob跟票")]
