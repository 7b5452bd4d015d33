"""`tally report` over a thread's history with a version file damaged or gone: where the
count of a day it draws takes a read that is lost, the run says so in the words `tally votes`
and `tally lurkers` use, and the page says it by the count it touches (the day's votes, the
posts of the day), in the players' Chinese; a lost version no count needs changes nothing.

The game is tests/test_cards_damaged_history.py's: six players on real-shaped Discuz! pages
served on loopback HTTP, day 1 closing 2024-05-09 21:30 (Asia/Shanghai), read the next
morning; 乙's ballot and two of 乙's posts deleted after the close.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tally.cli import app

from .conftest import FakeClock, Runner
from .test_cards_damaged_history import (
    _after,
    _damage,
    _game,
    _lost,
    deleted_after_the_close,
    three_reads,
)
from .test_i18n_rules import english_words
from .test_reading_forum_changes import CHINA

# The report, its pictures drawn (docs/contributing.md: the slow tests).
pytestmark = pytest.mark.slow

runner = Runner()


def _report(game: str, cache: Path, clock: str, language: str = "en"):  # type: ignore[no-untyped-def]
    """One `tally report` of the game at ``clock`` on 05-10 (the forum's), with ``cache``:
    the run, and the page it wrote."""
    out = cache.with_name(cache.name + ".html")
    when = FakeClock(f"2024-05-10 {clock}", tz=CHINA)
    result = runner.invoke(app, ["report", "--game", game, "-o", str(out), "--cache-dir",
                                 str(cache)], obj=when.env(), env={"TALLY_LANG": language})  # fmt: skip
    assert result.exit_code == 0, result.output
    return result, out.read_text(encoding="utf-8")


def _notes(page: str) -> list[str]:
    return re.findall(r'<p class="lost">(.*?)</p>', page)


def _section(page: str, name: str) -> str:
    return page.split(f'<section id="{name}">')[1].split("</section>")[0]


def _damaged_after_the_close(forum, tmp_path: Path, language: str = "en"):  # type: ignore[no-untyped-def]
    """The report at 08:00 and at 09:00, 乙's ballot and posts deleted between, the 08:00
    versions of their pages damaged in one cache (``deleted_after_the_close``): the runs and
    pages of the damaged cache and of the intact one."""
    return deleted_after_the_close(forum, tmp_path, lambda game, cache, clock: _report(
        game, cache, clock, language))  # fmt: skip


@pytest.mark.rules("S2")
def test_a_report_whose_reads_after_the_close_are_damaged_says_so_and_where(forum, tmp_path):
    """The intact history puts 乙's ballot back as it stood at the close (S2), and says
    nothing; the damaged one cannot, and says which thread, page and read it lost, once
    each, as `tally votes` and `tally lurkers` do: on the terminal, and on the page by the
    day's votes (the vote thread) and by the posts (the discussion thread)."""
    (damaged, page), (intact, whole) = _damaged_after_the_close(forum, tmp_path)
    assert _lost(intact) == [] and _notes(whole) == []
    assert _lost(damaged) == [_after(301, 1), _after(201, 2)]
    assert _notes(_section(page, "day-1")) == [
        "注意：tally 在 05-10 08:00 读到的投票帖第1页在缓存里丢失或损坏了，这一天的计票没能用上它，"
        "结果可能因此不同。"
    ]
    assert _notes(_section(page, "posts")) == [
        "注意：tally 在 05-10 08:00 读到的第1天讨论帖第2页在缓存里丢失或损坏了，这一天的发言数没能用上"
        "它，可能因此不同。"
    ]
    # What the note is about: 乙's ballot is on the intact page (deleted, put back), not here.
    ballot = re.compile(r'<td data-player="乙">乙</td><td>[^<]*</td><td data-player="丙">')
    assert ballot.search(_section(whole, "day-1"))
    assert not ballot.search(_section(page, "day-1"))


def test_a_report_says_a_damaged_read_in_the_directors_language(forum, tmp_path):
    (damaged, page), _ = _damaged_after_the_close(forum, tmp_path, "zh")
    said = _lost(damaged)
    assert len(said) == 2 and said[0].startswith(
        "tally: 警告：帖子 301 第1页：tally 在 05-09 21:30 之后、05-10 08:00 读到的这一页在缓存里丢失或损坏了")
    for line in said:
        assert not english_words(line.removeprefix("tally: ")), line
    assert len(_notes(page)) == 2


def test_a_damaged_version_no_report_count_needs_changes_nothing(forum, tmp_path):
    """Reported at 08:00, 09:00 and 10:00 after the close, 甲 remarking in the vote thread
    between each: the count takes the 08:00 read (the first after the close) to put back what
    was deleted since. The 09:00 version damaged changes nothing: nothing said, and the page
    is the intact one's."""
    game, _, votes = _game(forum, tmp_path)
    damaged, intact = tmp_path / "damaged", tmp_path / "intact"
    runs, lost = three_reads(forum, votes, (301, 1), lambda cache, clock: _report(
        game, cache, clock), damaged, intact)  # fmt: skip
    assert _lost(runs[damaged][0]) == _lost(runs[intact][0]) == []
    assert _notes(runs[damaged][1]) == []
    assert runs[damaged][1] == runs[intact][1]
    assert lost.read_bytes() == b"["  # no read since listed it again


def test_a_damaged_read_of_the_progress_thread_says_no_count_could_differ(forum, tmp_path):
    """Day 1 with a progress thread (进程帖, 401) the director updates after the close,
    reported at 08:00 and 09:00, the 08:00 read of its page damaged in one cache. The
    report counts no post of the progress thread (the posts are the discussion's and the
    sheriff's: count_day): the page and the run are the intact cache's, nothing said."""
    from .discuzgen import P, Thread
    from .test_cards_audit import NO_ELECTION, PLAYERS, UIDS, Game

    g = Game(forum, tmp_path, rules=NO_ELECTION)
    opens = "2024-05-08 09:30"
    talk = g.talk(201, 1, opens, {p: 12 for p in PLAYERS})
    votes = g.votes(301, 1, opens, [(p, "丙" if p != "丙" else "甲") for p in PLAYERS])
    progress = Thread("401", "进程帖", UIDS, first_pid=401000)
    progress.add(P("导演A", "2024-05-08 09:00:00", "第1天开始"))
    g.day(1, opens, "2024-05-09 21:30", talk, votes, progress=progress.serve(forum))
    game = g.write()
    damaged, intact = tmp_path / "damaged", tmp_path / "intact"
    runs = {}
    for clock in ("08:00:00", "09:00:00"):
        if clock == "09:00:00":
            progress.add(P("导演A", "2024-05-10 08:30:00", "第1天结果")).serve(forum)
            _damage(damaged, 401, 1, 1, b"[")
        runs = {cache: _report(game, cache, clock) for cache in (damaged, intact)}
    assert _lost(runs[intact][0]) == [] and _notes(runs[intact][1]) == []
    assert _lost(runs[damaged][0]) == []
    assert runs[damaged][1] == runs[intact][1]
