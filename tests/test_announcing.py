"""`tally announce`: golden files for every template and visibility, inert player text,
and BBCode checked against what a real Discuz! X3.5 renders.

Set TALLY_UPDATE_GOLDEN=1 to rewrite the golden files after a deliberate change (then read
the diff before committing it).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from selectolax.lexbor import LexborHTMLParser

from tally.cli import app
from tally.demo import sample_game_text
from tally.errors import InputError
from tally.outputs.written.announce import inert, render

from . import gamefiles
from .conftest import DISCUZ, Runner
from .discuzgen import P, discuz_render
from .test_counting_whole_day import game_file, vote_thread
from .tiebaapi import TiebaApi
from .tiebagen import game_toml, sample

GOLDEN = Path(__file__).resolve().parent / "golden"
runner = Runner()


def golden(name: str, text: str, base: str) -> None:
    if base:
        text = text.replace(base, "http://FORUM/")
    path = GOLDEN / name
    if os.environ.get("TALLY_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no golden file {name}: run with TALLY_UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8")


def announce(*args: str) -> str:
    result = runner.invoke(app, ["announce", *args, "--quiet"])
    assert result.exit_code == 0, result.output + result.stderr
    return result.stdout


def with_ruleset(path: str, ruleset: str, extra: str = "") -> str:
    text = (
        Path(path).read_text(encoding="utf-8").replace('ruleset = "000"', f'ruleset = "{ruleset}"')
    )
    text = text.replace('change_via = ["comment", "reply", "quote"]', extra)
    out = Path(path).with_name(f"game-{ruleset}.toml")
    out.write_text(text, encoding="utf-8")
    return str(out)


@pytest.mark.parametrize("markup", ["bbcode", "text"])
def test_close_000_publishes_counts_and_voters(forum, tmp_path, markup):
    url = vote_thread().serve(forum)
    out = announce("--game", game_file(tmp_path, url), "--day", "2", "--format", markup)
    golden(f"close-000.{markup}", out, forum.base)


def test_close_023_as_000(forum, tmp_path):
    url = vote_thread().serve(forum)
    game = with_ruleset(
        game_file(tmp_path, url), "023", "sheriff_weight = 2.5\ndeputy_weight = 1.5"
    )
    golden("close-023.bbcode", announce("--game", game, "--day", "2"), forum.base)


def test_close_245_hides_counts_and_names_only_the_top(forum, tmp_path):
    """Seed 001's visibility (C7) on the real vote thread of the sample game."""
    forum.add_discuz_thread("23", DISCUZ, "vote")
    game = tmp_path / "game.toml"
    game.write_text(
        sample_game_text(forum.base),
        encoding="utf-8",
    )
    out = announce("--game", str(game), "--day", "2")
    golden("close-245.bbcode", out, forum.base)
    assert "票）" not in out and "得票" not in out  # no counts anywhere
    assert "最高票有多人，无人出局。" in out


def test_close_M126_publishes_counts_but_not_who_voted_whom(forum, tmp_path):
    url = vote_thread().serve(forum)
    game = with_ruleset(game_file(tmp_path, url), "M126")
    out = announce("--game", game, "--day", "2")
    golden("close-M126.bbcode", out, forum.base)
    for voter in ("冷月 投票", "kiwi 投票", "冷月×2.5"):
        assert voter not in out


def test_close_tieba_is_plain_text_by_default(forum, tmp_path):
    url = TiebaApi(sample()).serve(forum)
    game = tmp_path / "game.toml"
    game.write_text(game_toml(url), encoding="utf-8")
    out = announce("--game", str(game), "--day", "2")
    golden("close-tieba.text", out, forum.base)
    assert "[" not in out.replace("[测试", "")  # no markup in a Tieba announcement


