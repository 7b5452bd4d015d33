"""Yes or no at the terminal, in the director's words: before a game file changes (`tally day
add`) or a post goes (`--post`). click's own question takes y/yes/n/no alone; a director asked
in Chinese answers 是 or 否 (or 好, 不, an input method's full-width ｙ), and is understood
whatever language the question was asked in: an answer is never misread as the other one,
only asked again.
"""

from __future__ import annotations

import unicodedata

from tally.i18n import tr

YES = frozenset({"y", "yes", "是", "是的", "好", "好的", "对", "要", "确定", "确认", "发", "发布",
                 "加", "添加"})  # fmt: skip
NO = frozenset({"n", "no", "否", "不", "不是", "不要", "不用", "取消", "算了", "别"})


def answer(said: str) -> bool | None:
    """What an answer says: True for yes, False for no, None for neither (asked again).
    Full-width letters (ｙ), case and spaces aside; a trailing full stop or 。 too."""
    word = unicodedata.normalize("NFKC", said).strip().lower().rstrip(".。!！").strip()
    if word in YES:
        return True
    if word in NO:
        return False
    return None


def ask(question: str, *, err: bool = True) -> bool:
    """Ask ``question`` until it is answered; no by default (an empty answer). Ctrl-C or the
    end of input is typer's Abort, as click's own question raises it."""
    import typer

    prompt = question + " " + tr("[y/N]")
    while True:
        said = typer.prompt(prompt, default="", show_default=False, err=err)
        if not said.strip():
            return False
        found = answer(said)
        if found is not None:
            return found
        typer.echo(tr("Answer y or n."), err=err)
