"""`--post`: the result replied into the vote thread as the director, through the fast-reply
form of a loopback Discuz! board built from Discuz!'s own forms and answers (tests/discuzboard):
posted and read back, never twice, never provisional, asked first, every refusal the forum
gives said in one sentence, GBK boards, Tieba refused; `tally watch --post` at the close and
`--remind-at` before it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tally.cli import app
from tally.commands.sent_text import difference
from tally.environment import Environment, HttpOptions
from tally.errors import ExitStatus, PostError
from tally.forums.discuz.reply import read_answer, refusal, reply_form

from . import gamefiles
from .conftest import CHINA, FOLDERS, FakeClock, Runner
from .discuzapi import CLOSED, ON
from .discuzboard import MESSAGES, Board
from .discuzgen import P
from .test_cards_damaged_history import _damage
from .test_counting_whole_day import game_file, vote_thread

runner = Runner()
NOT_POSTED = ExitStatus.NOT_POSTED


@pytest.fixture
def board(forum) -> Board:
    return Board(forum)


def setup(board: Board, tmp_path: Path, *, who: str = "导演A") -> tuple[str, str, Path]:
    """The day-2 vote thread of test_counting_whole_day on ``board``, its game file, and cookies
    logging ``who`` in."""
    url = board.thread(vote_thread())
    cookies = board.cookies(board.member(who, 7), tmp_path / "cookies.txt")
    return url, game_file(tmp_path, url), cookies


def env(clock: FakeClock, **kw: object) -> Environment:
    return clock.env(http=HttpOptions(host_delay=0), **kw)  # type: ignore[arg-type]


def after_close(board: Board) -> FakeClock:
    clock = FakeClock("2024-05-09 22:00:00", CHINA)
    board.clock = clock.now
    return clock


def announce(game: str, cookies: Path, clock: FakeClock, *extra: str, **kw: object):  # type: ignore[no-untyped-def]
    args = ["announce", "--game", game, "--day", "2", "--post", "--cookies", str(cookies), *extra]
    return runner.invoke(app, args, obj=env(clock, **kw.pop("env", {})), **kw)  # type: ignore[arg-type]


# -- posting the close -----------------------------------------------------------------------


def test_the_close_is_posted_and_read_back(board, tmp_path):
    url, game, cookies = setup(board, tmp_path)
    clock = after_close(board)
    result = announce(game, cookies, clock, "--yes")
    assert result.exit_code == 0, result.stderr
    [(tid, member, message)] = board.replies
    assert (tid, member) == ("102", "导演A")
    assert message == result.stdout  # the text printed is the text posted
    assert message.startswith("[b]测试局 第2天投票结果[/b]")
    posted = board.threads["102"].posts[-1]
    assert posted.author == "导演A" and "<strong>测试局 第2天投票结果</strong>" in (posted.html or "")
    assert (
        f"posted as 导演A, floor 20: {url.split('forum.php')[0]}forum.php?mod=redirect&goto="
        "findpost&ptid=102&pid=2020 (read back: the forum shows what was sent)"
    ) in result.stderr
    # What went over the wire: the reply through the board's mobile interface (on, as X3.5
    # ships it), as its phone client sends it, less mobiletype; the web form is
    # tests/test_announcing_post_api.py's board with the interface off.
    sent = [r for r in board.forum.requests if "module=sendreply" in r]
    assert sent == ["/api/mobile/index.php?version=4&module=sendreply&tid=102&replysubmit=yes"]
    [form] = board.forms
    assert sorted(form) == ["formhash", "message", "replysubmit", "smileyoff"]
    assert form["smileyoff"] == "1" and form["formhash"] == board.members[cookies_auth(cookies)].formhash


def test_the_json_says_what_was_posted_where_and_when(board, tmp_path):
    _, game, cookies = setup(board, tmp_path)
    result = announce(game, cookies, after_close(board), "--yes", "--json")
    assert result.exit_code == 0, result.stderr
    posted = json.loads(result.stdout)["posted"]
    assert posted["pid"] == "2020" and posted["floor"] == 20 and posted["member"] == "导演A"
    assert posted["at"] == "2024-05-09T22:00:00+08:00" and posted["read_back"] is True
    assert posted["url"].endswith("goto=findpost&ptid=102&pid=2020")
    # The journal keeps the floor the forum gave it, as read back (the desk finds it there).
    from tally.journal import POSTED, Journal, journal_path

    [entry] = Journal(journal_path(Path(game))).entries()
    assert (entry.state, entry.pid, entry.floor) == (POSTED, "2020", 20)


def test_never_twice(board, tmp_path):
    _, game, cookies = setup(board, tmp_path)
    clock = after_close(board)
    assert announce(game, cookies, clock, "--yes").exit_code == 0
    clock.sleep(60)
    again = announce(game, cookies, clock, "--yes")
    assert again.exit_code == NOT_POSTED
    assert re.search(
        r"tally: floor 20 of the thread already holds this post \(tally#[0-9a-f]{8}/d2/close\), "
        r"posted by 导演A at 05-09 22:00: tally posts it once.\n$", again.stderr
    )
    assert len(board.replies) == 1
    assert again.stdout.startswith("[b]测试局 第2天投票结果[/b]")  # still there to read


def test_never_a_provisional_count(board, tmp_path):
    _, game, cookies = setup(board, tmp_path)
    clock = FakeClock("2024-05-09 20:00:00", CHINA)
    result = announce(game, cookies, clock, "--yes", "--provisional")
    assert result.exit_code == NOT_POSTED
    assert "a provisional count (暂计) is never posted" in result.stderr
    assert board.replies == [] and board.answers == []


def test_never_a_count_a_check_of_the_game_file_stopped(board, tmp_path):
    """Day 2's vote pasted as day 1's election thread (test_gamefile_checks' game, on the board):
    the check stops the count, so there is nothing to post; with the right thread the same
    board takes the post."""
    from .test_gamefile_checks import DAYS, day2_vote, day3_vote, election, game_text, talk, write

    urls = {f"talk{d}": board.thread(talk(str(700 + d), d, o, c)) for d, (o, _, c) in DAYS.items()}
    urls |= {"vote1": board.thread(election()), "vote2": board.thread(day2_vote()),
             "vote3": board.thread(day3_vote())}  # fmt: skip
    cookies = board.cookies(board.member("导演A", 7), tmp_path / "cookies.txt")
    clock = FakeClock("2024-11-30 12:00:00", CHINA)
    board.clock = clock.now
    pasted = write(tmp_path, game_text(urls, day1=False).replace(urls["vote2"], urls["vote1"]))
    result = announce(str(pasted), cookies, clock, "--yes")
    assert result.exit_code == 2
    assert "is titled for day 1, not day 2" in result.stderr
    assert board.replies == [] and board.answers == []
    right = write(tmp_path, game_text(urls))
    assert announce(str(right), cookies, clock, "--yes").exit_code == 0
    [(tid, _, message)] = board.replies
    assert tid == "803" and "第2天投票结果" in message


def test_asked_first_on_a_terminal(board, tmp_path):
    _, game, cookies = setup(board, tmp_path)
    clock = after_close(board)
    no = announce(game, cookies, clock, input="n\n", env={"terminal": True})
    assert no.exit_code == NOT_POSTED and "not posted: you said no." in no.stderr
    assert "Post this to" in no.stderr and "as 导演A? [y/N]" in no.stderr
    assert board.replies == []
    yes = announce(game, cookies, clock, input="y\n", env={"terminal": True})
    assert yes.exit_code == 0, yes.stderr
    assert len(board.replies) == 1


def test_without_a_terminal_only_with_yes(board, tmp_path):
    _, game, cookies = setup(board, tmp_path)
    result = announce(game, cookies, after_close(board))
    assert result.exit_code == NOT_POSTED
    assert "add --yes to post without asking" in result.stderr
    assert board.replies == []


# -- what the forum says ---------------------------------------------------------------------


def test_the_forum_gone_at_the_post_still_shows_the_text(board, tmp_path):
    """The thread read, then the page with the reply box answers HTTP 500: the text is
    printed to paste, the command fails with the forum's sentence, nothing is sent."""
    from tally.demo.localforum import Reply

    _, game, cookies = setup(board, tmp_path)
    board.interface = CLOSED  # the reply box of the page: the board's interface is off
    clock = after_close(board)
    original = board.forum.request_hook
    last_page: list[str] = []

    def down_after_the_read(path, headers, body):  # type: ignore[no-untyped-def]
        if body is None and "tid=102" in path and "page=2" in path:
            last_page.append(path)
            if len(last_page) > 1:  # the read had it; the reply box's fetch does not
                return Reply(500, b"<html>down</html>", {"Content-Type": "text/html"})
        return original(path, headers, body)  # type: ignore[misc]

    board.forum.request_hook = down_after_the_read
    result = announce(game, cookies, clock, "--yes")
    assert result.exit_code == ExitStatus.FETCH
    assert result.stdout.startswith("[b]测试局 第2天投票结果[/b]")
    last = result.stderr.strip().splitlines()[-1]
    assert "page=2: gave up after 4 attempts (last: HTTP 500)" in last
    assert board.answers == []


def cookies_auth(cookies: Path) -> str:
    """The login cookie's value a cookie file of the board holds."""
    return next(line.split("\t")[-1] for line in cookies.read_text().splitlines() if "_auth\t" in line)


def test_flood_control_is_said_and_not_retried(board, tmp_path):
    _, game, cookies = setup(board, tmp_path)
    board.interface = CLOSED  # the web form's words (the interface's: test_announcing_post_api)
    clock = after_close(board)
    board.last_post[7] = clock.now().timestamp() - 3  # the director posted 3 s ago
    result = announce(game, cookies, clock, "--yes")
    assert result.exit_code == NOT_POSTED
    assert result.stderr.endswith(
        "tally: the forum's flood control refused it (抱歉，您两次发表间隔少于 15 秒，请稍候再发表); "
        "tally does not try again on its own: post again after that wait.\n"
    )
    assert len(board.answers) == 1  # one try


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda b: b.closed.add("102"), "the thread is closed to new replies (抱歉，本主题已关闭"),
        (lambda b: setattr(b, "minpostsize", 100000), "the forum finds the post too short"),
        (lambda b: setattr(b, "maxpostsize", 20), "the forum finds the post too long"),
        # asked on submit only (the rule counted the account's posts then)
        (lambda b: setattr(b, "seccode", True), "the forum wants a verification code (验证码)"),
        (lambda b: setattr(b, "moderate", True), "the forum took the post for a moderator"),
        (lambda b: setattr(b, "banned", ("白桃",)), "the forum's word filter refused the post"),
        (lambda b: setattr(b, "posts_per_hour", 0), "the forum's hourly limit refused it"),
    ],
)
def test_each_refusal_is_one_sentence(board, tmp_path, change, said):
    _, game, cookies = setup(board, tmp_path)
    board.interface = CLOSED  # the web form's words (the interface's: test_announcing_post_api)
    change(board)
    result = announce(game, cookies, after_close(board), "--yes")
    assert result.exit_code == NOT_POSTED
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("tally: " + said), lines[-1]
    assert len(board.answers) == 1