@pytest.mark.rules("A1")
@pytest.mark.parametrize("markup", ["bbcode", "text"])
def test_morning(tmp_path, markup):
    game = gamefiles.write_game(
        tmp_path / "game.toml",
        gamefiles.day(2, dead=["风铃"]),
        gamefiles.day(3, "https://bbs.example.com/thread-104-1-1.html", "2024-05-10T09:30:00",
                      "2024-05-11T21:30:00", dead=["风铃", "阿澈", "小眯"], sheriff="冷月",
                      slandered=["kiwi"]),
        name="[023] 明星大侦探", ruleset="023", players=["冷月", "小眯", "kiwi", "阿澈", "风铃"],
    )  # fmt: skip
    (tmp_path / "game.cards.csv").write_text(
        "day,player,colour,rule,reason,source\n2,kiwi,yellow,L1,第2天发言4条（少于5条）,tally\n"
        "1,冷月,yellow,L3,第1天未投票,tally\n",
        encoding="utf-8",
    )
    out = announce("--game", str(game), "--day", "3", "--kind", "morning", "--format", markup)
    golden(f"morning.{markup}", out, "")
    assert "阿澈、小眯" in out  # in the order the director listed them (A1)
    assert "冷月" in out and "第1天未投票" not in out  # only yesterday's cards


@pytest.mark.rules("A2")
def test_elevator_discuz_and_tieba(forum, tmp_path):
    url = vote_thread().serve(forum)
    out = announce(
        "--game", game_file(tmp_path, url), "--day", "2", "--kind", "elevator", "--seed", "7"
    )
    golden("elevator.bbcode", out, forum.base)
    assert "&authorid=101]冷月[/url]" in out  # the forum's 只看该作者 view (A2)
    again = announce(
        "--game", game_file(tmp_path, url), "--day", "2", "--kind", "elevator", "--seed", "7"
    )
    assert again == out
    other = announce(
        "--game", game_file(tmp_path, url), "--day", "2", "--kind", "elevator", "--seed", "8"
    )

    # Another seed, another order of the same floors.
    def floors(text: str) -> list[str]:
        return sorted(re.sub(r"^\d+\. ", "", line) for line in text.splitlines())

    assert other != out and floors(other) == floors(out)
    turl = TiebaApi(sample()).serve(forum)
    game = tmp_path / "tieba.toml"
    game.write_text(game_toml(turl), encoding="utf-8")
    tieba = announce("--game", str(game), "--day", "2", "--kind", "elevator", "--seed", "7")
    golden("elevator.text", tieba, forum.base)
    assert "home/main?un=lengyue2019" in tieba


