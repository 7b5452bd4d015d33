"""The installed `tally` command: the demo, exit codes, one-sentence errors."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tally.cli import app

from .conftest import Runner, child_env

runner = Runner()
ROOT = Path(__file__).resolve().parent.parent


def tally_command() -> list[str]:
    exe = Path(sys.executable).parent / "tally"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("tally")
    if found is None:
        pytest.skip("the tally entry point is not installed")
    return [found]


@pytest.mark.slow
def test_demo_runs_the_real_fetch_path():
    proc = subprocess.run(
        [*tally_command(), "demo"],
        capture_output=True,
        text=True,
        timeout=120,
        env=child_env(COLUMNS="80"),
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    lines = out.splitlines()
    assert len(lines) < 45  # a short summary and the announcement, not every table
    assert re.match(
        r"Sample game \[D01\] 月下古堡（示例）, served at http://127\.0\.0\.1:\d+/", lines[0]
    )
    assert "  read thread 23 “[D01] 月下古堡 第二天投票帖”: 2 page(s), 16 posts, 2 点评" in lines
    assert "  read thread 24 “[D01] 月下古堡 第二天讨论帖”: 7 page(s), 65 posts, 1 点评" in lines
    # The whole tally of the day on the sample game (ruleset 245, close 21:00).
    assert (
        "Day 2 (ruleset 245): 15 ballots — 10 in force, 1 changed, 4 void "
        "(change_not_reply、proxy_late、change_in_final_hour、after_close)"
    ) in lines
    assert "Totals: 月影 3 · 长夜 3 · 白桃 2 · Mika 1; not voted: 老K、南瓜" in lines
    assert "Outcome: nobody — 月影、长夜 tie on 3: nobody is out (C5) [rule tie_none]" in lines
    # The announcement, with ruleset 245's visibility (C7), no rule id, never hard-wrapped
    # at the 80 columns: a link line is whole.
    assert "[color=#FF0000][b]最高票有多人，无人出局。[/b][/color]" in lines
    assert any(len(line) > 80 and line.startswith("[url=http://127.0.0.1:") for line in lines)
    assert lines[-1].startswith("Next: describe your own game with `tally init THREAD-URL")


@pytest.mark.parametrize(
    "args,code,message",
    [
        (["archive", "bbs.example.com/thread-1-1-1.html"], 2, "http:// or https://"),
        (
            ["archive", "https://bbs.example.com/forum.php?mod=forumdisplay&fid=2"],
            2,
            "not a thread URL",
        ),
        (["archive", "--game", "no-such-game.toml"], 2, "no such game file"),
        (["archive", "--timezone", "Mars/Base", "x.html"], 2, "not a time zone name"),
    ],
)
def test_bad_input_is_one_sentence_and_non_zero(args, code, message, tmp_path):
    if "x.html" in args:
        (tmp_path / "x.html").write_text("<html></html>")
        args = [str(tmp_path / "x.html") if a == "x.html" else a for a in args]
    result = runner.invoke(app, args)
    assert result.exit_code == code
    assert message in result.stderr
    assert result.stderr.startswith("tally: ") and result.stderr.count("\n") == 1


def test_help_lists_commands():
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "archive" in result.output and "demo" in result.output


def test_progress_bar_only_on_a_terminal_and_not_with_quiet():
    import io

    from tally.environment import Environment
    from tally.outputs.shown.terminal import Terminal

    stream = io.StringIO()
    with Terminal(Environment(stderr=stream, terminal=False)).progress() as bar:
        assert bar is None  # not a terminal
    with Terminal(Environment(stderr=stream, terminal=True), quiet=True).progress() as bar:
        assert bar is None  # --quiet
    with Terminal(Environment(stderr=stream, terminal=True)).progress() as bar:
        assert bar is not None
        bar(3, 7)  # a rich progress bar, drawn on standard error


# Kept for the whole run: the suite builds each app's click command once, by the app's id
# (tests/runner.py), and an id is free again once its object is gone.
_NAMED: list[object] = []


@pytest.mark.parametrize("args", [
    ["votes", "--help"], ["cards", "--help"], ["cards", "add", "--help"], ["day", "add", "-h"],
    ["templates", "export", "--help"], ["votes"], ["votes", "--bogus"], ["cards", "nope"],
    ["cards"], ["config", "--json"], ["lurkers", "--game"], ["--help"], ["--version"], [],
    ["vote"], ["-q", "votes"],
])  # fmt: skip
def test_a_run_of_one_command_prints_what_the_whole_app_prints(args, monkeypatch):
    """`tally NAME …` in a process of its own builds NAME alone (tally.cli.named): its help,
    its mistakes and its output are the bytes the whole app gives, in English and Chinese."""
    from typer.main import get_command

    from tally.cli import named

    one = named(args)
    _NAMED.append(one)
    if args and args[0] in ("votes", "cards", "day", "templates", "config", "lurkers"):
        assert list(get_command(one).commands) == [args[0]]  # type: ignore[attr-defined]
    else:
        assert one is app
    for language in ("en", "zh"):
        monkeypatch.setenv("TALLY_LANG", language)
        whole, alone = runner.invoke(app, args), runner.invoke(one, args)
        assert (alone.exit_code, alone.stdout, alone.stderr) == (
            whole.exit_code, whole.stdout, whole.stderr)
