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
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tally.rules.game import Game
from tally.rules.verdicts import Colour


@dataclass(frozen=True)
class Card:
    day: int
    player: str
    colour: Colour
    rule: str  # RULES id: L1, L2, L3, L5, K1, …
    reason: str
    source: str = "tally"  # "tally", "director", or STRUCK (a tally card taken back)

    @property
    def key(self) -> tuple[int, str, str, str, str]:
        """What makes two cards one card (see the module's docstring); a struck card has the
        key of the card it was, so that a check proposing it again finds it."""
        same_rule_once = self.source in ("tally", STRUCK) and self.rule != "K1"
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


STRUCK = "struck"


def live(cards: Iterable[Card]) -> list[Card]:
    """The cards in force: the ledger without the struck ones."""
    return [c for c in cards if not c.struck]


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
    for c in live(cards):
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
        count = sum(1 for c in live(cards) if c.player == card.player and c.colour == lower)
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
        elif card.rule != "K1":
            again, _ = add(again, [card])  # its escalations follow it, as when it was added
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
    for card in live(cards):
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
    for card in live(cards):
        if card.colour == Colour.RED and card.player in camps:
            held.setdefault(camps[card.player], []).append(card.player)
    return {camp: sorted(set(who)) for camp, who in held.items() if len(who) >= reds}


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
) -> LedgerView:
    """The ledger's cards with what they make: each player's totals, who is sent off (K2)."""
    return LedgerView(
        path=path,
        cards=tuple(live(cards)),
        new=tuple(new),
        written=written,
        totals=totals(cards),
        sent_off=tuple(sent_off(cards)),
        camps_lost=camps_lost(cards, game.camps, game.rules.camp_loss_reds),
        struck=tuple(c for c in cards if c.struck),
    )


@dataclass(frozen=True)
class LedgerEdit:
    """What a hand edit (`tally cards add|remove`) did to the ledger."""

    path: Path
    cards: tuple[Card, ...]  # the cards in force after it (the struck left out)
    added: tuple[Card, ...]  # the card and the escalations it made (empty: it was there)
    removed: tuple[Card, ...]  # the card and the escalations that went with it
