"""Output any terminal or file can take (issue 34): on a director's Windows machine output
sent to a file or a pipe was written in the locale's code page (GBK), which holds no 🐺; a
player named Mika🐺 ended `tally … > count.txt` in a traceback, the file half written. The
real command, run as a program with its streams encoded so (PYTHONIOENCODING=gbk, as Windows
does): a file or a pipe gets UTF-8, a terminal gets what it cannot show escaped."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tally.cli import app

from .conftest import Runner, child_env

GAME = Path(__file__).resolve().parent.parent / "tally" / "demo" / "sample" / "game.toml"


def game_with_mika(tmp_path: Path) -> Path:
    text = GAME.read_text(encoding="utf-8").replace('"Mika"', '"Mika🐺"')
    game = tmp_path / "game.toml"
    game.write_text(text.replace("${FORUM}", "http://127.0.0.1:9/"), encoding="utf-8")
    return game


def tally(*args: str, **kw: object) -> subprocess.CompletedProcess[bytes]:
    env = child_env(PYTHONIOENCODING="gbk", NO_COLOR="1", COLUMNS="120")
    return subprocess.run([sys.executable, "-m", "tally", *args], env=env, timeout=60,
                          check=False, **kw)  # type: ignore[call-overload]  # fmt: skip


@pytest.mark.slow
def test_a_name_the_code_page_cannot_hold_goes_to_a_file_as_utf8(tmp_path):
    game = game_with_mika(tmp_path)
    added = tally("cards", "add", "--game", str(game), "--day", "2", "Mika🐺", "yellow", "L4",
                  "未按时行动", capture_output=True)  # fmt: skip
    assert added.returncode == 0, added.stderr.decode("utf-8", "replace")
    assert added.stdout.decode("utf-8") == "added: day 2 Mika🐺 黄牌 L4 未按时行动\n"
    with (tmp_path / "cards.txt").open("wb") as out:
        listed = tally("cards", "list", "--game", str(game), stdout=out, stderr=subprocess.PIPE)
    assert listed.returncode == 0 and b"Traceback" not in listed.stderr
    text = (tmp_path / "cards.txt").read_bytes().decode("utf-8")
    assert "Mika🐺" in text and "Mika🐺: 0 blue, 1 yellow, 0 red" in text


@pytest.mark.slow  # tally in another process
def test_an_error_naming_such_a_player_is_one_utf8_sentence(tmp_path):
    game = game_with_mika(tmp_path)
    failed = tally("cards", "add", "--game", str(game), "--day", "2", "Mika🐺🐺", "yellow",
                   "L4", "x", capture_output=True)  # fmt: skip
    said = failed.stderr.decode("utf-8")
    assert failed.returncode == 2 and said.startswith("tally: ") and "Mika🐺🐺" in said
    assert said.count("\n") == 1 and "Traceback" not in said


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(pty, "openpty"), reason="no pseudo-terminals here")
def test_a_terminal_that_cannot_show_a_character_gets_it_escaped(tmp_path):
    game = game_with_mika(tmp_path)
    # The card written here, as the command writes it; the listing is the program's, below.
    added = Runner().invoke(app, ["cards", "add", "--game", str(game), "--day", "2", "Mika🐺",
                                  "yellow", "L4", "未按时"])  # fmt: skip
    assert added.exit_code == 0, added.output
    main, screen = pty.openpty()
    try:
        done = tally("cards", "list", "--game", str(game), stdout=screen, stderr=screen)
        os.close(screen)
        shown = b""
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the terminal's other end closed
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(main)
    assert done.returncode == 0, shown
    text = shown.decode("gbk")  # what a GBK terminal shows
    assert "Mika\\U0001f43a" in text and "未按时" in text and "Traceback" not in text
