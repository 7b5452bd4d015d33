"""What a day inherits from the days before it, and the game file checked against it.

The game file is typed at closing time: a `sheriff` line is forgotten on day 2, a `dead`
list is not carried into a copied [[days]] block. tally counted the earlier days itself,
so it knows what they made: the sheriff the election made (C4), the players voted out
(C5), and those the game file said were out or died during a day; and the deputy (执警) a
day's block named, who weighs 1.5 in seed 000 (C1) on the days after until the role passes.
A day inherits that:

- what the game file leaves out is taken from the earlier days (a fact "derived", with the
  day it comes from);
- what the game file says is taken, when it agrees;
- what it says against them stops the count, naming both, unless it says why: a sheriff
  who is out passes the badge (name the successor, or ``sheriff = "none"``), and a badge
  that changes hands otherwise needs ``sheriff_change = "…"``; a deputy who is out, or
  whose sheriff the badge has left, is not carried: the sheriff names one anew (seed 000
  任命, seed 001 辅政), so the day names them, or ``deputy = "none"``.

Pure: the counts of the earlier days in, the day as it stands and the facts out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from tally.errors import GameFileError
from tally.i18n import tr
from tally.model import Thread
from tally.rules.game.game import Day, Game
from tally.rules.verdicts import OutcomeResult


class FactKind(StrEnum):
    """What a fact is about."""

    SHERIFF = "sheriff"
    DEPUTY = "deputy"
    DEAD = "dead"
    # The sheriff's 任职宣言 (seed 001): chosen once, with the badge (C1's 独裁).
    DECLARATION = "declaration"


class Source(StrEnum):
    """Where a fact of a day comes from."""

    GAME_FILE = "game file"
    DERIVED = "derived"  # from tally's count of an earlier day
    LEDGER = "card ledger"  # a red card sends the player off (K2)


@dataclass(frozen=True)
class Fact:
    """One thing a day rests on (its sheriff, a player out), and where it comes from."""

    what: FactKind
    player: str | None
    source: Source
    day: int | None  # the day whose count (or game-file entry) it comes from
    note: str


@dataclass(frozen=True)
class Carried:
    """What the days before a day made: the sheriff and since when, who is out and since
    which day, the days that could not be counted (so nothing was carried from them), and
    the threads the others were counted from."""

    sheriff: str | None = None
    sheriff_since: int | None = None
    sheriff_how: str = ""  # "day 1's election", "day 3's game file"
    out: Mapping[str, tuple[int, str]] = field(default_factory=dict)  # player -> (day, how)
    unchecked: tuple[str, ...] = ()
    # The sheriff's 宣言 and the day whose game file named it: it goes with the badge.
    declaration: tuple[str, int] | None = None
    deputy: str | None = None
    deputy_since: int | None = None
    deputy_how: str = ""  # "day 2's game file"
    # The sheriff who held the badge when the deputy was named: a new one names their own.
    deputy_under: str | None = None
    # The earlier days' vote threads tally counted them from: the names their accounts
    # posted under, which a later day's are held against (tally.rules.counting.uids).
    read: tuple[Thread, ...] = field(default=(), compare=False, repr=False)

    def after(
        self,
        day: Day,
        outcome: OutcomeResult,
        player: str | None,
        sent_off: Mapping[str, int] | None = None,
    ) -> Carried:
        """What a later day inherits once ``day`` has been counted (its own facts applied);
        ``sent_off``: who a red card sent off (``Game.sent_off``), said so, not as the game
        file's."""
        out = dict(self.out)
        for p in day.revived:
            out.pop(p, None)  # back in the game: out again only by a later day
        for p in day.dead:
            carded = (sent_off or {}).get(p)
            if carded is not None and carded < day.day:
                out.setdefault(p, (carded + 1, _sent_off(carded)))
            out.setdefault(p, (day.day, tr("out on day {day} (game file)", day=day.day)))
        for p in day.died:
            out.setdefault(p, (day.day + 1, tr("out during day {day} (game file)", day=day.day)))
        sheriff, since, how = self.sheriff, self.sheriff_since, self.sheriff_how
        declaration = self.declaration
        if day.sheriff != sheriff or day.no_sheriff:
            sheriff, since, how = day.sheriff, day.day, tr("day {day}'s game file", day=day.day)
            declaration = None
        if day.sheriff_declaration is not None and sheriff is not None:
            declaration = (day.sheriff_declaration, day.day)
        if outcome is OutcomeResult.SHERIFF and player is not None:
            sheriff, since, how = player, day.day, tr("day {day}'s election", day=day.day)
            declaration = None  # chosen on taking the badge: a later day's file says it
        elif outcome is OutcomeResult.ELIMINATED and player is not None:
            out.setdefault(player, (day.day + 1, tr("voted out on day {day}", day=day.day)))
        deputy = (self.deputy, self.deputy_since, self.deputy_how, self.deputy_under)
        # Named this day: another deputy, or the same one named again under a new sheriff.
        anew = day.deputy not in (None, self.deputy) or day.sheriff != self.deputy_under
        if day.no_deputy or (day.deputy is not None and anew):
            deputy = (day.deputy, day.day, tr("day {day}'s game file", day=day.day), None)
        if day.deputy is not None:  # named or carried this day: under the day's sheriff
            deputy = (*deputy[:3], sheriff)  # the one elected when named on election day
        return Carried(sheriff, since, how, out, self.unchecked, declaration, *deputy, self.read)

    def could_not(self, why: str) -> Carried:
        return dataclasses.replace(self, unchecked=(*self.unchecked, why))

    def uncounted(self, game: Game, day: Day, why: str) -> Carried:
        """What a later day inherits from ``day`` when this run cannot count it (``why``):
        the result tally posted for it, which stands (a closed day keeps its result), else
        only what its game-file entry says, and the days after it say so."""
        posted = posted_result(game, day.day)
        if posted is None:
            return self.after(day, OutcomeResult.NONE, None, game.sent_off).could_not(
                tr(
                    "day {day} is not counted here — {why} — so who it made sheriff or put out "
                    "is taken from the game file alone",
                    day=day.day,
                    why=why,
                )
            )
        result, player = posted
        new = self.after(day, result, player, game.sent_off)
        how = tr(
            "day {day}'s result as tally posted it (the journal of posts; this run: {why})",
            day=day.day,
            why=why,
        )
        if result is OutcomeResult.SHERIFF and player is not None:
            return dataclasses.replace(new, sheriff_how=how)
        if result is OutcomeResult.ELIMINATED and player is not None:
            out = dict(new.out)
            out[player] = (out[player][0], how)
            return dataclasses.replace(new, out=out)
        return new


