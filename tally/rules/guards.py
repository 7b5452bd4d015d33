"""Stops for a director's ordinary mistakes, before anything is counted.

A count that rests on the wrong thread or on a misspelt roster looks exactly as final as
a right one, and at closing time the director trusts what tally prints. So these checks
refuse, with one sentence that says what to fix, instead of counting:

- the thread given is not the day's vote thread (another day's, the discussion thread,
  a thread the game file does not name);
- a vote thread with replies but not one ballot-shaped post;
- an author who is not a player but whose name is one slip away from a player (or a
  director) who never posted: a typo in the game file, most likely.

They run inside the library functions (``tally.rules.votes.tally_day``,
``tally.rules.lurkers.check``), so a script that calls the library is stopped just as the
command is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sized
from datetime import datetime, timedelta

from tally.errors import InputError
from tally.model import Thread, ThreadKey, Writing
from tally.rules.ballot_text import read_ballot
from tally.rules.game import Day, Game
from tally.rules.names import likely_same, normalise
from tally.rules.verdicts import ThreadRole


def vote_day_of(
    game: Game, key: ThreadKey, day_number: int | None = None, *, started: datetime | None = None
) -> Day:
    """The day whose vote thread ``key`` is; refuses any other thread.

    With ``day_number`` the thread must be that day's vote thread. Without it, it must be
    the vote thread of one of the game's days. ``started`` (the time of the thread's first
    post, once read) narrows the days a thread the game file does not name was meant for.
    """
    name = f"thread {key.thread_id}"
    found = game.locate(key)
    if day_number is not None:
        day = game.day(day_number)
        if day.vote_ref.key == key:
            return day
        if found is not None and found[1] is ThreadRole.VOTE:
            what = f"{name} is day {found[0].day}'s vote thread, not day {day.day}'s"
        elif found is not None:
            what = f"{name} is day {found[0].day}'s {found[1]} thread, not a vote thread"
        else:
            what = f"{name} is not day {day.day}'s vote thread in {game.where()}"
        raise InputError(f"{what}; day {day.day}'s vote thread is {day.vote}")
    if found is not None and found[1] is ThreadRole.VOTE:
        return found[0]
    if found is not None:
        day = found[0]
        raise InputError(
            f"{name} is day {day.day}'s {found[1]} thread, not a vote thread; "
            f"day {day.day}'s vote thread is {day.vote}"
        )
    candidates = _candidate_days(game, started)
    if len(candidates) == 1:
        listed = f"day {candidates[0].day}'s vote thread is {candidates[0].vote}"
    else:
        listed = "the vote threads are " + ", ".join(f"day {d.day}: {d.vote}" for d in candidates)
    raise InputError(f"{name} is not the vote thread of any day in {game.where()}; {listed}")


def _candidate_days(game: Game, started: datetime | None) -> list[Day]:
    """The days a thread could be meant for: those open when it was started, else all."""
    if started is not None:
        slack = timedelta(hours=12)
        near = [d for d in game.days if d.opens - slack <= started <= d.closes]
        if near:
            return near
    return list(game.days)


def ensure_ballots(game: Game, thread: Thread, ballots: Sized) -> None:
    """A vote thread whose replies hold not one ballot is not the vote thread."""
    if len(ballots):
        return
    replies = [
        p for p in thread.posts if p.floor > 1 and not game.is_director(p.author, p.author_display)
    ]
    if replies:
        many = "replies" if len(replies) > 1 else "reply"
        raise InputError(
            f"thread {thread.thread_id} has {len(replies)} {many} and not one "
            "ballot (投票对象：…) among them; is it the day's vote thread?"
        )


Exempt = Callable[[Thread, Writing], bool]


def check_roster(
    game: Game, threads: Iterable[Thread], *, exempt: Exempt | None = None
) -> Mapping[str, tuple[Writing, ...]]:
    """Stop on a likely misspelt roster; return the other authors who are not players.

    An author who is no player, no director and no outsider, and whose name is one slip
    from a player or director who never posted in any of ``threads``, stops the count: the
    game file most likely misspells that name. Writings ``exempt`` names (a floor the
    director has ruled on) are left out. Every other stranger is returned, by account
    name, with what they wrote, for a flag.
    """
    posted: set[str] = set()
    directors: set[str] = set()
    strangers: dict[str, list[Writing]] = {}
    threads = list(threads)
    for thread in threads:
        for w in thread.writings():
            player = game.identify(w.author, w.author_display)
            if player is not None:
                posted.add(player)
            elif game.is_director(w.author, w.author_display):
                directors.update(normalise(n) for n in (w.author, w.author_display) if n)
            elif not game.is_outsider(w.author, w.author_display) and not (
                exempt is not None and exempt(thread, w)
            ):
                strangers.setdefault(w.author, []).append(w)
    silent = [("players", p) for p in game.players if p not in posted]
    silent += [("directors", d) for d in game.directors if normalise(d) not in directors]
    for author, writings in strangers.items():
        names = {author, *(w.author_display for w in writings if w.author_display)}
        for key, listed in silent:
            if any(likely_same(n, listed) for n in names):
                did = (
                    "posted ballots"
                    if any(read_ballot(w.text).is_ballot for w in writings)
                    else f"posted {len(writings)} time{'s' if len(writings) > 1 else ''}"
                )
                role = "a player" if key == "players" else "a director"
                raise InputError(
                    f"{game.where()}: {key} lists {listed}, who never posted; {author} {did} "
                    f"and is not {role} — a typo? Fix the name, or add it under [aliases] "
                    "(or under outsiders if it is another person)."
                )
    return {a: tuple(ws) for a, ws in strangers.items()}


def floors_text(floors: Iterable[int]) -> str:
    """ "floor 3", "floors 3, 5 and 9": where a flag points."""
    ordered = sorted(set(floors))
    shown = [str(f) for f in ordered[:10]] + (["…"] if len(ordered) > 10 else [])
    if len(shown) == 1:
        return f"floor {shown[0]}"
    return f"floors {', '.join(shown[:-1])} and {shown[-1]}"