@pytest.mark.parametrize("interface", [ON, CLOSED])
def test_a_verification_code_in_the_form_stops_it_before_sending(board, tmp_path, interface):
    """common/seccheck.htm in the fast-reply box (the interface off), or the interface's
    module=secure naming a code for posts: a code only a person can read. Said before
    anything is sent, and by watch --post at its start, not at the close."""
    url, game, cookies = setup(board, tmp_path)
    board.interface = interface
    board.seccode = board.seccode_form = True
    result = announce(game, cookies, after_close(board), "--yes")
    assert result.exit_code == NOT_POSTED
    assert result.stderr.strip().splitlines()[-1] == (
        "tally: the board asks 导演A for a 验证码 with each reply, which only a person can "
        "give: tally cannot post there; post by hand (or ask the board's admin to exempt the "
        "director's group)."
    )
    assert board.answers == []  # nothing sent
    clock = FakeClock("2024-05-09 19:00:00", CHINA)
    watched = watch(url, game, cookies, clock, "--post")
    assert watched.exit_code == NOT_POSTED and "验证码" in watched.stderr
    assert watched.stdout == ""  # not one poll


def test_a_formhash_the_forum_did_not_issue(board, tmp_path):
    """X3.5 answers HTTP 503 "System Error … 含有非法字符"; X3.4 its 来路不正确 message."""
    _, game, cookies = setup(board, tmp_path)
    board.interface = CLOSED  # the web form (the interface's: test_announcing_post_api)
    clock = after_close(board)
    original = board._reply

    def stale(query, headers, form, who):  # type: ignore[no-untyped-def]
        form = {**form, "formhash": "deadbeef"}
        return original(query, headers, form, who)

    board._reply = stale  # type: ignore[method-assign]
    result = announce(game, cookies, clock, "--yes")
    assert result.exit_code == NOT_POSTED
    assert "the forum refused the form as a System Error (HTTP 503, 含有非法字符)" in result.stderr
    assert len(board.answers) == 1  # a 503 of a post is never retried
    board.version = "X3.4"
    result = announce(game, cookies, clock, "--yes")
    assert "the forum refused the form (抱歉，您的请求来路不正确或表单验证串不符，无法提交)" in result.stderr


