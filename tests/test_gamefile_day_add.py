"""A director's week, one command each (issue 35): `tally init` for day 1, `tally day add` each
morning after, and every day counted right with no hand edit of the game file.

The game (ruleset 000, sheriff 2.5): day 1 elects 冷月 (3 votes to kiwi's 2); on day 2 冷月's
weight puts 老K out (4.5 to 风铃's 3); on day 3 老K's ballot is void (out since day 2, which
no line of the file says) and kiwi is out (3 to 2.5); on day 4 阿澈 is out (3.5 to 2). Each
day's discussion thread opens with its 开门 line, the vote thread's first post states the
close, as directors write them.
"""

from __future__ import annotations

import json
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tally.cli import app
from tally.rules.game.gamefile import load_game

from .conftest import FakeClock, Runner
from .discuzgen import P
from .discuzgen import Thread as Pages

runner = Runner()
CHINA = ZoneInfo("Asia/Shanghai")
NUMERALS = "一二三四"
PLAYERS = ["冷月", "小眯", "kiwi", "阿澈", "风铃", "老K"]
VOTES = {
    1: [("小眯", "冷月"), ("kiwi", "冷月"), ("阿澈", "冷月"), ("风铃", "kiwi"), ("老K", "kiwi"),
        ("冷月", "阿澈")],
    2: [("冷月", "老K"), ("小眯", "老K"), ("kiwi", "风铃"), ("阿澈", "风铃"), ("风铃", "老K"),
        ("老K", "风铃")],
    3: [("冷月", "风铃"), ("小眯", "kiwi"), ("kiwi", "小眯"), ("阿澈", "kiwi"), ("风铃", "kiwi"),
        ("老K", "小眯")],
    4: [("冷月", "阿澈"), ("小眯", "风铃"), ("阿澈", "风铃"), ("风铃", "阿澈")],
}  # fmt: skip


def date(day: int, offset: int = 0) -> tuple[int, int]:
    """Day 1 opens on 11-23, each day two calendar days after the one before."""
    return 11, 23 + 2 * (day - 1) + offset


# One forum: an account has one uid in every thread (each thread numbering its own posters
# gave 冷月's and 小眯's accounts each other's names from one thread to the next).
UIDS = {"导演A": 100, **{p: 101 + i for i, p in enumerate(PLAYERS)}}


def threads(day: int) -> tuple[Pages, Pages]:
    mo, d = date(day)
    cmo, cd = date(day, 1)
    talk = Pages(str(900 + 2 * day), f"[测试局] 第{NUMERALS[day - 1]}天讨论帖", UIDS,
                 first_pid=90000 + 1000 * day)  # fmt: skip
    # Opened early, the evening before in day 1's case; the 开门 line says when it opens.
    talk.add(P("导演A", f"2024-{mo}-{d:02d} 09:20:00",
               f"第{NUMERALS[day - 1]}天讨论帖\n开门：{mo}月{d}日 09:30\n关门：{cmo}月{cd}日 21:30"))  # fmt: skip
    for i, who in enumerate(PLAYERS):
        talk.add(P(who, f"2024-{mo}-{d:02d} 10:{i:02d}:00", f"{who}第{day}天的发言"))
    title = "警长竞选投票帖" if day == 1 else "投票帖"
    vote = Pages(str(901 + 2 * day), f"[测试局] 第{NUMERALS[day - 1]}天{title}", UIDS,
                 first_pid=90500 + 1000 * day)  # fmt: skip
    vote.add(P("导演A", f"2024-{mo}-{d:02d} 09:31:00",
               f"投票格式：\n投票对象：\n投票理由：\n投票截止：{cmo}月{cd}日 21:30\n"
               f"如执行加速，则于{mo}月{d}日21:30截止"))  # fmt: skip
    for i, (who, target) in enumerate(VOTES[day]):
        vote.add(P(who, f"2024-{mo}-{d:02d} 1{i}:30:00", f"投票对象：{target}\n投票理由：第{day}天"))
    return talk, vote


def serve(forum) -> dict[int, tuple[str, str]]:
    return {day: tuple(t.serve(forum) for t in threads(day)) for day in VOTES}  # type: ignore[misc]


def run(*args: str, now: str, **kw):
    return runner.invoke(app, list(args), obj=FakeClock(now, CHINA).env(), env={"COLUMNS": "200"}, **kw)


def morning(day: int) -> str:
    mo, d = date(day)
    return f"2024-{mo}-{d:02d} 10:00"


