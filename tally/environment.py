"""What a run of the `tally` command takes from the world, in one place.

The clock decides whether a day has closed; the HTTP settings decide how politely the
forum is read. The command builds the real ones; tests hand in their own (a fixed clock,
no politeness delay) through ``CliRunner.invoke(app, args, obj=Environment(...))``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tally.forums.http import HttpOptions


def system_clock() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class Environment:
    # What time it is now, as an aware datetime.
    clock: Callable[[], datetime] = system_clock
    # None: tally's defaults (tally.http.HttpOptions); --cookies is applied on top.
    http: HttpOptions | None = None

    def now(self) -> datetime:
        return self.clock()