@pytest.mark.parametrize("interface", [ON, CLOSED])
def test_a_guest_or_a_player_is_stopped_before_anything_is_sent(board, tmp_path, interface):
    """The page's header shows no member, or the interface's member_uid is 0; a player's
    uid is no director's."""
    _, game, _ = setup(board, tmp_path)
    board.interface = interface
    stranger = tmp_path / "guest.txt"
    stranger.write_text("127.0.0.1\tFALSE\t/\tFALSE\t0\tNgMM_2132_auth\tnobody\n", encoding="utf-8")
    stranger.chmod(0o600)
    clock = after_close(board)
    guest = announce(game, stranger, clock, "--yes")
    assert guest.exit_code == NOT_POSTED
    assert "the cookie file does not log tally in to" in guest.stderr
    player = board.cookies(board.member("冷月", 8), tmp_path / "player.txt")
    result = announce(game, player, clock, "--yes")
    assert result.exit_code == NOT_POSTED
    assert "the cookies log tally in as 冷月, who is not a director of" in result.stderr
    assert board.answers == []


def test_a_gbk_board(forum, tmp_path):
    board = Board(forum, charset="gbk")
    _, game, cookies = setup(board, tmp_path)
    result = announce(game, cookies, after_close(board), "--yes")
    assert result.exit_code == 0, result.stderr
    assert board.replies[0][2] == result.stdout  # decoded as GBK by the board: the same text
    assert "read back: the forum shows what was sent" in result.stderr