def start(forum, tmp_path: Path) -> tuple[Path, dict[int, tuple[str, str]]]:
    urls = serve(forum)
    game = tmp_path / "game.toml"
    made = run("init", *urls[1], "-o", str(game), "--ruleset", "000", "--name", "[测试局]",
               now=morning(1))  # fmt: skip
    assert made.exit_code == 0, made.output
    return game, urls


def test_a_four_day_game_from_init_and_three_day_adds_counts_every_day(forum, tmp_path):
    game, urls = start(forum, tmp_path)
    for day in (2, 3, 4):
        added = run("day", "add", *urls[day], "--game", str(game), "--yes", now=morning(day))
        assert added.exit_code == 0, added.output
        assert f"added day {day} to {game}" in added.stderr
        assert "still to do" not in added.stderr
    loaded = load_game(game)
    assert [d.day for d in loaded.days] == [1, 2, 3, 4]
    for d in loaded.days:  # opens as the 开门 line says, not the posts' times
        mo, dd = date(d.day)
        assert (d.opens.month, d.opens.day, d.opens.hour, d.opens.minute) == (mo, dd, 9, 30)
        assert (d.closes.day, d.closes.hour, d.closes.minute) == (dd + 1, 21, 30)
        assert (d.discussion, d.vote) == urls[d.day]
        assert not d.dead and d.sheriff is None  # left for tally to derive
    expected = {1: ("sheriff", "冷月"), 2: ("eliminated", "老K"), 3: ("eliminated", "kiwi"),
                4: ("eliminated", "阿澈")}  # fmt: skip
    for day, (result, player) in expected.items():
        counted = run("votes", urls[day][1], "--game", str(game), "--json", "-q", now="2024-12-01 10:00")
        assert counted.exit_code == 0, counted.output
        data = json.loads(counted.stdout)
        assert (data["outcome"]["result"], data["outcome"]["player"]) == (result, player), day
        if day == 3:
            void = {b["voter"]: b["reason"] for b in data["ballots"] if b["status"] == "void"}
            assert void == {"老K": "dead_voter"}
            assert {(t["player"], t["votes"]) for t in data["totals"][:2]} == {("kiwi", 3), ("风铃", 2.5)}


def test_day_add_says_what_the_days_before_made_and_what_the_ruleset_asks(forum, tmp_path):
    game, urls = start(forum, tmp_path)
    run("day", "add", *urls[2], "--game", str(game), "--yes", now=morning(2))
    shown = run("day", "add", *urls[3], "--game", str(game), "--yes", now=morning(3))
    assert shown.exit_code == 0, shown.output
    block = shown.stdout
    assert "day = 3\nopens = 2024-11-27T09:30:00  # the discussion thread's 开门 line: \"开门：11月27日 09:30\"" in block
    assert 'closes = 2024-11-28T21:30:00  # the vote thread\'s first post: "投票截止：11月28日 21:30"' in block
    assert "# accelerated: closes = 2024-11-27T21:30:00 and accelerated = true" in block
    assert "# sheriff: 冷月, from day 1's election" in block
    assert "# out so far (tally derives them): 老K (voted out on day 2)" in block
    # 000's own keys: the 侍僧 (a tie goes to them) and the slandered; not 245's 任职宣言.
    assert '# acolyte = "…"' in block and "# slandered = " in block
    assert "sheriff_declaration" not in block and "bar_owner" not in block
    as_json = run("day", "add", *urls[4], "--game", str(game), "--yes", "--json", "-q", now=morning(4))
    data = json.loads(as_json.stdout)
    assert data["day"] == 4 and data["written"] is True and data["todo"] == []
    assert [o["player"] for o in data["out"]] == ["老K", "kiwi"]
    assert data["sheriff"] == {"player": "冷月", "from": "day 1's election"}
    assert data["opens"] == "2024-11-29T09:30:00+08:00" and data["closes"] == "2024-11-30T21:30:00+08:00"


def test_a_hand_made_comment_and_the_files_order_survive_day_add(forum, tmp_path):
    game, urls = start(forum, tmp_path)
    text = game.read_text(encoding="utf-8")
    mine = text.replace('players = [', '# 我的备注：老K 是替补，第二天补位\nplayers = [', 1)
    mine += '\n# 导演的裁定，手写\n[[rulings]]\nday = 1\nfloor = 7  # 冷月 自投\naction = "void"\nnote = "测试"\n'
    game.write_text(mine, encoding="utf-8")
    added = run("day", "add", *urls[2], "--game", str(game), "--yes", now=morning(2))
    assert added.exit_code == 0, added.output
    after = game.read_text(encoding="utf-8")
    assert "# 我的备注：老K 是替补，第二天补位\nplayers = [" in after
    assert "floor = 7  # 冷月 自投" in after
    # The new day sits after day 1, before the rulings and their comment; all else as it was.
    assert after.index("day = 1\n") < after.index("day = 2\n") < after.index("# 导演的裁定，手写\n[[rulings]]")
    head = mine.split("\n# 导演的裁定")[0]
    assert after.startswith(head.rstrip("\n") + "\n\n[[days]]\nday = 2\n")
    assert after.endswith('\n\n# 导演的裁定，手写\n[[rulings]]\nday = 1\nfloor = 7  # 冷月 自投\naction = "void"\nnote = "测试"\n')
    assert [d.day for d in load_game(game).days] == [1, 2]


