"""Stops for a director's ordinary mistakes, before anything is counted.

A count that rests on the wrong thread or on a misspelt roster looks exactly as final as
a right one, and at closing time the director trusts what tally prints. So these checks
refuse, with one sentence that says what to fix, instead of counting:

- the thread given is not the day's vote thread (another day's, the discussion thread,
  a thread the game file does not name: ``Game.vote_day``, the game's own query);
- a vote thread with replies but not one ballot-shaped post;
- an author who is not a player but whose name is one slip away from a player (or a
  director) who never posted: a typo in the game file, most likely.

They run inside the library functions (``tally.rules.counting.votes.tally_day``,
``tally.rules.cards.lurkers.check``), so a script that calls the library is stopped just as the
command is. Beside them, the flags of the same kind that do not stop a count: who is
behind the posts (a stranger's ballots, a renamed account). The game file's account ids
against the uids the pages show are ``tally.rules.counting.uids``'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence, Sized
from datetime import datetime, timedelta

from tally.errors import InputError
from tally.i18n import N_, ntr, tr
from tally.model import Thread, Writing
from tally.rules.counting.announced import ELECTION, Close, announced_closes, day_in_title
from tally.rules.game.cast import Cast
from tally.rules.game.game import Day, Game
from tally.rules.game.names import ANONYMOUS, likely_same
from tally.rules.judging.ballot_text import read_ballot
from tally.rules.judging.ballots import Ballot, Flag, floors_text
from tally.rules.verdicts import ThreadRole, VoidReason
from tally.times import compared, short


def ensure_ballots(game: Game, thread: Thread, ballots: Sized, *, cast: Cast) -> None:
    """A vote thread whose replies hold not one ballot is not the vote thread."""
    if len(ballots):
        return
    replies = [p for p in thread.posts if p.floor > 1 and not cast.of(p).is_director]
    if replies:
        raise InputError(
            ntr(
                "thread {thread} has {n} reply and not one ballot (投票对象：…) among them; is "
                "it the day's vote thread?",
                "thread {thread} has {n} replies and not one ballot (投票对象：…) among them; is "
                "it the day's vote thread?",
                len(replies),
                thread=thread.thread_id,
            )
        )


Exempt = Callable[[Thread, Writing], bool]


def check_roster(
    game: Game,
    threads: Iterable[Thread],
    *,
    exempt: Exempt | None = None,
    cast: Cast,
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
            who = cast.of(w)
            if who.player is not None:
                posted.add(who.player)
            elif who.is_director:
                directors.add(who.name or "")
            elif who.role != "outsider" and not (exempt is not None and exempt(thread, w)):
                strangers.setdefault(w.author, []).append(w)
    silent = [("players", p) for p in game.players if p not in posted]
    silent += [("directors", d) for d in game.directors if d not in directors]
    for author, writings in strangers.items():
        names = {author, *(w.author_display for w in writings if w.author_display)}
        for key, listed in silent:
            # An account of another id is another account, however alike the names.
            other = listed in game.ids and any(w.author_id for w in writings)
            if not other and any(likely_same(n, listed) for n in names):
                did = (
                    tr("posted ballots")
                    if any(read_ballot(w.text).is_ballot for w in writings)
                    else ntr("posted {n} time", "posted {n} times", len(writings))
                )
                raise InputError(_misspelt(game.where(), key, listed, author, did))
    return {a: tuple(ws) for a, ws in strangers.items()}


def _misspelt(where: str, key: str, listed: str, author: str, did: str) -> str:
    """The stop on a roster name one slip from an author's who is not on it."""
    fields = {"where": where, "key": key, "listed": listed, "author": author, "did": did}
    if key == "players":
        return tr("{where}: {key} lists {listed}, who never posted; {author} {did} and is not "
                  "a player — a typo? Fix the name, or add it under [aliases] (or under "
                  "outsiders if it is another person).", **fields)  # fmt: skip
    return tr("{where}: {key} lists {listed}, who never posted; {author} {did} and is not a "
              "director — a typo? Fix the name, or add it under [aliases] (or under outsiders "
              "if it is another person).", **fields)  # fmt: skip


# A director opens a day's threads up to this long before the day opens (the night before).
EARLY = timedelta(hours=12)


