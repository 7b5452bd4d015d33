"""`tally config`: the settings a run uses and where each comes from (``tally.settings``
merges them)."""

from __future__ import annotations

from pathlib import Path

from tally.settings import Settings


def config(
    game: object = None,
    *,
    settings: Settings,
    template_dir: Path | None = None,
    timezone: str | None = None,
) -> Settings:
    """`tally config`: the settings as merged for this command line and ``game``'s file
    (which the command loaded, and so checked); the options given are in ``settings``."""
    return settings
