"""The config file, a game file's settings and the command line, merged: `tally config` shows
each value and where it came from; each setting reaches what it sets (templates, cookies,
the clock, colour, politeness); a mistake in either file is one sentence naming it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tally import environment, settings
from tally.cli import app
from tally.environment import Environment
from tally.errors import InputError
from tally.outputs.shown.terminal import Terminal

from .conftest import CHINA, FakeClock, Runner, quiet_environ
from .test_counting_whole_day import game_file, vote_thread
from .test_watch import env_at

runner = Runner()


@pytest.fixture
def config(private_folders) -> Path:
    """The config file where tally looks: config.toml in the config folder the test's
    environment hands in."""
    path = private_folders.config / "config.toml"
    path.parent.mkdir(parents=True)
    return path


def shown(*args: str, env: dict[str, str] | None = None) -> dict:
    """`tally config --json`, the process's variables being ``env`` (handed in)."""
    given = FakeClock().env(environ=quiet_environ(**(env or {})))
    result = runner.invoke(app, ["config", "--json", *args], obj=given)
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    return {k: (v["value"], v["from"]) for k, v in data["settings"].items()} | {
        "file": data["config_file"], "found": data["config_found"]}  # fmt: skip


def test_config_shows_tallys_defaults_without_a_file(config):
    seen = shown()
    assert seen["file"] == str(config) and seen["found"] is False
    assert seen["timezone"] == ("Asia/Shanghai", "tally's default")
    assert seen["politeness"] == (0.025, "tally's default")
    assert seen["template_dir"] == (None, "tally's default")


def test_config_file_then_game_file_then_command_line(config, tmp_path, forum):
    (tmp_path / "cfg-templates").mkdir()
    (tmp_path / "game-templates").mkdir()
    (tmp_path / "cli-templates").mkdir()
    config.write_text(
        f'template_dir = "{tmp_path / "cfg-templates"}"\n'
        'timezone = "Europe/Berlin"\ncolor = false\npoliteness = 0.5\n',
        encoding="utf-8",
    )
    game = Path(game_file(tmp_path, vote_thread().serve(forum)))
    text = game.read_text(encoding="utf-8")
    game.write_text('template_dir = "game-templates"\npoliteness = 1.5\n' + text, encoding="utf-8")
    from_file = f"config file {config}"
    seen = shown()
    assert seen["found"] is True
    assert seen["template_dir"] == (str(tmp_path / "cfg-templates"), from_file)
    assert seen["timezone"] == ("Europe/Berlin", from_file)
    assert seen["color"] == (False, from_file)
    assert seen["politeness"] == (0.5, from_file)
    seen = shown("--game", str(game))
    # The game file's path is read from the game file's folder.
    assert seen["template_dir"] == (str(tmp_path / "game-templates"), f"game file {game}")
    assert seen["politeness"] == (1.5, f"game file {game}")
    assert seen["timezone"] == ("Europe/Berlin", from_file)  # the game names no zone
    seen = shown("--game", str(game), "--template-dir", str(tmp_path / "cli-templates"),
                 "--color", "--timezone", "Asia/Tokyo")  # fmt: skip
    assert seen["template_dir"] == (str(tmp_path / "cli-templates"), "command line")
    assert seen["color"] == (True, "command line")
    assert seen["timezone"] == ("Asia/Tokyo", "command line")
    assert seen["politeness"] == (1.5, f"game file {game}")


def test_the_game_files_time_zone_is_the_games_clock(config, tmp_path, forum):
    """S2: a game file's timezone is the game's; --timezone and the config's are the clock
    where no game file names one."""
    config.write_text('timezone = "Europe/Berlin"\n', encoding="utf-8")
    game = Path(game_file(tmp_path, vote_thread().serve(forum)))
    game.write_text('timezone = "Asia/Taipei"\n' + game.read_text(encoding="utf-8"), encoding="utf-8")
    seen = shown("--game", str(game), "--timezone", "Asia/Tokyo")
    assert seen["timezone"] == ("Asia/Taipei", f"game file {game}")


def test_a_game_file_without_a_zone_reads_its_times_in_the_configs(config, tmp_path, forum):
    """The day's close 2024-05-09T21:30 read in Europe/Berlin is 05-10 03:30 in China: at
    05-10 01:00 China time the day is still open in Berlin. The config's zone is the
    game's; the board's pages, whose footers say GMT+8, are not read in it: the run stops
    with one sentence naming both zones (S2: times read in the zone the forum shows)."""
    url = vote_thread().serve(forum)
    game = game_file(tmp_path, url)
    clock = FakeClock("2024-05-10 01:00:00", CHINA)
    result = runner.invoke(app, ["votes", url, "--game", game, "--json", "--quiet"],
                           obj=env_at(clock, tmp_path))  # fmt: skip
    assert result.exit_code == 0 and json.loads(result.stdout)["provisional"] is False
    config.write_text('timezone = "Europe/Berlin"\n', encoding="utf-8")
    result = runner.invoke(app, ["votes", url, "--game", game, "--json", "--quiet"],
                           obj=env_at(clock, tmp_path))  # fmt: skip
    assert result.exit_code == 2 and result.stdout == ""
    assert "prints its times in GMT+8 (its footer), but tally would read them in " \
        "Europe/Berlin (UTC+1)" in result.stderr