def posted_result(game: Game, number: int) -> tuple[OutcomeResult, str | None] | None:
    """The outcome of the result tally posted for day ``number``, by the journal of posts
    beside the game file (read with the file: ``Game.announced``); None when none was."""
    said = game.announced.get(number)
    if not said:
        return None
    try:
        result = OutcomeResult(str(said.get("result")))
    except ValueError:
        return None
    player = said.get("player")
    return result, str(player) if player else None


def _sent_off(carded: int) -> str:
    return tr("sent off by a red card for day {day} (K2, the card ledger)", day=carded)


def resolve(game: Game, day: Day, carried: Carried) -> tuple[Day, tuple[Fact, ...]]:
    """``day`` as it stands after the days before it, and the facts it rests on.

    Raises InputError when the game file says, without a reason, what the earlier days'
    counts contradict, or leaves a lasting role in question (``questions``).
    """
    dead, facts = who_is_out(game, day, carried)
    sheriff, fact = _sheriff(game, day, carried, set(dead))
    deputy, said = _deputy(game, day, carried, set(dead), sheriff)
    facts += [f for f in (fact, said) if f is not None]
    # A dead sheriff holds no badge: their weight and their tie-breaking target go.
    resolved = dataclasses.replace(day, dead=tuple(dead), sheriff=sheriff, deputy=deputy)
    # The 宣言 goes with the badge: a day block that leaves it out keeps the one chosen.
    if day.sheriff_declaration is None and carried.declaration is not None:
        chosen, named = carried.declaration
        if sheriff is not None and sheriff == carried.sheriff:
            resolved = dataclasses.replace(resolved, sheriff_declaration=chosen)
            note = tr(
                "宣言 {declaration}, as day {day}'s game file named it",
                declaration=chosen,
                day=named,
            )
            facts.append(Fact(FactKind.DECLARATION, sheriff, Source.DERIVED, named, note))
    return resolved, tuple(facts)


