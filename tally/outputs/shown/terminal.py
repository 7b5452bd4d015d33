"""What a command shows the person running it: one ``Terminal`` per run.

The terminal is the run's streams (``Streams``: standard output and error, warnings,
progress) with its sink chosen once (``as_json``): every result a command returns
(``tally.outputs.results``, a ``DayResult``, …) is handed to ``show``, which prints its
warnings and then the result as tables and sentences (``tally.outputs.shown.display``) or
as JSON (``tally.outputs.shown.json_output``), as gallery-dl hands its results to
interchangeable output handlers. Asking the director is its ``Asker``'s; following a watch,
its ``watcher()``'s.
"""

from __future__ import annotations

from typing import Any

from tally.environment import Environment
from tally.outputs.shown import display
from tally.outputs.shown.asker import Asker
from tally.outputs.shown.json_output import to_json
from tally.outputs.shown.streams import Streams
from tally.outputs.shown.watchers import Watcher, terminal_watcher


class Terminal(Streams):
    def __init__(
        self,
        env: Environment,
        *,
        quiet: bool = False,
        as_json: bool = False,
        color: bool | None = None,
    ):
        super().__init__(env, quiet=quiet, color=color)
        self.as_json = as_json
        self.asker = Asker(self, as_json=as_json)

    def show(self, result: Any) -> None:
        """A command's result: its warnings, then the result as the run prints results."""
        for warning in getattr(result, "warnings", ()):
            self.warn(warning)
        if self.as_json:
            self.json(to_json(result))
        else:
            display.show(result, self)

    def confirm(self, question: str) -> bool | None:
        return self.asker.confirm(question)

    def proposed(self, text: str) -> None:
        self.asker.proposed(text)

    def watcher(self) -> Watcher:
        """How this terminal follows a watch: the live screen, or a JSON line per poll."""
        return terminal_watcher(self, as_json=self.as_json)
