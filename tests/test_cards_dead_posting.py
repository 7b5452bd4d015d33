"""L5 in an earlier day's threads: a player killed at night (day 2 lists them dead) who posts
on day 2 in day 1's discussion and vote threads (still open, as boards leave them) was flagged
by no check: day 1's counts them alive, day 2's read only its own threads (a differential
count from RULES.md and the seeds found it). The same post by one voted out at day 1's close
was flagged; now both are."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tally.cli import app
from tally.environment import HttpOptions

from . import gamefiles
from .conftest import CHINA, FakeClock, Runner
from .discuzgen import P, Thread
from .test_reading_thread_roles import PLAYERS


def day_threads(day: int, extra: list[P]) -> tuple[Thread, Thread]:
    date = f"2026-12-0{day}"
    talk = Thread(str(70 + day), f"[局] 第{day}天讨论帖", {}, first_pid=20000 + 1000 * day)
    talk.add(P("admin", f"{date} 09:00:00", f"第{day}天开门。"))
    vote = Thread(str(80 + day), f"[局] 第{day}天投票帖", {}, first_pid=30000 + 1000 * day)
    vote.add(P("admin", f"{date} 09:00:00", "投票对象：\n投票理由："))
    for i, who in enumerate(p for p in PLAYERS if day == 1 or p != "eve"):
        for k in range(5):
            talk.add(P(who, f"{date} 1{k}:{10 + i}:00", f"{who}发言{k}"))
        vote.add(P(who, f"{date} 15:{10 + i}:00", "投票对象：弃权\n投票理由：无"))
    for post in extra:
        (talk if "讨论" in post.text else vote).add(post)
    return talk, vote


@pytest.mark.rules("L5")
def test_L5_a_player_killed_at_night_posting_in_the_day_befores_threads(forum, tmp_path):
    late = [P("eve", "2026-12-02 10:00:00", "我还想讨论一下"),
            P("eve", "2026-12-02 10:05:00", "投票对象：alice\n投票理由：补票")]  # fmt: skip
    t1, v1 = day_threads(1, late)
    t2, v2 = day_threads(2, [])
    urls = [x.serve(forum) for x in (t1, v1, t2, v2)]
    path = gamefiles.write_game(
        Path(tmp_path / "g.toml"),
        gamefiles.day(1, urls[1], "2026-12-01T09:00:00", "2026-12-01T21:00:00",
                      discussion=urls[0]),
        gamefiles.day(2, urls[3], "2026-12-02T09:00:00", "2026-12-02T21:00:00",
                      discussion=urls[2], dead=["eve"]),
        ruleset="000", directors=["admin"], players=PLAYERS,
    )  # fmt: skip
    start = datetime(2026, 12, 2, 21, 5, tzinfo=CHINA).astimezone(UTC)
    env = FakeClock(start).env(http=HttpOptions(host_delay=0))  # type: ignore[arg-type]
    result = Runner().invoke(app, ["lurkers", "--game", str(path), "--day", "2", "--no-write",
                                   "--json"], obj=env)  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["provisional"] is False
    l5 = sorted((f["player"], f["thread_id"], f["floor"]) for f in data["flags"]
                if f["rule"] == "L5")  # fmt: skip
    assert l5 == [("eve", "71", 27), ("eve", "81", 7)]  # her posts of day 2 in day 1's threads
