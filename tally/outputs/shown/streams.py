"""Standard output and standard error of one run, as the director reads them: tables and the
text to paste go to standard output; progress, warnings, where pages came from and the
one-sentence errors go to standard error. Everything a forum user wrote is sanitised on the
way (``tally.outputs.shown.console.say``), JSON included (``json_text``).

What a command needs is imported when it is used (rich, the tables): `tally --help` and a
command that fails at its first check start in a fraction of a second.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from tally.environment import Environment

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress as RichProgress

    from tally.model import Thread


def settle_streams() -> None:
    """Standard output and error as any terminal or file can take them. Sent to a file or a
    pipe, the text is UTF-8 whatever the locale: Windows would write its code page (GBK on
    a Chinese one), which holds no 🐺, and `tally announce … > post.txt` would end in a
    traceback, the file half written. On a terminal, the terminal's own encoding, with a
    character it cannot show escaped (\\U0001f43a) rather than a traceback."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None:  # pragma: no cover - replaced by an embedding program
            continue
        try:
            screen = stream.isatty()
        except ValueError:  # pragma: no cover - closed
            continue
        if screen:
            reconfigure(errors="backslashreplace")
        else:
            reconfigure(encoding="utf-8", errors="backslashreplace")


class Streams:
    """The run's standard output and error (the environment's), with its --quiet and its
    colour; a warning said once however many times it is raised."""

    def __init__(self, env: Environment, *, quiet: bool = False, color: bool | None = None):
        self.env = env
        self.quiet = quiet
        # False: no colour (--no-color, color = false); None: rich's choice (NO_COLOR, a
        # terminal or not); True: colour, NO_COLOR or not.
        self.color = color
        self._warned: set[str] = set()

    def stdout(self) -> Console:
        from rich.console import Console

        return Console(file=self.env.out, highlight=False, no_color=self._no_color)

    def stderr(self) -> Console:
        from rich.console import Console

        return Console(
            file=self.env.err, highlight=False, soft_wrap=True, no_color=self._no_color
        )

    @property
    def _no_color(self) -> bool | None:
        return None if self.color is None else not self.color

    def error(self, message: str) -> None:
        from tally.outputs.shown.console import say

        # The sentence may quote what a forum user wrote (an author, a title): sanitised.
        say(self.stderr(), f"tally: {message}")

    def warn(self, message: str) -> None:
        """A warning, once a run however many times it is raised."""
        if message not in self._warned:
            self._warned.add(message)
            from tally.i18n import tr

            self.error(tr("warning: {message}", message=message))

    def note(self, message: str) -> None:
        """A line on standard error that --quiet silences."""
        if not self.quiet:
            from tally.outputs.shown.console import say

            say(self.stderr(), message)

    def thread_read(self, thread: Thread) -> None:
        from tally.forums.built import summary

        self.note(summary(thread))

    def json(self, data: Any) -> None:
        from tally.outputs.shown.indented_json import dumps
        from tally.sanitise import json_text

        # json.dumps(data, ensure_ascii=False, indent=2)'s text, in half its time.
        self.env.out.write(json_text(dumps(data)) + "\n")

    def json_line(self, data: Any) -> None:
        """One JSON object on one line, flushed (tally watch: a line per poll)."""
        from tally.sanitise import json_text

        self.env.out.write(json_text(json.dumps(data, ensure_ascii=False)) + "\n")
        self.env.out.flush()

    def text(self, text: str) -> None:
        """Text to paste (an announcement): as it is, never wrapped at the terminal width."""
        self.env.out.write(text)

    @contextmanager
    def progress(self) -> Iterator[_Bar | None]:
        """A progress bar on standard error while pages are fetched; none off a terminal,
        none with --quiet. Drawn from the first page on, gone when the command ends."""
        if self.quiet or not self.env.interactive:
            yield None
            return
        bar = _Bar(self.stderr())
        try:
            yield bar
        finally:
            bar.stop()


class _Bar:
    """A rich progress bar that appears with the first page fetched."""

    def __init__(self, console: Console):
        self.console = console
        self.bar: RichProgress | None = None
        self.task: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            from tally.i18n import tr

            self.bar = Progress(
                TextColumn(tr("fetching pages")),
                BarColumn(),
                MofNCompleteColumn(),
                console=self.console,
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task("pages", total=None)
        self.bar.update(self.task, completed=done, total=total)
        if done >= total:
            # Gone once the thread is read: the next thread gets a bar of its own, and
            # tally watch's live screen never shares the terminal with it.
            self.stop()

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None
