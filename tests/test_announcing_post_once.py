"""A result posted exactly once, on the loopback Discuz! board (tests/discuzboard.py): the
journal of posts, tally's mark, the director's account id, one poster at a time; a post
needs the live thread; nothing a player writes stops it; a closed day keeps its result."""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest
import typer.main

from tally.cli import app
from tally.demo.localforum import Reply
from tally.environment import Environment
from tally.journal import Journal, journal_path

from .conftest import CHINA, FOLDERS, FakeClock, quiet_environ
from .discuzapi import CLOSED
from .discuzboard import Board
from .discuzgen import P
from .forking import ended, forked
from .test_announcing_post import NOT_POSTED, after_close, announce, env, runner, setup, watch

MARK = re.compile(r"tally#[0-9a-f]{8}/d2/close")


@pytest.fixture
def board(forum) -> Board:
    return Board(forum)


def entries(game: str) -> list[dict]:
    return [json.loads(line) for line in journal_path(Path(game)).read_text("utf-8").splitlines()]


# -- the journal and the mark ----------------------------------------------------------------


def test_the_journal_says_what_was_posted_before_and_after(board, tmp_path):
    _, game, cookies = setup(board, tmp_path)
    result = announce(game, cookies, after_close(board), "--yes")
    assert result.exit_code == 0, result.stderr
    [entry] = entries(game)
    assert (entry["day"], entry["kind"], entry["state"], entry["pid"]) == (2, "close", "posted", "2020")
    assert entry["at"] == "2024-05-09T22:00:00+08:00" and len(entry["digest"]) == 64
    assert entry["outcome"]["result"] == "eliminated" and entry["outcome"]["player"] == "白桃"
    [(_, _, message)] = board.replies
    # the mark, the post's last line: game, day, kind, and the outcome's code
    assert re.fullmatch(r"tally#[0-9a-f]{8}/d2/close/[0-9a-f]{6}", message.splitlines()[-1])
    import hashlib

    assert entry["digest"] == hashlib.sha256(message.encode()).hexdigest()


def test_the_journal_is_written_before_the_post_is_sent(board, tmp_path):
    _, game, cookies = setup(board, tmp_path)
    seen: list[list[dict]] = []
    original = board._reply

    def looking(query, headers, form, who):  # type: ignore[no-untyped-def]
        seen.append(entries(game))
        return original(query, headers, form, who)

    board._reply = looking  # type: ignore[method-assign]
    assert announce(game, cookies, after_close(board), "--yes").exit_code == 0
    [[before]] = seen
    assert before["state"] == "sending" and before["pid"] is None


def test_a_template_with_another_first_line_is_not_posted_twice(board, tmp_path):
    """The director's own template changes its first line between two runs: the mark is
    still the last line, so the second run finds the first post."""
    _, game, cookies = setup(board, tmp_path)
    clock = after_close(board)
    assert announce(game, cookies, clock, "--yes").exit_code == 0
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "close.bbcode.j2").write_text("今日结果（第{{ day }}天）\n{{ outcome }}\n", encoding="utf-8")
    clock.sleep(60)
    again = announce(game, cookies, clock, "--yes", "--template-dir", str(mine))
    assert again.exit_code == NOT_POSTED, again.stderr
    assert "floor 20 of the thread already holds this post (tally#" in again.stderr
    assert len(board.replies) == 1


def test_a_no_break_space_in_the_name_is_posted_once(board, tmp_path):
    """U+00A0 in the game's name: made a plain space once, so what is checked is what is
    sent; the second run finds the first post."""
    _, game, cookies = setup(board, tmp_path)
    text = Path(game).read_text(encoding="utf-8").replace('name = "测试局"', 'name = "测试\u00a0局"')
    Path(game).write_text(text, encoding="utf-8")
    clock = after_close(board)
    first = announce(game, cookies, clock, "--yes")
    assert first.exit_code == 0 and "read back: the forum shows what was sent" in first.stderr
    assert "\u00a0" not in board.replies[0][2] and "测试 局" in board.replies[0][2]
    clock.sleep(60)
    assert announce(game, cookies, clock, "--yes").exit_code == NOT_POSTED
    assert len(board.replies) == 1


