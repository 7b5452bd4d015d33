"""The card ledger: every card of a game, and what the cards make (RULES K1-K3).

The ledger is kept in a CSV file beside the game file (``tally.outputs.written.cardfile``), which
the director may open and edit, or change with `tally cards add|list|remove`. tally adds
the cards a check proposes, once, so checking a day again changes nothing. What makes two
cards the same card (``Card.key``):

- a card a check proposes (L1-L3): its day, player, rule and colour: a re-run whose counts
  moved does not card the player twice for the same rule on the same day;
- an escalation (K1: three blue make a yellow, three yellow a red), written as a card of its
  own with rule "K1": also its reason, which names the count ("6张黄牌折算为红牌"), so the
  third and the sixth yellow of one day make two reds;
- a card the director gives by hand: also its reason, so two L8 cards of one day for two
  floods are two cards, and the same card added twice is one.

A card a check proposed and the director took back (`tally cards remove`) stays in the file
as struck (source "struck"): it counts for nothing, and a check proposing it again adds
nothing ("判罚标准仅供参考，具体以判罚导演为准", seed 001); without it the next run gave the card
back, and the red it made sent the player off again.

A card the check gave (source "tally") that the same check, run again on the days it reads,
no longer gives (a post held for 审核 approved since, a 屏蔽 lifted, a post restored or merged
in) is neither kept as if it held nor dropped: it is marked in doubt (source "doubt") until
the director removes it (struck) or keeps it as their own (source "director"; `tally cards
keep`). A card in doubt counts for nothing yet: no K1 escalation rests on it, it sends no one
off (K2), and a command whose result it would change (``undecided``) stops naming it. A check
that gives it again puts it back as tally's. An older tally reads "doubt" as a card by hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from tally.i18n import N_, ntr, tr
from tally.rules.game.game import Game
from tally.rules.verdicts import Colour


@dataclass(frozen=True)
class Card:
    day: int
    player: str
    colour: Colour
    rule: str  # RULES id: L1, L2, L3, L5, K1, …
    reason: str
    # "tally", "director", STRUCK (a tally card taken back) or DOUBT (a tally card the check
    # no longer gives, until the director decides)
    source: str = "tally"

    @property
    def key(self) -> tuple[int, str, str, str, str]:
        """What makes two cards one card (see the module's docstring); a struck card has the
        key of the card it was, so that a check proposing it again finds it."""
        same_rule_once = self.source in ("tally", STRUCK, DOUBT) and self.rule != "K1"
        return (
            self.day,
            self.player,
            self.rule,
            self.colour,
            "" if same_rule_once else self.reason,
        )

    @property
    def struck(self) -> bool:
        return self.source == STRUCK

    @property
    def in_doubt(self) -> bool:
        return self.source == DOUBT

    @property
    def same(self) -> tuple[int, str, str, str]:
        """The card under the rule, whatever its reason says: day, player, colour, rule."""
        return (self.day, self.player, self.colour, self.rule)


STRUCK = "struck"
DOUBT = "doubt"


def live(cards: Iterable[Card]) -> list[Card]:
    """The cards in the ledger's record: the ledger without the struck ones (with those in
    doubt, which the director has yet to decide)."""
    return [c for c in cards if not c.struck]


def counted(cards: Iterable[Card]) -> list[Card]:
    """The cards that count (K1, K2, the totals): the ledger without the struck ones and
    those in doubt."""
    return [c for c in cards if not c.struck and not c.in_doubt]


def held(cards: Iterable[Card], card: Card) -> bool:
    """Whether a card in force is ``card`` under the rule, whoever gave it: a check's
    card the director gave first by hand (its own reason) is that card, not a second."""
    same = (card.day, card.player, card.colour, card.rule)
    return card.rule != "K1" and any(
        (c.day, c.player, c.colour, c.rule) == same for c in live(cards)
    )


@dataclass(frozen=True)
class Totals:
    blue: int = 0
    yellow: int = 0
    red: int = 0


def totals(cards: Iterable[Card]) -> dict[str, Totals]:
    counts: dict[str, dict[str, int]] = {}
    for c in counted(cards):
        counts.setdefault(c.player, dict.fromkeys(Colour, 0))[c.colour] += 1
    return {p: Totals(v[Colour.BLUE], v[Colour.YELLOW], v[Colour.RED]) for p, v in counts.items()}


def add(existing: list[Card], proposed: Iterable[Card]) -> tuple[list[Card], list[Card]]:
    """The ledger with the proposed cards and their K1 escalations; and what was new. A
    proposed card the director struck adds nothing."""
    cards = list(existing)
    keys = {c.key for c in cards}
    new: list[Card] = []
    for card in proposed:
        if card.key in keys or (card.source == "tally" and held(cards, card)):
            continue
        cards.append(card)
        keys.add(card.key)
        new.append(card)
        if not card.in_doubt:  # K1 rests on no card in doubt
            new.extend(_escalate(cards, keys, card))
    return cards, new


def _escalate(
    cards: list[Card], keys: set[tuple[int, str, str, str, str]], card: Card
) -> list[Card]:
    """K1: the third blue card is a yellow, the third yellow a red."""
    made: list[Card] = []
    for lower, higher in ((Colour.BLUE, Colour.YELLOW), (Colour.YELLOW, Colour.RED)):
        if card.colour != lower and not (made and made[-1].colour == lower):
            continue
        count = sum(1 for c in counted(cards) if c.player == card.player and c.colour == lower)
        if count and count % 3 == 0:
            up = Card(
                card.day,
                card.player,
                higher,
                "K1",
                f"{count}张{lower.label}折算为{higher.label}（K1）",
            )
            if up.key not in keys:
                cards.append(up)
                keys.add(up.key)
                made.append(up)
    return made


def rebuilt(cards: Iterable[Card], player: str) -> list[Card]:
    """The ledger with ``player``'s K1 escalations made again from their other cards, in
    ledger order (after a card was removed by hand, an escalation it made may be undue)."""
    again: list[Card] = []
    for card in cards:
        if card.player != player or card.struck:
            again.append(card)
        elif card.rule != "K1" or card.source != "tally":
            # Its escalations follow it, as when it was added; a K1 card the director gave by
            # hand (`tally cards add … red K1`) is theirs, never made again nor dropped.
            again, _ = add(again, [card])
    return again


def sent_off(cards: Iterable[Card]) -> list[str]:
    """K2: players with a red card are sent off (红牌罚下)."""
    return sorted(sent_off_days(cards))


def sent_off_days(cards: Iterable[Card]) -> dict[str, int]:
    """K2: each player a red card sends off, with the day from whose end they are out: the
    first red card's day; for a red three yellows make (K1), the latest of those yellows,
    since it is made when the last is added (a yellow for day 1 added late does not send
    the player off from days gone by)."""
    off: dict[str, int] = {}
    latest: dict[str, int] = {}  # the latest day of each player's yellow cards so far
    for card in counted(cards):
        if card.colour == Colour.YELLOW:
            latest[card.player] = max(card.day, latest.get(card.player, card.day))
        elif card.colour == Colour.RED:
            day = max(card.day, latest.get(card.player, 0)) if card.rule == "K1" else card.day
            off[card.player] = min(day, off.get(card.player, day))
    return off


def camps_lost(
    cards: Iterable[Card], camps: Mapping[str, str], reds: int | None = 2
) -> dict[str, list[str]]:
    """K2 (seed 001): camps whose players hold ``reds`` or more red cards between them
    (None: no rule), each with those players. Cards, not players: "同一阵营的角色累计获得两张
    或以上红牌", and one who is out can still be carded (K3), so two reds of one player count."""
    if reds is None:
        return {}
    held: dict[str, list[str]] = {}  # camp -> the holder of each red card
    for card in counted(cards):
        if card.colour == Colour.RED and card.player in camps:
            held.setdefault(camps[card.player], []).append(card.player)
    return {camp: sorted(set(who)) for camp, who in held.items() if len(who) >= reds}


