"""`tally desk --game game.toml`: the desk (``tally.desk``) served on 127.0.0.1 (a free port
unless ``--port``), its address with the token printed and opened in the browser."""

from __future__ import annotations

from pathlib import Path

from tally.desk.serve import HOST, Shows, bind
from tally.environment import Environment
from tally.errors import InputError
from tally.forums.reader import Reader
from tally.rules.game.game import Game


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
) -> None:
    """Serve the desk until Ctrl-C."""
    import uvicorn

    from tally.desk.app import make_app
    from tally.desk.guard import new_token
    from tally.desk.state import Desk, Options

    if template_dir is not None and not template_dir.is_dir():
        raise InputError(f"the template folder {template_dir} does not exist.")
    sock = bind(port)
    chosen = sock.getsockname()[1]
    token = new_token()
    the_desk = Desk(game, reader, Options(every, full_every, late_ok, template_dir))
    app = make_app(the_desk, token, chosen)
    address = f"http://{HOST}:{chosen}/?token={token}"
    show.text(f"The desk of {game.name}: {address}\n(Ctrl-C to stop; the address is the key: "
              "keep it to yourself.)\n")  # fmt: skip
    env.out.flush()
    if not no_browser:
        import webbrowser

        webbrowser.open(address)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        the_desk.close()
        sock.close()