def test_an_impostor_named_like_the_director_neither_blocks_nor_is_the_director(board, tmp_path):
    """admin。 (another account) posts a fake result carrying the mark, after the close: not
    the director's post, so the director's is made; admin。's cookies cannot post."""
    _, game, cookies = setup(board, tmp_path)
    text = Path(game).read_text(encoding="utf-8").replace(
        'directors = ["导演A"]', 'directors = [{ name = "导演A", id = 7 }]')  # fmt: skip
    Path(game).write_text(text, encoding="utf-8")
    clock = after_close(board)
    from tally.commands.post import mark
    from tally.rules.game.gamefile import load_game

    fake = f"[b]测试局 第2天投票结果[/b]\n大家别投了，导演说今天不统计。\n\n{mark(load_game(game), 2, 'close')}"
    board.threads["102"].uids["导演A"] = 7  # the id the file gives: the pages show it too
    board.threads["102"].uids["导演A。"] = 66
    board.threads["102"].add(P("导演A。", "2024-05-09 21:45:00", fake))
    impostor = board.cookies(board.member("导演A。", 66), tmp_path / "impostor.txt")
    refused = announce(game, impostor, clock, "--yes")
    assert refused.exit_code == NOT_POSTED
    assert "the cookies log tally in as 导演A。, who is not a director" in refused.stderr
    look = board.cookies(board.member("导演A", 67), tmp_path / "lookalike.txt")  # same name
    assert "(导演A is uid 67; the director 导演A is uid 7)" in announce(game, look, clock, "--yes").stderr
    result = announce(game, cookies, clock, "--yes")
    assert result.exit_code == 0, result.stderr
    assert [m.splitlines()[0] for _, who, m in board.replies] == ["[b]测试局 第2天投票结果[/b]"]


# -- the answer that never came ---------------------------------------------------------------


def test_a_post_whose_answer_never_came_is_looked_for_not_pasted(board, tmp_path):
    """The forum stores the post and answers a body tally cannot read: the thread read again
    shows it, so it is the post (recorded), and a second run does not post again."""
    _, game, cookies = setup(board, tmp_path)
    clock = after_close(board)
    original = board._reply

    def garbled(query, headers, form, who):  # type: ignore[no-untyped-def]
        original(query, headers, form, who)
        return Reply(200, b"<html>upstream hiccup</html>", {"Content-Type": "text/html"})

    board._reply = garbled  # type: ignore[method-assign]
    result = announce(game, cookies, clock, "--yes")
    assert result.exit_code == 0, result.stderr
    assert "posted as 导演A, floor 20" in result.stderr and "paste" not in result.stderr
    assert entries(game)[-1]["state"] == "posted" and entries(game)[-1]["pid"] == "2020"
    board._reply = original  # type: ignore[method-assign]
    clock.sleep(60)
    assert announce(game, cookies, clock, "--yes").exit_code == NOT_POSTED
    assert len(board.replies) == 1


def test_an_answer_lost_and_no_post_in_the_thread_is_never_sent_again_blindly(board, tmp_path):
    """The forum took nothing and answered garbage: tally says what it found and to look at
    the thread — never "paste by hand" — and the next run stops on the journal's entry."""
    url, game, cookies = setup(board, tmp_path)
    clock = after_close(board)
    board._reply = lambda *a: Reply(200, b"<html>?</html>", {"Content-Type": "text/html"})  # type: ignore[method-assign]
    first = watch(url, game, cookies, FakeClock("2024-05-09 21:20:00", CHINA), "--post")
    assert first.exit_code == NOT_POSTED
    last = first.stderr.strip().splitlines()[-1]
    assert "the thread read again shows no post of it" in last and "look at the thread" in last
    assert "paste" not in last
    again = announce(game, cookies, clock, "--yes")
    assert again.exit_code == NOT_POSTED
    assert "never heard the forum's answer" in again.stderr
    assert "delete that line of" in again.stderr and len(board.answers) == 1


# -- a post needs the live thread ----------------------------------------------------------------


@pytest.mark.parametrize("where", ["--offline", "--archive"])
def test_post_with_offline_or_archive_is_refused_in_one_sentence(board, tmp_path, where):
    _, game, cookies = setup(board, tmp_path)
    extra = [where] if where == "--offline" else [where, str(tmp_path / "a.csv")]
    result = announce(game, cookies, after_close(board), "--yes", *extra)
    assert result.exit_code == NOT_POSTED
    assert result.stderr.strip().splitlines() == [
        f"tally: --post reads the live thread to know whether the post is there already; "
        f"{where} reads an older copy of it: leave out {where} to post, or --post to print "
        "the text."
    ]
    assert board.answers == []


