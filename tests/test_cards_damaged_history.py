"""`tally lurkers` over a thread's history with a version file damaged (cut short, a byte
changed) or gone: the lurker check puts back what the forum took away after the close as a
read after it showed it (S2), and where the read it would take is lost, it says so, in the
words `tally votes` uses, and flags each card that could differ for it; a lost version it
does not need changes nothing.

The game is six players on real-shaped Discuz! pages (tests/discuzgen.py) served on loopback
HTTP; day 1 closes 2024-05-09 21:30 (Asia/Shanghai), and each run reads on a clock of its own.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tally.cli import app

from .conftest import FakeClock, Runner
from .discuzgen import P
from .test_cards_audit import NO_ELECTION, PLAYERS, Game
from .test_i18n_rules import english_words
from .test_reading_forum_changes import CHINA

runner = Runner()
OPENS = "2024-05-08 09:30"


def _game(forum, tmp_path: Path):  # type: ignore[no-untyped-def]
    """Day 1: 乙 posts five times (floors 14-18, page 2 of the discussion thread 201) and
    votes (floor 3 of the vote thread 301), the others twelve times each."""
    g = Game(forum, tmp_path, rules=NO_ELECTION)
    talk = g.talk(201, 1, OPENS, {p: (5 if p == "乙" else 12) for p in PLAYERS})
    votes = g.votes(301, 1, OPENS, [(p, "丙" if p != "丙" else "甲") for p in PLAYERS])
    g.day(1, OPENS, "2024-05-09 21:30", talk, votes)
    return g.write(), talk, votes


def _lurkers(game: str, cache: Path, clock: str, *args: str, language: str = "en"):  # type: ignore[no-untyped-def]
    """One `tally lurkers --no-write` of day 1 at ``clock`` (the forum's), with ``cache``."""
    when = FakeClock(f"2024-05-10 {clock}", tz=CHINA)
    result = runner.invoke(app, ["lurkers", "--game", game, "--day", "1", "--no-write",
                                 "--cache-dir", str(cache), *args],
                           obj=when.env(), env={"TALLY_LANG": language})  # fmt: skip
    assert result.exit_code == 0, result.output
    return result


def _listed(cache: Path, tid: int) -> list[list[object]]:
    [folder] = [f for f in cache.iterdir() if f.name.endswith(f"-{tid}") and "~" not in f.name]
    return json.loads((folder / "history.json").read_text(encoding="utf-8"))


def _damage(cache: Path, tid: int, page: int, read: int, damage: bytes | None) -> Path:
    """The version file of page ``page`` as the ``read``-th read of thread ``tid`` listed
    it (1: the first) written over with ``damage`` (None: removed)."""
    [folder] = [f for f in cache.iterdir() if f.name.endswith(f"-{tid}") and "~" not in f.name]
    reads = list(dict.fromkeys(e[3] for e in _listed(cache, tid)))
    [digest] = [e[1] for e in _listed(cache, tid) if e[0] == page and e[3] == reads[read - 1]]
    path = folder / "versions" / f"{digest}.json"
    if damage is None:
        path.unlink()
    else:
        path.write_bytes(damage)
    return path


def _lost(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [line for line in result.stderr.splitlines()
            if "missing or damaged" in line or "丢失或损坏" in line]  # fmt: skip


def deleted_after_the_close(forum, tmp_path: Path, run):  # type: ignore[no-untyped-def]
    """``run(game, cache, clock)`` at 08:00 the morning after the close (everything
    standing), then 乙's ballot and two of 乙's posts deleted, and ``run`` again at 09:00:
    with the 08:00 versions of the pages that held them damaged (page 2 of the discussion
    thread, page 1 of the vote thread) in one cache, intact in the other. The 09:00 runs in
    the damaged cache, and in the intact one."""
    game, talk, votes = _game(forum, tmp_path)
    damaged, intact = tmp_path / "damaged", tmp_path / "intact"
    for cache in (damaged, intact):
        run(game, cache, "08:00:00")
    for floor in (18, 17):
        talk.delete(floor)
    votes.delete(3)
    talk.serve(forum)
    votes.serve(forum)
    _damage(damaged, 201, 2, 1, b"[")
    _damage(damaged, 301, 1, 1, None)
    return run(game, damaged, "09:00:00"), run(game, intact, "09:00:00")


def _deleted_after_the_close(forum, tmp_path: Path, language: str = "en"):  # type: ignore[no-untyped-def]
    """``deleted_after_the_close`` with `tally lurkers --json`: no card for 乙 at 08:00."""

    def run(game: str, cache: Path, clock: str):  # type: ignore[no-untyped-def]
        result = _lurkers(game, cache, clock, "--json", language=language)
        if clock == "08:00:00":
            assert [c for c in json.loads(result.stdout)["cards"] if c["player"] == "乙"] == []
        return result

    return deleted_after_the_close(forum, tmp_path, run)


def _after(thread: int, page: int) -> str:
    return (
        f"tally: warning: thread {thread}, page {page}: tally's read of it 05-10 08:00, after "
        "05-09 21:30, is missing or damaged in the cache, so the count takes the page after "
        "05-09 21:30 from its read 05-10 09:00: a post deleted or changed between the two "
        "reads is not counted as it stood, and the count could differ for it."
    )


@pytest.mark.rules("S2", "L1", "L3")
def test_lurkers_whose_read_after_the_close_is_damaged_say_so_and_flag_the_cards(
    forum, tmp_path
):
    """乙's posts and ballot deleted after the close stood at it (S2): the intact history puts
    them back, no card. The damaged one cannot: 乙 is carded L1 and L3 as the forum shows the
    day now, and the run says which thread and page it could not read as it stood, once
    each, and flags both cards for the director to judge (they are still proposed)."""
    damaged, intact = _deleted_after_the_close(forum, tmp_path)
    assert _lost(intact) == []
    assert [c for c in json.loads(intact.stdout)["cards"] if c["player"] == "乙"] == []
    assert _lost(damaged) == [_after(201, 2), _after(301, 1)]
    data = json.loads(damaged.stdout)
    assert [(c["player"], c["rule"]) for c in data["cards"]] == [("乙", "L1"), ("乙", "L3")]
    # The floors the lost read held are no floors that read did not show (came in, 合并/审核).
    assert [f for f in data["flags"] if f["rule"] == "came in"] == []
    flagged = [(f["rule"], f["player"], f["floor"], f["note"]) for f in data["flags"]
               if "missing or damaged" in f["note"]]  # fmt: skip
    assert flagged == [
        ("L1", "乙", None, "page 2: tally's read of it 05-10 08:00 is missing or damaged in the "
         "cache (see the warnings), and 乙's L1 card (第1天发言3条（少于5条）) could differ for it: "
         "a post of theirs deleted or changed after the close may not be counted as it stood; "
         "judge it, and take it back (tally cards remove) if so"),
        ("L3", "乙", None, "page 1: tally's read of it 05-10 08:00 is missing or damaged in the "
         "cache (see the warnings), and 乙's L3 card (第1天未投票) could differ for it: a post of "
         "theirs deleted or changed after the close may not be counted as it stood; judge it, "
         "and take it back (tally cards remove) if so"),
    ]  # fmt: skip


@pytest.mark.rules("S2", "L1")
def test_lurkers_say_a_damaged_read_in_the_table_and_flag_the_card_by_its_thread(
    forum, tmp_path
):
    """Without --json: the warning before the table, the flag under it naming the thread.
    The floors the lost read of page 2 could have held are not said to have come in since
    (合并, 审核); a post approved since, on the last page, is."""
    game, talk, _ = _game(forum, tmp_path)
    cache = tmp_path / "cache"
    _lurkers(game, cache, "08:00:00")
    talk.delete(18).delete(17).add(P("丁", "2024-05-08 12:00:00", "审核后才显示")).serve(forum)
    _damage(cache, 201, 2, 1, b"")
    table = _lurkers(game, cache, "09:00:00")
    assert _lost(table) == [_after(201, 2)]
    said = " ".join(table.stdout.split())
    assert re.search(r"flag L1: thread 201, page 2: tally's read of it 05-10 08:00 is missing "
                     r"or damaged in the cache .*乙's L1 card", said), said  # fmt: skip
    assert re.findall(r"flag came in: thread 201, floor (\d+): floor \d+ \((\S+),", said) == [
        ("65", "丁")]  # fmt: skip


def test_lurkers_say_a_damaged_read_in_the_directors_language(forum, tmp_path):
    damaged, _ = _deleted_after_the_close(forum, tmp_path, "zh")
    said = _lost(damaged)
    assert len(said) == 2 and said[0].startswith(
        "tally: 警告：帖子 201 第2页：tally 在 05-09 21:30 之后、05-10 08:00 读到的这一页在缓存里丢失或损坏了")
    for line in said:
        assert not english_words(line.removeprefix("tally: ")), line
    flags = [f["note"] for f in json.loads(damaged.stdout)["flags"] if "丢失或损坏" in f["note"]]
    assert len(flags) == 2
    for note in flags:
        assert not english_words(note), note


def test_a_damaged_version_no_lurker_count_needs_changes_nothing(forum, tmp_path):
    """Read at 08:00, 09:00 and 10:00 after the close, 甲 posting on the last page between
    each: the check takes the 08:00 read (the first after the close) to put back what was
    deleted since. The 09:00 version of the last page damaged changes nothing: the same
    table, the same cards and flags, no warning."""
    game, talk, _ = _game(forum, tmp_path)
    damaged, intact = tmp_path / "damaged", tmp_path / "intact"
    results, lost = three_reads(forum, talk, (201, 7), lambda cache, clock: _lurkers(
        game, cache, clock), damaged, intact)  # fmt: skip
    assert _lost(results[damaged]) == _lost(results[intact]) == []
    assert results[damaged].stdout == results[intact].stdout
    assert lost.read_bytes() == b"["  # no read since listed it again


def three_reads(forum, thread, page: tuple[int, int], run, damaged: Path, intact: Path):  # type: ignore[no-untyped-def]
    """``run(cache, clock)`` at 08:00, 09:00 and 10:00 with each cache, 甲 posting on the
    last page of ``thread`` after each; before the 10:00 runs, ``page`` (thread, page) as
    the 09:00 read found it damaged in ``damaged``. The 10:00 runs by cache, and the file."""
    results, lost = {}, None
    for clock in ("08:00:00", "09:00:00", "10:00:00"):
        if clock == "10:00:00":
            lost = _damage(damaged, *page, 2, b"[")
        results = {cache: run(cache, clock) for cache in (damaged, intact)}
        thread.add(P("甲", f"2024-05-10 {clock[:2]}:30:00", "复盘")).serve(forum)
    assert lost is not None
    return results, lost


@pytest.mark.rules("L2")
def test_an_L2_card_is_flagged_for_a_damaged_read_of_any_day_of_its_run(forum, tmp_path):
    """戊 posts six times a day on days 1-3 (under ten: L2 on day 3); day 1's discussion
    thread, page 2, as first read after its close damaged and changed since: the L2 card of
    day 3 rests on it, and is flagged with day 1's thread."""
    g = Game(forum, tmp_path, rules=NO_ELECTION)
    talks = []
    for n, date in enumerate(("2024-05-06", "2024-05-07", "2024-05-08"), start=1):
        opens = f"{date} 09:30"
        talks.append(g.talk(200 + n, n, opens, {p: (6 if p == "戊" else 12) for p in PLAYERS}))
        g.day(n, opens, f"{date} 21:30", talks[-1],
              g.votes(300 + n, n, opens, [(p, "甲" if p != "甲" else "乙") for p in PLAYERS]))
    game, cache = g.write(), tmp_path / "cache"
    when = FakeClock("2024-05-10 08:00:00", tz=CHINA)
    args = ["lurkers", "--game", game, "--day", "3", "--no-write", "--json", "--cache-dir",
            str(cache)]  # fmt: skip
    assert runner.invoke(app, args, obj=when.env()).exit_code == 0
    talks[0].delete(20).serve(forum)  # a post of 丁's, after the close
    _damage(cache, 201, 2, 1, b"[")
    when.sleep(3600)
    result = runner.invoke(app, [*args, "--fresh"], obj=when.env())
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [c["player"] for c in data["cards"] if c["rule"] == "L2"] == ["戊"]
    [flag] = [f for f in data["flags"] if "missing or damaged" in f["note"]]
    assert (flag["rule"], flag["player"]) == ("L2", "戊")
    assert flag["note"].startswith("page 2: tally's read of it 05-10 08:00 is missing")
    assert any(line.startswith("tally: warning: thread 201, page 2:") for line in _lost(result))


def _checked_at(game: str, cache: Path, clock: str):  # type: ignore[no-untyped-def]
    """`tally lurkers --day 1 --no-write --json` at ``clock`` (the forum's, any day)."""
    args = ["lurkers", "--game", game, "--day", "1", "--no-write", "--json", "--cache-dir",
            str(cache)]  # fmt: skip
    result = runner.invoke(app, args, obj=FakeClock(clock, tz=CHINA).env())
    assert result.exit_code == 0, result.output
    return result


@pytest.mark.rules("L1")
def test_a_damaged_read_hides_no_post_that_came_in_after_it(forum, tmp_path):
    """Read at 10:00 and 12:00 the day before the close, 甲 posting on the last page (7)
    between them; 丁's post of 11:30, held then (审核), shows at 08:00 after the close: the
    12:00 read did not show it, so it came in since, and is flagged. The 10:00 read of page
    7 damaged changes nothing: that read, made before 11:30, could not have shown it, and no
    count takes it (the 12:00 read of the page stands at the close)."""
    game, talk, _ = _game(forum, tmp_path)
    damaged, intact = tmp_path / "damaged", tmp_path / "intact"
    results = {}
    for clock in ("2024-05-09 10:00:00", "2024-05-09 12:00:00", "2024-05-10 08:00:00"):
        if clock.endswith("08:00:00"):
            _damage(damaged, 201, 7, 1, b"[")
            talk.add(P("丁", "2024-05-09 11:30:00", "审核后才显示")).serve(forum)
        for cache in (damaged, intact):
            results[cache] = _checked_at(game, cache, clock)
        if clock.endswith("10:00:00"):
            talk.add(P("甲", "2024-05-09 11:00:00", "复盘")).serve(forum)
    came = {cache: [(f["player"], f["floor"]) for f in json.loads(r.stdout)["flags"]
                    if f["rule"] == "came in"] for cache, r in results.items()}  # fmt: skip
    assert came[intact] == [("丁", 68)]
    assert _lost(results[damaged]) == _lost(results[intact]) == []
    assert came[damaged] == came[intact]


@pytest.mark.rules("L1")
def test_a_damaged_read_whose_other_pages_were_moved_on_hides_no_post_that_came_in(
    forum, tmp_path
):
    """Read at 10:00, 11:00, 12:00 and 13:00 the day before the close, 甲 posting on the
    last page (7) between each, pages 1-6 unchanged: the 11:00 read's listings of pages 1-6
    are moved on to the 12:00 read's (ThreadCache.store_versions), its page 7 damaged. 丁's
    post of the day before, merged in (合并) after 13:00, is flagged as come in with the
    cache intact, and with it damaged too: the 11:00 read's page 6 showed posts after it."""
    game, talk, _ = _game(forum, tmp_path)
    damaged, intact = tmp_path / "damaged", tmp_path / "intact"
    results = {}
    for hour in ("09 10", "09 11", "09 12", "09 13", "10 08"):
        clock = f"2024-05-{hour}:00:00"
        if hour == "10 08":
            _damage(damaged, 201, 7, 2, b"[")
            talk.add(P("丁", "2024-05-08 10:00:00", "合并来的")).serve(forum)
        for cache in (damaged, intact):
            results[cache] = _checked_at(game, cache, clock)
        talk.add(P("甲", f"2024-05-{hour}:30:00", "复盘")).serve(forum)
    came = {cache: [(f["player"], f["floor"]) for f in json.loads(r.stdout)["flags"]
                    if f["rule"] == "came in"] for cache, r in results.items()}  # fmt: skip
    assert came[intact] == [("丁", 71)]
    assert _lost(results[damaged]) == _lost(results[intact]) == []
    assert came[damaged] == came[intact]


@pytest.mark.rules("S2", "L1")
def test_a_card_whose_read_before_the_close_is_damaged_is_flagged_as_such(forum, tmp_path):
    """Read at 21:00, before the close, with 乙's five posts; two of them deleted after the
    close, and read again the next morning. With the 21:00 version of their page damaged,
    the count of the close has no read of the page by then that it can read back: 乙 is
    carded L1 as the forum shows the day now, and the flag says the lost read came before
    the close and what that means (the page counted as another read showed it), at the time
    the warning gives it."""
    game, talk, _ = _game(forum, tmp_path)
    cache = tmp_path / "cache"
    before = FakeClock("2024-05-09 21:00:00", tz=CHINA)
    first = runner.invoke(app, ["lurkers", "--game", game, "--day", "1", "--no-write",
                                "--cache-dir", str(cache)], obj=before.env())  # fmt: skip
    assert first.exit_code == 0, first.output
    for floor in (18, 17):
        talk.delete(floor)
    talk.serve(forum)
    _damage(cache, 201, 2, 1, b"[")
    data = json.loads(_lurkers(game, cache, "08:00:00", "--json").stdout)
    assert ("乙", "L1") in [(c["player"], c["rule"]) for c in data["cards"]]
    flagged = [f["note"] for f in data["flags"]
               if f["player"] == "乙" and "missing or damaged" in f["note"]]  # fmt: skip
    assert flagged == [
        "page 2: tally's read of it 05-09 21:00, before the close, is missing or damaged in "
        "the cache (see the warnings), and 乙's L1 card (第1天发言3条（少于5条）) could differ "
        "for it: the page is counted as another read showed it, or not at all, and a post of "
        "theirs may be missing; judge it, and take it back (tally cards remove) if so"
    ]