def test_template_dir_from_the_config_changes_the_close(config, tmp_path, forum):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "close.bbcode.j2").write_text("{{ outcome.player }} 出局\n", encoding="utf-8")
    config.write_text(f'template_dir = "{folder}"\n', encoding="utf-8")
    url = vote_thread().serve(forum)
    result = runner.invoke(app, ["announce", "--game", game_file(tmp_path, url), "--day", "2", "-q"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "白桃 出局\n"


def test_a_folder_the_config_names_must_exist(config, tmp_path, forum):
    config.write_text('template_dir = "~/no-such-templates-folder"\n', encoding="utf-8")
    result = runner.invoke(app, ["config"])
    assert result.exit_code == 2
    assert result.stderr == (
        f"tally: {Path('~/no-such-templates-folder').expanduser()} (template_dir in the config "
        f"file {config}) does not exist.\n"
    )


def test_cookies_from_the_config_are_the_runs(config, tmp_path, forum):
    """The cookie file the config names is read (and refused, like one on the command line,
    when others may read it)."""
    cookies = config.parent.parent.parent / "cookies.txt"  # ../../ from the config file
    cookies.write_text("# Netscape HTTP Cookie File\n", encoding="utf-8")
    os.chmod(cookies, 0o644)
    config.write_text('cookies = "../../cookies.txt"\n', encoding="utf-8")
    url = vote_thread().serve(forum)
    result = runner.invoke(app, ["votes", url, "--game", game_file(tmp_path, url), "-q"])
    assert result.exit_code == 2
    assert f"{config.parent / '../../cookies.txt'} can be read by other users" in result.stderr


def test_politeness_from_the_config_spaces_the_requests(config, tmp_path, forum):
    url = vote_thread().serve(forum)
    game = game_file(tmp_path, url)
    config.write_text("politeness = 7\n", encoding="utf-8")
    clock = FakeClock("2024-05-10 09:00:00", CHINA)
    result = runner.invoke(app, ["votes", url, "--game", game, "-q", "--fresh"],
                           obj=clock.env())  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert clock.sleeps and all(abs(s - 7) < 1e-6 for s in clock.sleeps)  # robots.txt, then the page


def test_no_color_from_the_command_line_the_config_or_the_environment(config):
    env = Environment()
    assert Terminal(env, color=False).stdout().no_color is True
    assert Terminal(env, color=True).stdout().no_color is False
    assert shown("--no-color")["color"] == (False, "command line")
    assert shown(env={"NO_COLOR": "1"})["color"] == (False, "NO_COLOR")
    config.write_text("color = true\n", encoding="utf-8")
    assert shown(env={"NO_COLOR": "1"})["color"] == (True, f"config file {config}")


def test_a_config_key_tally_does_not_know_is_named_with_the_closest(config):
    config.write_text('template-dir = "x"\n', encoding="utf-8")
    result = runner.invoke(app, ["config"])
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"tally: {config}, key 'template-dir': is not a setting tally knows (did you mean "
        "'template_dir'?)"
    )


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('color = "no"', "must be true or false"),
        ("politeness = 600", "600 is not between 0 and 60 seconds"),
        ("politeness = nan", "must be a number of seconds"),
        ('timezone = "Beijing"', "'Beijing' is not a time zone name"),
        ("cookies = 3", "must be the path of a file"),
    ],
)
def test_a_config_value_of_the_wrong_kind(config, line, said):
    config.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=said):
        settings.load_config(config)


def test_tally_config_names_another_file(tmp_path):
    other = tmp_path / "elsewhere.toml"
    other.write_text("politeness = 2\n", encoding="utf-8")
    seen = shown(env={"TALLY_CONFIG": str(other)})
    assert seen["file"] == str(other) and seen["politeness"] == (2.0, f"config file {other}")


def test_the_config_folder_of_each_platform(tmp_path):
    home = Path.home()
    assert environment.config_folder({}, "linux") == home / ".config" / "tally"
    assert environment.config_folder({"XDG_CONFIG_HOME": "/x/y"}, "linux") == Path("/x/y/tally")
    assert environment.config_folder({"XDG_CONFIG_HOME": "relative"}, "linux") == home / ".config" / "tally"
    assert environment.config_folder({}, "darwin") == home / "Library" / "Application Support" / "tally"
    assert environment.config_folder({"APPDATA": "C:/Users/l/AppData/Roaming"}, "win32") == Path(
        "C:/Users/l/AppData/Roaming/tally")
    assert environment.config_file({"TALLY_CONFIG": "~/t.toml"}, "linux") == home / "t.toml"


def test_a_game_file_setting_of_the_wrong_kind_names_the_game_file(tmp_path, forum):
    game = Path(game_file(tmp_path, vote_thread().serve(forum)))
    game.write_text("politeness = -1\n" + game.read_text(encoding="utf-8"), encoding="utf-8")
    result = runner.invoke(app, ["config", "--game", str(game)])
    assert result.exit_code == 2
    assert result.stderr == f"tally: {game}, key 'politeness': -1 is not between 0 and 60 seconds.\n"


def test_config_as_a_table(config):
    config.write_text("politeness = 0.5\n", encoding="utf-8")
    result = runner.invoke(app, ["config"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert f"config file: {config}\n" in result.stdout
    assert "politeness" in result.stdout and "0.5" in result.stdout
    assert "the built-in templates" in result.stdout  # what an unset setting means