def reviewed(
    cards: Sequence[Card], given: Mapping[int, Iterable[Card]]
) -> tuple[list[Card], list[Card], list[Card]]:
    """The ledger after the check was run again on the days of ``given`` (each day with the
    cards the check gives it now): tally's cards of those days the check no longer gives are
    in doubt, a card in doubt it gives again is tally's again, and the escalations of their
    players are made again (K1 rests on no card in doubt). Also: the cards put in doubt, the
    cards given again. A card by hand, kept or struck is never questioned."""
    now = {c.same for cards_of in given.values() for c in cards_of}
    doubted: list[Card] = []
    back: list[Card] = []
    out: list[Card] = []
    for card in cards:
        if card.day in given and card.rule != "K1" and card.source in ("tally", DOUBT):
            if card.source == "tally" and card.same not in now:
                card = replace(card, source=DOUBT)
                doubted.append(card)
            elif card.in_doubt and card.same in now:
                card = replace(card, source="tally")
                back.append(card)
        out.append(card)
    for player in dict.fromkeys(c.player for c in (*doubted, *back)):
        out = rebuilt(out, player)
    return out, doubted, back


def kept(cards: Iterable[Card], player: str | None = None) -> list[Card]:
    """The ledger as it would be were every card in doubt (of ``player``) kept by the
    director, its escalations made."""
    out = [replace(c, source="director") if c.in_doubt and player in (None, c.player) else c
           for c in cards]  # fmt: skip
    for who in dict.fromkeys(c.player for c in cards if c.in_doubt):
        if player in (None, who):
            out = rebuilt(out, who)
    return out


