"""The journal of posts' own faults (issue 49, item 4): a post made and not journalled says it
is made (pid, floor) and what to do; a game folder that cannot be written stops `watch --post`
at its start; the journal, and the cache's files, are read only if regular, capped."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tally.cli import app
from tally.errors import ExitStatus, OutputError
from tally.journal import POSTED, Journal, journal_path

from .conftest import CHINA, FakeClock
from .discuzboard import Board
from .test_announcing_post import after_close, announce, env, runner, setup, watch


@pytest.fixture
def board(forum) -> Board:
    return Board(forum)


def test_a_post_made_and_not_journalled_says_it_is_made(board, tmp_path, monkeypatch):
    """The disk filled between the send and the record (g): the sentence says the post is
    made, its floor and pid, and that tally finds it by its mark; a second --post then finds
    it, records it, and posts nothing."""
    _, game, cookies = setup(board, tmp_path)
    clock = after_close(board)
    end = Journal.end

    def full(self, entry, state, pid=None, floor=None):  # type: ignore[no-untyped-def]
        if state == POSTED:
            raise OutputError(f"cannot write {self.path} (No space left on device).")
        return end(self, entry, state, pid, floor)

    monkeypatch.setattr(Journal, "end", full)
    result = announce(game, cookies, clock, "--yes")
    assert result.exit_code == ExitStatus.OUTPUT
    said = result.stderr.strip()
    assert "day 2's close is posted (floor 20, pid 2020, " in said
    assert "could not record it (cannot write " in said and "No space left on device" in said
    assert "do not post it again" in said
    assert len(board.replies) == 1
    monkeypatch.setattr(Journal, "end", end)
    again = announce(game, cookies, clock, "--yes")
    assert again.exit_code == ExitStatus.NOT_POSTED and len(board.replies) == 1
    [entry] = [json.loads(x) for x in journal_path(Path(game)).read_text("utf-8").splitlines()]
    assert (entry["state"], entry["pid"]) == ("posted", "2020")


def test_a_journal_that_cannot_be_written_before_the_send_posts_nothing(board, tmp_path, monkeypatch):
    _, game, cookies = setup(board, tmp_path)
    monkeypatch.setattr(Journal, "begin", lambda *a, **k: (_ for _ in ()).throw(
        OutputError(f"cannot write {journal_path(Path(game))} (No space left on device).")))
    result = announce(game, cookies, after_close(board), "--yes")
    assert result.exit_code == ExitStatus.NOT_POSTED
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("tally: nothing was posted: tally records a post in the journal")
    assert board.replies == []


def test_watch_post_stops_at_its_start_when_the_game_folder_cannot_be_written(
    board, tmp_path, monkeypatch
):
    """(h): found out at the close before, when no one was there. The folder's refusal is
    stood for by mkstemp's (the tests run as root, whom a read-only folder does not stop)."""
    import tally.journal

    url, game, cookies = setup(board, tmp_path)

    def refused(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tally.journal.tempfile, "mkstemp", refused)
    clock = FakeClock("2024-05-09 19:00:00", CHINA)
    result = watch(url, game, cookies, clock, "--post")
    assert result.exit_code == ExitStatus.OUTPUT
    assert f"the folder {tmp_path} cannot be written (Permission denied)" in result.stderr
    assert result.stdout == "" and board.replies == []


@pytest.mark.parametrize("kind", ["fifo", "zero", "binary"])
def test_a_journal_that_is_no_file_is_one_sentence_never_a_hang(board, tmp_path, kind):
    """(n) a FIFO where the journal belongs hung every command; (o) one linked to /dev/zero
    ended in a MemoryError traceback."""
    url, game, _ = setup(board, tmp_path)
    path = journal_path(Path(game))
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    else:
        path.write_bytes(b"\xff\xfe\x00garbage")
    clock = FakeClock("2024-05-09 22:00:00", CHINA)
    result = runner.invoke(app, ["votes", url, "--game", game, "-q"], obj=env(clock))
    assert result.exit_code == ExitStatus.BAD_INPUT, result.output
    said = result.stderr.strip().splitlines()[-1].removeprefix("tally: ")
    assert said.count(". ") == 0 and said.startswith(str(path))
    assert {"fifo": "is a named pipe (FIFO), not a journal of posts",
            "zero": "is a device or special file, not a journal of posts",
            "binary": "is not a journal of posts tally wrote"}[kind] in said  # fmt: skip


