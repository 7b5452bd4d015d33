"""The commands and the files they read and write, in Chinese (issue 52): a refusal is one
Chinese sentence under TALLY_LANG=zh and the same English one as before under TALLY_LANG=en;
a question asked in Chinese takes a Chinese answer; the words of a setting, a file and a
duration read as a director writes them."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tally.answers import answer
from tally.cli import app
from tally.errors import InputError
from tally.i18n import Language, speaking

from .conftest import FakeClock
from .test_gamefile_day_add import CHINA, morning, one_sentence, runner, start

HAN = re.compile(r"[\u4e00-\u9fff]")


def said_after_asking(result, code: int = 2) -> str:  # type: ignore[no-untyped-def]
    """The one sentence a run ends with after a question: the question's line holds no
    line end (the answer typed ends it on a terminal), so the sentence follows it there."""
    assert result.exit_code == code, result.output
    return "tally: " + result.stderr.rstrip("\n").rsplit("tally: ", 1)[1]


def day_add(urls: tuple[str, str], game: Path, language: str, **kw):  # type: ignore[no-untyped-def]
    env = FakeClock(morning(2), CHINA).env(terminal=kw.pop("terminal", False))
    return runner.invoke(app, ["day", "add", *urls, "--game", str(game), *kw.pop("extra", ())],
                         obj=env, env={"TALLY_LANG": language, "COLUMNS": "200"}, **kw)  # fmt: skip


def test_a_thread_that_is_another_days_is_one_chinese_sentence(forum, tmp_path):
    game, urls = start(forum, tmp_path)
    before = game.read_bytes()
    zh = day_add(urls[1], game, "zh", extra=["--yes"])
    assert one_sentence(zh) == (
        f"tally: 帖子 902 已经是 {game} 里第1天的讨论帖，不是新一天的讨论帖；请给新一天的帖子。"
    )
    en = day_add(urls[1], game, "en", extra=["--yes"])
    assert one_sentence(en) == (
        f"tally: thread 902 is day 1's discussion thread in {game} already, not a new day's "
        "discussion thread; give the new day's threads."
    )
    taken = day_add(urls[2], game, "zh", extra=["--yes", "--day", "1"])
    assert one_sentence(taken) == (
        f"tally: {game} 里已经有第1天了；请用 `--day N` 指定别的天，或者直接编辑那一天的块。"
    )
    assert game.read_bytes() == before


@pytest.mark.parametrize("said", ["否\n", "不\n", "ｎ\n", "\n"])
def test_a_question_asked_in_chinese_takes_a_chinese_no(forum, tmp_path, said):
    game, urls = start(forum, tmp_path)
    before = game.read_bytes()
    result = day_add(urls[2], game, "zh", terminal=True, input=said)
    assert f"把第2天加进 {game} 吗？ [y/N，是/否]:" in result.stderr
    assert said_after_asking(result) == f"tally: 没有添加：你选择了否；{game} 没有改动。"
    assert game.read_bytes() == before


@pytest.mark.parametrize("said", ["是\n", "好的\n", "ｙ\n", "Y\n"])
def test_a_question_asked_in_chinese_takes_a_chinese_yes(forum, tmp_path, said):
    game, urls = start(forum, tmp_path)
    result = day_add(urls[2], game, "zh", terminal=True, input=said)
    assert result.exit_code == 0, result.stderr
    assert "day = 2\n" in game.read_text(encoding="utf-8")


def test_an_answer_that_is_neither_is_asked_again_never_guessed(forum, tmp_path):
    game, urls = start(forum, tmp_path)
    before = game.read_bytes()
    result = day_add(urls[2], game, "zh", terminal=True, input="嗯\n否\n")
    assert result.stderr.count("[y/N，是/否]:") == 2
    assert "请回答 y 或 n（是/否）。" in result.stderr
    assert result.exit_code == 2 and game.read_bytes() == before
    english = day_add(urls[2], game, "en", terminal=True, input="maybe\nn\n")
    assert f"Add day 2 to {game}? [y/N]:" in english.stderr
    assert "Answer y or n." in english.stderr
    assert said_after_asking(english) == f"tally: not added: you said no; {game} is as it was."


@pytest.mark.parametrize(
    ("said", "means"),
    [("是", True), ("是的", True), ("好", True), ("确定", True), ("yes", True), ("Ｙ", True),
     (" y。", True), ("否", False), ("不", False), ("不要", False), ("取消", False), ("NO", False),
     ("ｎ", False), ("嗯", None), ("是不是", None), ("yn", None), ("", None)],
)  # fmt: skip
def test_the_words_a_yes_or_a_no_is(said, means):
    assert answer(said) is means


def test_a_config_key_misspelt_is_one_chinese_sentence(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('timzone = "Asia/Shanghai"\n', encoding="utf-8")
    plain = CliRunner()  # the process's environment: TALLY_CONFIG read from it
    zh = plain.invoke(app, ["config"], env={"TALLY_LANG": "zh", "TALLY_CONFIG": str(config)})
    assert zh.exit_code == 2
    assert zh.stderr == (
        f"tally: {config}，键 'timzone'：tally 没有这个设置（是不是 'timezone'？）；tally 的设置有 "
        "template_dir、cookies、boards、cache_dir、timezone、color、politeness、language。\n"
    )
    en = plain.invoke(app, ["config"], env={"TALLY_LANG": "en", "TALLY_CONFIG": str(config)})
    assert en.exit_code == 2
    assert en.stderr == (
        f"tally: {config}, key 'timzone': is not a setting tally knows (did you mean "
        "'timezone'?); it knows template_dir, cookies, boards, cache_dir, timezone, color, "
        "politeness, language.\n"
    )


def test_a_config_value_of_the_wrong_kind_in_chinese(tmp_path):
    config = tmp_path / "config.toml"
    from tally.settings import load_config

    config.write_text('color = "yes"\n', encoding="utf-8")
    with speaking(Language.ZH), pytest.raises(InputError) as said:
        load_config(config)
    assert str(said.value) == f"配置文件 {config}，键 'color'：必须是 true 或 false（不带引号）。"
    config.write_text("timezone = 'Mars/Olympus'\n", encoding="utf-8")
    with speaking(Language.ZH), pytest.raises(InputError) as said:
        load_config(config)
    assert str(said.value) == (
        f"配置文件 {config}，键 'timezone'：'Mars/Olympus' 不是时区名（比如 Asia/Shanghai）。"
    )


def test_a_file_tally_will_not_write_over_in_chinese(tmp_path):
    from tally.commands.checks import check_output
    from tally.i18n import N_

    taken = tmp_path / "game.toml"
    taken.write_text("", encoding="utf-8")
    with speaking(Language.ZH), pytest.raises(InputError) as said:
        check_output(taken, N_("game file"), overwrite=False)
    assert str(said.value) == f"{taken} 已存在；tally 从不覆盖游戏文件：请用 -o 换一个名字。"
    with pytest.raises(InputError, match="tally never writes over a game file: give another"):
        check_output(taken, N_("game file"), overwrite=False)


def test_a_game_file_saved_as_gbk_is_said_in_chinese(tmp_path):
    from tally.errors import GameFileError
    from tally.tomlfile import read_text

    saved = tmp_path / "game.toml"
    saved.write_bytes('name = "月下古堡"\n'.encode("gb18030"))
    with speaking(Language.ZH), pytest.raises(GameFileError) as said:
        read_text(saved, "game file", GameFileError)
    assert str(said.value) == (
        f"{saved} 是用 GBK（一种中文编码）保存的，不是 UTF-8；请把游戏文件另存为 UTF-8（记事本：另存为，"
        "编码选 UTF-8）。"
    )


def test_durations_as_chinese_writes_them():
    from tally.times import duration

    with speaking(Language.ZH):
        assert duration(timedelta(hours=1, minutes=23)) == "1小时23分钟"
        assert duration(timedelta(days=2, hours=3)) == "2天3小时"
        assert duration(timedelta(hours=1, minutes=16, seconds=43), seconds=True) == "1小时16分43秒"
        assert duration(timedelta(minutes=2, seconds=5), seconds=True) == "2分05秒"
    assert duration(timedelta(hours=1, minutes=23)) == "1 h 23 min"
    assert duration(timedelta(minutes=2, seconds=5), seconds=True) == "2 min 05 s"


def test_the_commands_chinese_keeps_no_english_sentence():
    """Every entry of the commands' and files' sentences has Chinese in its translation:
    none was left as its English (an option, a key or a file name alone aside)."""
    from tally import catalogs

    from .test_i18n import extracted

    where = {m.id: m.locations for m in extracted() if isinstance(m.id, str)}
    ours = ("tally/commands/", "tally/settings.py", "tally/files.py", "tally/tomlfile.py",
            "tally/journal.py", "tally/times.py", "tally/answers.py")  # fmt: skip
    mine = [m for m in catalogs.read(Language.ZH) if isinstance(m.id, str)
            and any(path.startswith(ours) for path, _ in where.get(m.id, ()))
            and re.search(r"[a-z]{3}", re.sub(r"\{[^}]*\}", "", m.id))]  # fmt: skip
    assert len(mine) > 150
    assert [m.id for m in mine if not HAN.search(m.string or "")] == []


def test_a_post_asked_in_chinese_is_posted_on_a_chinese_yes_only(forum, tmp_path):
    from .test_announcing_post import Board, after_close, env, setup

    board = Board(forum)
    _, game, cookies = setup(board, tmp_path)
    clock = after_close(board)
    args = ["announce", "--game", game, "--day", "2", "--post", "--cookies", str(cookies)]

    def post(said: str):  # type: ignore[no-untyped-def]
        return runner.invoke(app, args, obj=env(clock, terminal=True), input=said,
                             env={"TALLY_LANG": "zh"})  # fmt: skip

    no = post("否\n")
    assert no.exit_code == 7 and "吗？ [y/N，是/否]:" in no.stderr
    assert "以“导演A”的身份发布到 " in no.stderr
    assert said_after_asking(no, 7) == "tally: 没有发布：你选择了否。"
    assert board.replies == []
    yes = post("是\n")
    assert yes.exit_code == 0, yes.stderr
    assert len(board.replies) == 1


def test_tally_config_says_what_tally_does_unset_in_the_runs_language(tmp_path):
    plain = CliRunner()
    where = {"TALLY_CONFIG": str(tmp_path / "none.toml"), "COLUMNS": "200"}
    zh = plain.invoke(app, ["config"], env={**where, "TALLY_LANG": "zh"})
    en = plain.invoke(app, ["config"], env={**where, "TALLY_LANG": "en"})
    assert zh.exit_code == en.exit_code == 0
    assert "内置模板" in zh.stdout and "无：tally 以游客身份读取" in zh.stdout
    assert "the built-in templates" not in zh.stdout
    assert "the built-in templates" in en.stdout and "none: tally reads as a guest" in en.stdout
