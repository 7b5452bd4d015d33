"""What each command made, as one value: the commands return these, and the terminal shows
them (a table, JSON, a sentence) by their type, whatever command made them.

Each carries the warnings its making raised (``warnings``), so that no command prints
them itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tally.errors import TallyError
    from tally.forums.fields import Diagnosis
    from tally.model import Thread
    from tally.outputs.written.database import Written
    from tally.outputs.written.draft import Draft
    from tally.rules.cards.ledger import LedgerView
    from tally.rules.cards.lurkers import DayCheck
    from tally.rules.counting.announced import Close
    from tally.rules.counting.votes import DayResult
    from tally.vocabulary import Announcement


@dataclass(frozen=True)
class Counted:
    """`tally votes`: the day counted, with its announcement and picture when asked for."""

    result: DayResult
    announcement: str | None = None
    chart: Path | None = None
    chart_warning: str | None = None

    @property
    def warnings(self) -> tuple[str, ...]:
        return (*self.result.warnings, *filter(None, [self.chart_warning]))


@dataclass(frozen=True)
class Lurked:
    """`tally lurkers`: the day's posts, cards and flags, and the ledger with its cards."""

    check: DayCheck
    ledger: LedgerView

    @property
    def warnings(self) -> tuple[str, ...]:
        return self.check.warnings

    @property
    def failure(self) -> TallyError | None:
        """Cards in doubt in the ledger (tally's, the check no longer gives them): the table
        and the JSON are shown, then this sentence, and the run exits 2, as for a game file
        the counts contradict: the ledger beside it needs the director's call."""
        doubts = self.ledger.doubts
        if not doubts:
            return None
        from tally.errors import InputError

        return InputError(
            f"{len(doubts)} card(s) in the ledger {self.ledger.path} are in doubt (tally's "
            "check no longer gives them; no escalation or send-off rests on them until you "
            "decide): "
            + "; ".join(f"{d.card.player} {d.card.rule} of day {d.card.day}" for d in doubts)
            + " — remove or keep each with the commands above."
        )

    @property
    def exit_status(self) -> int:
        return self.failure.exit_code if self.failure is not None else 0


@dataclass(frozen=True)
class Announced:
    """`tally announce`: the post to paste; with --post, the post made (``posted``) or why
    not (``failure``: the command fails with it, after the text is shown to paste)."""

    text: str
    warnings: tuple[str, ...] = ()
    posted: Posted | None = None
    failure: TallyError | None = None
    # The text as --post sends it (tally.commands.sent_text.final_text: tally's mark on its last
    # line), to show before a post is asked for (the desk); None when it is the text itself.
    as_posted: str | None = None

    @property
    def exit_status(self) -> int:
        return self.failure.exit_code if self.failure is not None else 0


@dataclass(frozen=True)
class Archived:
    """`tally archive`: the threads read, the CSV rows written, the database."""

    threads: list[Thread]
    csv: Path | None  # None: no CSV asked for
    rows: int | None
    db: Path | None  # None: no database asked for
    database: Written | None
    days: tuple[int, ...]  # the closed days whose ballots went into the database
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Reported:
    """`tally report`: the closed days drawn, the days still open, the bytes written."""

    path: Path
    days: tuple[int, ...]
    pending: tuple[int, ...]
    size: int
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Drafted:
    """`tally init`: the first game file, where it was written."""

    path: Path
    draft: Draft
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Proposal:
    """The block ``tally day add`` proposes: what it says, where each time comes from, what
    the days before made, and what is left for the director (``todo``)."""

    day: int
    discussion: str
    vote: str
    opens: datetime
    opens_from: str
    closes: datetime | None
    closes_from: str
    accelerated_close: Close | None
    sheriff: str | None
    sheriff_how: str
    out: tuple[tuple[str, str], ...]  # (player, how)
    unchecked: tuple[str, ...]
    block: str
    todo: tuple[str, ...]
    deputy: str | None = None  # carried from the days before (None: none, or asked)
    deputy_how: str = ""


@dataclass(frozen=True)
class DayAdded:
    """`tally day add`: the day's block as proposed, appended to the game file."""

    path: Path
    proposal: Proposal
    written: bool
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Diagnosed:
    """`tally doctor`: one page read field by field; the command fails when it is no
    thread page (4) or an essential field is missing (5)."""

    diagnosis: Diagnosis
    warnings: tuple[str, ...] = ()

    @property
    def exit_status(self) -> int:
        from tally.errors import ExitStatus

        if self.diagnosis.problem is not None:
            return ExitStatus.NOT_A_THREAD
        return ExitStatus.UNREADABLE if self.diagnosis.missing else ExitStatus.OK


@dataclass(frozen=True)
class Exported:
    """`tally templates export`: the built-in templates copied into a folder."""

    folder: Path
    files: tuple[Path, ...]
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Posted:
    """A post tally made, where, when, and whether the forum shows what was sent."""

    kind: Announcement
    day: int
    pid: str
    url: str  # the post's own link
    thread_url: str
    at: datetime  # in the game's zone
    member: str  # the account it was posted as
    floor: int | None  # the floor the forum gave it, once read back
    difference: str | None  # None: the forum shows what was sent
    # How it was sent: "api" (the platform's client interface), "form" (the page's reply form).
    via: str = "form"

    @property
    def read_back(self) -> bool:
        return self.difference is None
