"""Who follows a `tally watch`: the ``Watcher`` protocol (what the watch calls as it goes),
and the terminal's two watchers, the live screen and a JSON line per poll.

A watch takes any number of watchers; the terminal is one. A new live output (a web page of
the count, a log) is one more module with these five methods, handed to the watch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from tally.outputs.shown.display import tell_posted
from tally.outputs.shown.json_output import poll_json, posted_json
from tally.outputs.shown.live import LiveScreen
from tally.outputs.shown.streams import Streams

if TYPE_CHECKING:
    from tally.outputs.results import Posted
    from tally.rules.counting.polls import Poll
    from tally.rules.game.game import Game


class Watcher(Protocol):
    """What a watch calls: ``start`` once, ``poll`` at every poll, ``tick`` once a second
    while it waits between polls when the watcher ``ticks`` (clocks on a screen), ``posted``
    for each post it made, ``stop`` at the end."""

    ticks: bool

    def start(self, game: Game) -> None:
        """The watch of ``game``'s vote begins."""

    def poll(self, poll: Poll) -> None: ...

    def tick(self) -> None:
        """A second passed while the watch waits for its next poll."""

    def stop(self, last: Poll | None, *, interrupted: bool = False) -> None:
        """The watch is over: the final count, or the last good one after Ctrl-C."""

    def posted(self, posted: Posted) -> None:
        """A post the watch made (--post, --remind-at)."""


class LiveWatcher:
    """The watch on a screen a person watches: the live screen, redrawn each second; a post
    made is a line under it."""

    ticks = True

    def __init__(self, streams: Streams):
        self.streams = streams
        self.screen: LiveScreen | None = None

    def start(self, game: Game) -> None:
        self.screen = LiveScreen(self.streams.stdout(), game, self.streams.env)

    def poll(self, poll: Poll) -> None:
        if self.screen is not None:
            self.screen.show(poll)
        for note in poll.notes:  # a line under the screen, as a post made is: it stays
            self.streams.note(note)

    def tick(self) -> None:
        if self.screen is not None:
            self.screen.draw()

    def stop(self, last: Poll | None, *, interrupted: bool = False) -> None:
        if self.screen is not None:
            self.screen.close(last, interrupted=interrupted)

    def posted(self, posted: Posted) -> None:
        tell_posted(posted, self.streams, line=True)


class JsonLines:
    """The watch off a screen, or with --json: a JSON line per poll, and one per post made."""

    ticks = False

    def __init__(self, streams: Streams):
        self.streams = streams

    def start(self, game: Game) -> None:
        pass

    def poll(self, poll: Poll) -> None:
        self.streams.json_line(poll_json(poll))

    def tick(self) -> None:
        pass

    def stop(self, last: Poll | None, *, interrupted: bool = False) -> None:
        pass

    def posted(self, posted: Posted) -> None:
        self.streams.json_line({"posted": posted_json(posted)})
        tell_posted(posted, self.streams, line=False)  # a difference, never hidden


def terminal_watcher(streams: Streams, *, as_json: bool = False) -> Watcher:
    """The terminal's watcher: the live screen when standard output is a screen a person
    watches and JSON was not asked for, else a JSON line per poll."""
    if not as_json and streams.env.on_screen:
        return LiveWatcher(streams)
    return JsonLines(streams)