# -- nothing a player writes stops the post --------------------------------------------------------


def test_a_players_tag_on_a_gbk_board_is_inert_and_posted(forum, tmp_path):
    """A reason with [b]…[/b] on a GBK board: made inert with [[i][/i] (GBK holds it, the
    zero-width space it used to be cannot be held), shown as the player typed it."""
    from .test_counting_whole_day import vote_thread

    board = Board(forum, charset="gbk")
    t = vote_thread()
    t.posts = [
        replace(p, text=p.text.replace("投票理由：", "投票理由：[b]狼[/b]"))
        if "投票对象：白桃" in p.text
        else p
        for p in t.posts
    ]
    url = board.thread(t)
    cookies = board.cookies(board.member("导演A", 7), tmp_path / "cookies.txt")
    from .test_counting_whole_day import game_file

    game = game_file(tmp_path, url)
    result = announce(game, cookies, after_close(board), "--yes")
    assert result.exit_code == 0, result.stderr
    message = board.replies[0][2]
    assert "[[i][/i]b]狼[[i][/i]/b]" in message and "\u200b" not in message
    assert "read back: the forum shows what was sent" in result.stderr


def test_a_character_only_a_player_wrote_that_gbk_cannot_hold_does_not_stop_it(forum, tmp_path):
    """🐺 in a ballot's reason on a GBK board: posted as "?", said; the same character in the
    director's own game name still stops the post (test_announcing_post)."""
    from .test_counting_whole_day import game_file, vote_thread

    board = Board(forum, charset="gbk")
    t = vote_thread()
    t.posts = [replace(p, text=p.text.replace("狼面大", "狼面大🐺")) for p in t.posts]
    url = board.thread(t)
    cookies = board.cookies(board.member("导演A", 7), tmp_path / "cookies.txt")
    result = announce(game_file(tmp_path, url), cookies, after_close(board), "--yes")
    assert result.exit_code == 0, result.stderr
    assert "狼面大?" in board.replies[0][2]
    assert "which cannot hold '🐺' that players wrote: posted as '?'" in result.stderr


def test_a_post_over_the_boards_limit_is_said_before_sending(board, tmp_path):
    """The reply box's maxpostsize, on its page (the interface says none: the forum's
    post_message_toolong is its refusal, tests/test_announcing_post_api.py)."""
    _, game, cookies = setup(board, tmp_path)
    board.interface = CLOSED
    original = board._page

    def small(tid, page, who):  # type: ignore[no-untyped-def]
        reply = original(tid, page, who)
        body = reply.body.replace(b"postmaxchars = parseInt('10000')", b"postmaxchars = parseInt('100')")
        return Reply(reply.status, body, reply.headers)

    board._page = small  # type: ignore[method-assign]
    result = announce(game, cookies, after_close(board), "--yes")
    assert result.exit_code == NOT_POSTED
    assert re.search(r"the post is \d+ bytes in the board's UTF-8 and the board takes at most "
                     r"100 \(its maxpostsize\)", result.stderr)  # fmt: skip
    assert board.answers == []


# -- shown, then asked; a reminder with nobody to remind ---------------------------------------------


def test_the_post_is_shown_in_full_before_the_question(board, tmp_path):
    _, game, cookies = setup(board, tmp_path)
    no = announce(game, cookies, after_close(board), input="n\n", env={"terminal": True})
    assert no.exit_code == NOT_POSTED
    shown, asked = no.stderr.index("白桃 被投票出局"), no.stderr.index("Post this to")
    mark = MARK.search(no.stderr)
    assert mark is not None and shown < mark.start() < asked


def test_no_reminder_when_everyone_has_voted(board, tmp_path):
    url, game, cookies = setup(board, tmp_path)
    clock = FakeClock("2024-05-09 20:40:00", CHINA)
    board.clock = clock.now
    counted = runner.invoke(app, ["votes", url, "--game", game, "--json", "-q"], obj=env(clock))
    waiting = json.loads(counted.stdout)["not_voted"]
    assert waiting  # then nobody of them may vote: nobody is left to remind
    names = ", ".join(f'"{p}"' for p in waiting)
    text = Path(game).read_text(encoding="utf-8").replace("deputy = ", f"cannot_vote = [{names}]\ndeputy = ")
    Path(game).write_text(text, encoding="utf-8")
    result = watch(url, game, cookies, clock, "--remind-at", "60", "--polls", "1")
    assert result.exit_code == 0, result.stderr
    assert "no reminder posted: every living player has voted on day 2." in result.stderr
    assert board.replies == []
    told = announce(game, cookies, clock, "--kind", "reminder", "--yes")
    assert told.exit_code == NOT_POSTED and "there is nobody to remind" in told.stderr