def waiting(cards: Sequence[Card]) -> list[Card]:
    """The K1 escalations that wait on cards in doubt: made were they kept, not made now."""
    now = {c.key for c in counted(cards)}
    return [c for c in counted(kept(cards)) if c.rule == "K1" and c.key not in now]


def undecided(cards: Sequence[Card]) -> dict[str, list[Card]]:
    """K2 resting on cards in doubt: each player whether (or from when) a red card sends
    them off depends on, with those cards. A command that treats the sent-off as out stops
    on them (``undecided_sentence``): counting either way would be tally's call, not the
    director's."""
    off_now = sent_off_days(cards)
    off_kept = sent_off_days(kept(cards))
    return {
        p: [c for c in cards if c.player == p and c.in_doubt]
        for p in sorted(set(off_now) | set(off_kept))
        if off_now.get(p) != off_kept.get(p)
    }


def commands(card: Card, game_path: Path | None) -> tuple[str, str]:
    """The two ways out of a card in doubt: remove it, keep it as the director's."""
    game = f" --game {game_path}" if game_path is not None else ""
    tail = f"--day {card.day} {card.player} {card.colour.value} {card.rule}"
    return (f"tally cards remove{game} {tail}", f"tally cards keep{game} {tail}")


# A card as a sentence names it, by its colour (a word of its own in Chinese: 黄牌).
_NAMED = {
    Colour.BLUE: N_("{player}'s blue card ({rule}) for day {day}"),
    Colour.YELLOW: N_("{player}'s yellow card ({rule}) for day {day}"),
    Colour.RED: N_("{player}'s red card ({rule}) for day {day}"),
}


def named(card: Card) -> str:
    return tr(_NAMED[card.colour], player=card.player, rule=card.rule, day=card.day)


