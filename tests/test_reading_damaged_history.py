"""A thread's history with a version file damaged (cut short by a crash or a full disk, a
byte changed) or gone: mended by the next read that lists that content.

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


def test_a_version_cut_short_is_rewritten_by_a_read_that_finds_the_page_unchanged(
    forum, tmp_path
):
    """A page as its last read found it (every page of every poll of a watch) weighs its
    file's size: one cut short, or gone, is written again."""
    assert read_at(forum, tmp_path, "17:00:00", "vote-1-guest").exit_code == 0
    first = version_file(tmp_path, 0)
    kept = first.read_bytes()
    first.write_bytes(kept[:-40])
    assert read_at(forum, tmp_path, "17:01:00", "vote-1-guest").exit_code == 0
    assert first.read_bytes() == kept
    first.unlink()
    assert read_at(forum, tmp_path, "17:02:00", "vote-1-guest").exit_code == 0
    assert first.read_bytes() == kept and len(listed(tmp_path)) == 2