# -- a closed day keeps its result -----------------------------------------------------------------


def test_a_closed_day_keeps_its_result(board, tmp_path):
    """Posted: 白桃 out. A ballot edited after the announcement turns the count: the recount
    stops, naming the floor and the account, until the file says why."""
    url, game, cookies = setup(board, tmp_path)
    clock = after_close(board)
    assert announce(game, cookies, clock, "--yes").exit_code == 0
    t = board.threads["102"]
    votes_for = [i for i, p in enumerate(t.posts) if "投票对象：白桃" in p.text]
    for i in votes_for:
        t.posts[i] = replace(t.posts[i], text=t.posts[i].text.replace("白桃", "长夜"))
    board.thread(t)
    clock.sleep(120)
    args = ["votes", url, "--game", game, "--fresh", "-q"]
    again = runner.invoke(app, args, obj=env(clock))
    assert again.exit_code == 2, again.stderr
    said = again.stderr.strip().splitlines()[-1]
    assert said.startswith("tally: day 2's result was announced as eliminated 白桃, and counts now as")
    assert "floor " in said and "(uid " in said and 'result_changed = "…"' in said
    # Without the journal (another machine): the director's post in the thread says it.
    journal_path(Path(game)).unlink()
    elsewhere = runner.invoke(app, args, obj=env(clock))
    assert elsewhere.exit_code == 2
    assert "day 2's result was posted on floor 20 by 导演A, and counts now as" in elsewhere.stderr
    text = Path(game).read_text(encoding="utf-8").replace(
        "deputy = ", 'result_changed = "two ballots fixed on appeal"\ndeputy = ')  # fmt: skip
    Path(game).write_text(text, encoding="utf-8")
    assert runner.invoke(app, args, obj=env(clock)).exit_code == 0


# -- one poster at a time ---------------------------------------------------------------------------


@pytest.mark.slow
def test_two_announces_at_once_post_once(board, tmp_path):
    """Two `tally announce --post --yes` processes at once on a forum that takes a while to
    answer each page: the lock lets one in; the other, let in after, reads the thread again
    and finds the post. Each process is forked from this one, tally imported (two
    interpreters starting were most of the test's CPU), on the real clock and the default
    politeness, as `tally` runs."""
    _, game, cookies = setup(board, tmp_path)
    board.floodctrl = 0  # the board's flood control would stop a second post on its own
    board.clock = FakeClock("2024-05-09 22:00:00", CHINA).now  # the posts' times; the runs' are now
    original = board.forum.request_hook

    def slow(path, headers, body):  # type: ignore[no-untyped-def]
        if body is None and "viewthread" in path:
            time.sleep(0.15)  # the two, forked a moment apart, read the thread at once
        return original(path, headers, body)  # type: ignore[misc]

    board.forum.request_hook = slow
    own = Environment(config_dir=FOLDERS.config, cache_dir=FOLDERS.cache,
                      environ=quiet_environ(NO_COLOR="1"))  # fmt: skip
    command = typer.main.get_command(app)
    runs = [["announce", "--game", game, "--day", "2", "--post", "--yes", "--cookies",
             str(cookies), "--cache-dir", str(tmp_path / f"cache{i}")] for i in range(2)]
    # Each run forked from this process (tests/forking.py), tally imported once.
    pids = [forked(lambda args=args: command(args, prog_name="tally", obj=own),
                   tmp_path / f"run{i}") for i, args in enumerate(runs)]  # fmt: skip
    done = [ended(pid, tmp_path / f"run{i}") for i, pid in enumerate(pids)]
    codes, said = [d.returncode for d in done], [d.stderr for d in done]
    assert sorted(codes) == [0, NOT_POSTED], (codes, said)
    assert len(board.replies) == 1
    refused = next(err for err, code in zip(said, codes, strict=True) if code)
    assert "already holds this post" in refused