def test_a_character_a_gbk_board_cannot_hold(forum, tmp_path):
    board = Board(forum, charset="gbk")
    _, game, cookies = setup(board, tmp_path)
    text = Path(game).read_text(encoding="utf-8").replace('name = "测试局"', 'name = "测试局🐺"')
    Path(game).write_text(text, encoding="utf-8")
    result = announce(game, cookies, after_close(board), "--yes")
    assert result.exit_code == NOT_POSTED
    assert "the board reads posts as GBK, which cannot hold '🐺'" in result.stderr
    assert board.answers == []


def test_a_difference_on_reading_back_is_said(board, tmp_path):
    """A board's word filter (词语过滤) changed the post: posted, and the difference said."""
    _, game, cookies = setup(board, tmp_path)
    original = board._reply

    def filtered(query, headers, form, who):  # type: ignore[no-untyped-def]
        return original(query, headers, {**form, "message": form["message"].replace("白桃", "**")}, who)

    board._reply = filtered  # type: ignore[method-assign]
    result = announce(game, cookies, after_close(board), "--yes")
    assert result.exit_code == 0, result.stderr
    assert "tally: warning: post 2020 as the forum shows it differs: the forum shows" in result.stderr
    assert "得票**" in result.stderr


def test_tieba_is_not_posted_to(forum, tmp_path):
    from .tiebaapi import TiebaApi
    from .tiebagen import game_toml, sample

    url = TiebaApi(sample()).serve(forum)
    game = tmp_path / "game.toml"
    game.write_text(game_toml(url), encoding="utf-8")
    result = runner.invoke(app, ["announce", "--game", str(game), "--day", "2", "--post", "--yes"],
                           obj=env(FakeClock("2030-01-01 12:00:00", CHINA)))  # fmt: skip
    assert result.exit_code == NOT_POSTED
    assert result.stdout.strip()  # the text, to paste
    assert result.stderr.strip().splitlines()[-1] == (
        "tally: tally does not post to Tieba: its client API needs your BDUSS login and Baidu's "
        "risk control blocks accounts that post by program; paste the text above by hand."
    )


# -- the forum's forms and answers, as text -----------------------------------------------------


def test_the_fast_reply_form_of_a_real_page():
    """fixtures/discuz/vote-p1.html, a real X3.5 page seen by a guest: the form is there, its
    formhash and hidden fields; the page shows no member."""
    from .conftest import DISCUZ

    text = (DISCUZ / "vote-p1.html").read_text(encoding="utf-8")
    form = reply_form(text, "http://127.0.0.1:8080/forum.php?mod=viewthread&tid=23", "utf-8")
    assert form is not None and form.uid == "0" and form.member == ""
    assert form.action == (
        "http://127.0.0.1:8080/forum.php?mod=post&action=reply&fid=3&tid=23&extra=&replysubmit=yes"
        "&infloat=yes&handlekey=fastpost"
    )
    assert dict(form.fields) == {"formhash": "9893ed6d", "usesig": "", "subject": "  "}


@pytest.mark.parametrize("key", sorted(set(MESSAGES) - {"post_reply_succeed"}))
def test_every_refusal_discuz_gives_a_reply_has_its_sentence(key):
    said = MESSAGES[key].format(floodctrl=15, posts_per_hour=20, maxpostsize=10000, minpostsize=10,
                                newbiespan=120)  # fmt: skip
    sentence = refusal(said) if key != "post_reply_mod_succeed" else ""
    if key == "post_reply_mod_succeed":
        with pytest.raises(PostError, match="moderator"):
            read_answer(200, {}, f"<root><![CDATA[{said}<script>errorhandle_fastpost('{said}', {{}});</script>]]></root>", "http://x/")
        return
    assert not sentence.startswith("the forum refused the post:"), key  # a sentence of its own


