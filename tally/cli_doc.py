"""docs/cli.md, the command line's reference, written from the commands themselves (the rows
of ``tally.cli``: OPTIONS and COMMANDS), as each command's --help prints it, so that the page
cannot drift from what tally takes.

    python -m tally.cli_doc docs/cli.md

tests/test_cli_doc.py writes it again and compares: an option or a command changed in
``tally.cli`` without the page made again fails the suite.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

WIDTH = 88  # the help as an 88-column terminal shows it, whatever this one is

HEAD = """# The command line

Every command and its options, as `tally COMMAND --help` prints them. This page is written
from the commands themselves (`python -m tally.cli_doc docs/cli.md`; a test compares).
"""


def _commands(command: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Each command with its words (``("cards", "add")``), in the order `tally --help`
    lists them, a group before its commands."""
    yield path, command
    for name in getattr(command, "commands", {}):
        yield from _commands(command.commands[name], (*path, name))


def markdown() -> str:
    """The page."""
    import typer

    from tally.cli import app

    root = typer.main.get_command(app)
    parts = [HEAD]
    for path, command in _commands(root, ()):
        words = " ".join(("tally", *path))
        ctx: Any = root.make_context("tally", [], resilient_parsing=True, terminal_width=WIDTH,
                                     max_content_width=WIDTH)  # fmt: skip
        for name in path:  # the context chain, so that the usage line names the whole path
            ctx = ctx.command.commands[name].make_context(name, [], parent=ctx,
                                                          resilient_parsing=True)  # fmt: skip
        text = command.get_help(ctx).rstrip()
        parts.append(f"\n## `{words}`\n\n```text\n{text}\n```\n")
    return "".join(parts)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tally.cli_doc docs/cli.md", file=sys.stderr)
        return 2
    Path(argv[0]).write_text(markdown(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
