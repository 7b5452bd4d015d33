"""How the votes moved through a counted day: each ballot and change as it came, the running
totals, and who led at each moment (`tally report`).

Replayed from the verdicts, so it agrees with the count: a ballot adds its weight from the
time it counts from (a V7 fix keeps its original's) until a valid change supersedes it;
void ballots never count. The 诽谤 bonus (C2) stands from the open; a bonus that depends
on the votes (C3 众志成城) is added at the close, where the count decided it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from tally.rules.counting.count import votes_text
from tally.rules.counting.votes import DayResult
from tally.rules.verdicts import Status


@dataclass(frozen=True)
class Moment:
    time: datetime
    totals: Mapping[str, Decimal]  # every player with votes at this moment
    leaders: tuple[str, ...]  # on the most votes (none while nobody has one)
    what: str  # what happened: "floor 3: 冷月 → 白桃 ×2.5", "open", "close"
    floor: int | None = None


def moments(result: DayResult) -> tuple[Moment, ...]:
    """The day from its open to its close, one moment per change of the totals."""
    day = result.day
    weights = result.count.weights
    events: list[tuple[datetime, int, int, str, Decimal, str]] = []
    for b in result.ballots:
        if b.status not in (Status.COUNTED, Status.SUPERSEDED) or b.abstain:
            continue
        if not b.target or not b.voter:
            continue
        w = weights.get(b.voter, (Decimal(1), None))[0]
        where = f"floor {b.floor}" + (" 点评" if b.comment else "")
        times = f" ×{votes_text(w)}" if w != 1 else ""
        events.append((b.time, b.floor, 1, b.target, w, f"{where}: {b.voter} → {b.target}{times}"))
        if b.superseded_at is not None:
            events.append(
                (b.superseded_at, b.floor, 0, b.target, -w, f"{where}: {b.voter} changes")
            )
    running: dict[str, Decimal] = {}
    late: list[tuple[str, Decimal]] = []
    for t in result.totals:
        for amount, _why, rule in t.bonuses:
            if rule == "C2":
                running[t.player] = running.get(t.player, Decimal(0)) + amount
            else:
                late.append((t.player, amount))
    out = [_moment(day.opens, running, "open")]
    for when, floor, _, target, w, what in sorted(events, key=lambda e: (e[0], e[1], e[2])):
        if when > day.closes:
            continue
        running[target] = running.get(target, Decimal(0)) + w
        if running[target] == 0:
            del running[target]
        out.append(_moment(when, running, what, floor))
    for player, amount in late:
        running[player] = running.get(player, Decimal(0)) + amount
    out.append(_moment(day.closes, running, "close"))
    return tuple(out)


def _moment(
    when: datetime, running: Mapping[str, Decimal], what: str, floor: int | None = None
) -> Moment:
    top = max(running.values(), default=Decimal(0))
    leaders = tuple(p for p, v in running.items() if top > 0 and v == top)
    return Moment(when, dict(running), leaders, what, floor)