def test_votes_announce_prints_after_the_table(forum, tmp_path):
    url = vote_thread().serve(forum)
    result = runner.invoke(
        app,
        ["votes", url, "--game", game_file(tmp_path, url), "--announce", "--quiet"],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    table_end = result.stdout.index("Outcome:")
    assert result.stdout.index("[b]测试局 第2天投票结果[/b]") > table_end


# -- player text is inert -------------------------------------------------------------------

NASTY = "[color=red]红字[/color][size=7]大字[/size][url=http://evil.example]点我[/url][img]http://evil.example/a.png[/img]"


def test_renderer_matches_real_discuz():
    """The tags tally emits render on a real Discuz! X3.5 as discuz_render says (b, color, url)."""
    scenario = json.loads((DISCUZ / "scenario.json").read_text(encoding="utf-8"))
    vote = (DISCUZ / "vote-p1.html").read_text(encoding="utf-8")
    red = scenario["threads"][0]["posts"][7]["message"]
    assert red.startswith("[color=#FF0000]")
    assert (
        discuz_render(red).split("<br />")[0] in vote
    )  # <font color="#FF0000">投票对象：月影</font>
    talk = (DISCUZ / "talk-p1.html").read_text(encoding="utf-8")
    assert discuz_render("[b]重点[/b]") in talk
    assert (
        '<a href="http://127.0.0.1:8080/forum.php?mod=redirect&amp;goto=findpost&amp;pid=954&amp;ptid=23" target="_blank">'
        in vote
    )


@pytest.mark.parametrize("markup", ["bbcode", "text"])
def test_bbcode_in_player_text_is_inert(forum, tmp_path, markup):
    t = vote_thread()
    t.posts[1] = P("冷月", "2024-05-08 10:01:00", f"投票对象：白桃\n投票理由：{NASTY}")
    url = t.serve(forum)
    out = announce("--game", game_file(tmp_path, url), "--day", "2", "--format", markup)
    assert NASTY in out.replace("\u200b", "")  # the player's words, as written
    rendered = discuz_render(out)
    tree = LexborHTMLParser(rendered)
    fonts = [(n.attributes.get("color"), n.text()) for n in tree.css("font")]
    if markup == "bbcode":
        assert fonts == [
            ("#FF0000", "白桃、长夜 平票（6.5 票），按警长投票对象，白桃 被投票出局。")
        ]
    else:
        assert fonts == []
    assert "evil.example" not in " ".join(a.attributes.get("href") or "" for a in tree.css("a"))
    assert tree.css("img") == []


def test_only_tags_a_real_discuz_renders():
    """Every tag in every golden BBCode file is one real Discuz! pages show rendered (b, color, url)."""
    tags = set()
    for path in GOLDEN.glob("*.bbcode"):
        text = path.read_text(encoding="utf-8")
        tags |= {m.lower() for m in re.findall(r"\[/?([a-zA-Z]+)[=\]]", text)}
    assert tags == {"b", "color", "url"}


def test_inert_names():
    assert inert("[b]x[/b]") == "[\u200bb]x[\u200b/b]"
    assert inert(3) == 3


# -- custom templates, errors --------------------------------------------------------------


def test_custom_templates_are_sandboxed(tmp_path):
    (tmp_path / "morning.text.j2").write_text("{{ game.__class__.__mro__ }}", encoding="utf-8")
    with pytest.raises(InputError, match=r"the sandbox forbids|uses a value"):
        render("morning", "text", {"game": "x"}, tmp_path)
    (tmp_path / "morning.text.j2").write_text("{{ cycler.__init__.__globals__ }}", encoding="utf-8")
    with pytest.raises(InputError, match="the sandbox forbids"):
        render("morning", "text", {"game": "x"}, tmp_path)
    (tmp_path / "morning.text.j2").write_text(
        "第{{ day }}天 {{ alive|join(',') }}\n", encoding="utf-8"
    )
    assert (
        render("morning", "text", {"day": 2, "alive": ["a", "[b]"]}, tmp_path)
        == "第2天 a,[\u200bb]\n"
    )


def test_missing_value_is_an_error_not_a_blank(tmp_path):
    (tmp_path / "close.text.j2").write_text("{{ nonsense }}", encoding="utf-8")
    with pytest.raises(InputError, match="uses a value tally does not give"):
        render("close", "text", {}, tmp_path)


def test_template_dir_option(forum, tmp_path):
    url = vote_thread().serve(forum)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "close.bbcode.j2").write_text("{{ outcome.player }} 出局\n", encoding="utf-8")
    out = announce("--game", game_file(tmp_path, url), "--day", "2", "--template-dir", str(mine))
    assert out == "白桃 出局\n"


def test_bad_kind_and_format(forum, tmp_path):
    url = vote_thread().serve(forum)
    result = runner.invoke(
        app, ["announce", "--game", game_file(tmp_path, url), "--day", "2", "--kind", "noon"]
    )
    assert result.exit_code == 2 and result.stderr == (
        "tally: invalid value for '--kind': 'noon' is not one of 'close', "
        "'morning', 'elevator', 'reminder'; see `tally announce --help`.\n"
    )
    result = runner.invoke(
        app, ["announce", "--game", game_file(tmp_path, url), "--day", "2", "--format", "html"]
    )
    assert result.exit_code == 2 and "invalid value for '--format'" in result.stderr
    assert "'html' is not one of 'bbcode', 'text'" in result.stderr


def test_a_board_profile_says_the_board_renders_plain_text(forum, tmp_path):
    """A Discuz! board whose forum turned BBCode off: its profile's markup, not the
    platform's, unless --format says otherwise."""
    url = vote_thread().serve(forum)
    game = game_file(tmp_path, url)
    boards = tmp_path / "boards.toml"
    boards.write_text('[board.plain]\nhosts = ["127.0.0.1"]\nmarkup = "text"\n', "utf-8")
    plain = announce("--game", game, "--day", "2", "--boards", str(boards))
    assert plain == announce("--game", game, "--day", "2", "--format", "text")
    assert "[b]" not in plain
    assert "[b]" in announce("--game", game, "--day", "2", "--boards", str(boards), "--format", "bbcode")
