"""A thread's history with a version file damaged (cut short by a crash or a full disk, a
byte changed) or gone: mended by the next read that lists that content, and where a count
needs it, said, never counted from a guess in silence.

The runs are `tally votes` against the real X3.5 pages of tests/test_reading_forum_changes.py
served over loopback HTTP, the history the test's cache; the close is 17:05.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from .test_reading_forum_changes import read_at


def folder(tmp_path: Path) -> Path:
    [found] = [f for f in (tmp_path / "cache").iterdir() if "~board" not in f.name]
    return found


def listed(tmp_path: Path) -> list[list[object]]:
    return json.loads((folder(tmp_path) / "history.json").read_text(encoding="utf-8"))


def version_file(tmp_path: Path, listing: int) -> Path:
    """The file of the version the history's listing ``listing`` points at."""
    return folder(tmp_path) / "versions" / f"{listed(tmp_path)[listing][1]}.json"


def whole(path: Path) -> bool:
    return hashlib.sha256(path.read_bytes()).hexdigest() == path.stem


DAMAGES = {
    "cut short": lambda data: data[: len(data) // 2],
    "a byte changed": lambda data: data.replace(b'"alice"', b'"alicf"', 1),
}


@pytest.mark.parametrize("damage", DAMAGES.values(), ids=DAMAGES)
def test_a_damaged_version_is_rewritten_by_the_next_read_of_the_same_content(
    forum, tmp_path, damage
):
    """Page 1 read as it was (17:00), with dave's ballot 屏蔽ed (17:02), then shown again
    (the 屏蔽 lifted, 17:04): the first content is listed again, and its file, damaged since
    it was written, is written again with the same posts (it was kept as it was, for good)."""
    assert read_at(forum, tmp_path, "17:00:00", "vote-1-guest").exit_code == 0
    assert read_at(forum, tmp_path, "17:02:00", "vote-2-banned-guest").exit_code == 0
    first = version_file(tmp_path, 0)
    kept = first.read_bytes()
    first.write_bytes(damage(kept))
    assert not whole(first)
    again = read_at(forum, tmp_path, "17:04:00", "vote-1-guest")
    assert again.exit_code == 0, again.output
    assert first.read_bytes() == kept
    assert [e[1] for e in listed(tmp_path)] == [first.stem, version_file(tmp_path, 1).stem,
                                                first.stem]  # fmt: skip
    # Nothing is lost of the history now: the count after the close says nothing of it.
    later = read_at(forum, tmp_path, "17:10:00", "vote-1-guest")
    assert "missing or damaged" not in later.stderr


@pytest.mark.parametrize("damage", [*DAMAGES.values(), None], ids=[*DAMAGES, "gone"])
def test_a_damaged_version_is_rewritten_by_a_read_that_finds_the_page_unchanged(
    forum, tmp_path, damage
):
    """A page as its last read found it (every page of every poll of a watch): its file cut
    short or gone fails its size, and is written again as the read lists it; one with a byte
    changed passes it, and is written again once the history read back finds it lost."""
    assert read_at(forum, tmp_path, "17:00:00", "vote-1-guest").exit_code == 0
    first = version_file(tmp_path, 0)
    kept = first.read_bytes()
    if damage is None:
        first.unlink()
    else:
        first.write_bytes(damage(kept))
    again = read_at(forum, tmp_path, "17:01:00", "vote-1-guest")
    assert again.exit_code == 0, again.output
    assert first.read_bytes() == kept and len(listed(tmp_path)) == 2
    assert "missing or damaged" not in again.stderr


def damaged_then(forum, tmp_path: Path, listing: int, data: bytes, clock: str, name: str,  # type: ignore[no-untyped-def]
                 *args: str):  # fmt: skip
    """The run at ``clock`` (the forum serving ``name``) after the file of the history's
    listing ``listing`` was written over with ``data``: a count that goes on."""
    version_file(tmp_path, listing).write_bytes(data)
    result = read_at(forum, tmp_path, clock, name, *args)
    assert result.exit_code == 0, result.output
    return result


def warnings(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [line for line in result.stderr.splitlines() if "missing or damaged" in line]


def after_the_close(lost: str, instead: str) -> str:
    """The warning of page 1's read ``lost`` after the 17:05 close, the read ``instead`` taken."""
    return (
        f"tally: warning: thread 1, page 1: tally's read of it 12-01 {lost}, after 12-01 17:05, "
        "is missing or damaged in the cache, so the count takes the page after 12-01 17:05 "
        f"from its read 12-01 {instead}: a post deleted or changed between the two reads is "
        "not counted as it stood, and the count could differ for it."
    )


def ballots(result) -> list[tuple[str, str, str | None, str]]:  # type: ignore[no-untyped-def]
    data = json.loads(result.stdout)
    return [(b["post_id"], b["author"], b["target"], b["status"]) for b in data["ballots"]]


@pytest.mark.rules("S2")
def test_a_count_whose_read_after_the_close_is_damaged_says_so_and_what_it_counts(
    forum, tmp_path
):
    """tally read the thread at 17:10, after the close, every ballot standing; bob deleted
    his since. That read's version is what puts bob's ballot back as it stood (S2); damaged,
    it cannot: the count takes the thread as the forum shows it now, and says so."""
    assert read_at(forum, tmp_path, "17:10:00", "vote-1-guest").exit_code == 0
    result = damaged_then(forum, tmp_path, 0, b"[", "17:20:00", "vote-3-deleted-guest")
    assert warnings(result) == [after_the_close("17:10", "17:20")]
    # What it counts: the thread as read at 17:20, bob's ballot gone (a gap, no row).
    assert "3" not in [pid for pid, *_ in ballots(result)]
    assert ("4", "carol", "dave", "counted") in ballots(result)


@pytest.mark.rules("V5")
def test_a_count_whose_last_read_before_the_close_is_damaged_says_which_read_it_takes(
    forum, tmp_path
):
    """Read at 17:00 (alice votes carol) and at 17:04:55 (she changed to dave, no edit mark
    within a minute of posting); at 17:10 her ballot reads eve, an edit marked 17:05, the
    close's minute: it counts as the last read before the close showed it. That read's
    version damaged, the count takes the page as it stood at the close from the 17:00 read,
    carol, not dave, and the warning names the page and the read it took."""
    for where in (tmp_path, tmp_path / "intact"):
        assert read_at(forum, where, "17:00:00", "vote-1-guest").exit_code == 0
        assert read_at(forum, where, "17:04:55", "vote-4-silent-edit-guest").exit_code == 0
    changed = version_file(tmp_path, 1).read_bytes()[:-1] + b"}"
    result = damaged_then(forum, tmp_path, 1, changed, "17:10:00", "vote-5-edited-guest")
    assert warnings(result) == [
        "tally: warning: thread 1, page 1: tally's read of it 12-01 17:04 is missing or damaged in "
        "the cache, so the count takes the page as it stood at 12-01 17:05 from its read "
        "12-01 17:00, and could differ for it."
    ]
    assert ("2", "alice", "carol", "counted") in ballots(result)
    intact = read_at(forum, tmp_path / "intact", "17:10:00", "vote-5-edited-guest")
    assert warnings(intact) == []
    assert ("2", "alice", "dave", "counted") in ballots(intact)


@pytest.mark.rules("V5")
def test_an_edit_at_the_close_whose_only_read_before_it_is_damaged_stops_and_says_why(
    forum, tmp_path
):
    """alice's edit mark says 17:05, the close; tally read the thread at 17:04:55, and that
    version is damaged: the count stops, as with no read before the close, and says the read
    is damaged rather than that tally never read the thread."""
    assert read_at(forum, tmp_path, "17:04:55", "vote-1-guest").exit_code == 0
    version_file(tmp_path, 0).unlink()
    result = read_at(forum, tmp_path, "17:10:00", "vote-5-edited-guest")
    assert result.exit_code == 2
    assert "tally's read of page 1 12-01 17:04 is missing or damaged in the cache: what it " \
        "said at the close is not known" in result.stderr
    assert "never read" not in result.stderr


def test_a_damaged_version_no_count_needs_changes_nothing(forum, tmp_path):
    """Page 1 read at 17:00 as it was, then at 17:04:55 and 17:10 with dave's ballot
    屏蔽ed: the count after the close takes the 17:04:55 read. The 17:00 version damaged
    changes nothing: the same count, the same flags, no warning."""
    for where in (tmp_path, tmp_path / "intact"):
        assert read_at(forum, where, "17:00:00", "vote-1-guest").exit_code == 0
        assert read_at(forum, where, "17:04:55", "vote-2-banned-guest").exit_code == 0
    version_file(tmp_path, 0).write_bytes(b"")
    damaged = read_at(forum, tmp_path, "17:20:00", "vote-2-banned-guest")
    intact = read_at(forum, tmp_path / "intact", "17:20:00", "vote-2-banned-guest")
    assert damaged.exit_code == intact.exit_code == 0
    assert damaged.stdout == intact.stdout
    assert warnings(damaged) == []
    assert not whole(version_file(tmp_path, 0))  # no read since listed that content again


def test_a_damaged_version_is_said_in_the_directors_language(forum, tmp_path):
    from .test_i18n_rules import english_words, votes
    from .test_reading_forum_changes import page

    forum.add_discuz_page("1", 1, page("vote-1-guest"))
    assert votes(forum, tmp_path, "17:10:00", "zh").exit_code == 0
    version_file(tmp_path, 0).write_bytes(b"[")
    forum.add_discuz_page("1", 1, page("vote-3-deleted-guest"))
    result = votes(forum, tmp_path, "17:20:00", "zh")
    assert result.exit_code == 0, result.output
    [said] = [line for line in result.stderr.splitlines() if "丢失或损坏" in line]
    assert said.startswith("tally: 警告：帖子 1 第1页：tally 在 12-01 17:05 之后、12-01 17:10 "
                           "读到的这一页在缓存里丢失或损坏了")  # fmt: skip
    assert not english_words(said.removeprefix("tally: ")), said


@pytest.mark.rules("S2")
def test_an_offline_count_whose_needed_version_is_damaged_says_so(forum, tmp_path):
    """`tally votes --offline` counts from the cache alone, the history with it: read at
    17:10 (every ballot standing) and at 17:12 (bob's deleted), then counted offline with the
    17:10 version damaged: bob's ballot cannot be put back, and the count says why."""
    assert read_at(forum, tmp_path, "17:10:00", "vote-1-guest").exit_code == 0
    assert read_at(forum, tmp_path, "17:12:00", "vote-3-deleted-guest").exit_code == 0
    forum.requests.clear()
    whole = read_at(forum, tmp_path, "17:20:00", "vote-3-deleted-guest", "--offline")
    assert ("3", "bob", "carol", "counted") in ballots(whole) and warnings(whole) == []
    result = damaged_then(forum, tmp_path, 0, b"", "17:21:00", "vote-3-deleted-guest", "--offline")
    assert not forum.page_requests
    assert warnings(result) == [after_the_close("17:10", "17:12")]
    assert "3" not in [pid for pid, *_ in ballots(result)]


def test_a_count_as_of_a_moment_whose_read_is_damaged_says_so(forum, tmp_path):
    """--as-of 17:04:58 counts the thread as the reads by then show it: the one read by
    then, 17:04:55, damaged, the count has the posts only as the 17:10 read first showed
    them (bob's ballot deleted by then), and says it has no read of the page by the moment."""
    assert read_at(forum, tmp_path, "17:04:55", "vote-1-guest").exit_code == 0
    assert read_at(forum, tmp_path, "17:10:00", "vote-3-deleted-guest").exit_code == 0
    result = damaged_then(forum, tmp_path, 0, b"", "17:20:00", "vote-3-deleted-guest",
                          "--as-of", "17:04:58")  # fmt: skip
    assert warnings(result) == [
        "tally: warning: thread 1, page 1: tally's read of it 12-01 17:04:55 is missing or "
        "damaged in the cache and no earlier read of it can be read back, so the count has no "
        "read of the page by 12-01 17:04:58, and could differ for it."
    ]
    assert [(pid, status) for pid, _, _, status in ballots(result)] == [
        ("2", "counted"), ("4", "counted"), ("5", "banned"), ("6", "counted")]  # fmt: skip
