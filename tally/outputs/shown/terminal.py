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

from typing import TYPE_CHECKING, Any

from tally.environment import Environment
from tally.outputs.shown.streams import Streams

if TYPE_CHECKING:
    from tally.outputs.shown.asker import Asker
    from tally.outputs.shown.watchers import Watcher


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
        self._asker: Asker | None = None

    def show(self, result: Any) -> None:
        """A command's result: its warnings, then the result as the run prints results."""
        for warning in getattr(result, "warnings", ()):
            self.warn(warning)
        # Imported here, as each is needed: a run loads the tables or the JSON, not both.
        if self.as_json:
            from tally.outputs.shown.json_output import to_json

            self.json(to_json(result))
        else:
            from tally.outputs.shown import display

            display.show(result, self)

    @property
    def asker(self) -> Asker:
        if self._asker is None:
            from tally.outputs.shown.asker import Asker

            self._asker = Asker(self, as_json=self.as_json)
        return self._asker

    def confirm(self, question: str) -> bool | None:
        return self.asker.confirm(question)

    def proposed(self, text: str) -> None:
        self.asker.proposed(text)

    def watcher(self) -> Watcher:
        """How this terminal follows a watch: the live screen, or a JSON line per poll."""
        from tally.outputs.shown.watchers import terminal_watcher

        return terminal_watcher(self, as_json=self.as_json)
