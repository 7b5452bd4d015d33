"""L3 under ruleset 245 (seed 001): "讨论结束时，未回复投票帖者将被判罚黄牌" — the card is for not
replying in the vote thread. A ballot for no player, a reply that holds no ballot and a change
with no vote before it are replies: only the player who posted nothing there is carded. Under
000 ("没有投票（或弃票）的玩家将记作黄牌") each of them is (found by a differential count)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .discuzgen import P, Thread
from .test_reading_thread_roles import PLAYERS, game, run


def threads(forum) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    talk = Thread("60", "[局] 第二天 讨论帖", {}, first_pid=12000)
    talk.add(P("admin", "2026-12-01 09:00:00", "第二天开门。"))
    for i, who in enumerate(PLAYERS):
        for k in range(5):
            talk.add(P(who, f"2026-12-01 1{k}:{10 + i}:00", f"{who}发言{k}"))
    vote = Thread("61", "[局] 第二天 投票帖", {}, first_pid=13000)
    vote.add(P("admin", "2026-12-01 09:00:00", "第二天投票。投票对象：\n投票理由："))
    vote.add(P("alice", "2026-12-01 11:00:00", "投票对象：某某某\n投票理由：一"))  # no player
    vote.add(P("bob", "2026-12-01 11:01:00", "我今天不知道投谁，再看看"))  # no ballot
    vote.add(P("carol", "2026-12-01 11:02:00", "改票对象：dave\n改票理由：改"))  # no vote to change
    vote.add(P("dave", "2026-12-01 11:03:00", "投票对象：carol\n投票理由：一"))
    return talk.serve(forum), vote.serve(forum)  # eve: nothing


@pytest.mark.rules("L3")
@pytest.mark.parametrize(("ruleset", "carded"), [
    ("245", ["eve"]),
    ("000", ["alice", "bob", "carol", "eve"]),
])  # fmt: skip
def test_L3_under_245_is_for_not_replying_in_the_vote_thread(forum, tmp_path, ruleset, carded):
    talk, vote = threads(forum)
    path = tmp_path / "g.toml"
    text = Path(game(tmp_path, "g", vote, talk)).read_text(encoding="utf-8")
    path.write_text(text.replace('ruleset = "000"', f'ruleset = "{ruleset}"'), encoding="utf-8")
    result = run("21:05:00", "lurkers", "--game", str(path), "--day", "2", "--no-write", "--json")
    assert result.exit_code == 0, result.output
    cards = json.loads(result.stdout)["cards"]
    assert sorted(c["player"] for c in cards if c["rule"] == "L3") == carded
