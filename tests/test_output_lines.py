"""A line tally prints (``tally.outputs.shown.console.line``: every sentence ``say`` prints,
the narrow terminal's ballots) is the bytes rich's ``print(text, soft_wrap=True)`` writes:
on a file or a pipe written as its characters, on a terminal in colour, under a live
display, or inside ``with console`` by rich itself."""

from __future__ import annotations

import io

import pytest
from rich.console import Console, RenderableType, RenderHook
from rich.text import Text

from tally.outputs.shown.console import line, say

LINES = [
    "",
    "Day 2 vote (ruleset 000), thread 102 “第二天投票”: 2 page(s), 17 posts",
    "    12  甲  ballot 乙  08 10:00  counted",
    "Mika🐺 投票对象：[red]乙[/red] :smile: [link=http://x]y[/link]",
    "a line far wider than any terminal, " * 8,
    "  trailing spaces   ",
    "a\ttab",
    "控制\x07字符\x1b[31m",
    "零宽\u200b字符 e\u0301",
]


def rich_wrote(text: Text, **kw: object) -> str:
    out = io.StringIO()
    Console(file=out, highlight=False, **kw).print(text, soft_wrap=True)  # type: ignore[arg-type]
    return out.getvalue()


def line_wrote(text: Text, **kw: object) -> str:
    out = io.StringIO()
    line(Console(file=out, highlight=False, **kw), text)  # type: ignore[arg-type]
    return out.getvalue()


def styled(words: str) -> Text:
    return Text("  12  ") + Text(words, style="bold red") + Text(" counted", style="green")


@pytest.mark.parametrize("words", LINES)
def test_a_line_to_a_file_is_what_rich_writes(words):
    for text in (Text(words), Text(words, style="bold yellow"), styled(words)):
        assert line_wrote(text) == rich_wrote(text)
        assert line_wrote(text, width=40) == rich_wrote(text, width=40)


@pytest.mark.parametrize("words", LINES)
def test_a_line_in_colour_is_rich_s(words):
    text = styled(words)
    coloured = line_wrote(text, force_terminal=True, color_system="standard")
    assert coloured == rich_wrote(text, force_terminal=True, color_system="standard")
    assert "\x1b[" in coloured


def test_a_quiet_console_writes_nothing():
    assert line_wrote(Text("said"), quiet=True) == ""


def test_under_a_live_display_a_line_goes_through_it():
    class Hook(RenderHook):
        def __init__(self) -> None:
            self.seen: list[RenderableType] = []

        def process_renderables(self, renderables: list[RenderableType]) -> list[RenderableType]:
            self.seen.extend(renderables)
            return renderables

    out = io.StringIO()
    console, hook = Console(file=out, highlight=False), Hook()
    console.push_render_hook(hook)
    say(console, "\nheading")
    assert [str(r) for r in hook.seen] == ["", "heading"] and out.getvalue() == "\nheading\n"


def test_inside_with_console_lines_are_written_at_its_end():
    out = io.StringIO()
    console = Console(file=out, highlight=False)
    with console:
        say(console, "first")
        line(console, Text("second"))
        assert out.getvalue() == ""
    assert out.getvalue() == "first\nsecond\n"
