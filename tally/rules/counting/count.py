"""From judged ballots to totals and the day's outcome (RULES C1-C8).

Decimal arithmetic throughout: 2.5 + 1.5 + 1 is exactly 5.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from tally.i18n import tr
from tally.rules.game.game import Day, Game
from tally.rules.game.rulesets import Ruleset
from tally.rules.judging.ballots import Ballot, Flag
from tally.rules.verdicts import DayKind, OutcomeCode, OutcomeResult, Status, TieStep
from tally.times import short


@dataclass(frozen=True)
class Total:
    player: str
    votes: Decimal
    voters: tuple[str, ...]  # in floor order
    # What was added to the ballots' weights: (amount, why, rule).
    bonuses: tuple[tuple[Decimal, str, str], ...] = ()


@dataclass(frozen=True)
class Outcome:
    result: OutcomeResult
    player: str | None
    code: OutcomeCode  # how the day was decided; code.rule is the rule that did
    note: str


@dataclass(frozen=True)
class Count:
    kind: DayKind
    totals: tuple[Total, ...]
    weights: dict[str, tuple[Decimal, str | None]]
    abstained: Decimal  # the weight of the abstentions
    cast: Decimal  # every vote cast, abstentions and bonuses included (C6)
    outcome: Outcome
    flags: tuple[Flag, ...]

    @property
    def leaders(self) -> tuple[str, ...]:
        """The players on the most votes (none when nobody has a vote)."""
        top = self.totals[0].votes if self.totals else Decimal(0)
        return tuple(t.player for t in self.totals if top > 0 and t.votes == top)


def weight_of(voter: str, day: Day, rules: Ruleset, alive: int) -> tuple[Decimal, str | None]:
    """A voter's weight (RULES C1) and, when it is not 1, why."""
    base, why = Decimal(1), None
    if voter == day.sheriff:
        base, why = rules.sheriff_weight, "sheriff"
        if rules.dictator_bonus and day.sheriff_declaration == "独裁":
            step = max(1, rules.dictator_every)
            base = rules.dictator_weight + max(0, (alive - rules.dictator_from) // step)
            why = f"sheriff, 独裁 with {alive} alive"
    elif voter == day.deputy:
        base, why = rules.deputy_weight, "deputy"
    if voter in day.weights:
        override = day.weights[voter]
        if override == 0 and voter == day.deputy and rules.deputy_immune_to_zero:
            return base, "deputy, immune to 迷魂"
        return override, "game file weight"
    return base, why if base != 1 else None


def majority_gap(count: Count, rules: Ruleset) -> Decimal | None:
    """Under a majority rule (C6, ruleset M126): how far the leader is from more than half
    of all votes cast. Each vote added to the leader adds to the votes cast too, so
    top + x > (cast + x) / 2 holds for x > cast - 2 * top: the leader needs more than the
    gap (a gap below 0: the leader already has a majority). None under any other rule, on
    a sheriff election, or with no vote cast for anyone.
    """
    if not rules.majority_of_all or count.kind != DayKind.ELIMINATION or not count.leaders:
        return None
    return count.cast - 2 * count.totals[0].votes


def count(ballots: Sequence[Ballot], game: Game, day: Day, rules: Ruleset | None = None) -> Count:
    rules = rules or game.rules
    alive = [p for p in game.players if p not in day.dead]
    # Who is still in at the close: those out during the day (正午) are not (V9), and a
    # death after the close (黄昏) is the next day's.
    living = [p for p in alive if p not in day.out_by_close]
    weights = {p: weight_of(p, day, rules, len(living)) for p in alive}
    counted = [b for b in ballots if b.status == Status.COUNTED and b.voter is not None]
    votes: dict[str, Decimal] = {}
    voters: dict[str, list[str]] = {}
    bonuses: dict[str, list[tuple[Decimal, str, str]]] = {}
    abstained = Decimal(0)
    for b in sorted(counted, key=lambda b: (b.floor, b.comment)):
        weight = weights.get(b.voter or "", (Decimal(1), None))[0]
        if b.abstain or b.target is None:
            abstained += weight
            continue
        votes[b.target] = votes.get(b.target, Decimal(0)) + weight
        voters.setdefault(b.target, []).append(b.voter or "")
    flags: list[Flag] = []
    for player, bonus in (*_unity(counted, day, rules, living),
                          *_slander(day, rules, living, flags)):  # fmt: skip
        votes[player] = votes.get(player, Decimal(0)) + bonus[0]
        bonuses.setdefault(player, []).append(bonus)
    order = {p: i for i, p in enumerate(game.players)}
    totals = tuple(
        sorted(
            (
                Total(p, v, tuple(voters.get(p, [])), tuple(bonuses.get(p, [])))
                for p, v in votes.items()
            ),
            key=lambda t: (-t.votes, order.get(t.player, 0)),
        )
    )
    cast = sum((t.votes for t in totals), Decimal(0)) + abstained
    if rules.sheriff_election_day is not None and day.day == rules.sheriff_election_day:
        outcome = _elect(totals, ballots, weights, day)
        kind = DayKind.SHERIFF
    else:
        outcome = _eliminate(totals, counted, day, rules, cast, flags)
        kind = DayKind.ELIMINATION
    return Count(kind, totals, weights, abstained, cast, outcome, tuple(flags))


def _unity(
    counted: Sequence[Ballot], day: Day, rules: Ruleset, living: Sequence[str]
) -> list[tuple[str, tuple[Decimal, str, str]]]:
    """C3 众志成城: more than half of the living 受困者 on one target: +1 each that day."""
    if not rules.unity_bonus or not day.trapped:
        return []
    trapped = [p for p in day.trapped if p in living]
    picks: dict[str, list[str]] = {}
    for b in counted:
        if b.voter in trapped and b.target and not b.abstain:
            picks.setdefault(b.target, []).append(b.voter)
    return [
        (target, (rules.unity_bonus * len(who),
                  tr("众志成城: {n} of {of} 受困者", n=len(who), of=len(trapped)), "C3"))
        for target, who in picks.items()
        if len(who) * 2 > len(trapped)
    ]  # fmt: skip


def _slander(
    day: Day, rules: Ruleset, living: Sequence[str], flags: list[Flag]
) -> list[tuple[str, tuple[Decimal, str, str]]]:
    """C2: the slandered receive two votes more, in every ruleset; but not one who cannot be
    voted for that day (V10: seed 002's 凶手's targets "不会被投票出局", its 主管 "不能成为
    投票对象"), who is no candidate: two votes more would put them out with no ballot."""
    out = []
    for player in day.slandered:
        if player in living and (player in day.cannot_be_voted or player == day.bar_owner):
            flags.append(Flag(
                "C2",
                tr("{player} is slandered (诽谤) but cannot be voted for on day {day} (V10): "
                   "the two votes more are not counted, and they are not voted out",
                   player=player, day=day.day),
                player,
            ))  # fmt: skip
        elif player in living:
            out.append((player, (rules.slander_bonus, tr("slandered (诽谤)"), "C2")))
    return out


def _top(totals: Sequence[Total]) -> tuple[Decimal, list[str]]:
    if not totals or totals[0].votes <= 0:
        return Decimal(0), []
    top = totals[0].votes
    return top, [t.player for t in totals if t.votes == top]


def _eliminate(
    totals: Sequence[Total],
    counted: Sequence[Ballot],
    day: Day,
    rules: Ruleset,
    cast: Decimal,
    flags: list[Flag],
) -> Outcome:
    acolyte = _acolyte(day, rules, flags)
    top, tied = _top(totals)
    if not tied:
        if TieStep.ACOLYTE in rules.tie_chain and acolyte:
            return Outcome(
                OutcomeResult.ELIMINATED,
                acolyte,
                OutcomeCode.NO_VOTES_ACOLYTE,
                tr("nobody received a vote: the 侍僧 {player} dies instead (C5)", player=acolyte),
            )
        return Outcome(OutcomeResult.NONE, None, OutcomeCode.NO_VOTES,
                       tr("nobody received a vote"))  # fmt: skip
    if rules.majority_of_all:
        return _by_majority(day, tied, top, cast)
    if len(tied) == 1:
        return _unless_immune(
            day,
            Outcome(
                OutcomeResult.ELIMINATED,
                tied[0],
                OutcomeCode.PLURALITY,
                tr("the most votes, {top}", top=votes_text(top)),
            ),
        )
    names = "、".join(tied)
    for step in rules.tie_chain:
        if step is TieStep.ACOLYTE and acolyte:
            return Outcome(
                OutcomeResult.ELIMINATED,
                acolyte,
                OutcomeCode.TIE_ACOLYTE,
                tr(
                    "{tied} tie on {top}: the 侍僧 {player} dies instead (C5)",
                    tied=names,
                    top=votes_text(top),
                    player=acolyte,
                ),
            )
        if step is TieStep.SHERIFF_TARGET and day.sheriff:
            picked = _sheriff_pick(counted, day, tied, top, flags)
            if picked is not None:
                return picked
        if step is TieStep.NONE:
            break
    return Outcome(
        OutcomeResult.NONE,
        None,
        OutcomeCode.TIE_NONE,
        tr("{tied} tie on {top}: nobody is out (C5)", tied=names, top=votes_text(top)),
    )


def _acolyte(day: Day, rules: Ruleset, flags: list[Flag]) -> str | None:
    """The day's 侍僧, who dies in place of nobody or of the tied (C5), if not out."""
    acolyte = day.acolyte if day.acolyte not in day.out_by_close else None
    if day.acolyte and acolyte is None and TieStep.ACOLYTE in rules.tie_chain:
        # Out players are no target of a skill or a vote (seed 000): an out 侍僧 dies
        # instead of nobody, and a day block copied forward may still name one.
        flags.append(
            Flag("C5", tr("the 侍僧 {player} is out: nobody dies in their place (C5)",
                          player=day.acolyte), day.acolyte)
        )  # fmt: skip
    return acolyte


def _by_majority(day: Day, tied: Sequence[str], top: Decimal, cast: Decimal) -> Outcome:
    """C6 (ruleset M126): out only with more than half of all votes cast."""
    if len(tied) == 1 and top > cast / 2:
        return _unless_immune(
            day,
            Outcome(
                OutcomeResult.ELIMINATED,
                tied[0],
                OutcomeCode.MAJORITY_OF_ALL,
                tr(
                    "{top} of {cast} votes cast, more than half (C6)",
                    top=votes_text(top),
                    cast=votes_text(cast),
                ),
            ),
        )
    return Outcome(
        OutcomeResult.NONE,
        None,
        OutcomeCode.NO_MAJORITY,
        tr(
            "the most votes, {top}, are not more than half of the {cast} cast (C6)",
            top=votes_text(top),
            cast=votes_text(cast),
        ),
    )


def _sheriff_pick(
    counted: Sequence[Ballot], day: Day, tied: Sequence[str], top: Decimal, flags: list[Flag]
) -> Outcome | None:
    """C5: the tie broken by the sheriff's own vote, where it went to one of the tied;
    None (and a flag, where it went to another) where it breaks nothing."""
    names = "、".join(tied)
    pick = next((b.target for b in counted if b.voter == day.sheriff and not b.abstain), None)
    if pick in tied:
        return _unless_immune(
            day,
            Outcome(
                OutcomeResult.ELIMINATED,
                pick,
                OutcomeCode.TIE_SHERIFF_TARGET,
                tr(
                    "{tied} tie on {top}: the sheriff {sheriff} voted for {player} (C5)",
                    tied=names,
                    top=votes_text(top),
                    sheriff=day.sheriff,
                    player=pick,
                ),
            ),
        )
    if pick is not None:
        flags.append(
            Flag(
                "C5",
                tr(
                    "the sheriff voted for {player}, who is not among the tied ({tied}); "
                    "tally reads C5 as breaking the tie only among them",
                    player=pick,
                    tied=names,
                ),
                day.sheriff,
            )
        )
    return None


def _unless_immune(day: Day, outcome: Outcome) -> Outcome:
    if outcome.player in day.immune:
        return Outcome(
            OutcomeResult.NONE,
            None,
            OutcomeCode.IMMUNE,
            tr(
                "{player} has the most votes but is immune (霸道/不死): 平安日 (C8)",
                player=outcome.player,
            ),
        )
    return outcome


def _elect(
    totals: Sequence[Total],
    ballots: Sequence[Ballot],
    weights: dict[str, tuple[Decimal, str | None]],
    day: Day,
) -> Outcome:
    top, tied = _top(totals)
    if not tied:
        return Outcome(
            OutcomeResult.NONE,
            None,
            OutcomeCode.NO_VOTES,
            tr("nobody received a vote: no sheriff (C4)"),
        )
    if len(tied) == 1:
        return Outcome(
            OutcomeResult.SHERIFF,
            tied[0],
            OutcomeCode.MOST_VOTES,
            tr("the most votes, {top} (C4)", top=votes_text(top)),
        )
    reached = _first_reached(ballots, weights, tied, top, totals)
    ranked = sorted(
        tied, key=lambda p: reached.get(p) or datetime.max.replace(tzinfo=day.closes.tzinfo)
    )
    first = ranked[0]
    times = tr(", ").join(tr("{player} at {time}", player=p, time=short(reached[p], seconds=True))
                          for p in ranked if p in reached)  # fmt: skip
    if len(ranked) > 1 and reached.get(ranked[1]) == reached.get(first):
        return Outcome(
            OutcomeResult.NONE,
            None,
            OutcomeCode.FIRST_TO_REACH_TIED,
            tr(
                "{tied} tie on {top} and reached it at the same time: the director decides (C4)",
                tied="、".join(tied),
                top=votes_text(top),
            ),
        )
    return Outcome(
        OutcomeResult.SHERIFF,
        first,
        OutcomeCode.FIRST_TO_REACH,
        tr(
            "{tied} tie on {top}; {player} reached it first ({times}) (C4)",
            tied="、".join(tied),
            top=votes_text(top),
            player=first,
            times=times,
        ),
    )


def _first_reached(
    ballots: Sequence[Ballot],
    weights: dict[str, tuple[Decimal, str | None]],
    tied: Sequence[str],
    top: Decimal,
    totals: Sequence[Total],
) -> dict[str, datetime]:
    """When each tied player last came up to the top count, replaying votes and changes."""
    events: list[tuple[datetime, int, str, Decimal]] = []
    for b in ballots:
        if (
            b.status not in (Status.COUNTED, Status.SUPERSEDED)
            or b.abstain
            or not b.target
            or not b.voter
        ):
            continue
        w = weights.get(b.voter, (Decimal(1), None))[0]
        events.append((b.time, b.floor, b.target, w))
        if b.superseded_at is not None:
            events.append((b.superseded_at, b.floor, b.target, -w))
    bonus = {t.player: sum((a for a, _, _ in t.bonuses), Decimal(0)) for t in totals}
    running = dict(bonus)
    reached: dict[str, datetime] = {}
    for when, _, target, w in sorted(events, key=lambda e: (e[0], e[1])):
        before = running.get(target, Decimal(0))
        running[target] = before + w
        if target in tied and before < top <= running[target]:
            reached[target] = when
    return reached


def votes_number(value: Decimal) -> int | float:
    """A vote count as a JSON number: 3 stays 3, 3.5 stays 3.5."""
    return int(value) if value == value.to_integral() else float(value)


def votes_text(value: Decimal) -> str:
    """A vote count as people write it: 3, 3.5."""
    return format(value.normalize(), "f") if value != value.to_integral() else str(int(value))