def test_answers_as_a_real_x35_gave_them():
    ok = ("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<root><![CDATA[<script type=\"text/javascript\" "
          "reload=\"1\">if(typeof succeedhandle_fastpost=='function') {succeedhandle_fastpost('forum.php?"
          "mod=viewthread&tid=1&pid=4&page=1&extra=page%3D1#pid4', '非常感谢，回复发布成功，现在将转入主题页，"
          "请稍候……[ 点击这里转入主题列表 ]', {'fid':'3','tid':'1','pid':'4','from':'','sechash':''});}"
          "</script>]]></root>")  # fmt: skip
    accepted = read_answer(200, {}, ok, "http://127.0.0.1:8600/")
    assert accepted.pid == "4" and accepted.url.startswith("http://127.0.0.1:8600/forum.php?mod=viewthread")
    plain = read_answer(301, {"location": "forum.php?mod=viewthread&tid=1&pid=5&page=1&extra=#pid5"},
                        "", "http://127.0.0.1:8600/")  # fmt: skip
    assert plain.pid == "5"
    with pytest.raises(PostError, match="did not accept the session's formhash"):
        read_answer(503, {}, "<title>127.0.0.1:8600 - System Error</title>…含有非法字符…", "http://x/")
    with pytest.raises(PostError, match="neither a new post nor a reason"):
        read_answer(200, {}, "<html>something else</html>", "http://x/")


def test_difference():
    assert difference("[b]甲[/b]\n乙 丙", "甲\n乙丙") is None
    assert difference("[\u200bb]x", "[b]x") is None  # inert tags show as typed
    assert "'甲乙丁'" in (difference("甲乙丙", "甲乙丁") or "")


# -- tally watch --post, --remind-at --------------------------------------------------------------


def watch(url: str, game: str, cookies: Path, clock: FakeClock, *extra: str):  # type: ignore[no-untyped-def]
    args = ["watch", url, "--game", game, "--cookies", str(cookies), "--every", "600", *extra]
    return runner.invoke(app, args, obj=env(clock))


def test_watch_posts_the_close_once_unattended(board, tmp_path):
    url, game, cookies = setup(board, tmp_path)
    clock = FakeClock("2024-05-09 21:20:00", CHINA)
    board.clock = clock.now
    result = watch(url, game, cookies, clock, "--post")
    assert result.exit_code == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    polls = [line for line in lines if "poll" in line]
    [posted] = [line["posted"] for line in lines if "posted" in line]
    assert polls[-1]["poll"]["final"] and polls[-1]["poll"]["at"][11:16] == "21:31"
    assert (posted["kind"], posted["floor"], posted["read_back"]) == ("close", 20, True)
    assert posted["at"].startswith("2024-05-09T21:31")
    [(_, _, message)] = board.replies
    assert message.startswith("[b]测试局 第2天投票结果[/b]") and "白桃 被投票出局" in message


@pytest.mark.rules("S2")
def test_watch_does_not_post_when_floors_older_than_its_last_poll_appear(board, tmp_path):
    """A moderator merged a thread tally never read into the vote thread at the close (real
    X3.5): its floors come in with their own, earlier times, and `watch --post` posted the
    wrong player out unattended. Floors the last poll did not show, with times before it,
    are approved (审核) or moved in (移动, 合并): the count is shown, nothing is posted."""
    url, game, cookies = setup(board, tmp_path)
    clock = FakeClock("2024-05-09 21:20:00", CHINA)
    board.clock = clock.now
    thread = board.threads["102"]

    def merged_at_the_close(path: str):  # type: ignore[no-untyped-def]
        if "viewthread" in path and clock.now().astimezone(CHINA).strftime("%H:%M") >= "21:30" \
                and not any("讨论帖里投的" in p.text for p in thread.posts):
            for floor, post in enumerate(thread.posts, start=1):  # a post keeps its id
                post.post_id = thread.pid(floor)
            moved = P("小眯", "2024-05-09 21:00:00", "投票对象：长夜\n投票理由：讨论帖里投的",
                      post_id=3000)  # fmt: skip
            at = next(i for i, p in enumerate(thread.posts) if p.time > moved.time)
            thread.posts.insert(at, moved)
            board.thread(thread)  # its pages made again
        return None

    board.forum.hook = merged_at_the_close
    result = watch(url, game, cookies, clock, "--post")
    assert result.exit_code == NOT_POSTED
    message = " ".join(result.stderr.split())
    assert ("the closing announcement was not posted: 1 floor(s) came into the thread with times "
            "before what tally's reads had already shown (19楼 小眯 05-09 21:00)") in message
    assert "--day 2 --kind close --post" in message
    assert board.replies == []
    assert "final" in result.stdout  # the final count was shown


def test_a_merge_at_a_poll_before_the_last_still_stops_the_post(board, tmp_path):
    """From the second real-forum session: a thread merged in at the 5th poll of 9; the
    polls after it showed those floors, so the last poll alone saw nothing new, and the
    wrong sheriff was posted unattended. Each poll is measured against those before it."""
    url, game, cookies = setup(board, tmp_path)
    clock = FakeClock("2024-05-09 21:00:00", CHINA)
    board.clock = clock.now
    thread = board.threads["102"]

    def merged_at_five(path: str):  # type: ignore[no-untyped-def]
        if "viewthread" in path and clock.now().astimezone(CHINA).strftime("%H:%M") >= "21:05" \
                and not any("讨论帖里投的" in p.text for p in thread.posts):
            for floor, post in enumerate(thread.posts, start=1):
                post.post_id = thread.pid(floor)
            moved = P("小眯", "2024-05-09 20:30:00", "投票对象：长夜\n投票理由：讨论帖里投的",
                      post_id=3000)  # fmt: skip
            thread.posts.insert(next(i for i, p in enumerate(thread.posts) if p.time > moved.time),
                                moved)  # fmt: skip
            board.thread(thread)
        return None

    board.forum.hook = merged_at_five
    args = ["watch", url, "--game", game, "--cookies", str(cookies), "--every", "60", "--post"]
    result = runner.invoke(app, args, obj=env(clock))
    assert result.exit_code == NOT_POSTED
    assert "came into the thread with times before" in " ".join(result.stderr.split())
    assert board.replies == []