def test_a_file_saved_by_notepad_keeps_its_line_ends_and_byte_order_mark(forum, tmp_path):
    game, urls = start(forum, tmp_path)
    crlf = b"\xef\xbb\xbf" + game.read_bytes().replace(b"\n", b"\r\n")
    game.write_bytes(crlf)
    assert run("day", "add", *urls[2], "--game", str(game), "--yes", now=morning(2)).exit_code == 0
    after = game.read_bytes()
    assert after.startswith(crlf) and b"\r\nday = 2\r\n" in after
    assert after.count(b"\n") == after.count(b"\r\n")
    assert [d.day for d in load_game(game).days] == [1, 2]


def one_sentence(result, code: int = 2) -> str:
    assert result.exit_code == code, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("tally:")]
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_day_add_refuses_a_thread_of_another_day_or_not_yet_open(forum, tmp_path):
    game, urls = start(forum, tmp_path)
    before = game.read_bytes()
    again = run("day", "add", *urls[1], "--game", str(game), "--yes", now=morning(2))
    assert one_sentence(again) == (
        f"tally: thread 902 is day 1's discussion thread in {game} already, not a new day's "
        "discussion thread; give the new day's threads."
    )
    titled = run("day", "add", *urls[3], "--game", str(game), "--yes", now=morning(3))
    assert one_sentence(titled) == (
        "tally: thread 906 “[测试局] 第三天讨论帖” is titled for day 3, not day 2; "
        f"{game} names no discussion thread for day 3"
    )
    early = run("day", "add", *urls[2], "--game", str(game), "--yes", now="2024-11-25 09:25")
    assert one_sentence(early) == (
        "tally: day 2 is not open yet: the discussion thread's 开门 line says it opens 11-25 "
        "09:30, and it is 11-25 09:25; add the day once it has opened."
    )
    swapped = run("day", "add", urls[2][1], urls[2][0], "--game", str(game), "--yes", now=morning(2))
    assert one_sentence(swapped) == (
        "tally: thread 905 “[测试局] 第二天投票帖” is a vote thread and thread 904 “[测试局] 第二天讨论帖” "
        "is not: give the discussion thread first, then the vote thread."
    )
    taken = run("day", "add", *urls[2], "--game", str(game), "--yes", "--day", "1", now=morning(2))
    assert "has day 1 already" in one_sentence(taken)
    assert game.read_bytes() == before


@pytest.mark.parametrize("answer,code", [(None, 2), ("n\n", 2), ("y\n", 0)])
def test_day_add_asks_first_and_refuses_without_a_terminal(forum, tmp_path, answer, code):
    game, urls = start(forum, tmp_path)
    before = game.read_bytes()
    env = FakeClock(morning(2), CHINA).env(terminal=answer is not None)
    result = runner.invoke(app, ["day", "add", *urls[2], "--game", str(game)], obj=env,
                           input=answer)  # fmt: skip
    assert result.exit_code == code, result.output
    assert "day = 2\n" in result.stdout  # shown before it asks, whatever is answered
    if answer is None:
        assert "there is no terminal to ask" in one_sentence(result)
    assert (game.read_bytes() == before) == (code != 0)


def test_init_takes_the_opening_from_the_discussion_thread_and_says_only_what_is_left(forum, tmp_path):
    game, _ = start(forum, tmp_path)
    text = game.read_text(encoding="utf-8")
    assert "opens = 2024-11-23T09:30:00  # the discussion thread's 开门 line" in text
    made = run("init", *serve(forum)[1], "-o", str(tmp_path / "g2.toml"), now=morning(1))
    assert made.exit_code == 0, made.output
    said = made.stderr
    assert "still to do: write the game's name (name); choose the rules (ruleset" in said
    assert "closes" not in said  # the first post said it
    named = run("init", *serve(forum)[1], "-o", str(tmp_path / "g3.toml"), "--ruleset", "000",
                "--name", "x", now=morning(1))  # fmt: skip
    assert "name" not in named.stderr.split("still to do:")[1].split(";")[0]


