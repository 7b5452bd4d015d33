"""What a forum asks of a polite client (``tally.forums.http`` does as asked): robots.txt,
read as search engines read it (the group for tally, else *; its Allow and Disallow rules
with the * and $ wildcards, the longest match winning; its Crawl-delay), and how long a
Retry-After header asks it to wait.
"""

from __future__ import annotations

import email.utils
import re
from datetime import UTC, datetime


class Robots:
    """robots.txt rules for one host, with the * and $ wildcards search engines accept."""

    def __init__(self, text: str, agent: str = "tally"):
        groups: list[tuple[list[str], list[tuple[bool, str]], float | None]] = []
        agents: list[str] = []
        rules: list[tuple[bool, str]] = []
        delay: float | None = None
        for raw in text.splitlines():
            line = raw.split("#", 1)[0].strip()
            if ":" not in line:
                continue
            key, value = (part.strip() for part in line.split(":", 1))
            key = key.lower()
            if key == "user-agent":
                if rules or delay is not None:
                    groups.append((agents, rules, delay))
                    agents, rules, delay = [], [], None
                agents.append(value.lower())
            elif key in ("allow", "disallow") and agents and value:
                # An empty Disallow allows everything: it adds no rule.
                rules.append((key == "allow", value))
            elif key == "crawl-delay" and agents:
                delay = _seconds(value)
        if agents:
            groups.append((agents, rules, delay))
        mine = [g for g in groups if any(x != "*" and x in agent.lower() for x in g[0])]
        if not mine:
            mine = [g for g in groups if "*" in g[0]]
        self.rules = [rule for _, group, _ in mine for rule in group]
        # Crawl-delay: the seconds the forum asks between two requests (tally watch polls
        # no more often); None when it asks nothing.
        delays = [d for _, _, d in mine if d is not None]
        self.crawl_delay: float | None = max(delays) if delays else None

    def allows(self, path_and_query: str) -> bool:
        best: tuple[int, bool] = (-1, True)
        for allow, pattern in self.rules:
            if not pattern:
                continue
            regex = re.escape(pattern).replace(r"\*", ".*")
            if regex.endswith(r"\$"):
                regex = regex[:-2] + "$"
            # The longest matching rule wins; on a tie, Allow does.
            longer = len(pattern) > best[0] or (len(pattern) == best[0] and allow)
            if longer and re.match(regex, path_and_query):
                best = (len(pattern), allow)
        return best[1]


def _seconds(value: str) -> float | None:
    """A Crawl-delay value: a number of seconds; anything else is no rule."""
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if 0 <= seconds <= 86400 else None


def retry_after(value: str, now: datetime) -> float | None:
    """Seconds a Retry-After header asks for: a number or an HTTP date; None if unreadable.

    Total: any text gives a number or None (a date without a zone, "-0000", is UTC; a
    digit that is not ASCII is no number).
    """
    text = value.strip()
    if re.fullmatch(r"[0-9]+", text):
        # However many digits: 10^30 seconds is beyond the ceiling and stops the read, it is
        # not a header to ignore.
        return float(text) if len(text) < 300 else float("inf")
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None:  # pragma: no cover - older Pythons return None instead of raising
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    try:
        return max(0.0, (when - now).total_seconds())
    except OverflowError:  # pragma: no cover - a date at the edge of datetime's range
        return None