def test_the_lock_is_one_poster_at_a_time(tmp_path):
    from tally.journal import post_lock

    game = tmp_path / "g.toml"
    order: list[str] = []
    a_in = threading.Event()

    def hold(name: str) -> None:
        with post_lock(game, 2, "close"):
            order.append(f"{name} in")
            a_in.set()
            time.sleep(0.05)  # b asks meanwhile
            order.append(f"{name} out")

    a = threading.Thread(target=hold, args=("a",))
    a.start()
    a_in.wait(10)
    hold("b")
    a.join()
    assert order == ["a in", "a out", "b in", "b out"]
    assert Journal(journal_path(game)).entries() == ()


def test_two_copies_of_a_game_file_post_to_one_thread_one_at_a_time(tmp_path):
    """Two copies of one game file in two folders, each with its own journal and lock beside
    it, both posted at once on a real X3.5 (floors 7 and 8). The lock is also the thread's,
    in the user's own folder: the second is let in after the first, reads the thread again
    and finds the post (test_two_announces_at_once_post_once)."""
    from tally.journal import post_lock

    copies = [tmp_path / "a" / "g.toml", tmp_path / "b" / "g.toml"]
    for path in copies:
        path.parent.mkdir()
    order: list[str] = []
    url = "http://bbs.example.com/forum.php?mod=viewthread&tid=102"
    a_in = threading.Event()

    def hold(name: str, game: Path) -> None:
        with post_lock(game, 2, "close", thread=url, folder=tmp_path / "user"):
            order.append(f"{name} in")
            a_in.set()
            time.sleep(0.05)  # b asks meanwhile
            order.append(f"{name} out")

    a = threading.Thread(target=hold, args=("a", copies[0]))
    a.start()
    a_in.wait(10)
    hold("b", copies[1])
    a.join()
    assert order == ["a in", "a out", "b in", "b out"]


def test_a_post_the_thread_does_not_show_says_it_may_be_held_for_a_moderator(board, tmp_path):
    """On a real X3.5 whose forum holds the director's replies for approval (审核) the post
    was "made" (exit 0) with a note that it was "not shown (yet)": it says now what that
    means, that players do not see it, and that tally will not post it twice."""
    _, game, cookies = setup(board, tmp_path)
    after_close(board)
    original = board.forum.request_hook
    before: dict[str, object] = {}

    def held(path, headers, body):  # type: ignore[no-untyped-def]
        if body is None and "viewthread" in path:
            if board.replies and path in before:
                return before[path]  # the thread as it was: the reply is not shown
            before[path] = original(path, headers, body)  # type: ignore[misc]
            return before[path]
        return original(path, headers, body)  # type: ignore[misc]

    board.forum.request_hook = held
    result = watch(board.forum.url("forum.php?mod=viewthread&tid=102"), game, cookies,
                   FakeClock("2024-05-09 21:20:00", CHINA), "--post")  # fmt: skip
    assert len(board.replies) == 1
    said = " ".join(result.stderr.split())
    assert "held for a moderator to approve (审核" in said and "the players do not see it" in said


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_read_back_that_fails_says_look_at_the_thread_never_offline(board, tmp_path, language,
                                                                      monkeypatch):  # fmt: skip
    """The post made, the forum down for the read back: the post is not lost to a "paste by
    hand", and the advice is the thread, not --offline (the cache holds the thread), in
    either language (the failure is told apart from the advice, not cut off at its words)."""
    monkeypatch.setenv("TALLY_LANG", language)
    _, game, cookies = setup(board, tmp_path)
    after_close(board)
    original = board.forum.request_hook

    def down_after_the_post(path, headers, body):  # type: ignore[no-untyped-def]
        if body is None and "viewthread" in path and board.replies:
            return Reply(500, b"<html>down</html>", {"Content-Type": "text/html"})
        return original(path, headers, body)  # type: ignore[misc]

    board.forum.request_hook = down_after_the_post
    result = watch(board.forum.url("forum.php?mod=viewthread&tid=102"), game, cookies,
                   FakeClock("2024-05-09 21:20:00", CHINA), "--post")  # fmt: skip
    assert len(board.replies) == 1
    if language == "en":
        assert "post 2020 was made, and the thread could not be read back" in result.stderr
        assert "look at the thread" in result.stderr
    else:
        assert "2020" in result.stderr and "read back" not in result.stderr
    assert "--offline" not in result.stderr and "paste" not in result.stderr
    assert entries(game)[-1]["pid"] == "2020"


