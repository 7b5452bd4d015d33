"""The installed `tally` command: the demo, exit codes, one-sentence errors."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tally.cli import app

from .conftest import Runner

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


def test_demo_runs_the_real_fetch_path():
    proc = subprocess.run(
        [*tally_command(), "demo"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "forum at http://127.0.0.1:" in out
    assert "Thread 23 “[D01] 月下古堡 第二天投票帖”: 2 page(s), 16 posts, 2 comments" in out
    assert "Thread 24 “[D01] 月下古堡 第二天讨论帖”: 7 page(s), 65 posts, 1 comments" in out
    assert "改票对象：白桃" in out and "quotes #3" in out and "red font" in out
    # ... and the whole tally of the day on the sample game (ruleset 245, close 21:00).
    assert "change_not_reply: a change must be posted as a reply of one's own vote (V3)" in out
    assert "Not voted (2): 老K、南瓜" in out
    assert "Outcome: nobody — 月影、长夜 tie on 3: nobody is out (C5) [rule tie_none]" in out
    # ... and the announcement, with ruleset 245's visibility (C7).
    assert "[color=#FF0000][b]最高票有多人，无人出局。[/b][/color]（C5）" in out


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
    from tally.outputs.terminal import Terminal

    stream = io.StringIO()
    with Terminal(Environment(stderr=stream, terminal=False)).progress() as bar:
        assert bar is None  # not a terminal
    with Terminal(Environment(stderr=stream, terminal=True), quiet=True).progress() as bar:
        assert bar is None  # --quiet
    with Terminal(Environment(stderr=stream, terminal=True)).progress() as bar:
        assert bar is not None
        bar(3, 7)  # a rich progress bar, drawn on standard error