def questions(game: Game, day: Day, carried: Carried) -> tuple[str, ...]:
    """What the day's block must still say of the lasting roles, each as the sentence a
    count of it stops with (``resolve``): who holds the badge when its holder is out, who the
    deputy is when theirs is out or the badge passed. All of them, where a count stops on
    the first: `tally day add` asks them together."""
    dead = set(who_is_out(game, day, carried)[0])
    asked: list[str] = []
    sheriff, passing = None, False
    try:
        sheriff = _sheriff(game, day, carried, dead)[0]
    except GameFileError as exc:
        asked.append(str(exc).rstrip(".。"))
        passing = True  # the badge passes: the deputy is named anew too
    try:
        _deputy(game, day, carried, dead, sheriff, passing=passing)
    except GameFileError as exc:
        asked.append(str(exc).rstrip(".。"))
    return tuple(asked)


def who_is_out(game: Game, day: Day, carried: Carried) -> tuple[list[str], list[Fact]]:
    """Who is out on ``day`` (the game file's, the card ledger's, the earlier days'), each
    with the fact that says so."""
    facts: list[Fact] = []
    dead = list(day.dead)
    for player in day.dead:
        facts.append(Fact(FactKind.DEAD, player, Source.GAME_FILE, day.day, tr("out (game file)")))
    # K2: a red card sends the player off from the day after the day it is for (the ledger
    # says the day, not the hour: a card given during a day is not taken back into it).
    for player, carded in sorted(game.sent_off.items(), key=lambda item: item[1]):
        if carded >= day.day or player in dead:
            continue
        if player in day.revived:
            raise GameFileError(
                tr(
                    "day {day} in {where} names {player} revived, but a red card for day "
                    "{carded} sent {player} off (K2): a card is no death to come back from; take "
                    "the card back (tally cards remove) or leave {player} out of revived.",
                    day=day.day,
                    where=game.where(),
                    player=player,
                    carded=carded,
                )
            )
        dead.append(player)
        facts.append(Fact(FactKind.DEAD, player, Source.LEDGER, carded, _sent_off(carded)))
    for player in day.revived:
        # A misspelt or mistaken name would leave the player meant among the dead.
        back = player in carried.out and carried.out[player][0] <= day.day
        if not back and not carried.unchecked:
            raise GameFileError(
                tr(
                    "day {day} in {where} names {player} revived, but no day before put {player} "
                    "out; name who came back (revived), or leave it out.",
                    day=day.day,
                    where=game.where(),
                    player=player,
                )
            )
    for player, (since, how) in sorted(carried.out.items(), key=lambda item: item[1][0]):
        if since > day.day or player in dead or player in day.revived:
            continue
        dead.append(player)
        facts.append(Fact(FactKind.DEAD, player, Source.DERIVED, since, how))
    return dead, facts