@pytest.mark.parametrize("stamp", ["2024-05-09 21:20:00", "2024-05-09 21:19:45"])
def test_a_ballot_posted_just_after_a_poll_does_not_stop_the_post(board, tmp_path, stamp):
    """From the cold read: a player posted right after the 21:20:00 poll, in its second, or
    with the forum's clock 15 s behind this machine's: a normal ballot, posted unattended."""
    url, game, cookies = setup(board, tmp_path)
    clock = FakeClock("2024-05-09 21:20:00", CHINA)
    board.clock = clock.now
    thread = board.threads["102"]

    def after_first_poll(path: str):  # type: ignore[no-untyped-def]
        if "viewthread" in path and clock.now().astimezone(CHINA).strftime("%H:%M") >= "21:21" \
                and not any("刚投" in p.text for p in thread.posts):
            for floor, post in enumerate(thread.posts, start=1):
                post.post_id = thread.pid(floor)
            thread.posts.append(P("小眯", stamp, "投票对象：长夜\n投票理由：刚投", post_id=3000))
            board.thread(thread)
        return None

    board.forum.hook = after_first_poll
    result = watch(url, game, cookies, clock, "--post")
    assert result.exit_code == 0, result.stderr


def came_in(board: Board, post: P) -> None:
    """``post`` into the vote thread at the place its time gives it, every other post keeping
    its id (a reply since, or a floor merged in from another thread, 合并)."""
    thread = board.threads["102"]
    for floor, kept in enumerate(thread.posts, start=1):
        kept.post_id = thread.pid(floor)
    thread.posts.insert(next(i for i, p in enumerate(thread.posts) if p.time > post.time), post)
    board.thread(thread)


def test_a_watch_whose_first_poll_is_the_final_one_checks_against_the_cache(board, tmp_path):
    """From the cold read: `tally votes` read the thread at 21:20; a thread was merged in;
    `watch --post` (re)started after the close has no poll before its final one: the
    thread's history in the cache is the read before."""
    url, game, cookies = setup(board, tmp_path)
    clock = FakeClock("2024-05-09 21:20:00", CHINA)
    board.clock = clock.now
    first = runner.invoke(app, ["votes", url, "--game", game, "--cookies", str(cookies)],
                          obj=env(clock))  # fmt: skip
    assert first.exit_code == 0, first.output
    came_in(board, P("小眯", "2024-05-09 21:00:00", "投票对象：长夜\n投票理由：讨论帖里投的",
                     post_id=3000))  # fmt: skip
    later = FakeClock("2024-05-09 21:31:00", CHINA)
    board.clock = later.now
    result = watch(url, game, cookies, later, "--post")
    assert result.exit_code == NOT_POSTED and board.replies == []


@pytest.mark.rules("S2")
def test_votes_flags_the_ballot_merged_in_that_the_watch_stops_for(board, tmp_path):
    """The watch's case above, counted by hand: `tally votes` read the thread at 21:20, a
    ballot dated 21:00 was merged in, and the count after the close takes it (长夜 out by
    7.5 to 6.5; without it a tie) with a flag naming the read that did not show it, in the
    JSON and on the terminal. It said nothing before."""
    url, game, cookies = setup(board, tmp_path)
    clock = FakeClock("2024-05-09 21:20:00", CHINA)
    board.clock = clock.now
    args = ["votes", url, "--game", game, "--cookies", str(cookies)]
    assert runner.invoke(app, args, obj=env(clock)).exit_code == 0
    came_in(board, P("小眯", "2024-05-09 21:00:00", "投票对象：长夜\n投票理由：讨论帖里投的",
                     post_id=3000))  # fmt: skip
    later = FakeClock("2024-05-09 21:31:00", CHINA)
    board.clock = later.now
    done = runner.invoke(app, [*args, "--json"], obj=env(later))
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert data["outcome"]["player"] == "长夜"
    [flag] = [f for f in data["flags"] if f["rule"] == "came in"]
    assert (flag["floor"], flag["post_id"], flag["player"]) == (19, "3000", "小眯")
    assert "was not in the thread when tally read it 05-09 21:20, though posted before" \
        in flag["note"]
    shown = runner.invoke(app, args, obj=env(later))
    assert "floor 19 (小眯, 05-09 21:00) was not in the thread" in " ".join(shown.stdout.split())