def test_a_sheriff_voted_out_is_left_to_the_director_with_the_sentence_of_the_count(forum, tmp_path, monkeypatch):
    """Day 2 votes out 冷月, the sheriff: day 3 is added, and what is still to do is the
    sentence a count of day 3 would stop with (tally.rules.counting.state)."""
    monkeypatch.setitem(VOTES, 2, [(p, "冷月") for p in PLAYERS if p != "冷月"] + [("冷月", "kiwi")])
    game, urls = start(forum, tmp_path)
    run("day", "add", *urls[2], "--game", str(game), "--yes", now=morning(2))
    added = run("day", "add", *urls[3], "--game", str(game), "--yes", "--json", "-q", now=morning(3))
    assert added.exit_code == 0, added.output
    data = json.loads(added.stdout)
    assert data["todo"] == [
        f"day 1's election made 冷月 sheriff, and 冷月 is out; day 3 in {game} names no sheriff — "
        'add sheriff = "…" (who holds the badge now) or sheriff = "none" (the badge is gone)'
    ]
    assert '# sheriff = "…"  # 冷月, the sheriff, is out: who has the badge?' in data["block"]
    # Until the director says, day 3 cannot be counted, and day 4 is not added on it.
    before = game.read_bytes()
    refused = run("day", "add", *urls[4], "--game", str(game), "--yes", now=morning(4))
    assert one_sentence(refused).endswith(f"day 3 in {game} names no sheriff — add sheriff = \"…\" "
                                          '(who holds the badge now) or sheriff = "none" (the badge is gone)')
    assert game.read_bytes() == before


def test_a_close_no_first_post_states_is_a_placeholder_and_said(forum, tmp_path):
    game, urls = start(forum, tmp_path)
    talk, vote = threads(2)
    talk.tid, vote.tid = "950", "951"
    talk.posts[0] = P("导演A", "2024-11-25 09:30:00", "第二天讨论帖开门")
    vote.posts[0] = P("导演A", "2024-11-25 09:31:00", "投票格式：\n投票对象：\n投票理由：")
    added = run("day", "add", talk.serve(forum), vote.serve(forum), "--game", str(game), "--yes",
                now=morning(2))  # fmt: skip
    assert added.exit_code == 0, added.output
    assert "still to do: write day 2's closes (neither first post says it" in added.stderr
    text = game.read_text(encoding="utf-8")
    assert "opens = 2024-11-25T09:30:00  # the discussion thread's first post\n" in text
    assert 'closes = "TODO: the close, like 2024-05-09T21:30:00"' in text
    refused = run("votes", urls[1][1], "--game", str(game), now=morning(2))
    assert "key 'day 2.closes': is still the placeholder" in one_sentence(refused)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("第二天讨论帖\n开门：11月25日 09:30\n关门：11月26日 21:30", (9, 30, "开门：11月25日 09:30")),
        ("第二天讨论帖开门，关门：11月26日 21:30", (9, 20, "第二天讨论帖开门，关门：11月26日 21:30")),
        ("11月25日 上午9点半开门", (9, 30, "11月25日 上午9点半开门")),
        ("关门：11月26日 21:30", None),  # a close is no opening
    ],
)
def test_the_opening_a_first_post_announces(text, expected):
    from datetime import datetime

    from tally.rules.counting.announced import announced_open

    written = datetime(2024, 11, 25, 9, 20, tzinfo=CHINA)
    said = announced_open(text, written, CHINA)
    got = (said[0].hour, said[0].minute, said[1]) if said is not None else None
    assert got == expected


def test_a_file_saved_while_day_add_asks_is_not_written_over(forum, tmp_path):
    """The director saves the game file in an editor while tally waits at its question: the
    block is not written over that edit; one sentence says to run day add again."""
    from tally.commands.day import add_day
    from tally.errors import InputError
    from tally.forums.reader import Reader, Reading

    game, urls = start(forum, tmp_path)

    class Editing:
        def proposed(self, text: str) -> None:
            pass

        def confirm(self, question: str) -> bool:
            game.write_text(game.read_text(encoding="utf-8") + "\n# 导演：第2天改了\n", "utf-8")
            return True

    edited_before = None
    with Reader(FakeClock(morning(2), CHINA).env(), Reading(use_cache=False)) as reader:
        with pytest.raises(InputError, match="changed while tally asked: nothing was added"):
            add_day(load_game(game), *urls[2], reader=reader, show=Editing())
        edited_before = game.read_text(encoding="utf-8")
    assert edited_before.endswith("# 导演：第2天改了\n") and "day = 2\n" not in edited_before
