"""`tally cards`: the card ledger edited by hand, for the cards that are the director's calls
(L4 a role that did not act in time, L8 a flood, anything the rules leave to judgement).

The same ledger the lurker check writes (``GAME.cards.csv`` beside the game file), with the
same rules: a card added twice is one card, K1 escalations follow the card that made them
(and go when it goes), and every write is atomic.

    from tally.commands.cards import add_card
    from tally.rules.game.gamefile import load_game

    add_card(load_game("game.toml"), day=2, player="糖糖", colour="yellow", rule="L4",
             reason="第2晚未按时行动")

The player is named as the game file names them, or by the name their account posts under
now (a rename tally knows from its reads of the game's threads: give ``reader``), or by the
account's id, ``uid:3`` (``tally.rules.game.accounts``); the ledger records the file's name.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from tally.errors import InputError
from tally.i18n import N_, tr
from tally.outputs.written import cardfile
from tally.rules.cards import ledger
from tally.rules.cards.ledger import Card, LedgerEdit, LedgerView
from tally.rules.game.accounts import Named, named_player, names_now
from tally.rules.game.game import Game
from tally.rules.verdicts import Colour

if TYPE_CHECKING:
    from tally.forums.reader import Reader

# The colours as a director may write them.
_COLOURS = {
    "blue": Colour.BLUE, "蓝": Colour.BLUE, "蓝牌": Colour.BLUE,
    "yellow": Colour.YELLOW, "黄": Colour.YELLOW, "黄牌": Colour.YELLOW,
    "red": Colour.RED, "红": Colour.RED, "红牌": Colour.RED,
}  # fmt: skip


def colour_of(text: str) -> Colour:
    colour = _COLOURS.get(text.strip().lower())
    if colour is None:
        raise InputError(
            tr("{text!r} is no card colour: blue, yellow or red (蓝, 黄, 红).", text=text)
        )
    return colour


def _player(game: Game, name: str, reader: Reader | None) -> Named:
    """The player ``name`` names: the file's name, the name their account posts under now
    (by tally's reads of the game's threads, kept in its cache), or ``uid:N``."""
    kept = [(ref.thread_id, reader.kept(ref)) for ref in game.named_threads] if reader else []
    return named_player(game, name, names_now(kept))


def _path(game: Game) -> Path:
    if game.path is None:
        raise InputError(tr("the card ledger lives beside the game file; load one."))
    return cardfile.ledger_path(game.path)


def _check(game: Game, day: int, rule: str, reason: str) -> None:
    if day < 0 or (day > 0 and day not in {d.day for d in game.days}):
        raise InputError(
            tr("day {day} is not a day of {where} (0: before the game).", day=day,
               where=game.where())
        )
    if not rule.strip():
        raise InputError(tr("give the rule the card is for (L4, L8, …)."))
    if not reason.strip():
        raise InputError(tr("give the card a reason, as the morning announcement will show it."))


def add_card(
    game: Game, *, day: int, player: str, colour: str, rule: str, reason: str,
    reader: Reader | None = None,
) -> LedgerEdit:  # fmt: skip
    """Give a card by hand; K1 escalations it makes are added with it."""
    _check(game, day, rule, reason)
    named = _player(game, player, reader)
    card = Card(day, named.player, colour_of(colour), rule.strip(), reason.strip(),
                source="director")  # fmt: skip
    path = _path(game)
    with cardfile.editing(path):
        cards, new = ledger.add(cardfile.load(path), [card])
        if new:
            cardfile.save(path, cards)
    return LedgerEdit(path, tuple(ledger.live(cards)), tuple(new), (), named.how)


def _not_k1(rule: str, sentence: str) -> None:
    """A K1 card is no card of its own to take back or keep: the three below it make it
    (``sentence``, marked where it is given, says so and what to do instead)."""
    if rule.strip() == "K1":
        raise InputError(tr(sentence))


def remove_card(
    game: Game, *, day: int, player: str, colour: str, rule: str, reason: str | None = None,
    reader: Reader | None = None,
) -> LedgerEdit:  # fmt: skip
    """Take a card back; the escalations of that player are made again without it."""
    named = _player(game, player, reader)
    wanted = colour_of(colour)
    _not_k1(rule, N_("a K1 card is made by the three cards below it (K1): remove one of them, "
                     "and the escalation goes with it."))
    path = _path(game)
    with cardfile.editing(path):
        edit = _remove(path, day, named.player, wanted, rule, reason)
    return dataclasses.replace(edit, how=named.how)


def _remove(
    path: Path, day: int, name: str, wanted: Colour, rule: str, reason: str | None
) -> LedgerEdit:
    cards = cardfile.load(path)
    matches = [
        c for c in ledger.live(cards)
        if (c.day, c.player, c.colour, c.rule) == (day, name, wanted, rule.strip())
        and (reason is None or c.reason == reason.strip())
    ]  # fmt: skip
    if not matches:
        raise InputError(
            tr("the ledger {path} holds no {card} for {player} on day {day} under {rule}.",
               path=path, card=wanted.label, player=name, day=day, rule=rule)
        )
    if len(matches) > 1:
        reasons = "; ".join(repr(c.reason) for c in matches)
        raise InputError(tr("{n} cards match ({reasons}); give the reason to say which.",
                            n=len(matches), reasons=reasons))  # fmt: skip
    taken = matches[0]
    # A card the lurker check gave stays, struck: the check would propose it again (one in
    # doubt too: the check may give it again if the post goes again).
    tallys = taken.source in ("tally", ledger.DOUBT)
    struck = [dataclasses.replace(taken, source=ledger.STRUCK)] if tallys else []
    rest = [c for c in cards if c is not taken] + struck
    after = ledger.rebuilt(rest, name)
    kept = {c.key for c in ledger.live(after)}
    removed = tuple(c for c in ledger.live(cards) if c.key not in kept)
    cardfile.save(path, after)
    return LedgerEdit(path, tuple(ledger.live(after)), (), removed)


def keep_card(
    game: Game, *, day: int, player: str, colour: str, rule: str, reader: Reader | None = None
) -> LedgerEdit:
    """Keep a card of tally's as the director's own (source "director"): one in doubt (the
    check no longer gives it) counts again, with the escalations it makes (K1); a card by
    hand is never questioned by the check again."""
    named = _player(game, player, reader)
    name = named.player
    wanted = colour_of(colour)
    _not_k1(rule, N_("a K1 card is made by the three cards below it (K1): keep those, and the "
                     "escalation is made with them."))
    path = _path(game)
    with cardfile.editing(path):
        cards = cardfile.load(path)
        same = (day, name, wanted, rule.strip())
        matches = [c for c in cards if c.same == same and c.source in ("tally", ledger.DOUBT)]
        if not matches:
            raise InputError(
                tr("the ledger {path} holds no {card} of tally's for {player} on day {day} "
                   "under {rule} (a card by hand is yours already; a struck one: "
                   "`tally cards add`).", path=path, card=wanted.label, player=name, day=day,
                   rule=rule)
            )
        taken = matches[0]
        mine = dataclasses.replace(taken, source="director")
        after = ledger.rebuilt([mine if c is taken else c for c in cards], name)
        had = {c.key for c in ledger.counted(cards)}
        added = tuple(c for c in ledger.counted(after) if c.key not in had and c is not mine)
        cardfile.save(path, after)
    return LedgerEdit(path, tuple(ledger.live(after)), (mine, *added), (), named.how)


def list_cards(
    game: Game, *, day: int | None = None, player: str | None = None,
    reader: Reader | None = None,
) -> LedgerView:  # fmt: skip
    """The ledger's cards (of one day, of one player), with each player's totals."""
    path = _path(game)
    name = _player(game, player, reader).player if player is not None else None
    cards = [
        c for c in ledger.live(cardfile.load(path))
        if (day is None or c.day == day) and (name is None or c.player == name)
    ]  # fmt: skip
    return ledger.view(path, cards, game)