def test_a_closed_day_keeps_its_result_when_counted_from_an_archive(board, tmp_path):
    """Counted from `tally archive`'s CSV on another machine (no journal): the archived
    thread holds the director's posted result, whose mark says the outcome it posted."""
    url, game, cookies = setup(board, tmp_path)
    clock = after_close(board)
    assert announce(game, cookies, clock, "--yes").exit_code == 0
    t = board.threads["102"]
    for i, p in enumerate(t.posts):
        if "投票对象：白桃" in p.text:
            t.posts[i] = replace(p, text=p.text.replace("白桃", "长夜"))
    board.thread(t)
    clock.sleep(120)
    csv = tmp_path / "posts.csv"
    archived = runner.invoke(app, ["archive", url, "-o", str(csv), "--fresh", "-q"], obj=env(clock))
    assert archived.exit_code == 0, archived.stderr
    journal_path(Path(game)).unlink()
    again = runner.invoke(app, ["votes", str(csv), "--game", game, "-q"], obj=env(clock))
    assert again.exit_code == 2, again.stderr
    assert "day 2's result was posted on floor 20 by 导演A, and counts now as" in again.stderr


def test_a_post_held_for_a_moderator_is_never_sent_again(board, tmp_path):
    """回复需要审核: the forum took it and will show it once approved. The journal keeps it
    open, so a second --post (or watch, or the desk) sends nothing; no 'paste by hand'."""
    _, game, cookies = setup(board, tmp_path)
    board.moderate = True
    clock = after_close(board)
    first = announce(game, cookies, clock, "--yes")
    assert first.exit_code == NOT_POSTED
    assert "the forum took the post for a moderator to approve" in first.stderr
    assert "paste by hand" not in first.stderr and "post by hand" not in first.stderr
    assert [e["state"] for e in entries(game)] == ["unknown"]
    clock.sleep(300)
    again = announce(game, cookies, clock, "--yes")
    assert again.exit_code == NOT_POSTED, again.stderr
    assert len(board.answers) == 1  # sent once


def test_the_mark_survives_a_renamed_file_and_a_thread_added_to_day_1(board, tmp_path):
    """A co-director's copy under another name, or a discussion thread added to day 1 later:
    the same game, so the same mark, and the post already made is found again."""
    from tally.rules.counting.closed import mark
    from tally.rules.game.gamefile import load_game

    url, game, cookies = setup(board, tmp_path)
    original = Path(game).read_text(encoding="utf-8")
    own = mark(load_game(game), 2, "close")
    copy = tmp_path / "wolves.toml"
    copy.write_text(original, encoding="utf-8")
    assert mark(load_game(copy), 2, "close") == own
    talk = original.replace(f'vote = "{url}"', f'vote = "{url}"\ndiscussion = "{url[:-3]}101"')
    assert talk != original
    copy.write_text(talk, encoding="utf-8")
    assert mark(load_game(copy), 2, "close") == own
    clock = after_close(board)
    assert announce(game, cookies, clock, "--yes").exit_code == 0
    clock.sleep(60)
    again = announce(str(copy), cookies, clock, "--yes")  # no journal beside the copy
    assert again.exit_code == NOT_POSTED, again.stderr
    assert "already holds this post" in again.stderr and len(board.replies) == 1


def test_a_result_posted_in_the_closes_own_minute_is_found_on_a_board_showing_minutes():
    """Close 21:30:30; the result posted at 21:30:50 shows as 21:30 on a board that prints
    minutes only: still the post already made."""
    from dataclasses import replace as swap

    from tally.rules.counting.closed import mark, marked_post
    from tally.vocabulary import Announcement

    from .votekit import T, game

    g = game("000", day="")
    day = swap(g.day(2), closes=g.day(2).closes.replace(second=30))
    t = T().post("导演", "09 21:30", f"第2天结果\n\n{mark(g, 2, 'close')}/abcdef")
    thread = t.thread()
    found = marked_post(g, day, Announcement.CLOSE, thread, cast=g.cast())
    assert found is not None and found.floor == 2


# -- the closing post edited by the director: its mark line gone -------------------------------------


