"""A director's first hour: a game file from the threads, and messages that say what to do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tally.cli import app

from .conftest import DISCUZ, FIXTURES, FakeClock, Runner
from .discuzgen import P
from .discuzgen import Thread as Pages
from .tiebaapi import TiebaApi
from .tiebagen import sample

runner = Runner()
OTHER = FIXTURES / "discuz-other"


def one_sentence(result, code: int) -> str:
    assert result.exit_code == code, result.output
    assert result.stderr.startswith("tally: ") and result.stderr.count("\n") == 1, result.stderr
    return result.stderr


# -- tally init -------------------------------------------------------------------------------

PLAYERS = ["冷月", "小眯", "kiwi", "阿澈", "风铃", "老K"]


def day_one(forum) -> tuple[str, str]:
    # One forum: an account has one uid in both threads (each with its own uids, 冷月 and
    # 小眯 swapped accounts between them, and a ballot for 冷月 named both).
    uids: dict[str, int] = {}
    talk = Pages("200", "[测试局] 第一天讨论帖", uids, first_pid=5000)
    talk.add(P("导演A", "2024-05-06 09:30:00", "第一天讨论帖开门，请竞选警长"))
    # They first post in this order: 小眯, 冷月, kiwi, 阿澈, 风铃, 老K.
    for i, who in enumerate(["小眯", "冷月", "kiwi", "阿澈", "风铃", "老K", "冷月", "小眯"]):
        talk.add(P(who, f"2024-05-06 10:{i:02d}:00", f"{who}的发言"))
    vote = Pages("201", "[测试局] 第一天警长竞选投票帖", uids, first_pid=6000)
    vote.add(P("导演A", "2024-05-06 09:31:00", "投票格式：\n投票对象：\n投票理由："))
    for i, who in enumerate(PLAYERS):
        vote.add(P(who, f"2024-05-06 12:{i:02d}:00", "投票对象：冷月\n投票理由：稳"))
    return talk.serve(forum), vote.serve(forum)


def test_init_writes_a_game_file_from_the_threads(forum, tmp_path):
    talk, vote = day_one(forum)
    out = tmp_path / "game.toml"
    result = runner.invoke(app, ["init", talk, vote, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert f"wrote {out}: 1 director, 6 players, 1 day(s)" in result.stderr
    text = out.read_text(encoding="utf-8")
    assert 'directors = [{ name = "导演A", id = 100 }]' in text
    # Every poster but the director, in the order they first posted, each with its uid.
    assert (
        'players = [\n  { name = "小眯", id = 101 },\n  { name = "冷月", id = 102 },\n'
        '  { name = "kiwi", id = 103 },\n  { name = "阿澈", id = 104 },\n'
        '  { name = "风铃", id = 105 },\n  { name = "老K", id = 106 },\n]'
    ) in text
    # The day opens with the discussion thread's first post (开门), not the vote thread's.
    assert "day = 1\nopens = 2024-05-06T09:30:00  # the discussion thread's first post" in text
    assert f'vote = "{vote}"' in text and f'discussion = "{talk}"' in text
    # The presets, each in a line; the game's name proposed from the titles' common start.
    assert '#   "023"  [023] 明星大侦探: changes quote the vote post' in text
    assert 'name = "TODO: [测试局]"' in text

    # What only the director knows is a placeholder the loader refuses, one by one, saying
    # what to write: the rules, each day's close, the name.
    def refused() -> str:
        return one_sentence(runner.invoke(app, ["votes", vote, "--game", str(out)]), 2)

    assert refused() == (
        f"tally: {out}, key 'ruleset': is still the placeholder `tally init` wrote; choose the "
        'game\'s rules: "000", "245", "023", "M126".\n'
    )
    text = text.replace('ruleset = "TODO"', 'ruleset = "000"')
    out.write_text(text, encoding="utf-8")
    assert refused() == (
        f"tally: {out}, key 'day 1.closes': is still the placeholder `tally init` wrote; "
        "write the time, like 2024-05-09T21:30:00.\n"
    )
    text = text.replace(
        'closes = "TODO: the close, like 2024-05-09T21:30:00"', "closes = 2024-05-07T21:30:00"
    )
    out.write_text(text, encoding="utf-8")
    assert refused() == (
        f"tally: {out}, key 'name': is still the placeholder `tally init` wrote; write the "
        "game's name as the announcements print it (tally proposed '[测试局]').\n"
    )
    out.write_text(text.replace('name = "TODO: [测试局]"', 'name = "[测试局]"'), encoding="utf-8")
    data = json.loads(runner.invoke(app, ["votes", vote, "--game", str(out), "--json"]).stdout)
    assert data["kind"] == "sheriff" and data["outcome"]["player"] == "冷月"


def test_init_takes_the_close_from_the_first_post_and_names_the_game_by_the_titles(
    forum, tmp_path
):
    """Directors state the close in the first post ("投票截止：…"); a game file that starts
    from it has one less thing to type at 21:30."""
    talk = Pages("300", "[A01] 月下古堡 第二天讨论帖", {}, first_pid=7000)
    talk.add(P("导演A", "2024-05-08 09:30:00", "第二天讨论帖开门\n关门：5月9日 21:30"))
    talk.add(P("冷月", "2024-05-08 10:00:00", "发言"))
    vote = Pages("301", "[A01] 月下古堡 第二天投票帖", {}, first_pid=7100)
    vote.add(
        P("导演A", "2024-05-08 09:31:00", "投票截止：5月9日 21:30\n如执行加速，则于5月8日21:30截止")
    )
    vote.add(P("冷月", "2024-05-08 12:00:00", "投票对象：冷月\n投票理由：稳"))
    out = tmp_path / "game.toml"
    assert runner.invoke(app, ["init", talk.serve(forum), vote.serve(forum), "-o", str(out)]).exit_code == 0
    text = out.read_text(encoding="utf-8")
    assert 'name = "TODO: [A01] 月下古堡"' in text
    assert 'closes = 2024-05-09T21:30:00  # as the first post says: "投票截止：5月9日 21:30"' in text


def test_init_never_writes_over_a_file(forum, tmp_path):
    talk, vote = day_one(forum)
    out = tmp_path / "game.toml"
    out.write_text("mine", encoding="utf-8")
    result = runner.invoke(app, ["init", talk, vote, "-o", str(out)])
    assert "tally never writes over a game file" in one_sentence(result, 2)
    assert out.read_text(encoding="utf-8") == "mine" and forum.page_requests == []


def test_init_on_tieba_lists_the_names_shown_with_the_accounts_as_aliases(forum, tmp_path):
    url = TiebaApi(sample()).serve(forum)
    out = tmp_path / "game.toml"
    assert runner.invoke(app, ["init", url, "-o", str(out)]).exit_code == 0
    text = out.read_text(encoding="utf-8")
    assert 'directors = [{ name = "daoyan_a", id = 5000 }]' in text
    assert '  { name = "冷月", id = 5001 },\n' in text  # the shown name, the account's user id
    assert '"冷月" = ["lengyue2019"]' in text and '"kiwi"' in text
    assert "day = 2\n" in text  # 第二天 in the title


def test_init_on_tieba_leaves_out_an_account_that_shows_a_name_another_account_shows(forum, tmp_path):
    """Two Tieba accounts may show one 昵称, and an account may show the director's name:
    init wrote both as players (with one id for the two 冷月), and tally then refused its own
    file. The first account to post keeps the name; each other is left out, with its own
    account name and id, and the file loads."""
    from tally.rules.game.gamefile import load_game

    from .tiebagen import TP, TiebaThread

    names = {"lengyue2019": "冷月", "ly_fake": "冷月", "dy_fake": "daoyan_a", "kiwi": "kiwi"}
    t = TiebaThread("8800999", "【塔达林】第二天投票帖", nicknames=names)
    t.add(TP("daoyan_a", "2024-05-08 09:30", "投票截止：5月9日 21:30\n投票格式：\n投票对象：\n投票理由："))
    t.add(TP("lengyue2019", "2024-05-08 10:01", "投票对象：kiwi\n投票理由：一"))
    t.add(TP("kiwi", "2024-05-08 10:02", "投票对象：冷月\n投票理由：二"))
    t.add(TP("ly_fake", "2024-05-08 10:03", "投票对象：kiwi\n投票理由：我才是冷月"))
    t.add(TP("dy_fake", "2024-05-08 10:04", "代投：冷月\n投票对象：kiwi\n投票理由：导演代投"))
    out = tmp_path / "game.toml"
    made = runner.invoke(app, ["init", TiebaApi(t).serve(forum), "-o", str(out), "--ruleset",
                               "M126", "--name", "T"])  # fmt: skip
    assert made.exit_code == 0, made.output
    text = out.read_text(encoding="utf-8")
    uid = t.uids
    assert f'  {{ name = "冷月", id = {uid["lengyue2019"]} }},\n' in text
    assert text.count('name = "冷月"') == 2  # the player, and the one left out
    assert (f'# left out: {{ name = "冷月", id = {uid["ly_fake"]} }} (account "ly_fake") reads '
            "as 冷月 to tally") in text  # fmt: skip
    assert (f'# left out: {{ name = "daoyan_a", id = {uid["dy_fake"]} }} (account "dy_fake") '
            "reads as daoyan_a to tally") in text  # fmt: skip
    assert '"冷月" = ["lengyue2019"]' in text and "ly_fake\"]" not in text
    game = load_game(out)  # tally reads the file it wrote
    assert game.players == ("冷月", "kiwi")


def test_day_numbers_from_titles():
    from tally.rules.counting.announced import day_in_title

    assert day_in_title("【塔达林】第二天投票帖") == 2
    assert day_in_title("第十二天 投票") == 12
    assert day_in_title("第3天讨论") == 3
    assert day_in_title("D4 vote") == 4
    assert day_in_title("投票帖") is None


# -- messages that say what to do -------------------------------------------------------------


def test_a_plain_404_for_the_first_page_is_a_missing_thread(forum, tmp_path):
    url = forum.url("thread-424242-1-1.html")
    result = runner.invoke(app, ["archive", url, "-o", str(tmp_path / "x.csv")])
    assert one_sentence(result, 4) == (
        "tally: http://" + forum.base[7:] + "forum.php?mod=viewthread&tid=424242&page=1 answered "
        "HTTP 404: the thread does not exist or was deleted, or it is hidden; check the tid in "
        "the URL.\n"
    )


def test_the_forums_own_missing_page_says_check_the_tid(forum, tmp_path):
    forum.add_discuz_page("99999", 1, (DISCUZ / "missing-p1.html").read_bytes(), status=404)
    url = forum.url("thread-99999-1-1.html")
    result = runner.invoke(app, ["archive", url, "-o", str(tmp_path / "x.csv")])
    assert "check the tid in the URL" in one_sentence(result, 4)


def test_a_page_for_logged_in_readers_points_to_cookies(forum, tmp_path):
    forum.add_discuz_page("27", 1, (DISCUZ / "readperm-p1.html").read_bytes())
    result = runner.invoke(
        app, ["archive", forum.url("thread-27-1-1.html"), "-o", str(tmp_path / "x.csv")]
    )
    message = one_sentence(result, 4)
    assert "pass --cookies FILE, exported from a browser that is logged in" in message


def test_an_unreachable_forum_says_check_the_address(tmp_path):
    from tally.environment import HttpOptions

    quick = FakeClock().env(http=HttpOptions(attempts=1))
    result = runner.invoke(
        app, ["archive", "http://127.0.0.1:9/thread-1-1-1.html", "-o", str(tmp_path / "x.csv")],
        obj=quick,
    )  # fmt: skip
    assert one_sentence(result, 3) == (
        "tally: cannot reach 127.0.0.1:9 (connection refused); check the address, and that the "
        "forum is up (tried 1 time).\n"
    )


@pytest.mark.parametrize(
    "path,says",
    [
        (OTHER / "archiver-tid-24.htm", "is the forum's archiver view of a thread"),
        (OTHER / "mobile-tid-24.html", "is the forum's mobile view of a thread (mobile=2)"),
        (DISCUZ / "talk-only-author-p1.html", "is the forum's 只看该作者 view"),
        (FIXTURES / "tieba-saved" / "new-front-end.html", "Tieba's 2026 web front end"),
    ],
)
def test_a_saved_page_of_the_wrong_view_says_what_to_save(path: Path, says: str, tmp_path):
    result = runner.invoke(app, ["archive", str(path), "-o", str(tmp_path / "x.csv")])
    message = one_sentence(result, 2)
    assert says in message and "instead" in message


@pytest.mark.parametrize(
    "args,says",
    [
        (["votes", "--gam", "x"], "no such option: --gam"),
        (["votes"], "missing argument"),
        (["nope"], "no such command 'nope'"),
        (["lurkers", "--game", "g.toml", "--day", "three"], "invalid value for '--day'"),
    ],
)
def test_option_mistakes_are_one_sentence(args, says):
    message = one_sentence(runner.invoke(app, args), 2)
    assert says in message and message.endswith("--help`.\n") and "╭" not in message


def test_version_and_short_help():
    from tally import __version__

    assert runner.invoke(app, ["--version"]).stdout == f"tally {__version__}\n"
    short = runner.invoke(app, ["votes", "-h"])
    assert short.exit_code == 0 and short.stdout.startswith("Usage: tally votes")
    assert "<bool>" not in short.stdout and "╭" not in short.stdout


def test_a_wrong_format_stops_before_any_download(forum, tmp_path):
    from .test_counting_whole_day import game_file, vote_thread

    url = vote_thread().serve(forum)
    result = runner.invoke(
        app, ["announce", "--game", game_file(tmp_path, url), "--day", "2", "--format", "html"]
    )
    assert result.exit_code == 2 and forum.page_requests == []


# -- tables that read -------------------------------------------------------------------------


def odd_ballots(forum, tmp_path: Path) -> tuple[str, str]:
    """A vote thread with a ballot without its label and one for a name nobody has."""
    from .test_counting_whole_day import game_file

    t = Pages("102", "[测试局] 第二天投票帖", {})
    t.add(P("导演A", "2024-05-08 09:30:00", "投票格式：\n投票对象：\n投票理由："))
    t.add(P("冷月", "2024-05-08 10:01:00", "投票白桃"))  # no 投票对象 label
    t.add(P("kiwi", "2024-05-08 10:05:00", "投票对象：青宁\n投票理由：新来的"))  # not a player
    t.add(P("阿澈", "2024-05-08 10:20:00", "投票对象：白桃\n投票理由：狼面"))
    url = t.serve(forum)
    return url, game_file(tmp_path, url)


@pytest.mark.parametrize("columns", [80, 100, 120])
def test_the_why_column_says_each_reason_once_and_whole(forum, tmp_path, columns):
    url, game = odd_ballots(forum, tmp_path)
    result = runner.invoke(app, ["votes", url, "--game", game, "-q"], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    out = result.stdout
    # The tables fit; a flag is one line the terminal wraps itself (soft wrap, copyable).
    assert all(len(line) <= columns for line in out.splitlines() if not line.startswith("flag "))
    assert "format: format:" not in out and "…" not in out  # once, never cut short
    # The why text of each ballot, its lines joined again wherever the column folded it.
    why = " ".join(line.strip(" │").split("│")[-1].strip() for line in out.splitlines())
    assert "format: no 投票对象 label (V1, V7)" in why
    assert "unknown_target: '青宁' is not a player; closest: 青山 (V7)" in why
    wide = "┃ why" in out
    assert wide == (columns >= 100)


def test_init_writes_no_alias_that_reads_as_a_name_the_file_already_holds(tmp_path):
    """On Tieba an account's own name becomes the alias of the name it shows; account bob
    showing "Bobby" beside account carl showing "bob", or account daoyan_a。 showing "月亮"
    beside the director daoyan_a, made an alias that reads as a player or the director, and
    tally refused the file init wrote (found in a cold read). The alias is left out, said
    so; the account's id still knows it."""
    from datetime import datetime, timedelta
    from zoneinfo import ZoneInfo

    from tally.model import Post, Thread
    from tally.outputs.written.draft import draft
    from tally.rules.game.gamefile import load_game

    t0 = datetime(2024, 5, 8, 9, 30, tzinfo=ZoneInfo("Asia/Shanghai"))
    url = "https://tieba.baidu.com/p/8800999"

    def drafted(*authors: tuple[str, str | None, str]):  # type: ignore[no-untyped-def]
        posts = [Post("tieba", "8800999", "100", 1, "daoyan_a", "1", t0,
                      "投票截止：5月9日 21:30\n投票对象：\n投票理由：")]  # fmt: skip
        for i, (account, shown_as, uid) in enumerate(authors, start=1):
            posts.append(Post("tieba", "8800999", str(100 + i), i + 1, account, uid,
                              t0 + timedelta(minutes=i), "投票对象：kiwi\n投票理由：一",
                              author_display=shown_as))  # fmt: skip
        thread = Thread("tieba", "8800999", url, "【塔达林】第二天投票帖", 1, tuple(posts))
        text = draft([thread], [url], "Asia/Shanghai", ruleset="M126", name="T").text
        path = tmp_path / "game.toml"
        path.write_text(text, encoding="utf-8")
        return text, load_game(path)  # tally reads the file it wrote

    text, game = drafted(("bob", "Bobby", "2"), ("carl", "bob", "3"), ("kiwi", None, "4"))
    assert game.players == ("Bobby", "bob", "kiwi")
    assert '# no alias for "Bobby": its account name "bob" reads as bob to tally' in text
    assert '"bob" = ["carl"]' in text and '"Bobby" = ["bob"]' not in text
    assert (game.ids["Bobby"], game.ids["bob"]) == ("2", "3")  # each its own account
    text, game = drafted(("daoyan_a。", "月亮", "2"), ("kiwi", None, "4"))
    assert game.players == ("月亮", "kiwi")
    assert '# no alias for "月亮": its account name "daoyan_a。" reads as daoyan_a to tally' in text
