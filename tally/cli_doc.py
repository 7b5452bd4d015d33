"""docs/cli.md, the command line's reference, written from the commands themselves (the rows
of ``tally.cli``: OPTIONS and COMMANDS), as each command's --help prints it, so that the page
cannot drift from what tally takes.

    python -m tally.cli_doc docs/cli.md
    TALLY_LANG=zh python -m tally.cli_doc docs/zh/cli.md

The page is written in the run's language (``TALLY_LANG``, as every command): docs/zh/cli.md
is the same page in Chinese. tests/test_cli_doc.py writes both again and compares: an option
or a command changed in ``tally.cli`` (or its words in a catalog) without the pages made again
fails the suite.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tally import i18n
from tally.i18n import Language

WIDTH = 88  # the help as an 88-column terminal shows it, whatever this one is

# The page's head in each language (the docs' words, not the catalog's: no command says them).
HEADS = {
    Language.EN: """# The command line

Every command and its options, as `tally COMMAND --help` prints them. This page is written
from the commands themselves (`python -m tally.cli_doc docs/cli.md`; a test compares).
In Chinese (中文版): [zh/cli.md](zh/cli.md).
""",
    Language.ZH: """# 命令行

每个命令和它的选项，和 `tally 命令 --help` 显示的一样。本页由命令本身写出
（`TALLY_LANG=zh python -m tally.cli_doc docs/zh/cli.md`；有测试比对）。
英文版：[../cli.md](../cli.md)。
""",
}


def _commands(command: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Each command with its words (``("cards", "add")``), in the order `tally --help`
    lists them, a group before its commands."""
    yield path, command
    for name in getattr(command, "commands", {}):
        yield from _commands(command.commands[name], (*path, name))


def markdown(language: Language | None = None) -> str:
    """The page, in ``language`` (by default the run's)."""
    with i18n.speaking(language or i18n.current()):
        return _page(HEADS[i18n.current()])


def _page(head: str) -> str:
    import typer

    from tally.cli import app

    root = typer.main.get_command(app)
    parts = [head]
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
    if len(argv) != 1 or argv[0].startswith("-"):  # --help is no file to write over
        print("usage: [TALLY_LANG=zh] python -m tally.cli_doc docs/cli.md", file=sys.stderr)
        return 2
    Path(argv[0]).parent.mkdir(parents=True, exist_ok=True)
    Path(argv[0]).write_text(markdown(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
