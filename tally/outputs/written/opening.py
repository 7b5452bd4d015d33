"""The posts that open a day: the morning announcement (A1), who went out in the order they
went out, and the elevator thread (A2), every player's link in the game's own order.

Their templates are rendered as every announcement is (``tally.outputs.written.announce``).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from tally.forums import platform_of
from tally.model import Thread
from tally.outputs.written.announce import rule_numbers
from tally.rules.cards.ledger import Card
from tally.rules.counting.count import votes_text
from tally.rules.game.game import Day, Game
from tally.rules.verdicts import ThreadRole

# -- the morning announcement (A1) ---------------------------------------------------------


def morning_context(
    game: Game,
    day: Day,
    earlier: Mapping[int, Day],
    cards: Sequence[Card],
    *,
    show_rules: bool = False,
    voted_out: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The opening of ``day`` (as it stands after the days before it: ``earlier``, each as
    it stood): who went out since the day before, in the order they went out (A1), sheriff,
    deputy, the slandered, the living, and the cards given for the day before.

    ``voted_out``: who the day before's vote put out ([] for nobody), None when its result
    is not known here (not counted, not posted): then the out are one list in the order of
    the game file, since which of them the vote put out would be a guess.
    """
    rules = game.rules
    before = earlier[max(earlier)] if earlier else None
    was_dead = set(before.dead) if before else set()
    # Who went out since the day before, also one revived at this open (seed 001): they
    # went out all the same, and the post says they came back.
    out = [p for p in (*day.dead, *day.revived) if p not in was_dead]
    known = before is not None and voted_out is not None
    by_day: list[str] = []
    by_night = out
    if before is not None and voted_out is not None:
        by_day, by_night = _out_in_order(game, before, out, voted_out)
    bonus = rules.slander_bonus
    return {
        "game": game.name,
        "day": day.day,
        "previous": before.day if before else None,
        "eliminated": [*by_day, *by_night],
        # The order they went out is known only with the day before's result (A1); without
        # it the list is the game file's, and the post does not say it is in order.
        "ordered": known,
        # Seeds 000 and 002 list the day's out (voted out, red-carded) and the night's apart.
        "apart": known and rules.night_apart,
        "revived": [p for p in day.revived if p not in day.dead],
        "day_out": by_day,
        "night_out": by_night,
        # A ruleset without a sheriff (M126) has no sheriff line, unless the file names one.
        "has_sheriff": rules.sheriff_election_day is not None or bool(day.sheriff or day.deputy),
        "sheriff": day.sheriff or "",
        "deputy": day.deputy or "",
        "slandered": list(day.slandered),
        "slander_votes": _NUMBERS.get(bonus, votes_text(bonus)) + "票" if bonus else "",
        "alive": [p for p in game.players if p not in day.dead],
        "show_rules": show_rules,
        **rule_numbers(rules),
        "cards": _card_rows(cards, before),
    }


def _card_rows(cards: Sequence[Card], before: Day | None) -> list[dict[str, Any]]:
    """The cards given for the day before, as the morning post lists them."""
    return [
        {
            "player": c.player,
            "colour": c.colour.label,
            "rule": c.rule,
            # The ledger's K1 reason ends with its id ("3张黄牌折算为红牌（K1）"), part of
            # what keeps the card one card: the players see the id only with show_rules,
            # in the template's own place for it.
            "reason": c.reason.removesuffix(f"（{c.rule}）"),
        }
        for c in cards
        if before is not None and c.day == before.day
    ]


_NUMBERS = {Decimal(1): "一", Decimal(2): "两", Decimal(3): "三"}


def _out_in_order(
    game: Game, before: Day, out: Sequence[str], voted_out: Sequence[str]
) -> tuple[list[str], list[str]]:
    """``out`` (who went out since ``before``) in the order they went out (A1), the day's and
    the night's: on the day, those out during it (by the time the file gives), the red card
    and the vote-out in the ruleset's order (K2); then those out after the close, by the
    time the file gives (黄昏, or a death in the night: the night's list where the ruleset
    lists it apart); the rest went out in the night, in the order of the game file."""
    died = sorted((p for p in out if p in before.died), key=lambda p: before.died[p])
    during = [p for p in died if before.died[p] <= before.closes]
    after = [p for p in died if before.died[p] > before.closes]
    carded = [p for p in out if game.sent_off.get(p) == before.day]
    voted = [p for p in voted_out if p in out]
    first, second = (carded, voted) if game.rules.red_card_before_vote else (voted, carded)
    by_day = list(dict.fromkeys([*during, *first, *second]))
    if not game.rules.night_apart:
        by_day = list(dict.fromkeys([*by_day, *after]))
    by_night = [p for p in after if p not in by_day]
    return by_day, [*by_night, *(p for p in out if p not in by_day and p not in by_night)]


# -- the elevator thread (A2) ---------------------------------------------------------------


def elevator_seed(game: Game) -> int:
    """The elevator's order when --seed does not say another: the game's own, the same at
    every run and on every day, since the order is part of the game (seed 002: the nearest in
    the elevator; 001, 003: its neighbours). It comes from what names the game in tally's
    mark on its posts (the file's ``id``, else its first vote thread), which a renamed or
    corrected game file keeps."""
    digest = hashlib.sha256(f"tally elevator\n{game.post_key}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def elevator_context(
    game: Game, day: Day, discussion: Thread | None, seed: int | None
) -> dict[str, Any]:
    """Every player in the game's order (``elevator_seed``, or ``seed``), with a link to
    their posts alone in the day's thread (A2): from their posts there, else, on Discuz!,
    from the account id the game file gives (a real X3.5 answers that 只看该作者 link with
    未定义操作 until the player's first post in the thread, then with their posts)."""
    accounts: dict[str, tuple[str, str | None]] = {}
    if discussion is not None:
        cast = game.cast()
        for post in discussion.posts:
            player = cast.of(post).player
            if player and player not in accounts:
                accounts[player] = (post.author, post.author_id)
    ref = day.ref(ThreadRole.DISCUSSION) or day.vote_ref
    platform = platform_of(ref)
    if seed is None:
        seed = elevator_seed(game)
    order = list(game.players)
    random.Random(seed).shuffle(order)
    floors = []
    for player in order:
        account = accounts.get(player)
        uid = game.ids.get(player)
        if account is not None:
            link = platform.author_url(ref, account[0], account[1])
        else:  # Tieba's link is a home page by the account's name, which the file may not say
            link = platform.author_id_url(ref, uid) if uid else None
        floors.append({"player": player, "link": link or ""})
    return {
        "game": game.name,
        "day": day.day,
        "seed": seed,
        "floors": floors,
        "thread_url": platform.page_url(ref, 1),
    }