def test_a_fifo_in_the_cache_is_no_page_and_no_hang(board, tmp_path):
    """The cache's files are tally's own: one that is no regular file is as good as none."""
    url, game, _ = setup(board, tmp_path)
    cache = tmp_path / "cache"
    clock = FakeClock("2024-05-09 22:00:00", CHINA)
    args = ["votes", url, "--game", game, "--json", "-q", "--cache-dir", str(cache)]
    first = runner.invoke(app, args, obj=env(clock))
    assert first.exit_code == 0, first.output
    replaced = 0
    for path in cache.rglob("*"):
        if path.is_file() and path.suffix in (".html", ".json", ""):
            path.unlink()
            os.mkfifo(path)
            replaced += 1
    assert replaced >= 3
    again = runner.invoke(app, args, obj=env(clock))
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["totals"] == json.loads(first.stdout)["totals"]


class EditingClock(FakeClock):
    """A clock that edits the game file when the watch's time passes each of ``edits``: the
    director writing while the watch runs."""

    def __init__(self, start: str, game: str, edits: list[tuple[str, str]]):
        super().__init__(start, CHINA)
        self.game, self.edits = Path(game), list(edits)

    def sleep(self, seconds: float) -> None:
        super().sleep(seconds)
        from datetime import datetime

        while self.edits and self.t >= datetime.fromisoformat(self.edits[0][0]).replace(tzinfo=CHINA):
            _, text = self.edits.pop(0)
            self.game.write_text(text, encoding="utf-8")


RULING = '\n[[rulings]]\nday = 2\nfloor = 16\naction = "void"\nnote = "asked to withdraw"\n'


@pytest.mark.rules("C5")
def test_watch_posts_the_result_the_game_file_counts_now(board, tmp_path):
    """(d): a ruling written while `watch --post` runs is in the result it posts (it posted
    the count of the file as it was at its start), and the poll after the change says so."""
    url, game, cookies = setup(board, tmp_path)
    ruled = Path(game).read_text(encoding="utf-8") + RULING
    clock = EditingClock("2024-05-09 21:20:00", game, [("2024-05-09 21:25:00", ruled)])
    board.clock = clock.now
    result = watch(url, game, cookies, clock, "--post")
    assert result.exit_code == 0, result.stderr
    [(_, _, message)] = board.replies
    assert "长夜 以" in message and "被投票出局" in message and "白桃 被投票出局" not in message
    polls = [json.loads(line) for line in result.stdout.splitlines() if '"poll"' in line]
    notes = [p["poll"]["notes"] for p in polls]
    assert notes[0] == [] and any("changed since the last count" in n for ns in notes for n in ns)


def test_a_game_file_broken_at_the_close_posts_nothing_until_it_is_mended(board, tmp_path):
    """A file caught half-written at the close: that poll fails and keeps the last count, and
    nothing is posted until the file reads again, then with the file as it is then."""
    url, game, cookies = setup(board, tmp_path)
    text = Path(game).read_text(encoding="utf-8")
    clock = EditingClock("2024-05-09 21:20:00", game, [
        ("2024-05-09 21:25:00", text + "\n[[rulings]\n"),  # broken
        ("2024-05-09 21:35:00", text + RULING)])  # fmt: skip
    board.clock = clock.now
    result = watch(url, game, cookies, clock, "--post")
    assert result.exit_code == 0, result.stderr
    polls = [json.loads(line)["poll"] for line in result.stdout.splitlines() if '"poll"' in line]
    assert any(p["error"] and "game" in p["error"] for p in polls)
    [(_, _, message)] = board.replies
    assert "长夜 以" in message and "被投票出局" in message
