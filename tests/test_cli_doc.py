"""docs/cli.md is the commands' own --help: written from tally.cli's rows, compared here."""

from __future__ import annotations

from pathlib import Path

import pytest

from tally.cli import CARDS, COMMANDS, DAY, OPTIONS, TEMPLATES
from tally.cli_doc import markdown
from tally.i18n import Language

ROOT = Path(__file__).resolve().parent.parent


def test_the_cli_reference_is_written_from_the_commands():
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert page == markdown(), "docs/cli.md is stale: run python -m tally.cli_doc docs/cli.md"


def test_the_chinese_cli_reference_is_written_from_the_commands():
    page = (ROOT / "docs" / "zh" / "cli.md").read_text(encoding="utf-8")
    assert page == markdown(Language.ZH), (
        "docs/zh/cli.md is stale: run TALLY_LANG=zh python -m tally.cli_doc docs/zh/cli.md")
    # The commands' words are Chinese; what the director types is not translated.
    assert "用法：tally votes [OPTIONS] URL-OR-FILE..." in page and "--game FILE" in page
    assert "Options:" not in page and "Show this message and exit." not in page


@pytest.mark.parametrize("language", list(Language))
def test_the_reference_names_every_command_and_option(language):
    page = markdown(language)
    groups = {"": COMMANDS, "cards ": CARDS, "templates ": TEMPLATES, "day ": DAY}
    for prefix, rows in groups.items():
        for row in rows:
            assert f"## `tally {prefix}{row.name}`" in page, row.name
            for key in row.takes:
                for flag in OPTIONS[key].flags:
                    assert flag.split("/")[0] in page, (row.name, flag)


def test_readme_points_at_the_reference():
    assert "docs/cli.md" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_chinese_help_is_wrapped_by_the_columns_a_terminal_gives_it():
    """click wraps at spaces, counting characters; a Chinese sentence has no space and each
    of its characters takes two columns: every line of the Chinese help fits the page's 88
    columns (an example, a command line written as one, aside), and no line starts with a
    closing mark or splits a floor's number from 楼."""
    import unicodedata

    def columns(line: str) -> int:
        return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)

    lines = markdown(Language.ZH).splitlines()
    assert [ln for ln in lines if columns(ln) > 88 and "示例：" not in ln] == []
    assert not [ln for ln in lines if ln.lstrip()[:1] in tuple("，。；：、）")]
    assert not [ln for ln in lines if ln.lstrip().startswith("楼")]
    assert "  day        从当天的帖子给游戏文件加上下一天。" in lines