def lost_last_page(board: Board, tmp_path: Path) -> tuple[str, str, Path, FakeClock]:
    """The vote thread on the forum's pages (its interface closed: ten floors a page, floors
    11-19 on page 2), read by `tally votes` at 21:20; then page 2's version of that read
    damaged beyond mending: its file cut short, and the page changed since (the director
    posted at 21:22), so that no read lists that content again. The clock at 21:25, for a
    watch."""
    board.interface = CLOSED
    url, game, cookies = setup(board, tmp_path)
    clock = FakeClock("2024-05-09 21:20:00", CHINA)
    board.clock = clock.now
    first = runner.invoke(app, ["votes", url, "--game", game], obj=env(clock))
    assert first.exit_code == 0, first.output
    _damage(FOLDERS.cache, 102, 2, 1, b"[")
    came_in(board, P("导演A", "2024-05-09 21:22:00", "还有8分钟截止，没投的抓紧", post_id=3001))
    later = FakeClock("2024-05-09 21:25:00", CHINA)
    board.clock = later.now
    return url, game, cookies, later


def test_a_page_lost_from_the_cache_before_the_watch_does_not_stop_the_post(board, tmp_path):
    """The reads before a watch's first poll are what its floors are measured against: a
    version lost from them showed none of its posts, while the same read's page 1 put the
    measure at 21:15, so page 2's floors (05-08 15:30 to 05-09 20:50) were taken for floors
    that came in since and the close was not posted. What a lost page could have shown came
    in for no one: the close is posted, once."""
    url, game, cookies, clock = lost_last_page(board, tmp_path)
    result = watch(url, game, cookies, clock, "--post")
    assert result.exit_code == 0, result.stderr
    [(_, _, message)] = board.replies
    assert message.startswith("[b]测试局 第2天投票结果[/b]") and "白桃 被投票出局" in message


def test_a_floor_merged_in_still_stops_the_post_with_a_page_lost_from_the_cache(board, tmp_path):
    """Page 2 of the 21:20 read lost, it could have shown what was posted after page 1's last
    floor as that read found it (05-08 15:00); a floor merged in after that read, dated
    05-08 14:00 (floor 10, on page 1), is none of those: it came in since, nothing is posted."""
    url, game, cookies, clock = lost_last_page(board, tmp_path)
    came_in(board, P("小眯", "2024-05-08 14:00:00", "投票对象：长夜\n投票理由：讨论帖里投的",
                     post_id=3000))  # fmt: skip
    result = watch(url, game, cookies, clock, "--post")
    assert result.exit_code == NOT_POSTED and board.replies == []
    assert "10楼 小眯 05-08 14:00" in " ".join(result.stderr.split())


def test_the_watchs_own_reminder_does_not_stop_its_close(board, tmp_path):
    """From the cold read: `--remind-at 15 --post` posts its 催票 just after a poll; the final
    read holds that floor, which the poll did not show: the director's own, no late post."""
    url, game, cookies = setup(board, tmp_path)
    clock = FakeClock("2024-05-09 21:20:00", CHINA)
    board.clock = clock.now
    result = watch(url, game, cookies, clock, "--remind-at", "15", "--post")
    assert result.exit_code == 0, result.stderr
    assert [m.split("\n")[0] for _, _, m in board.replies] == [
        "[b]测试局 第2天投票 催票[/b]", "[b]测试局 第2天投票结果[/b]"]


def test_watch_reminds_once_before_the_close(board, tmp_path):
    url, game, cookies = setup(board, tmp_path)
    clock = FakeClock("2024-05-09 20:00:00", CHINA)
    board.clock = clock.now
    result = watch(url, game, cookies, clock, "--remind-at", "60", "--polls", "4")
    assert result.exit_code == 0, result.stderr
    [(_, _, message)] = board.replies  # 20:00 is too early; 20:10 and later: once
    assert message.startswith("[b]测试局 第2天投票 催票[/b]")
    assert "@小眯 " in message  # who has not voted, by mention
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    [posted] = [line["posted"] for line in lines if "posted" in line]
    assert posted["kind"] == "reminder" and posted["at"].startswith("2024-05-09T20:30")


def test_a_watch_started_again_does_not_remind_twice(board, tmp_path):
    """The reminder already in the thread (a watch that was stopped and started again): a
    note, not a failure; the close is still posted."""
    url, game, cookies = setup(board, tmp_path)
    clock = FakeClock("2024-05-09 20:40:00", CHINA)
    board.clock = clock.now
    first = watch(url, game, cookies, clock, "--remind-at", "60", "--polls", "1")
    assert first.exit_code == 0, first.stderr
    again = watch(url, game, cookies, clock, "--remind-at", "60", "--post")
    assert again.exit_code == 0, again.stderr
    assert "no second reminder: floor 20 of the thread already holds this post" in again.stderr
    assert [m.split("\n")[0] for _, _, m in board.replies] == [
        "[b]测试局 第2天投票 催票[/b]", "[b]测试局 第2天投票结果[/b]"]
    assert not list(tmp_path.glob("*.reminder.txt"))  # nothing kept to paste


