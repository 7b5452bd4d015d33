"""`tally init`: a first game file from the game's threads."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tally.commands.checks import check_output, zone
from tally.errors import InputError
from tally.forums.getting import is_url
from tally.forums.reader import Reader
from tally.i18n import N_, tr
from tally.outputs.results import Drafted
from tally.settings import DEFAULT_ZONE


def init(
    sources: Sequence[str],
    output: Path,
    *,
    timezone: str = DEFAULT_ZONE,
    ruleset: str | None = None,
    name: str | None = None,
    reader: Reader,
) -> Drafted:
    """`tally init`: a first game file from the game's threads; never over an existing file.
    ``ruleset`` and ``name``, when given, are written instead of placeholders."""
    from tally.atomic import write_atomic
    from tally.outputs.written.draft import draft
    from tally.rules.game.gamefile import RULESETS

    if ruleset is not None and ruleset not in RULESETS:
        raise InputError(tr("--ruleset {ruleset!r} is not one of {rulesets}.", ruleset=ruleset,
                              rulesets=tr(", ").join(RULESETS)))
    if name is not None and not name.strip():
        raise InputError(tr("--name is empty; give the game's name as the announcements print it."))
    check_output(output, N_("game file"), overwrite=False)
    threads = reader.read(sources, zone(timezone))
    urls = [t.url if is_url(t.url) else None for t in threads]
    written = draft(threads, urls, timezone, ruleset=ruleset,
                    name=name.strip() if name else None)  # fmt: skip
    write_atomic(output, written.text.encode("utf-8"))
    return Drafted(output, written)
