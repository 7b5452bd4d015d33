"""Hostile names, part 3: names the pictures would read as maths ("$$", "$\\bad$", "a$b$c"),
from a forum's user names through `tally init` to the report; names that end in punctuation
("Mika;"), voted for exactly, and a roster holding "Mika" and "Mika;" refused at load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tally.cli import app
from tally.errors import GameFileError
from tally.rules.game.gamefile import parse_game

from .conftest import Runner
from .discuzgen import P, Thread
from .test_archive_record import env_after_close

runner = Runner()
MATHS = ["$$", "$\\bad$", "a$b$c", "x^2_y", "\\frac{1}{2}"]


def day_thread(tid: str, title: str, posts: list[P]) -> Thread:
    t = Thread(tid, title, {}, first_pid=int(tid) * 1000)  # post ids are the board's: one a post
    t.add(*posts)
    return t


@pytest.mark.slow
def test_names_with_dollars_are_drawn_as_written(forum, tmp_path):
    """From the forum's user names through `tally init` to `votes --chart` and the report:
    every name drawn as text, none a formula, no traceback."""
    talk = day_thread("301", "[测试局] 第1天讨论帖", [P("导演A", "2024-05-08 09:30:00", "第1天开始")]
                      + [P(n, "2024-05-08 10:00:00", "发言") for n in MATHS])  # fmt: skip
    votes = day_thread("302", "[测试局] 第1天投票帖", [
        P("导演A", "2024-05-08 09:30:00", "投票格式：投票对象：XX 投票理由：XX 截止 5-9 21:30"),
        P("$$", "2024-05-08 10:01:00", "投票对象：a$b$c\n投票理由：数学"),
        P("$\\bad$", "2024-05-08 10:02:00", "投票对象：a$b$c\n投票理由：公式"),
        P("a$b$c", "2024-05-08 10:03:00", "投票对象：$$\n投票理由：钱"),
        P("x^2_y", "2024-05-08 10:04:00", "投票对象：$\\bad$\n投票理由：上下标"),
        P("\\frac{1}{2}", "2024-05-08 10:05:00", "投票对象：x^2_y\n投票理由：分数"),
    ])  # fmt: skip
    env = env_after_close(tmp_path)
    urls = [talk.serve(forum), votes.serve(forum)]
    game = tmp_path / "game.toml"
    made = runner.invoke(app, ["init", *urls, "-o", str(game)], obj=env)
    assert made.exit_code == 0, made.output
    text = game.read_text("utf-8")
    for name in MATHS:
        assert json.dumps(name, ensure_ascii=False) in text  # TOML basic strings as JSON's
    text = text.replace('name = "TODO', 'name = "测试局" # TODO').replace(
        'ruleset = "TODO"', 'ruleset = "000"'
    )
    game.write_text(text, "utf-8")
    picture = tmp_path / "day1.png"
    counted = runner.invoke(
        app, ["votes", urls[1], "--game", str(game), "--chart", str(picture), "--json"], obj=env
    )
    assert counted.exit_code == 0, counted.output
    assert picture.read_bytes().startswith(b"\x89PNG")
    outcome = json.loads(counted.stdout)["outcome"]
    assert outcome["player"] == "a$b$c"
    report = tmp_path / "report.html"
    made = runner.invoke(app, ["report", "--game", str(game), "-o", str(report)], obj=env)
    assert made.exit_code == 0, made.output
    html = report.read_text("utf-8")
    for name in ("a$b$c", "$$"):
        # In the SVG text, as written (entities for &, <, >), no italic maths.
        assert f">{name}</text>" in html or f">{name} " in html, name
    assert "\\bad" in html


def test_pictures_read_no_maths(tmp_path):
    """The one place every text reaches matplotlib: maths off, TeX off."""
    from tally.outputs.written.charts import _style

    style = _style()
    assert style["text.parse_math"] is False and style["text.usetex"] is False


# Literal TOML (not tests/gamefiles.py): the roster's names as the file's text holds them.
ROSTER = 'ruleset = "000"\ndirectors = ["导演A"]\nplayers = [{players}]\n[[days]]\nday = 2\n' \
    'opens = 2024-05-08T09:30:00\ncloses = 2024-05-09T21:30:00\n' \
    'vote = "https://bbs.example.com/thread-102-1-1.html"\n'  # fmt: skip


def roster(*players: str) -> str:
    return ROSTER.format(players=", ".join(json.dumps(p, ensure_ascii=False) for p in players))


def test_two_players_one_name_once_punctuation_is_dropped_are_refused():
    """A ballot "投票对象：Mika;" was credited to Mika when the roster held both."""
    with pytest.raises(GameFileError, match="Mika"):
        parse_game(roster("Mika", "Mika;", "冷月"), source="game.toml")
    with pytest.raises(GameFileError, match=r"'长夜' and '长夜。' \(a player\) are one name to tally"):
        parse_game(roster("长夜。", "长夜", "冷月"), source="game.toml")


@pytest.mark.parametrize("written", ["Mika;", "Mika；", "Mika。", "Mika", "Mika!", "Mika…"])
def test_a_name_ending_in_punctuation_can_be_voted_for(written, forum, tmp_path):
    players = ["Mika;", "冷月", "白桃"]
    t = day_thread("102", "[测试局] 第二天投票帖", [
        P("导演A", "2024-05-08 09:30:00", "投票格式：投票对象：XX 投票理由：XX"),
        P("冷月", "2024-05-08 10:01:00", f"投票对象：{written}\n投票理由：试试"),
        P("白桃", "2024-05-08 10:02:00", f"投票对象：{written}\n投票理由：跟票"),
    ])  # fmt: skip
    url = t.serve(forum)
    game = Path(tmp_path / "game.toml")
    game.write_text('name = "测试局"\n' + roster(*players).replace(
        "https://bbs.example.com/thread-102-1-1.html", url), "utf-8")  # fmt: skip
    result = runner.invoke(app, ["votes", url, "--game", str(game), "--json"],
                           obj=env_after_close(tmp_path))  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    targets = {b["target"] for b in data["ballots"] if b["status"] == "counted"}
    assert targets == {"Mika;"}
    assert data["outcome"]["player"] == "Mika;"
