"""What a new director runs into on a first evening, each said as one sentence that says what
to do: a folder or a JSON export given as the cookie file, a game file saved as GBK or typed
with an input method's full-width quotes, the forum's own floor links, the forum down after
the close with the thread cached, a card for a misspelt player, a guest warning once."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tally.cli import app
from tally.errors import InputError
from tally.forums import resolve_url
from tally.forums.cookies import load_cookies
from tally.forums.http import Http, site_of
from tally.rules.game.gamefile import load_game

from . import gamefiles
from .conftest import CHINA, FakeClock, Runner, quiet_environ
from .localforums import local_forum
from .test_counting_whole_day import game_file, vote_thread
from .test_watch import env_at

runner = Runner()


def cookie_file(tmp_path: Path, text: str, name: str = "cookies.txt") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    os.chmod(path, 0o600)
    return path


# -- the cookie file ---------------------------------------------------------------------------


def test_a_folder_given_as_the_cookie_file(tmp_path, forum):
    url = vote_thread().serve(forum)
    result = runner.invoke(app, ["votes", url, "--game", game_file(tmp_path, url),
                                 "--cookies", "/tmp", "-q"])  # fmt: skip
    assert result.exit_code == 2
    assert result.stderr == (
        "tally: /tmp is a folder; give the cookie file itself (cookies.txt, exported in Netscape "
        "format from a browser that is logged in to the board).\n"
    )
    assert "chmod" not in result.stderr


@pytest.mark.parametrize(
    "export",
    [
        '[{"domain": ".example.com", "name": "auth", "value": "secret", "path": "/"}]',
        '{"cookies": [{"domain": ".example.com", "name": "auth", "value": "secret"}]}',
    ],
)
def test_a_json_cookie_export_asks_for_netscape_format(tmp_path, export):
    path = cookie_file(tmp_path, "\ufeff  " + export)
    with pytest.raises(
        InputError, match=r"is a JSON cookie export; tally reads the Netscape cookies\.txt format"
    ) as caught:
        load_cookies(path)
    said = str(caught.value)
    assert said == (
        f"{path} is a JSON cookie export; tally reads the Netscape cookies.txt format: export "
        "again choosing Netscape (or use an extension such as Get cookies.txt)."
    )
    assert "secret" not in said


def test_the_guest_warning_is_said_once_a_site():
    """tieba.baidu.com and its API host, a board and its www.: one site, one warning."""
    said: list[str] = []
    assert site_of("tieba.baidu.com") == site_of("tiebac.baidu.com") == "baidu.com"
    assert site_of("www.bbs.example.com:8080") == "example.com"
    assert site_of("bbs.foo.com.cn") == "foo.com.cn"
    assert site_of("127.0.0.1:8600") == "127.0.0.1"
    path = Path(__file__).parent / "cookies-other.txt"
    path.write_text(".other.example\tTRUE\t/\tFALSE\t0\tauth\tx\n", encoding="utf-8")
    try:
        os.chmod(path, 0o600)
        with Http(cookies=path, warn=said.append) as http:
            for url in ("https://tieba.baidu.com/p/1", "https://tiebac.baidu.com/c/f/pb/page",
                        "https://tieba.baidu.com/p/2", "https://bbs.example.com/forum.php"):
                http._host(url)  # registered as a request would: no request is made
    finally:
        path.unlink()
    assert said == [
        f"the cookie file {path} holds no cookie for baidu.com; tally reads it as a guest.",
        f"the cookie file {path} holds no cookie for example.com; tally reads it as a guest.",
    ]


# -- the game file ------------------------------------------------------------------------------


def test_a_game_file_saved_as_gbk_asks_for_utf8(tmp_path):
    path = tmp_path / "game.toml"
    path.write_bytes('name = "测试局"\nplayers = ["冷月", "小眯"]\n'.encode("gbk"))
    with pytest.raises(
        InputError, match=r"is saved as GBK \(a Chinese encoding\), not UTF-8"
    ) as caught:
        load_game(path)
    assert str(caught.value) == (
        f"{path} is saved as GBK (a Chinese encoding), not UTF-8; save the game file as UTF-8 "
        "(Notepad: Save as, Encoding: UTF-8)."
    )
    result = runner.invoke(app, ["cards", "list", "--game", str(path)])
    assert result.exit_code == 2 and "save the game file as UTF-8" in result.stderr
    assert "codec" not in result.stderr


def test_bytes_that_are_no_chinese_encoding_either(tmp_path):
    path = tmp_path / "game.toml"
    path.write_bytes(b'name = "\xff\xfe\xff"\n')
    with pytest.raises(InputError, match=r"is not UTF-8 text \(byte 8 is not\); save the game"):
        load_game(path)


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ('name = “kiwi局”', "“ for \", ” for \""),
        ('players = ["冷月"，"小眯"]', "， for ,"),
        ('name ＝ "局"', "＝ for ="),
        ("name = ‘局’", "‘ for ', ’ for '"),
    ],
)
def test_an_input_methods_full_width_punctuation_is_named(tmp_path, line, shown):
    path = tmp_path / "game.toml"
    path.write_text(f'ruleset = "000"\n{line}\n', encoding="utf-8")
    with pytest.raises(
        InputError, match=re.escape(f"line 2: {shown}: an input method's full-width punctuation")
    ) as caught:
        load_game(path)
    assert str(caught.value) == (
        f"{path}, line 2: {shown}: an input method's full-width punctuation, which TOML does "
        "not read; retype them with the keyboard in half-width (半角) mode."
    )


def test_a_toml_mistake_without_full_width_punctuation_is_said_as_before(tmp_path):
    path = tmp_path / "game.toml"
    path.write_text('name = "“quoted” is fine inside"\nplayers = [\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"not valid TOML \(Invalid value \(at end of document\)\)"):
        load_game(path)


def test_the_config_file_saved_as_gbk(tmp_path):
    path = tmp_path / "config.toml"
    path.write_bytes('template_dir = "模板"\n'.encode("gbk"))
    result = runner.invoke(app, ["config"],
                           obj=FakeClock().env(environ=quiet_environ(TALLY_CONFIG=str(path))))
    assert result.exit_code == 2
    assert "save the config file as UTF-8" in result.stderr


# -- URLs ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "script"),
    [
        ("https://bbs.example.com/forum.php?mod=redirect&goto=findpost&ptid=22&pid=5088", ""),
        ("https://bbs.example.com/forum.php?mod=redirect&goto=findpost&pid=5088&ptid=22", ""),
        ("https://bbs.example.com/forum.php?mod=redirect&tid=22&goto=lastpost#lastpost", ""),
        ("http://bbs.example.com/redirect.php?goto=findpost&ptid=22&pid=5088", "viewthread.php"),
    ],
)
def test_the_forums_floor_links_read_as_their_thread(url, script):
    platform, ref = resolve_url(url)
    assert (platform.name, ref.thread_id, ref.page, ref.script) == ("discuz", "22", 1, script)
    assert ref.base.startswith(url.split("://")[0] + "://bbs.example.com/")


def test_a_floor_link_tally_wrote_counts_the_thread(tmp_path, forum):
    """The link of a ballot in tally's own closing post, pasted back: the whole thread."""
    url = vote_thread().serve(forum)
    floor = url.replace("mod=viewthread&tid=102", "mod=redirect&goto=findpost&ptid=102&pid=7")
    result = runner.invoke(app, ["votes", floor, "--game", game_file(tmp_path, url), "--json", "-q"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["thread"]["thread_id"] == "102"


# -- the forum down after the close -------------------------------------------------------------


def test_the_forum_down_with_the_thread_cached_after_the_close(tmp_path):
    after = FakeClock("2024-05-09 22:00:00", CHINA)
    with local_forum() as forum:
        url = vote_thread().serve(forum)
        game = game_file(tmp_path, url)
        counted = runner.invoke(app, ["votes", url, "--game", game, "--json", "-q"],
                                obj=env_at(after, tmp_path))  # fmt: skip
        assert counted.exit_code == 0, counted.stderr
    # The forum is gone: the same count fails, and says the cache holds the thread.
    down = runner.invoke(app, ["votes", url, "--game", game, "--json", "-q"],
                         obj=env_at(after, tmp_path))  # fmt: skip
    assert down.exit_code == 3
    assert down.stderr.startswith("tally: cannot reach 127.0.0.1")
    assert down.stderr.endswith(
        "The cache holds every page of this thread as read after the close: add --offline to "
        "count from it.\n"
    )
    offline = runner.invoke(app, ["votes", url, "--game", game, "--json", "-q", "--offline"],
                            obj=env_at(after, tmp_path))  # fmt: skip
    assert offline.exit_code == 0, offline.stderr
    assert json.loads(offline.stdout)["totals"] == json.loads(counted.stdout)["totals"]


def test_a_cache_from_before_the_close_is_no_count_after_it(tmp_path):
    """Cached at 20:00, the day closing at 21:30: no hint, and --offline refuses it."""
    with local_forum() as forum:
        url = vote_thread().serve(forum)
        game = game_file(tmp_path, url)
        early = runner.invoke(app, ["votes", url, "--game", game, "-q"],
                              obj=env_at(FakeClock("2024-05-09 20:00:00", CHINA), tmp_path))  # fmt: skip
        assert early.exit_code == 0, early.stderr
    after = FakeClock("2024-05-09 22:00:00", CHINA)
    down = runner.invoke(app, ["votes", url, "--game", game, "-q"], obj=env_at(after, tmp_path))
    assert down.exit_code == 3 and "--offline" not in down.stderr
    offline = runner.invoke(app, ["votes", url, "--game", game, "-q", "--offline"],
                            obj=env_at(after, tmp_path))  # fmt: skip
    assert offline.exit_code == 3
    assert "was cached before the close: --offline counts only from a whole thread" in offline.stderr


def test_offline_with_nothing_cached(tmp_path, forum):
    url = vote_thread().serve(forum)
    result = runner.invoke(app, ["votes", url, "--game", game_file(tmp_path, url), "-q",
                                 "--offline"], obj=env_at(FakeClock("2024-05-09 22:00:00", CHINA), tmp_path))  # fmt: skip
    assert result.exit_code == 3
    assert result.stderr == (
        f"tally: {url}: no page of this thread is in the cache, which --offline counts from; "
        "run without it.\n"
    )
    assert not forum.requests


# -- cards --------------------------------------------------------------------------------------


def test_a_card_for_a_misspelt_player_says_the_closest(tmp_path):
    game = gamefiles.write_game(
        tmp_path / "game.toml",
        gamefiles.day(1, "https://bbs.example.com/thread-101-1-1.html", "2024-05-06T09:30:00",
                      "2024-05-07T21:30:00"),
        name="局", ruleset=None, players=["Lucky", "冷月", "Mika"],
    )  # fmt: skip
    result = runner.invoke(app, ["cards", "add", "--game", str(game), "--day", "1", "Lucy",
                                 "yellow", "L4", "没行动"])  # fmt: skip
    assert result.exit_code == 2
    assert result.stderr == f"tally: 'Lucy' is not a player of {game} (did you mean Lucky?).\n"
    assert not (tmp_path / "game.cards.csv").exists()
