"""A first game file, written from a game's threads (`tally init`).

What the threads tell: the forum's clock (China time unless told), the director (who
started the threads), the players (everyone else who posted, in the order they first
posted), and the days (one per vote thread, numbered by the thread's title, opening at its
first post, with the discussion thread of the same day). What only the director knows, the
close of each day, is a placeholder the loader refuses until it is filled in.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from tally.forums import by_name
from tally.model import Thread
from tally.rules.ballot_text import read_ballot
from tally.rules.gamefile import PLACEHOLDER
from tally.rules.rulesets import PRESETS

_NUMERALS = {c: i for i, c in enumerate("零一二三四五六七八九", start=0)}
_DAY_IN_TITLE = re.compile(
    r"第\s*([0-9]+|[零一二三四五六七八九十百]+)\s*[天日轮]|\b[Dd](?:ay)?\s*([0-9]+)\b"
)


def chinese_number(text: str) -> int | None:
    """第二天 -> 2, 第十二天 -> 12, 第3天 -> 3."""
    if text.isdigit():
        return int(text)
    total, current = 0, 0
    for c in text:
        if c == "百":
            total += (current or 1) * 100
            current = 0
        elif c == "十":
            total += (current or 1) * 10
            current = 0
        elif c in _NUMERALS:
            current = _NUMERALS[c]
        else:
            return None
    return total + current or None


def day_in_title(title: str) -> int | None:
    m = _DAY_IN_TITLE.search(title)
    if m is None:
        return None
    return chinese_number(m.group(1)) if m.group(1) else int(m.group(2))


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


def _q(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(value, ensure_ascii=False)


def _when(value: datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%S")


def draft(threads: Sequence[Thread], urls: Sequence[str | None], timezone: str) -> Draft:
    """The game file's text for these threads (``urls``: where each was read, or None)."""
    starters = Counter(t.posts[0].author for t in threads if t.posts)
    directors = tuple(name for name, _ in starters.most_common(1))
    first_seen: dict[str, tuple[datetime, str | None]] = {}
    for thread in threads:
        for w in thread.writings():
            if w.author in directors:
                continue
            seen = first_seen.get(w.author)
            if seen is None or w.time < seen[0]:
                first_seen[w.author] = (w.time, w.author_display)
    order = sorted(first_seen, key=lambda a: first_seen[a][0])
    # Tieba: the name shown is the one players know; the account name becomes an alias.
    shown = {a: first_seen[a][1] or a for a in order}
    players = tuple(shown[a] for a in order)
    aliases = {shown[a]: a for a in order if shown[a] != a}

    located = [(t, u) for t, u in zip(threads, urls, strict=True)]
    votes = [(t, u) for t, u in located if is_vote_thread(t)]
    talks = [(t, u) for t, u in located if not is_vote_thread(t)]
    votes.sort(key=lambda tu: tu[0].posts[0].time if tu[0].posts else datetime.max)
    numbered = [(day_in_title(t.title) or i, t, u) for i, (t, u) in enumerate(votes, start=1)]

    lines = [
        f"# The game file tally init wrote from {len(threads)} thread(s); every key is in",
        "# docs/game-file.md. Check the roster, then fill in each day's close.",
        f"name = {_q(threads[0].title if threads else 'game')}",
        "# The rules: " + ", ".join(f'"{p}"' for p in PRESETS) + " (one per seed game).",
        'ruleset = "default"',
        f"timezone = {_q(timezone)}  # the forum's clock",
        f"directors = [{', '.join(_q(d) for d in directors)}]  # who started the threads",
        "# Everyone else who posted, in the order they first posted: remove who does not play,",
        "# or move them to outsiders.",
        f"players = [{', '.join(_q(p) for p in players)}]",
        "outsiders = []",
    ]
    if aliases:
        lines += ["", "[aliases]  # the account names behind the names shown"]
        lines += [f"{_q(name)} = [{_q(account)}]" for name, account in aliases.items()]
    for number, vote, url in numbered:
        talk = _discussion_for(number, vote, talks)
        opens = vote.posts[0].time if vote.posts else None
        lines += [
            "",
            "[[days]]",
            f"day = {number}",
            f"opens = {_when(opens)}  # the vote thread's first post" if opens else "",
            f'closes = "{PLACEHOLDER}: the close, like 2024-05-09T21:30:00"',
            f"vote = {_q(_link(vote, url))}",
        ]
        if talk is not None:
            lines.append(f"discussion = {_q(_link(*talk))}")
    text = "\n".join(line for line in lines if line is not None) + "\n"
    return Draft(text, directors, players, len(numbered))


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
