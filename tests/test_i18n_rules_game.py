"""The game file's mistakes, the game's own refusals, the lurker check's flags and the card
ledger's sentences in Chinese (issue 52): each one Chinese sentence, keys, values and rule
ids as they are; the same runs in English unchanged."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tally.cli import app
from tally.errors import GameFileError
from tally.i18n import Language, speaking
from tally.rules.cards.ledger import DOUBT, Card, named, undecided_sentence
from tally.rules.game.gamefile import parse_game
from tally.rules.verdicts import Colour

from .conftest import Runner
from .discuzgen import P
from .test_cards_audit import PLAYERS, Game
from .test_cards_lurkers import setup as lurkers_game

runner = Runner()
VOTE = "https://bbs.example.com/thread-1-1-1.html"
DAY = f'[[days]]\nday = 1\nopens = 2024-05-06T09:30:00\ncloses = 2024-05-07T21:30:00\nvote = "{VOTE}"\n'
# An English word of a sentence left in the Chinese (keys, values and code are quoted).
ENGLISH = re.compile(r"\b(is|are|must|the|not|of|and|or|key|tally knows)\b")


def said(text: str, language: Language) -> str:
    with speaking(language), pytest.raises(GameFileError) as caught:
        parse_game(text, source="game.toml")
    return str(caught.value)


def test_a_key_misspelt_is_one_chinese_sentence():
    text = 'playres = ["alice"]\n'
    assert said(text, Language.ZH) == (
        "game.toml，键 'playres'：tally 没有这个键（是不是想写 'players'？）。"
    )
    assert said(text, Language.EN) == (
        "game.toml, key 'playres': is not a key tally knows (did you mean 'players'?)."
    )


@pytest.mark.parametrize(
    ("text", "chinese", "english"),
    [
        # a rule misspelt under [rules], and a value of the wrong kind there
        ('players = ["alice"]\n[rules]\nsherif_weight = 2\n',
         "game.toml，键 'rules.sherif_weight'：tally 没有这条规则（是不是想写 'sheriff_weight'？）。",
         "game.toml, key 'rules.sherif_weight': is not a rule tally knows "
         "(did you mean 'sheriff_weight'?)."),
        ('players = ["alice"]\n[rules]\nsheriff_election_day = "x"\n',
         "game.toml，键 'rules.sheriff_election_day'：必须是0到1,000,000之间的整数，或者写 \"none\"。",
         "game.toml, key 'rules.sheriff_election_day': must be a whole number from 0 to "
         "1,000,000 or \"none\"."),
        # a player misspelt, with the name it is close to
        ('players = ["alice"]\n[aliases]\nalicd = ["al"]\n',
         "game.toml，键 'aliases.alicd'：'alicd'不是本局的玩家（是不是想写 'alice'？）。",
         "game.toml, key 'aliases.alicd': 'alicd' is not one of the players "
         "(did you mean 'alice'?)."),
        # two names that read the same to tally
        ('players = ["Mika", "ｍｉｋａ"]\n',
         "game.toml，键 'players'：'ｍｉｋａ'和'Mika'（玩家）在 tally 看来是同一个名字（都读作 'mika'）；"
         "请改掉一个。",
         "game.toml, key 'players': 'ｍｉｋａ' and 'Mika' (a player) are one name to tally "
         "(both read 'mika'); rename one."),
        # a day's window, its badge, its threads
        ('players = ["alice"]\n' + DAY.replace("2024-05-07T21:30", "2024-05-06T08:30"),
         "game.toml，键 'day 1.closes'：关门时间2024-05-06 08:30不晚于开门时间2024-05-06 09:30。",
         "game.toml, key 'day 1.closes': 2024-05-06 08:30 is not after opens 2024-05-06 09:30."),
        ('players = ["alice", "bob"]\n' + DAY + 'dead = ["alice"]\nsheriff = "alice"\n',
         "game.toml，键 'day 1.sheriff'：alice在 `day 1.dead` 里：已出局的人不能持有警徽"
         "（请写上持有警徽的人，或者写 `sheriff = \"none\"`）。",
         "game.toml, key 'day 1.sheriff': alice is in day 1.dead: one who is out holds no badge "
         "(name who holds it, or sheriff = \"none\")."),
        ('players = ["alice"]\n' + DAY + DAY.replace("day = 1", "day = 2")
         .replace("thread-1-", "thread-2-") + f'discussion = "{VOTE}"\n',
         f"game.toml，键 'day 2.discussion'：{VOTE} 是第1天的投票帖，不是讨论帖。",
         f"game.toml, key 'day 2.discussion': {VOTE} is day 1's vote thread, not a discussion "
         "thread."),
        # a ruling
        ('players = ["alice"]\n' + DAY + '[[rulings]]\nday = 1\nfloor = 3\naction = "drop"\n',
         "game.toml，键 'rulings #1.action'：必须是 \"void\" 或 \"accept\"。",
         "game.toml, key 'rulings #1.action': must be \"void\" or \"accept\"."),
    ],
)  # fmt: skip
def test_the_game_files_mistakes_in_chinese(text, chinese, english):
    assert said(text, Language.ZH) == chinese
    assert not ENGLISH.search(re.sub(r"'[^']*'|`[^`]*`|\"[^\"]*\"|https?://\S+?(?=是)", "", chinese))
    assert said(text, Language.EN) == english


def test_a_game_file_error_through_the_command_line(tmp_path: Path):
    game = tmp_path / "game.toml"
    game.write_text('playres = ["alice"]\n', encoding="utf-8")
    zh = runner.invoke(app, ["lurkers", "--game", str(game)], env={"TALLY_LANG": "zh"})
    en = runner.invoke(app, ["lurkers", "--game", str(game)], env={"TALLY_LANG": "en"})
    assert zh.exit_code == en.exit_code == 2
    assert zh.stderr == f"tally: {game}，键 'playres'：tally 没有这个键（是不是想写 'players'？）。\n"
    assert en.stderr == (
        f"tally: {game}, key 'playres': is not a key tally knows (did you mean 'players'?).\n"
    )


def test_the_games_own_refusals_in_chinese():
    text = 'players = ["alice"]\n' + DAY
    with speaking(Language.ZH):
        game = parse_game(text, source="game.toml")
        with pytest.raises(GameFileError) as caught:
            game.day(5)
    assert str(caught.value) == "游戏 'game' 里没有第5天（有的是：1）。"
    with pytest.raises(GameFileError, match=r"^game 'game' has no day 5 \(days: 1\)\.$"):
        game.day(5)


@pytest.mark.rules("L5", "L7", "L8")
def test_the_lurker_checks_flags_in_chinese(forum, tmp_path):
    game, _ = lurkers_game(forum, tmp_path)

    def flags(language: str) -> list[tuple[str, str | None, int | None, str]]:
        result = runner.invoke(app, ["lurkers", "--game", str(game), "--day", "4", "--json",
                                     "--no-write"], env={"TALLY_LANG": language})  # fmt: skip
        assert result.exit_code == 0, result.output
        return [(f["rule"], f["player"], f["floor"], f["note"])
                for f in json.loads(result.stdout)["flags"] if f["rule"] != "accounts"]  # fmt: skip

    assert flags("zh") == [
        ("L5", "老K", 69, "老K出局后发言（05-11 19:30）：诈尸"),
        ("L5", "老K", 71, "老K出局后发言（05-11 19:50）：诈尸"),
        ("L8", "小眯", 72, "小眯从72楼起10分钟内发了5条几乎没有内容的发言"),
        ("L7", "风铃", 6, "风铃用了红字"),
    ]
    assert flags("en") == [
        ("L5", "老K", 69, "老K posted while out (05-11 19:30): 诈尸"),
        ("L5", "老K", 71, "老K posted while out (05-11 19:50): 诈尸"),
        ("L8", "小眯", 72, "小眯 posted 5 near-empty posts within 10 minutes from floor 72"),
        ("L7", "风铃", 6, "风铃 used red font"),
    ]


@pytest.mark.rules("K2")
def test_a_card_in_doubt_named_and_the_stop_in_chinese(tmp_path: Path):
    doubt = Card(1, "eve", Colour.RED, "L5", "第1天诈尸", source=DOUBT)
    ledger = tmp_path / "game.cards.csv"
    with speaking(Language.ZH):
        assert named(Card(1, "eve", Colour.YELLOW, "L1", "x")) == "eve第1天的黄牌（L1）"
        stop = undecided_sentence([doubt], ledger, None)
    assert stop == (
        f"判牌记录 {ledger} 里有待定的eve第1天的红牌（L5）（tally 的检查已不再给出），eve是否被红牌罚下"
        "（K2）取决于它们：请把每一张撤销或保留为你自己判的（`tally cards remove --day 1 eve red L5` 或 "
        "`tally cards keep --day 1 eve red L5`），然后再运行一次。"
    )
    assert named(Card(1, "eve", Colour.YELLOW, "L1", "x")) == "eve's yellow card (L1) for day 1"


def test_a_game_file_typed_with_a_chinese_keyboard_in_chinese(tmp_path: Path):
    """The two mistakes a Chinese keyboard makes (full-width punctuation, a file saved as
    GBK), said in Chinese with what to do."""
    wide = tmp_path / "wide.toml"
    wide.write_text("players ＝ [“alice”]\n", encoding="utf-8")
    gbk = tmp_path / "gbk.toml"
    gbk.write_bytes('players = ["冷月"]\n'.encode("gb18030"))
    said = {}
    for path in (wide, gbk):
        result = runner.invoke(app, ["lurkers", "--game", str(path)], env={"TALLY_LANG": "zh"})
        assert result.exit_code == 2
        said[path] = result.stderr
    assert said[wide] == (
        f"tally: {wide}，第1行：＝ 应为 =、“ 应为 \"、” 应为 \"：这是输入法的全角标点，TOML 读不了；"
        "请把输入法切到半角模式重新输入。\n"
    )
    assert said[gbk] == (
        f"tally: {gbk} 是用 GBK（一种中文编码）保存的，不是 UTF-8；请把游戏文件另存为 UTF-8（记事本：另存为，编码选 UTF-8）。\n"
    )
    english = runner.invoke(app, ["lurkers", "--game", str(gbk)], env={"TALLY_LANG": "en"})
    assert english.stderr == (
        f"tally: {gbk} is saved as GBK (a Chinese encoding), not UTF-8; save the game file as "
        "UTF-8 (Notepad: Save as, Encoding: UTF-8).\n"
    )


@pytest.mark.rules("L5")
def test_the_dead_posting_after_the_close_in_chinese(forum, tmp_path):
    """乙, voted out at day 1's close, posts after it (诈尸): the flag says when and how 乙
    went out, in Chinese."""
    g = Game(forum, tmp_path, rules={"sheriff_election_day": "none"})
    opens = "2024-05-08 09:30"
    talk = g.talk(201, 1, opens, dict.fromkeys(PLAYERS, 12))
    votes = g.votes(301, 1, opens, [(p, "乙" if p != "乙" else "甲") for p in PLAYERS])
    votes.add(P("乙", "2024-05-09 21:40:00", "我是好人！"))
    g.day(1, opens, "2024-05-09 21:30", talk, votes)
    game = g.write()
    result = runner.invoke(app, ["lurkers", "--game", game, "--day", "1", "--json", "-q"],
                           env={"TALLY_LANG": "zh"})  # fmt: skip
    assert result.exit_code == 0, result.output
    flags = [(f["rule"], f["note"]) for f in json.loads(result.stdout)["flags"]]
    assert flags == [("L5", "乙出局后发言（05-09 21:40，关门之后；第1天关门时被投票出局）：诈尸")]