def undecided_sentence(cards: Sequence[Card], path: Path, game_path: Path | None) -> str | None:
    """One sentence for a command that would treat a player a card in doubt sends off as
    out (K2), or None when no send-off rests on one."""
    rest = undecided(cards)
    if not rest:
        return None
    which = [c for doubts in rest.values() for c in doubts]
    ways = tr("; ").join(tr("`{remove}` or `{keep}`", remove=a, keep=b)
                         for a, b in (commands(c, game_path) for c in which))  # fmt: skip
    return ntr(
        "the card ledger {path} holds {cards} in doubt (tally's check no longer gives it), and "
        "whether {players} is sent off (K2) rests on it: remove or keep each as yours ({ways}), "
        "then run again.",
        "the card ledger {path} holds {cards} in doubt (tally's check no longer gives them), and "
        "whether {players} is sent off (K2) rests on them: remove or keep each as yours "
        "({ways}), then run again.",
        len(which), path=path, cards="、".join(named(c) for c in which), players="、".join(rest),
        ways=ways,
    )  # fmt: skip


@dataclass(frozen=True)
class Doubt:
    """A card in doubt, as `tally lurkers` says it: why the check no longer gives it."""

    card: Card
    why: str  # the count now ("5 posts now (4 when the card was written)"); "" if unread
    found: bool  # found by this run (else: in doubt since an earlier run)


@dataclass(frozen=True)
class LedgerView:
    """The card ledger after a lurker check: what it holds, what the check added."""

    path: Path
    cards: tuple[Card, ...]  # the cards in force after this run (the struck left out)
    new: tuple[Card, ...]  # what this run added (escalations included)
    written: bool
    totals: dict[str, Totals]
    sent_off: tuple[str, ...]  # K2
    camps_lost: dict[str, list[str]]  # K2, seed 001
    struck: tuple[Card, ...] = ()  # the ledger's struck cards: tally's, taken back
    doubts: tuple[Doubt, ...] = ()  # the ledger's cards in doubt, each with why
    back: tuple[Card, ...] = ()  # cards in doubt this run's check gives again: tally's again
    waiting: tuple[Card, ...] = ()  # K1 escalations that wait on cards in doubt
    undecided: tuple[str, ...] = ()  # players whose send-off (K2) rests on cards in doubt

    def was_struck(self, card: Card) -> bool:
        """Whether the director took ``card`` back and gave none in its place."""
        return not held(self.cards, card) and any(c.key == card.key for c in self.struck)


def view(
    path: Path,
    cards: Sequence[Card],
    game: Game,
    *,
    new: Sequence[Card] = (),
    written: bool = False,
    why: Mapping[tuple[int, str, str, str], str] | None = None,
    found: Iterable[Card] = (),
    back: Sequence[Card] = (),
) -> LedgerView:
    """The ledger's cards with what they make: each player's totals, who is sent off (K2);
    the cards in doubt, with ``why`` of each (by ``Card.same``) and which this run ``found``."""
    fresh = {c.same for c in found}
    return LedgerView(
        path=path,
        cards=tuple(live(cards)),
        new=tuple(new),
        written=written,
        totals=totals(cards),
        sent_off=tuple(sent_off(cards)),
        camps_lost=camps_lost(cards, game.camps, game.rules.camp_loss_reds),
        struck=tuple(c for c in cards if c.struck),
        doubts=tuple(
            Doubt(c, (why or {}).get(c.same, ""), c.same in fresh) for c in cards if c.in_doubt
        ),
        back=tuple(back),
        waiting=tuple(waiting(cards)),
        undecided=tuple(undecided(cards)),
    )


@dataclass(frozen=True)
class LedgerEdit:
    """What a hand edit (`tally cards add|remove`) did to the ledger."""

    path: Path
    cards: tuple[Card, ...]  # the cards in force after it (the struck left out)
    added: tuple[Card, ...]  # the card and the escalations it made (empty: it was there)
    removed: tuple[Card, ...]  # the card and the escalations that went with it
    # How the name given named the player, when not as the game file does (a renamed
    # account's name now, its uid: tally.rules.game.accounts).
    how: str = ""
