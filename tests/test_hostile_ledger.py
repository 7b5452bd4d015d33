"""The card ledger under hostile and unlucky use: twelve `tally cards add` at once all land;
a ledger that lost its header, or holds another file's columns, is refused (it used to lose
its first card at the next add); a huge reason goes and comes back."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import typer.main

from tally.cli import app
from tally.commands.cards import add_card, list_cards
from tally.environment import Environment
from tally.errors import GameFileError, OutputError
from tally.outputs.written import cardfile
from tally.outputs.written.cardfile import editing, load
from tally.rules.game.gamefile import load_game

from . import gamefiles
from .conftest import FOLDERS, quiet_environ
from .test_counting_roles_and_requests import invoke, write_game

DAYS = gamefiles.day(2, "https://bbs.example.com/thread-2-1-1.html")
PLAYERS = ["冷月", "小眯", "kiwi", "阿澈", "风铃", "老K", "糖糖", "雪见", "南瓜", "白桃", "长夜", "青山"]


def _add_in_a_process(barrier: Any, command: Any, args: list[str], env: Environment) -> None:
    """One `tally cards add`, as the command runs it (its exit status is the process's),
    once all twelve are ready."""
    barrier.wait(timeout=30)
    command(args, prog_name="tally", obj=env)


def test_twelve_cards_added_at_once_all_land(tmp_path, monkeypatch):
    """Twelve processes, each `tally cards add`, released together: twelve cards (one used
    to be kept, every command exiting 0). The processes are forked from this one, tally
    already imported (a `tally cards list` and a ledger written elsewhere load here first
    what the command loads as it runs: the CLI, the reader, the CSV writer), so the race is the
    ledger's and not twelve interpreters starting; a waiting one looks at the lock every
    5 ms, not every 50 (the eleven waits were most of the test's time). The command line is
    built from the app once, here, as `tally` builds it once a run (typer built it again in
    each of the twelve: two fifths of their CPU)."""
    monkeypatch.setattr(cardfile, "LOCK_POLL", 0.005)
    game = write_game(tmp_path, "000", DAYS)
    assert invoke("2024-05-08 22:00", "cards", "list", "--game", str(game)).exit_code == 0
    cardfile.save(tmp_path / "elsewhere.cards.csv", [])
    own = Environment(config_dir=FOLDERS.config, cache_dir=FOLDERS.cache, environ=quiet_environ())
    command = typer.main.get_command(app)
    forks = multiprocessing.get_context("fork")
    barrier = forks.Barrier(len(PLAYERS))
    running = [
        forks.Process(target=_add_in_a_process, args=(barrier, command, [
            "cards", "add", "--game", str(game), "--day", "2", player, "yellow", "L4",
            f"第2晚未按时行动 {i}"], own))
        for i, player in enumerate(PLAYERS)
    ]  # fmt: skip
    for p in running:
        p.start()
    for p in running:
        p.join(timeout=120)
        assert p.exitcode == 0, p
    cards = load(tmp_path / "game.cards.csv")
    assert sorted(c.player for c in cards) == sorted(PLAYERS)


def test_adds_from_threads_wait_for_each_other(tmp_path, monkeypatch):
    monkeypatch.setattr(cardfile, "LOCK_POLL", 0.005)  # as above: the waits were the time
    game = load_game(write_game(tmp_path, "000", DAYS))

    def add(player: str) -> None:
        add_card(game, day=2, player=player, colour="yellow", rule="L4", reason=f"{player}未行动")

    with ThreadPoolExecutor(max_workers=12) as pool:
        list(pool.map(add, PLAYERS))
    assert len(list_cards(game).cards) == len(PLAYERS)


def test_a_change_waits_for_the_lock_then_says_so(tmp_path):
    ledger = tmp_path / "game.cards.csv"
    with (
        editing(ledger),
        pytest.raises(OutputError, match="is being changed by another tally"),
        editing(ledger, wait=0.02),  # the wait's length is the caller's: any says it
    ):
        pass


def test_a_ledger_that_lost_its_header_is_refused(tmp_path):
    game = write_game(tmp_path, "000", DAYS)
    first = invoke("2024-05-08 22:00", "cards", "add", "--game", str(game), "--day", "2", "糖糖",
                   "yellow", "L4", "第一张")  # fmt: skip
    assert first.exit_code == 0, first.output
    ledger = tmp_path / "game.cards.csv"
    text = ledger.read_bytes().decode("utf-8-sig")
    ledger.write_text(text.split("\r\n", 1)[1], encoding="utf-8-sig")  # the header gone
    second = invoke("2024-05-08 22:00", "cards", "add", "--game", str(game), "--day", "2", "冷月",
                    "yellow", "L4", "第二张")  # fmt: skip
    assert second.exit_code == 2, second.output
    assert "line 1" in second.stderr and "is not the ledger's header" in second.stderr
    assert "第一张" in ledger.read_bytes().decode("utf-8-sig")  # nothing lost


@pytest.mark.parametrize(
    "text",
    [
        "name,score\r\n冷月,3\r\n",
        "day,player,colour,rule,reason,source,extra\r\n2,冷月,yellow,L4,x,director,1\r\n",
        "day,player,colour,rule,reason,source\r\n2,冷月,yellow,L4,x,director,oops\r\n",
    ],
)
def test_a_ledger_with_foreign_columns_is_refused(tmp_path, text):
    ledger = tmp_path / "game.cards.csv"
    ledger.write_text(text, encoding="utf-8")
    with pytest.raises(GameFileError, match="not the ledger's"):
        load(ledger)


def test_a_huge_reason_goes_and_comes_back(tmp_path):
    game = load_game(write_game(tmp_path, "000", DAYS))
    reason = "刷屏" * 100_000
    add_card(game, day=2, player="糖糖", colour="red", rule="L8", reason=reason)
    [card] = load(cardfile.ledger_path(Path(game.path)))  # type: ignore[arg-type]
    assert card.reason == reason