def _tidied(board: Board, note: str = "（法官修正了排版）") -> str:
    """The director edits tally's closing post (floor 20): the same text without the mark
    line, plus a note, as a real X3.5 director did (dzmod.py edit): the edited text."""
    import html as markup

    from .discuzboard import discuz_render

    t = board.threads["102"]
    posted = t.posts[-1]
    text = "\n".join(ln for ln in posted.text.splitlines() if "tally#" not in ln).rstrip() + f"\n{note}"
    t.posts[-1] = replace(posted, text=text, html=discuz_render(markup.escape(text, quote=False)),
                          edited=("导演A", "2024-05-09 22:03"))  # fmt: skip
    board.thread(t)
    return text


def test_the_journals_post_edited_without_its_mark_is_still_the_post(board, tmp_path):
    """Real X3.5: posted as floor 10 (pid 138); the director edited the mark line out; the
    next --post said the thread "does not show now" post 138, which was still floor 10. The
    journal's post, shown by its id and by the director's account, is the post, edited
    (docs/final-hour.md, Posting the result: never twice)."""
    _, game, cookies = setup(board, tmp_path)
    clock = after_close(board)
    assert announce(game, cookies, clock, "--yes").exit_code == 0
    _tidied(board)
    clock.sleep(300)
    again = announce(game, cookies, clock, "--yes")
    assert again.exit_code == NOT_POSTED, again.stderr
    said = again.stderr.strip().splitlines()[-1]
    assert "day 2's close is already posted as floor 20 (pid 2020), edited since" in said
    assert "does not show now" not in said and "tally posts it once" in said
    assert len(board.replies) == 1


def test_a_copy_of_the_game_file_does_not_post_again_when_the_mark_was_edited_out(board, tmp_path):
    """Real X3.5: the same game file copied to another folder (no journal beside it) posted a
    second closing post, floor 11, after the director edited the mark line out of floor 10.
    A director's post after the close that holds the heading and the last line (the outcome)
    of the text tally would post is that post: said, with how to post anyway; a director's
    other post after the close (a note) is not."""
    _, game, cookies = setup(board, tmp_path)
    clock = after_close(board)
    assert announce(game, cookies, clock, "--yes").exit_code == 0
    _tidied(board)
    elsewhere = tmp_path / "copy"
    elsewhere.mkdir()
    copy = elsewhere / "game.toml"
    copy.write_text(Path(game).read_text(encoding="utf-8"), encoding="utf-8")
    board.threads["102"].add(P("导演A", "2024-05-09 22:04:00", "第2天投票结果见20楼，明早开门。"))
    board.thread(board.threads["102"])
    clock.sleep(300)
    again = announce(str(copy), cookies, clock, "--yes")
    assert again.exit_code == NOT_POSTED, again.stderr
    said = again.stderr.strip().splitlines()[-1]
    assert said.startswith("tally: floor 20 (pid 2020), by 导演A at 05-09 22:00, is this post without its mark tally#")
    assert "'测试局 第2天投票结果'" in said and "白桃 被投票出局" in said
    assert "paste by hand what `tally announce --day 2 --kind close` prints" in said
    assert len(board.replies) == 1
    assert not journal_path(copy).exists()


def test_a_directors_note_after_the_close_is_not_the_post():
    """The rule of the copy without the journal, on its own: the note that names the day's
    result thread is no copy of the result; the result with its mark line gone is."""
    from tally.commands.sent_text import edited_copy, final_text
    from tally.vocabulary import Announcement

    from .votekit import T, game

    g = game("000", day="")
    text = final_text(g, 2, "close", "[b]第2天投票结果[/b]\n甲：2 票\n\n[color=#FF0000][b]甲 被投票出局[/b][/color]\n")
    note = T().post("导演", "09 21:40", "第2天投票结果稍后公布").thread()
    assert edited_copy(g, g.day(2), Announcement.CLOSE, note, text) is None
    tidied = T().post("导演", "09 21:40", "第2天投票结果\n甲：2 票\n甲 被投票出局\n（修正排版）").thread()
    found = edited_copy(g, g.day(2), Announcement.CLOSE, tidied, text)
    assert found is not None and found.floor == 2
    by_a_player = T().post("乙", "09 21:40", "第2天投票结果\n甲 被投票出局").thread()
    assert edited_copy(g, g.day(2), Announcement.CLOSE, by_a_player, text) is None
