"""`tally desk --game game.toml`: the desk (``tally.desk``) served on 127.0.0.1 (a free port
unless ``--port``), its address with the token printed and opened in the browser.

The desk stands a stage above the commands (it calls them, as the command line does); this
module starts it, the one import of the desk from the commands."""

from __future__ import annotations

from pathlib import Path

from tally.desk.serve import Shows, serve
from tally.environment import Environment
from tally.errors import InputError
from tally.forums.reader import Reader
from tally.i18n import tr
from tally.rules.game.game import Game
from tally.settings import Settings


def desk(
    game: Game,
    *,
    port: int | None = None,
    no_browser: bool = False,
    every: float = 60.0,
    full_every: int = 10,
    late_ok: bool = False,
    template_dir: Path | None = None,
    reader: Reader,
    env: Environment,
    show: Shows,
    settings: Settings,
) -> None:
    """Serve the desk until Ctrl-C."""
    if template_dir is not None and not template_dir.is_dir():
        raise InputError(tr("the template folder {folder} does not exist.", folder=template_dir))
    serve(game, reader, env, show, port=port, no_browser=no_browser, every=every,
          full_every=full_every, late_ok=late_ok, template_dir=template_dir,
          language=settings.language)  # fmt: skip
