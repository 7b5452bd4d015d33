"""The desk served: on 127.0.0.1 only, on ``--port`` or a free port, its address with the key
printed (and opened in the browser), until Ctrl-C. `tally desk` (``tally.commands.desk``)
starts it here: the one import of the desk from the commands, which the desk stands above."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from tally.errors import InputError
from tally.i18n import Choice, tr

if TYPE_CHECKING:
    from tally.environment import Environment
    from tally.forums.reader import Reader
    from tally.rules.game.game import Game

HOST = "127.0.0.1"  # never another interface: the desk posts as the director


class Shows(Protocol):
    def note(self, message: str) -> None: ...

    def text(self, text: str) -> None: ...


def serve(game: Game, reader: Reader, env: Environment, show: Shows, *, port: int | None,
          no_browser: bool, every: float, full_every: int, late_ok: bool,
          template_dir: Path | None, language: Choice) -> None:  # fmt: skip
    """Serve the desk of ``game`` until Ctrl-C (``every`` … ``template_dir``: its reads and
    posts, as the command line gave them; ``language``: the run's, as its settings chose it)."""
    import uvicorn

    from tally.desk.app import make_app
    from tally.desk.guard import new_token
    from tally.desk.state import Desk, Options

    sock = bind(port)
    chosen = sock.getsockname()[1]
    token = new_token()
    the_desk = Desk(game, reader, Options(every, full_every, late_ok, template_dir), language)
    app = make_app(the_desk, token, chosen)
    address = f"http://{HOST}:{chosen}/?token={token}"
    show.text(tr("The desk of {game}: {address}\n(Ctrl-C to stop; the address is the key: "
                 "keep it to yourself.)\n", game=game.name, address=address))  # fmt: skip
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


def bind(port: int | None) -> socket.socket:
    """A listening socket on 127.0.0.1: ``port``, or one the system picks."""
    # IPPROTO_TCP named, not 0: asyncio turns Nagle's algorithm off only on a connection
    # whose socket says TCP (base_events._set_nodelay), and a response's body written after
    # its head then waited for the browser's delayed ACK: 40 ms a request on a kept-alive
    # connection (measured on loopback: 44 ms a page, 6 ms with it).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port or 0))
    except OSError as exc:
        sock.close()
        raise InputError(tr("cannot listen on {host}:{port} ({why}): give another --port, or "
                            "none for a free one.", host=HOST, port=port,
                            why=exc.strerror)) from None  # fmt: skip
    sock.listen(64)
    sock.set_inheritable(True)
    return sock