def thread_fits_day(
    game: Game,
    thread: Thread,
    day: Day,
    role: ThreadRole,
    *,
    cast: Cast,
    announced: Iterable[Thread] = (),
) -> None:
    """A thread given as ``day``'s ``role`` thread must look like it: a title that names a
    day (第二天, Day 2) names this one, an election thread is the election day's, and the
    thread was opened in or near the day's window (else most of its posts were).

    With ``announced`` (threads of the day, this one or its discussion thread), the close
    the director announced in each one's first post (截止, 关门: a date and a time; 加速 for an
    accelerated day's) must be the game file's, unless the game file says why not
    (``close_changed``).
    """
    name = tr("thread {thread} “{title}”", thread=thread.thread_id, title=thread.title)
    # What the threads say of themselves, read first: the title, the closes first posts say.
    titled = day_in_title(thread.title)
    said = _closes_said(game, day, announced)
    if titled is not None and titled != day.day:
        raise InputError(
            tr(
                "{name} is titled for day {titled}, not day {day}; {own}",
                name=name,
                titled=titled,
                day=day.day,
                own=_own(game, titled, role),
            )
        )
    election = game.rules.sheriff_election_day
    elects = role is ThreadRole.VOTE and ELECTION.search(thread.title) is not None
    if elects and election is not None and election != day.day:
        raise InputError(
            tr(
                "{name} is a sheriff election, and the election is day {election}, not day "
                "{day}; {own}",
                name=name,
                election=election,
                day=day.day,
                own=_own(game, election, role),
            )
        )
    opened = thread.posts[0].time if thread.posts else None
    if opened is not None and not _near(day, opened):
        others = [w.time for w in thread.writings()
                  if w.post.floor > 1 and not cast.of(w).is_director]  # fmt: skip
        # Opened early and used in its day: most of its posts are in the day's window.
        if not others or sum(not _near(day, t) for t in others) * 2 > len(others):
            other = next((d for d in game.days if d is not day and _near(d, opened)), None)
            where = tr(", in day {day}'s window", day=other.day) if other is not None else ""
            at, opens, closes_at = compared(opened, day.opens, day.closes)
            own = (_own(game, other.day, role) if other
                   else tr("day {day} is from {opens}", day=day.day, opens=opens))  # fmt: skip
            raise InputError(
                tr(
                    "{name} was opened {at}{where}, not in day {day}'s ({opens} to {closes}); "
                    "{own}",
                    name=name,
                    at=at,
                    where=where,
                    day=day.day,
                    opens=opens,
                    closes=closes_at,
                    own=own,
                )
            )
    for told, close in said:
        _same_close(game, day, told, close)


def _closes_said(game: Game, day: Day, announced: Iterable[Thread]) -> list[tuple[Thread, Close]]:
    """The close each thread's first post announces (the first such line, of the day's
    kind: 加速 for an accelerated day's); none where the game file says why it changed."""
    said: list[tuple[Thread, Close]] = []
    for told in () if day.close_changed else announced:
        first = told.posts[0] if told.posts and told.posts[0].floor == 1 else None
        if first is not None:
            closes = [c for c in announced_closes(first.text, first.time, game.timezone)
                      if c.accelerated == day.accelerated]  # fmt: skip
            said.extend((told, c) for c in closes[:1])
    return said


def _same_close(game: Game, day: Day, told: Thread, close: Close) -> None:
    """The close a thread's first post announced is the game file's (InputError if not)."""
    # A line to the minute says nothing of the second: held against the file's minute.
    filed_close = day.closes if close.seconds else day.closes.replace(second=0)
    if close.at == filed_close.replace(microsecond=0):
        return
    what = tr("the accelerated close") if day.accelerated else tr("the close")
    # To the second where either side names seconds, or the minutes read the same.
    if close.seconds or day.closes.second != 0:
        posted, filed = short(close.at, seconds=True), short(day.closes, seconds=True)
    else:
        posted, filed = compared(close.at, day.closes)
    raise InputError(
        tr(
            "the first post of thread {thread} says {what} is {posted} (“{line}”), and {where} "
            "says day {day} closes {filed}: fix closes, or say why they differ with "
            'close_changed = "…" under day {day}',
            thread=told.thread_id,
            what=what,
            posted=posted,
            line=close.line,
            where=game.where(),
            day=day.day,
            filed=filed,
        )
    )


def _near(day: Day, when: datetime) -> bool:
    return day.opens - EARLY <= when <= day.closes


