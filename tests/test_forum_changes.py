"""The thread as the forum changes it (issue 31), on pages a real Discuz! X3.5 rendered.

fixtures/discuz-x35-changes holds one vote thread read at each step of what a board does to
it during a day (a 屏蔽, a delete, a silent edit, an edit with its mark), as a guest and as
the director (an admin, who is shown what the forum hides), and a thread with 回帖仅作者可见
read by a guest, its author and a player. The pages are served over loopback HTTP, as the
forum served them.
"""

from __future__ import annotations

import json
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tally.cli import app
from tally.environment import Environment
from tally.forums.http import HttpOptions

from .conftest import FIXTURES, FakeClock, Runner

CHANGES = FIXTURES / "discuz-x35-changes"
CHINA = ZoneInfo("Asia/Shanghai")
runner = Runner()


def page(name: str) -> bytes:
    return (CHANGES / f"{name}.html").read_bytes()


def game_file(tmp_path: Path, url: str, closes: str = "17:05:00", extra: str = "") -> str:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "game.toml"
    path.write_text(
        f"""
name = "issue31"
ruleset = "M126"
directors = ["admin"]
players = ["alice", "bob", "carol", "dave", "eve"]

[[days]]
day = 2
opens = 2026-12-01T09:00:00
closes = 2026-12-01T{closes}
vote = "{url}"
{extra}
""",
        encoding="utf-8",
    )
    return str(path)


def at(clock: str) -> FakeClock:
    return FakeClock(f"2026-12-01 {clock}", CHINA)


def env(clock: FakeClock) -> Environment:
    return clock.env(http=HttpOptions(host_delay=0))  # type: ignore[arg-type]


def votes(forum, tmp_path, clock, *args: str, closes: str = "17:05:00", extra: str = ""):
    url = forum.url("forum.php?mod=viewthread&tid=1")
    game = game_file(tmp_path, url, closes, extra)
    cache = str(tmp_path / "cache")
    result = runner.invoke(
        app, ["votes", url, "--game", game, "--cache-dir", cache, *args], obj=env(clock)
    )
    return result


def rows(result) -> list[tuple[int, str | None, str | None, str]]:
    data = json.loads(result.stdout)
    return [(b["floor"], b["author"], b["target"], b["status"]) for b in data["ballots"]]


# -- the director's posts, and @name ---------------------------------------------------------


@pytest.mark.rules("V1", "V7", "V8")
def test_the_directors_reminder_is_no_row_and_a_mention_is_its_target(forum, tmp_path):
    """Floor 3 (bob) votes `@carol`; floor 7 is the director's 催票 showing the format."""
    forum.add_discuz_page("1", 1, page("vote-1-guest"))
    result = votes(forum, tmp_path, at("17:10:00"), "--json")
    assert result.exit_code == 0, result.output
    assert rows(result) == [
        (2, "alice", "carol", "counted"),
        (3, "bob", "carol", "counted"),
        (4, "carol", "dave", "counted"),
        (5, "dave", "carol", "counted"),
        (6, "eve", "dave", "counted"),
    ]
    assert json.loads(result.stdout)["outcome"]["player"] == "carol"


# -- 屏蔽 ---------------------------------------------------------------------------------------


@pytest.mark.rules("V7")
@pytest.mark.parametrize("reader", ["guest", "admin"])
def test_a_banned_post_is_a_banned_row_whoever_reads(forum, tmp_path, reader):
    """dave's ballot 屏蔽ed by a moderator: a guest is shown 该帖被管理员或版主屏蔽, the admin
    its words under the same notice. Both count it as a banned row, never a ballot."""
    forum.add_discuz_page("1", 1, page(f"vote-2-banned-{reader}"))
    result = votes(forum, tmp_path, at("17:10:00"), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert rows(result) == [
        (2, "alice", "carol", "counted"),
        (3, "bob", "carol", "counted"),
        (4, "carol", "dave", "counted"),
        (5, "dave", None, "banned"),
        (6, "eve", "dave", "counted"),
    ]
    [banned] = [b for b in data["ballots"] if b["status"] == "banned"]
    assert banned["note"] == "屏蔽ed by a moderator: never counted, whoever's cookies read it"
    assert banned["words"] == "被屏蔽"
    assert data["not_voted"] == ["dave"]
    assert [t["player"] for t in data["totals"]][:1] == ["carol"]


@pytest.mark.rules("V7")
def test_a_banned_post_is_the_same_for_guest_and_director(forum, tmp_path):
    outputs = []
    for reader in ("guest", "admin"):
        forum.add_discuz_page("1", 1, page(f"vote-2-banned-{reader}"))
        result = votes(forum, tmp_path / reader, at("17:10:00"), "--json", "--fresh")
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        data.pop("as_of", None)
        data.pop("read_at", None)
        outputs.append(data)
    assert outputs[0]["ballots"] == outputs[1]["ballots"]
    assert outputs[0]["outcome"] == outputs[1]["outcome"]


@pytest.mark.rules("V7")
def test_a_banned_post_is_listed_in_the_closing_post(forum, tmp_path):
    forum.add_discuz_page("1", 1, page("vote-2-banned-admin"))
    result = votes(forum, tmp_path, at("17:10:00"), "--announce", "--format", "text")
    assert result.exit_code == 0, result.output
    assert "5楼：被屏蔽" in result.stdout  # M126 names no voter (C7)
    assert "dave也投carol" not in result.stdout  # what the forum hides stays unsaid
