"""A first game file, written from a game's threads (`tally init`).

What the threads tell: the forum's clock (China time unless told), the director (who
started the threads), the players (everyone else who posted, in the order they first
posted), and the days (one per vote thread, numbered by the thread's title, with the
discussion thread of the same day, opening as that thread's first post says: its 开门 line,
else its time; closing as a first post announces). What only the director knows (the rules,
the name, a close no post states) is a placeholder the loader refuses until it is filled in,
and each is said in ``Draft.todo``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from zoneinfo import ZoneInfo

from tally.forums import by_name
from tally.i18n import N_, tr
from tally.model import Thread
from tally.rules.counting.announced import Close, announced_closes, announced_open, day_in_title
from tally.rules.game.filekeys import PLACEHOLDER
from tally.rules.game.names import skeleton
from tally.rules.game.rulesets import ABOUT, PRESETS
from tally.rules.judging.ballot_text import read_ballot

# Where a title stops naming the game and starts naming the day or the thread.
_DAY = re.compile(
    r"第\s*[0-9零一二三四五六七八九十百]+\s*[天日轮]|\bday\s*[0-9]|警长竞选|讨论|投票", re.I
)


def is_vote_thread(thread: Thread) -> bool:
    """A vote thread by its title (投票), else by its replies: most of them ballots."""
    if "投票" in thread.title or "票选" in thread.title:
        return True
    if "讨论" in thread.title:
        return False
    replies = [p for p in thread.posts if p.floor > 1]
    ballots = sum(1 for p in replies if read_ballot(p.text).is_ballot)
    return bool(replies) and ballots * 2 >= len(replies)


@dataclass(frozen=True)
class Draft:
    text: str
    directors: tuple[str, ...]
    players: tuple[str, ...]
    days: int
    # What is left for the director, each a phrase ("choose the rules (ruleset)").
    todo: tuple[str, ...] = ()


def _q(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(value, ensure_ascii=False)


def _account(name: str, ids: dict[str, str]) -> str:
    """A roster entry: the name, with the account's id beside it when the page shows it."""
    uid = ids.get(name)
    return f"{{ name = {_q(name)}, id = {uid} }}" if uid and uid.isdigit() else _q(name)


def _left_out(shown: str, account: str, ids: dict[str, str]) -> str:
    """An account left out, as a roster entry would name it (with the account's own name
    where it shows another, and its own id)."""
    entry = _account(shown, {shown: ids[account]} if account in ids else {})
    return entry if account == shown else f"{entry} (account {_q(account)})"


def _roster(players: Sequence[str], ids: dict[str, str]) -> str:
    """``players = [...]``: a line, or an account a line when they carry their ids."""
    entries = [_account(p, ids) for p in players]
    if not any(p in ids for p in players):
        return f"players = [{', '.join(entries)}]"
    return "players = [\n" + "".join(f"  {e},\n" for e in entries) + "]"