def _deputy(
    game: Game, day: Day, carried: Carried, dead: set[str], sheriff: str | None,
    *, passing: bool = False,
) -> tuple[str | None, Fact | None]:  # fmt: skip
    """The day's deputy (执警): the one its block names, else the one an earlier block named
    while they live and the badge they were named under stays where it was (``passing``:
    the day's sheriff is in question, the badge passes)."""
    said, known = day.deputy, carried.deputy
    where = tr("day {day} in {where}", day=day.day, where=game.where())
    if said is not None:
        if said in dead:
            raise GameFileError(
                tr("{where} names {player} deputy, but {player} is out", where=where, player=said)
            )
        same = said == known and sheriff == carried.deputy_under
        note = (tr("named in the game file, as {how} made", how=carried.deputy_how) if same
                else tr("named in the game file"))  # fmt: skip
        return said, Fact(FactKind.DEPUTY, said, Source.GAME_FILE, day.day, note)
    if day.no_deputy:
        return None, Fact(FactKind.DEPUTY, None, Source.GAME_FILE, day.day, tr("no deputy"))
    if known is None:
        return None, None
    made = tr("{how} made {player} deputy", how=carried.deputy_how, player=known)
    if known in dead:
        why = tr("{made}, and {player} is out", made=made, player=known)
    elif passing or sheriff != carried.deputy_under:
        why = _badge_moved(made, carried.deputy_under, sheriff, passing)
    else:
        return known, Fact(FactKind.DEPUTY, known, Source.DERIVED, carried.deputy_since,
                           carried.deputy_how)  # fmt: skip
    raise GameFileError(
        tr(
            '{why}; {where} names no deputy — add deputy = "…" (whom the sheriff named 执警) '
            'or deputy = "none" (none named yet)',
            why=why,
            where=where,
        )
    )


def _badge_moved(made: str, under: str | None, sheriff: str | None, passing: bool) -> str:
    """Why the deputy an earlier day named is no longer the deputy: the badge moved."""
    under = under or tr("no sheriff")
    if passing:
        return tr("{made} under {under}, and the badge passes: a new sheriff names the deputy "
                  "anew", made=made, under=under)  # fmt: skip
    if sheriff is not None:
        return tr("{made} under {under}, and the badge is {sheriff}'s now: a new sheriff names "
                  "the deputy anew", made=made, under=under, sheriff=sheriff)  # fmt: skip
    return tr("{made} under {under}, and the badge is gone: a new sheriff names the deputy anew",
              made=made, under=under)  # fmt: skip


def _sheriff(
    game: Game, day: Day, carried: Carried, dead: set[str]
) -> tuple[str | None, Fact | None]:
    said, known = day.sheriff, carried.sheriff
    where = tr("day {day} in {where}", day=day.day, where=game.where())
    if known is None:
        if said is None:
            return None, None
        named = tr("named in the game file")
        return said, Fact(FactKind.SHERIFF, said, Source.GAME_FILE, day.day, named)
    made = tr("{how} made {player} sheriff", how=carried.sheriff_how, player=known)
    gone = known in dead
    if said is not None and said in dead:
        raise GameFileError(tr("{where} names {player} sheriff, but {player} is out; {made}",
                               where=where, player=said, made=made))  # fmt: skip
    if said is None and not day.no_sheriff:
        if gone:
            raise GameFileError(
                tr(
                    '{made}, and {player} is out; {where} names no sheriff — add sheriff = "…" '
                    '(who holds the badge now) or sheriff = "none" (the badge is gone)',
                    made=made,
                    player=known,
                    where=where,
                )
            )
        since, how = carried.sheriff_since, carried.sheriff_how
        return known, Fact(FactKind.SHERIFF, known, Source.DERIVED, since, how)
    if said == known and not day.no_sheriff:
        note = tr("named in the game file, as {how} made", how=carried.sheriff_how)
        return said, Fact(FactKind.SHERIFF, said, Source.GAME_FILE, day.day, note)
    named = tr("no sheriff") if day.no_sheriff else tr("{player} sheriff", player=said)
    if not gone and not day.sheriff_change:
        raise GameFileError(
            tr(
                '{made}; {where} names {named} — fix the name, or give sheriff_change = "…" '
                "saying how the badge passed",
                made=made,
                where=where,
                named=named,
            )
        )
    why = day.sheriff_change or tr("{player} is out: the badge passed", player=known)
    if day.no_sheriff:
        return None, Fact(FactKind.SHERIFF, None, Source.GAME_FILE, day.day,
                          tr("no sheriff ({why})", why=why))  # fmt: skip
    return said, Fact(FactKind.SHERIFF, said, Source.GAME_FILE, day.day, why)
