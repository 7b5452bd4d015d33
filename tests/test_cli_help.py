"""Help that reads: every command's help names what to give (FILE, N, URL-OR-FILE), never a
Python type; `tally --help` lists each command's summary whole; every command has an
example and --no-color; shell completion answers."""

from __future__ import annotations

import os
import re

import pytest
from typer.main import get_command

from tally.cli import app

from .conftest import Runner
from .forking import as_the_shell_runs_it, ended

runner = Runner()


def every_command() -> list[list[str]]:
    group = get_command(app)
    found = []
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        subs = getattr(command, "commands", None)
        found += [[name, sub] for sub in subs] if subs else [[name]]
    return found


def help_of(*words: str) -> str:
    result = runner.invoke(app, [*words, "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    return result.stdout


def test_no_help_shows_a_type_name():
    commands = every_command()
    assert len(commands) >= 14 and ["templates", "export"] in commands and ["config"] in commands
    for words in commands:
        text = help_of(*words)
        leaked = re.findall(r"<[a-z][^<>\s]*>|list\[|\brange\b|\{[A-Z-]+\}", text)
        assert not leaked, (words, leaked)
        assert "Example: tally " + " ".join(words) in text, words
        assert "--no-color" in text, words


def test_the_command_list_shows_each_summary_whole():
    text = help_of()
    assert "..." not in text.split("Commands:")[1]
    assert "doctor     How tally reads one page of a board, field by field: run it first" in text
    for sub in ("cards", "templates"):
        assert "..." not in help_of(sub).split("Commands:")[1]


def test_the_top_help_has_examples_and_completion():
    text = help_of()
    assert "Examples:\n    tally init THREAD-URL VOTE-URL -o game.toml" in text
    assert "--install-completion" in text and "--show-completion" in text


@pytest.mark.slow
def test_shell_completion_answers_commands_and_options(tmp_path):
    env = {**os.environ, "_TALLY_COMPLETE": "complete_bash", "COMP_WORDS": "tally temp",
           "COMP_CWORD": "1"}  # fmt: skip
    words = {**env, "COMP_WORDS": "tally votes --no-c", "COMP_CWORD": "2"}
    pids = [as_the_shell_runs_it([], e, tmp_path / f"run{i}") for i, e in enumerate((env, words))]
    commands, options = [ended(pid, tmp_path / f"run{i}") for i, pid in enumerate(pids)]
    assert commands.stdout.split() == ["templates"], commands.stderr
    assert options.stdout.split() == ["--no-color"], options.stderr


@pytest.mark.slow
def test_the_completion_script_for_each_shell(tmp_path):
    env = {**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    shells = ("bash", "zsh", "fish", "powershell")
    pids = {s: as_the_shell_runs_it(["--show-completion", s], env, tmp_path / s) for s in shells}
    done = {shell: ended(pid, tmp_path / shell) for shell, pid in pids.items()}  # all ended
    firsts = {}
    for shell, out in done.items():
        assert out.returncode == 0 and "_TALLY_COMPLETE" in out.stdout, (shell, out.stderr)
        firsts[shell] = out.stdout.splitlines()[0]
    assert firsts["zsh"] == "#compdef tally"
    assert firsts["fish"].startswith("complete --command tally")