def _when(value: datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%S")


@dataclass(frozen=True)
class _Accounts:
    """Who posted, as the file names them: the directors, the players (by the name shown),
    the accounts left out or left without an alias as look-alikes, and the ids."""

    directors: tuple[str, ...]
    players: tuple[str, ...]
    # (name shown, account, whom it reads as)
    left_out: tuple[tuple[str, str, str], ...]
    unaliased: tuple[tuple[str, str, str], ...]
    aliases: dict[str, str]  # name shown -> account name
    own_ids: dict[str, str]  # account name -> its id
    ids: dict[str, str]  # name shown -> its account's id (directors and players)


def _accounts_of(threads: Sequence[Thread]) -> _Accounts:
    """Who posted in ``threads``: the director started most of them, the players are
    everyone else in the order they first posted, look-alikes of an earlier name left out."""
    starters = Counter(t.posts[0].author for t in threads if t.posts)
    directors = tuple(name for name, _ in starters.most_common(1))
    first_seen: dict[str, tuple[datetime, str | None]] = {}
    # Each account's id beside its name: with it, a renamed account is still known and a
    # look-alike name is another account (docs/game-file.md, Accounts).
    own_ids: dict[str, str] = {}
    for thread in threads:
        for w in thread.writings():
            if w.author_id:
                own_ids.setdefault(w.author, w.author_id)
            if w.author in directors:
                continue
            seen = first_seen.get(w.author)
            if seen is None or w.time < seen[0]:
                first_seen[w.author] = (w.time, w.author_display)
    order = sorted(first_seen, key=lambda a: first_seen[a][0])
    # Tieba: the name shown is the one players know; the account name becomes an alias.
    shown = {a: first_seen[a][1] or a for a in order}
    # An account whose name reads as an earlier account's (bob。 after bob, admin! beside
    # the director admin, and on Tieba a 昵称 another account shows too, or the director's)
    # cannot be a second player: the loader refuses two players, or a player and an
    # outsider, of one name. It is left out, said in a comment and a TODO. By account, not
    # by name: two accounts that show one name are two people. The names are compared as
    # tally votes compares a target with the roster's look-alikes (``skeleton``): "сarol"
    # with a Cyrillic с beside carol is left out too, as it would be flagged there.
    taken = {skeleton(d): (d, d) for d in directors}  # folded name -> (name, account)
    kept: list[str] = []  # the accounts that are players
    left_out: list[tuple[str, str, str]] = []
    for account in order:
        person = shown[account]
        first, owner = taken.setdefault(skeleton(person), (person, account))
        if owner == account:
            kept.append(account)
        else:
            left_out.append((person, account, first))
    # The account name behind a name shown becomes its alias, unless it reads as a name the
    # file already holds (a player's, a director's, another alias): the loader refuses two
    # names that read as one, and the account's id still knows it.
    aliases: dict[str, str] = {}
    unaliased: list[tuple[str, str, str]] = []
    for account in (a for a in kept if shown[a] != a):
        first, owner = taken.setdefault(skeleton(account), (account, account))
        if owner == account:
            aliases[shown[account]] = account
        else:
            unaliased.append((shown[account], account, first))
    ids = {shown.get(a, a): uid for a, uid in own_ids.items() if a in directors or a in kept}
    players = tuple(shown[a] for a in kept)
    return _Accounts(directors, players, tuple(left_out), tuple(unaliased), aliases, own_ids, ids)


def draft(
    threads: Sequence[Thread],
    urls: Sequence[str | None],
    timezone: str,
    *,
    ruleset: str | None = None,
    name: str | None = None,
) -> Draft:
    """The game file's text for these threads (``urls``: where each was read, or None);
    ``ruleset`` and ``name`` when the director gave them, else placeholders."""
    accounts = _accounts_of(threads)
    votes: list[tuple[Thread, str | None]] = []
    talks: list[tuple[Thread, str | None]] = []
    for t, u in zip(threads, urls, strict=True):
        (votes if is_vote_thread(t) else talks).append((t, u))  # each thread judged once
    votes.sort(key=lambda tu: tu[0].posts[0].time if tu[0].posts else datetime.max)
    numbered = [(day_in_title(t.title) or i, t, u) for i, (t, u) in enumerate(votes, start=1)]

    todo = _rules_todo(name, ruleset)
    lines = _head_lines(threads, accounts, timezone, ruleset=ruleset, name=name)
    if accounts.left_out:
        odd = "、".join(dict.fromkeys(person for person, _, _ in accounts.left_out))
        todo.append(tr("check the accounts left out as look-alikes ({names})", names=odd))
    # The file's times are the game's clock: a page prints them at the offset its board
    # uses today, a Saturday's post in summer time when the clocks went forward since.
    zone = ZoneInfo(timezone)
    for number, vote, url in numbered:
        talk = _discussion_for(number, vote, talks)
        day_lines, day_todo = _day_block(number, (vote, url), talk, zone)
        lines += day_lines
        todo += day_todo
    text = "\n".join(line for line in lines if line is not None) + "\n"
    todo.append(tr("check the roster (everyone who posted but the director is a player)"))
    return Draft(text, accounts.directors, accounts.players, len(numbered), tuple(todo))


def _rules_todo(name: str | None, ruleset: str | None) -> list[str]:
    """What the director must still say of the game itself: its name, its rules, and who
    elects the sheriff where the ruleset leaves that to roles."""
    todo: list[str] = []
    if name is None:
        todo.append(tr("write the game's name (name)"))
    if ruleset is None:
        todo.append(tr("choose the rules (ruleset; see docs/rulesets.md)"))
    elif PRESETS[ruleset].election_voters:
        roles = "、".join(PRESETS[ruleset].election_voters)
        todo.append(tr("give [roles] (only {roles} elect the sheriff), or [rules] "
                       "election_voters = []", roles=roles))  # fmt: skip
    return todo


def _head_lines(
    threads: Sequence[Thread],
    accounts: _Accounts,
    timezone: str,
    *,
    ruleset: str | None,
    name: str | None,
) -> list[str]:
    """The file's lines before its days: the name, the rules, the clock, who plays, the
    look-alikes left out and the aliases."""
    ids = accounts.ids
    lines = [
        tr("# The game file tally init wrote from {n} thread(s); every key is in\n"
           "# docs/game-file.md. Fill in every TODO (tally refuses the file until then) and check\n"
           "# the roster.", n=len(threads)),
        tr("# The game's name, as the announcements print it (proposed from the threads' titles):"),
        f"name = {_q(name if name is not None else f'{PLACEHOLDER}: {game_name(threads)}')}",
        tr("# The rules, one of (docs/rulesets.md):"),
        *(f'#   "{key}"  ' + tr(about) for key, about in ABOUT.items()),
        f'ruleset = "{ruleset or PLACEHOLDER}"',
        f"timezone = {_q(timezone)}  " + tr("# the forum's clock"),
        tr("# Who started the threads:"),
        f"directors = [{', '.join(_account(d, ids) for d in accounts.directors)}]",
        tr("# Everyone else who posted, in the order they first posted: remove who does not "
           "play,\n# or move them to outsiders.\n# Each with its account id (the uid): a renamed "
           "account stays the player, a look-alike\n# name (bob。 for bob) is another account."),
        _roster(accounts.players, ids),
        *(
            tr("# left out: {entry} reads as {first} to tally (a look-alike account?); its posts "
               "are no player's", entry=_left_out(person, account, accounts.own_ids), first=first)
            for person, account, first in accounts.left_out
        ),
        "outsiders = []",
    ]  # fmt: skip
    lines += [
        tr("# no alias for {name}: its account name {account} reads as {first} to tally",
           name=_q(person), account=_q(account), first=first)
        for person, account, first in accounts.unaliased
    ]  # fmt: skip
    if accounts.aliases:
        lines += ["", "[aliases]  " + tr("# the account names behind the names shown")]
        lines += [f"{_q(name)} = [{_q(account)}]" for name, account in accounts.aliases.items()]
    return lines


def _day_block(
    number: int,
    vote: tuple[Thread, str | None],
    talk: tuple[Thread, str | None] | None,
    zone: tzinfo,
) -> tuple[list[str], list[str]]:
    """A day's ``[[days]]`` block (its threads, its open and close as their first posts
    say), and what of it is left for the director."""
    todo: list[str] = []
    talk_thread = talk[0] if talk is not None else None
    opened = opening(vote[0], talk_thread, zone, translated=True)
    said = announced_close(vote[0], talk_thread, zone)
    if said is not None:
        close = f"closes = {_when(said.at.astimezone(zone))}  " + tr(
            "# as the first post says: {line}", line=_q(said.line))
    else:
        close = f'closes = "{PLACEHOLDER}: the close, like 2024-05-09T21:30:00"'
        todo.append(tr("write day {day}'s closes (no first post says it)", day=number))
    links = [_link(*vote), *([_link(*talk)] if talk is not None else [])]
    if any(link.startswith(PLACEHOLDER) for link in links):
        todo.append(tr("paste day {day}'s thread URLs", day=number))
    lines = [
        "",
        "[[days]]",
        f"day = {number}",
        f"opens = {_when(opened[0].astimezone(zone))}  # {opened[1]}" if opened else "",
        close,
        f"vote = {_q(links[0])}",
    ]
    if talk is not None:
        lines.append(f"discussion = {_q(links[1])}")
    return lines, todo


def opening(
    vote: Thread, talk: Thread | None, zone: tzinfo, *, translated: bool = False
) -> tuple[datetime, str] | None:
    """When a day opens, and what says so: the discussion thread's first post (its 开门 line
    with a date and time, else its time), else the vote thread's first post. What says so
    in English (`tally day add`'s sentences build on it), or ``translated`` for the
    director (the comment tally init writes)."""
    if talk is not None and talk.posts:
        first = talk.posts[0]
        said = announced_open(first.text, first.time, zone)
        if said is not None and said[0] != first.time:
            return said[0], _words(N_("the discussion thread's 开门 line: {line}"), translated,
                                   line=_q(said[1]))  # fmt: skip
        return first.time, _words(N_("the discussion thread's first post"), translated)
    if vote.posts:
        return vote.posts[0].time, _words(N_("the vote thread's first post"), translated)
    return None


def _words(message: str, translated: bool, **fields: str) -> str:
    return tr(message, **fields) if translated else message.format(**fields)


def game_name(threads: Sequence[Thread]) -> str:
    """What the threads' titles share at their start ("[A01] 月下古堡"), without the day
    ("第一天…") or a word cut in two."""
    titles = [t.title.strip() for t in threads if t.title.strip()]
    if not titles:
        return ""
    shared = titles[0]
    for title in titles[1:]:
        while not title.startswith(shared):
            shared = shared[:-1]
    day = _DAY.search(shared)
    if day is not None:
        shared = shared[: day.start()]
    elif len(titles) > 1 and shared not in titles:
        # Cut back to the last separator, so that a word the titles share in part goes.
        cut = max(shared.rfind(c) for c in " ]】)）·-—_")
        shared = shared[: cut + 1] if cut >= 0 else ""
    return shared.strip(" -—_·:：|")


def announced_close(vote: Thread, talk: Thread | None, zone: tzinfo) -> Close | None:
    """The close the vote (else the discussion) thread's first post announces, if any; an
    accelerated close (加速) is not the day's close."""
    for thread in (vote, talk):
        if thread is None or not thread.posts:
            continue
        first = thread.posts[0]
        said = [c for c in announced_closes(first.text, first.time, zone)
                if not c.accelerated]  # fmt: skip
        if said:
            return said[0]
    return None


def _link(thread: Thread, url: str | None) -> str:
    if url is not None:
        return url
    known = by_name(thread.platform).thread_url(thread.thread_id)
    return known or f"{PLACEHOLDER}: the URL of thread {thread.thread_id}"


def _discussion_for(
    number: int, vote: Thread, talks: list[tuple[Thread, str | None]]
) -> tuple[Thread, str | None] | None:
    """The discussion thread of the same day: by the title's day, else the nearest start."""
    for thread, url in talks:
        if day_in_title(thread.title) == number:
            return thread, url
    if not talks or not vote.posts:
        return None
    start = vote.posts[0].time
    return min(
        talks,
        key=lambda tu: abs((tu[0].posts[0].time - start).total_seconds()) if tu[0].posts else 1e18,
    )