def _own(game: Game, number: int, role: ThreadRole) -> str:
    """Where a day's own thread of this role is, as the game file says."""
    day = next((d for d in game.days if d.day == number), None)
    url = day.url(role) if day is not None else None
    thread = tr(_THREADS.get(role, f"{role} thread"))
    if url is None:
        return tr("{where} names no {thread} for day {day}", where=game.where(),
                  thread=thread, day=number)  # fmt: skip
    return tr("day {day}'s {thread} in {where} is {url}", day=number, thread=thread,
              where=game.where(), url=url)  # fmt: skip


# A day's thread as a sentence names it ("day 1's vote thread"): the role's words.
_THREADS = {
    ThreadRole.VOTE: N_("vote thread"),
    ThreadRole.DISCUSSION: N_("discussion thread"),
    ThreadRole.PROGRESS: N_("progress thread"),
    ThreadRole.SHERIFF: N_("sheriff thread"),
}


def late_ballots(game: Game, day: Day, thread: Thread, ballots: Sequence[Ballot]) -> None:
    """A real share of the ballots after the close (3 or more, or 2 or more and a fifth)
    says the close is wrong more often than the voters are late: stop, unless the director
    says they are late (``--late-ok``, ``late_ok`` under the day). Those shown in the closing
    minute (a time to the minute) say the close is about right: not among them."""
    late = [b for b in ballots if b.reason == VoidReason.AFTER_CLOSE and b.posted_at > day.closes]
    if not late:
        return
    voters = sum(1 for b in ballots if b.voter is not None)
    last = max(b.posted_at for b in late)
    n = len(late)
    if n >= 3 or (n >= 2 and n * 5 >= voters):
        closes, at = compared(day.closes, last)
        raise InputError(
            tr(
                "{n} of {voters} ballots in thread {thread} were posted after day {day}'s close "
                "{closes}, the last at {at}: is the close right? Fix closes in {where}, or pass "
                "--late-ok (late_ok = true under day {day}) if they really are late.",
                n=n,
                voters=voters,
                thread=thread.thread_id,
                day=day.day,
                closes=closes,
                at=at,
                where=game.where(),
            )
        )


def stranger_flags(ballots: list[Ballot]) -> list[Flag]:
    """One flag per author whose ballots are void because they are no player."""
    theirs: dict[str, list[Ballot]] = {}
    for b in ballots:
        # A look-alike has its own flag, naming whose name it takes (its note is that flag's:
        # known so in any language).
        if b.reason == VoidReason.NOT_A_PLAYER and not any(f in b.note for f in b.flags):
            theirs.setdefault(b.author, []).append(b)
    flags = []
    for author, mine in theirs.items():
        where = floors_text(b.floor for b in mine)
        note = ntr("{author} is not a player of this game; the ballot on {where} is void",
                   "{author} is not a player of this game; the ballots on {where} are void",
                   len(mine), author=author, where=where)  # fmt: skip
        if author == ANONYMOUS:
            note += tr(" (posted anonymously, 匿名: the forum shows whose only to moderators; "
                       "read with the director's cookies to know)")  # fmt: skip
        flags.append(Flag("roster", note, None, mine[0].floor, mine[0].post_id))
    return flags


def renamed_flags(thread: Thread, cast: Cast) -> list[Flag]:
    """A player whose account the forum renamed (its id is the file's, its name is not):
    said once, with the name it posts under now."""
    flags: dict[str, Flag] = {}
    for w in thread.writings():
        who = cast.of(w)
        if who.renamed and who.name is not None and w.author == ANONYMOUS:
            # An anonymous post (匿名): players see 匿名, moderators the account (its uid).
            note = tr("floor {floor} was posted anonymously (匿名) by {player}'s account (uid "
                      "{uid}), which only moderators are shown: counted as {player}; rule on it "
                      "if an anonymous ballot should not count", floor=w.post.floor,
                      player=who.name, uid=w.author_id)  # fmt: skip
            flag = Flag("anonymous", note, who.name, w.post.floor, w.item_id)
            flags.setdefault(f"{who.name}/{w.item_id}", flag)
        elif who.renamed and who.name is not None and who.name not in flags:
            note = tr("{player} (uid {uid}) posts as {name} now: the same account, counted as "
                      "{player}", player=who.name, uid=w.author_id, name=w.author)  # fmt: skip
            flags[who.name] = Flag("renamed", note, who.name, w.post.floor, w.item_id)
    return list(flags.values())
