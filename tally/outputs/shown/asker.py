"""Asking the director before a file changes or a post goes: the block proposed shown, then
yes or no on the terminal (no by default), or nobody to ask."""

from __future__ import annotations

import sys

from rich.text import Text

from tally.outputs.shown.streams import Streams


class Asker:
    """Asks on the run's terminal; ``as_json``: standard output is JSON, so what is proposed
    goes to standard error."""

    def __init__(self, streams: Streams, *, as_json: bool = False):
        self.streams, self.as_json = streams, as_json

    def confirm(self, question: str) -> bool | None:
        """Ask yes or no on the terminal (no by default); None when nobody is there to ask
        (standard input or error is no terminal). Asked in Chinese, 是 and 否 answer it too
        (``tally.answers``)."""
        from tally.answers import ask

        env = self.streams.env
        stdin_tty = env.terminal if env.terminal is not None else sys.stdin.isatty()
        if not (env.interactive and stdin_tty):
            return None
        return ask(question, err=True)

    def proposed(self, text: str) -> None:
        """What a command proposes to write (a game file's new day), before it asks: on
        standard output, or on standard error when standard output is JSON."""
        from tally.sanitise import text_block

        out = self.streams.stderr() if self.as_json else self.streams.stdout()
        # The file's own layout (two spaces before a comment) kept; controls made visible.
        out.print(Text(text_block(text).rstrip("\n")), soft_wrap=True)
