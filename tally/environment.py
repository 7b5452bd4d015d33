"""What a run of tally takes from the world, in one place: the clocks, how to wait, the
streams, whether a person is watching, the limits of talking to a forum.

The command builds the real one; tests hand in their own (a fixed clock, no politeness
delay, a cache folder of their own) through ``CliRunner.invoke(app, args, obj=Environment(...))``,
and a program that embeds the library passes one to the commands (``tally.commands``).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from tally.forums.http import HttpOptions


def system_clock() -> datetime:
    return datetime.now(UTC)


def _http_defaults() -> HttpOptions:
    from tally.forums.http import HttpOptions

    return HttpOptions()


@dataclass(frozen=True)
class Environment:
    # What time it is now, as an aware datetime.
    clock: Callable[[], datetime] = system_clock
    # A clock that never goes back, in seconds: the gaps between requests, a request's
    # deadline. Tests pass one that moves with their ``clock`` and ``sleep``.
    monotonic: Callable[[], float] = time.monotonic
    # How to reach forums: limits, politeness delay, retries.
    http: HttpOptions = field(default_factory=_http_defaults)
    # The streams; None: sys.stdout / sys.stderr as they are when used.
    stdout: TextIO | None = None
    stderr: TextIO | None = None
    # Whether a person watches standard error (a progress bar); None: ask the stream.
    terminal: bool | None = None
    # Whether standard output is a screen a person watches (tally watch redraws it in
    # place; otherwise it prints a JSON line per poll); None: ask the stream.
    screen: bool | None = None
    # How to wait (between polls, before a retry, between two requests to one host); tests
    # pass one that moves their clock at once.
    sleep: Callable[[float], None] = time.sleep

    def now(self) -> datetime:
        return self.clock()

    @property
    def out(self) -> TextIO:
        return self.stdout or sys.stdout

    @property
    def err(self) -> TextIO:
        return self.stderr or sys.stderr

    @property
    def interactive(self) -> bool:
        if self.terminal is not None:
            return self.terminal
        return bool(getattr(self.err, "isatty", lambda: False)())

    @property
    def on_screen(self) -> bool:
        if self.screen is not None:
            return self.screen
        return bool(getattr(self.out, "isatty", lambda: False)())
