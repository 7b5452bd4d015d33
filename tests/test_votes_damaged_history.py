"""`tally votes` over a thread's history whose version of a page is damaged or gone: the
posts a lost page could have shown are not taken for posts that came in since (a post held
for a moderator and approved late, 审核), and the count says the read is lost.

The game is six players on real-shaped Discuz! pages (tests/discuzgen.py) served on loopback
HTTP, ten floors a page; day 1 closes 2024-05-09 21:30 (Asia/Shanghai), and each run reads
on a clock of its own.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tally.cli import app

from .conftest import FakeClock, Runner
from .discuzgen import P, Thread
from .test_cards_audit import NO_ELECTION, PLAYERS, UIDS, Game, at
from .test_cards_damaged_history import _after, _damage, _lost
from .test_reading_forum_changes import CHINA

runner = Runner()
OPENS = "2024-05-08 09:30"


def two_pages(forum, tmp_path: Path) -> tuple[str, str, Thread]:  # type: ignore[no-untyped-def]
    """Day 1's vote thread 301 on two pages: five remarks (floors 2-6), then a ballot of each
    player for 丙 (丙 for 甲), floors 7-12, 戊's and 己's (11 and 12) on page 2."""
    g = Game(forum, tmp_path, rules=NO_ELECTION)
    votes = Thread("301", "第1天投票帖", UIDS, first_pid=301000)
    votes.add(P("导演A", at(OPENS), "投票格式：\n投票对象：\n投票理由："))
    for i, player in enumerate(PLAYERS[:5]):
        votes.add(P(player, at(OPENS, 10 + i), f"{player}的补充"))
    for i, player in enumerate(PLAYERS):
        target = "丙" if player != "丙" else "甲"
        votes.add(P(player, at(OPENS, 30 + i), f"投票对象：{target}\n投票理由：理由"))
    talk = g.talk(201, 1, OPENS, dict.fromkeys(PLAYERS, 12))
    g.day(1, OPENS, "2024-05-09 21:30", talk, votes)
    return g.write(), g.vote_urls[1], votes


def votes_at(game: str, url: str, cache: Path, clock: str, *args: str):  # type: ignore[no-untyped-def]
    """One `tally votes --json` of day 1 at ``clock`` (the forum's), with ``cache``."""
    clocked = FakeClock(f"2024-05-10 {clock}", tz=CHINA)
    result = runner.invoke(app, ["votes", url, "--game", game, "--day", "1", "--json",
                                 "--cache-dir", str(cache), *args], obj=clocked.env())  # fmt: skip
    assert result.exit_code == 0, result.output
    return result


@pytest.mark.rules("S2")
def test_a_lost_last_page_read_after_the_close_flags_no_post_approved_late(forum, tmp_path):
    """Read at 08:00 after the close, both pages; then 甲 remarks on page 2 after the close,
    and a remark of 己's posted at 09:35 on day 1, held for a moderator, is approved (floor
    14, its time before every ballot). Read again at 09:00 with page 2 of the 08:00 read gone
    from one cache: that read shows page 1 alone, and its floors 11 and 12 (the ballots of 戊
    and 己) are no posts approved since: the count says the read is lost, and flags 己's
    remark alone, as the intact cache does."""
    game, url, votes = two_pages(forum, tmp_path)
    damaged, intact = tmp_path / "damaged", tmp_path / "intact"
    for cache in (damaged, intact):
        votes_at(game, url, cache, "08:00:00")
    votes.add(P("甲", "2024-05-09 22:00:00", "复盘"), P("己", at(OPENS, 5), "审核后才显示"))
    votes.serve(forum)
    _damage(damaged, 301, 2, 1, None)
    results = {cache: votes_at(game, url, cache, "09:00:00") for cache in (damaged, intact)}
    assert _lost(results[intact]) == []
    assert _lost(results[damaged]) == [_after(301, 2)]
    for result in results.values():
        data = json.loads(result.stdout)
        late = [(f["floor"], f["player"]) for f in data["flags"] if f["rule"] == "approved late"]
        assert late == [(14, "己")]
        assert data["outcome"]["player"] == "丙", data["outcome"]