def test_watch_post_checks_the_cookies_before_the_first_poll(board, tmp_path):
    url, game, _ = setup(board, tmp_path)
    stranger = board.cookies(board.member("冷月", 8), tmp_path / "player.txt")
    clock = FakeClock("2024-05-09 19:00:00", CHINA)
    result = watch(url, game, stranger, clock, "--post")
    assert result.exit_code == NOT_POSTED
    assert "who is not a director" in result.stderr
    assert result.stdout == ""  # not one poll


def test_watch_post_that_fails_keeps_the_text_and_fails_loudly(board, tmp_path):
    url, game, cookies = setup(board, tmp_path)
    clock = FakeClock("2024-05-09 21:20:00", CHINA)
    board.clock = clock.now
    board.closed.add("102")  # closed by a moderator at the close
    result = watch(url, game, cookies, clock, "--post")
    assert result.exit_code == NOT_POSTED
    kept = Path(game).with_name("game.day2.close.txt")
    assert kept.read_text(encoding="utf-8").startswith("[b]测试局 第2天投票结果[/b]")
    assert result.stderr.strip().splitlines()[-1].endswith(f"The close post is in {kept}, to paste by hand.")
    assert "final" in result.stdout  # the final count was shown before


def test_watch_post_keeps_in_announce_to_the_text_as_it_would_be_posted(board, tmp_path):
    """--announce-to with --post: the file holds the post with tally's mark, so that a copy
    pasted by hand is known again by the next --post (never twice)."""
    url, game, cookies = setup(board, tmp_path)
    clock = FakeClock("2024-05-09 21:20:00", CHINA)
    board.clock = clock.now
    board.closed.add("102")
    out = tmp_path / "close.txt"
    result = watch(url, game, cookies, clock, "--post", "--announce-to", str(out))
    assert result.exit_code == NOT_POSTED
    last = out.read_text(encoding="utf-8").rstrip("\n").splitlines()[-1]
    assert re.fullmatch(r"tally#[0-9a-f]{8}/d2/close/[0-9a-f]{6}", last), last


def test_a_post_made_with_the_director_account_is_not_counted(board, tmp_path):
    """The result on floor 20 is the director's: a later count is the same count."""
    url, game, cookies = setup(board, tmp_path)
    clock = after_close(board)
    before = runner.invoke(app, ["votes", url, "--game", game, "--json", "-q"], obj=env(clock))
    assert announce(game, cookies, clock, "--yes").exit_code == 0
    after = runner.invoke(app, ["votes", url, "--game", game, "--json", "-q", "--fresh"], obj=env(clock))
    assert json.loads(after.stdout)["totals"] == json.loads(before.stdout)["totals"]
    assert P  # the board renders tally's post as a post of the thread


def test_what_a_player_wrote_under_the_directors_floor_is_theirs(tmp_path):
    """A player's 点评 under the director's floor 1 was left out of what players wrote (the
    floor's author decided for its comments), so its emoji, quoted in the post, stopped the
    post on a GBK board as if the director had written it; the director's own 点评 under a
    player's floor counted as a player's."""
    from datetime import datetime

    from tally.commands.sent_text import players_unheld
    from tally.model import Comment, Post, Thread
    from tally.rules.game.gamefile import load_game

    from .conftest import reader

    path = gamefiles.write_game(
        tmp_path / "game.toml",
        gamefiles.day(1, "https://bbs.example.com/thread-1-1-1.html", closes="2024-05-08T21:30:00"),
        name="t", ruleset="000", directors=["导演"], players=["冷月", "白桃"],
    )  # fmt: skip
    game, at = load_game(path), datetime(2024, 5, 8, 10, 0)

    def post(floor: int, author: str, text: str, *comments: tuple[str, str]) -> Post:
        return Post("discuz", "1", str(floor), floor, author, None, at, text,
                    comments=tuple(Comment(f"c{floor}{i}", a, None, at, t)
                                   for i, (a, t) in enumerate(comments)))  # fmt: skip

    thread = Thread("discuz", "1", "u", "t", 1, (
        post(1, "导演", "投票帖", ("冷月", "顶🐺")),
        post(2, "白桃", "投票对象：冷月", ("导演", "导演说🦊")),
    ))  # fmt: skip
    quiet = reader()
    assert players_unheld("冷月：顶🐺", "gbk", game, thread, quiet) == "冷月：顶?"
    assert players_unheld("导演说🦊", "gbk", game, thread, quiet) == "导演说🦊"  # refused later
