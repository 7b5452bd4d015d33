"""A director's own templates: a folder holding only close.bbcode.j2 changes the closing post of
announce, votes --announce, watch --announce-to (and report.html.j2 the report), the other
posts stay built-in; `tally templates export` copies the built-ins, which render byte for byte
as tally's own; a broken template names its file and line before any page is read."""

from __future__ import annotations

from pathlib import Path

import pytest

from tally.cli import app
from tally.commands.templates import export_templates
from tally.errors import InputError
from tally.outputs.written.announce import check_templates, render

from .conftest import CHINA, FakeClock, Runner
from .test_counting_whole_day import game_file, vote_thread
from .test_watch import env_at

runner = Runner()
MINE = "【{{ game }}】第{{ day }}天：{{ outcome.player }} 出局（本局模板）\n"


def before_the_close(tmp_path: Path) -> object:
    """A clock on the evening of day 2, before its 21:30 close: every kind may be asked."""
    return env_at(FakeClock("2024-05-09 20:00:00", CHINA), tmp_path)


def run(*args: str, obj: object = None) -> tuple[int, str, str]:
    result = runner.invoke(app, [*args, "--quiet"], obj=obj)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def closing_only(tmp_path: Path) -> Path:
    folder = tmp_path / "house-style"
    folder.mkdir()
    (folder / "close.bbcode.j2").write_text(MINE, encoding="utf-8")
    return folder


def test_a_folder_with_only_the_close_changes_the_close_of_announce(forum, tmp_path, closing_only):
    url = vote_thread().serve(forum)
    game = game_file(tmp_path, url)
    code, mine, err = run("announce", "--game", game, "--day", "2", "--template-dir", str(closing_only))
    assert code == 0, err
    assert mine == "【测试局】第2天：白桃 出局（本局模板）\n"
    # The reminder and the plain-text close are not in the folder: the built-in ones.
    for kind, markup in (("reminder", "bbcode"), ("close", "text"), ("elevator", "bbcode")):
        extra = ["--seed", "1"] if kind == "elevator" else []
        args = ["announce", "--game", game, "--day", "2", "--kind", kind, "--format", markup,
                "--provisional", *extra]  # fmt: skip
        with_dir = run(*args, "--template-dir", str(closing_only), obj=before_the_close(tmp_path))
        without = run(*args, obj=before_the_close(tmp_path))
        assert with_dir == without and with_dir[0] == 0, (kind, markup, with_dir[2])
        assert "本局模板" not in with_dir[1]


def test_votes_announce_takes_the_template_dir(forum, tmp_path, closing_only):
    url = vote_thread().serve(forum)
    code, out, err = run("votes", url, "--game", game_file(tmp_path, url), "--announce",
                         "--template-dir", str(closing_only))  # fmt: skip
    assert code == 0, err
    assert out.endswith("\n【测试局】第2天：白桃 出局（本局模板）\n")


def test_watch_writes_the_close_from_the_template_dir(forum, tmp_path, closing_only):
    url = vote_thread().serve(forum)
    out = tmp_path / "day2.txt"
    clock = FakeClock("2024-05-09 21:29:00", CHINA)
    code, _, err = run("watch", url, "--game", game_file(tmp_path, url), "--every", "60",
                       "--announce-to", str(out), "--template-dir", str(closing_only),
                       obj=env_at(clock, tmp_path))  # fmt: skip
    assert code == 0, err
    assert out.read_text(encoding="utf-8") == "【测试局】第2天：白桃 出局（本局模板）\n"


def test_a_broken_template_stops_watch_before_the_first_poll(forum, tmp_path):
    url = vote_thread().serve(forum)
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "close.bbcode.j2").write_text("第{{ day }}天\n{% if outcome %}\n出局\n", encoding="utf-8")
    before = len(forum.requests)
    code, _, err = run("watch", url, "--game", game_file(tmp_path, url), "--announce-to",
                       str(tmp_path / "day2.txt"), "--template-dir", str(folder),
                       obj=env_at(FakeClock("2024-05-09 21:29:00", CHINA), tmp_path))  # fmt: skip
    assert code == 2
    assert err.startswith(f"tally: {folder / 'close.bbcode.j2'}, line 3: the template is broken")
    assert "endif" in err
    assert len(forum.requests) == before  # not one page read


def test_a_template_that_fails_while_rendering_names_its_file_and_line(tmp_path):
    (tmp_path / "close.text.j2").write_text("第{{ day }}天\n\n{{ 1 // zero }}\n", encoding="utf-8")
    with pytest.raises(
        InputError, match=r"line 3: the template failed \(ZeroDivisionError"
    ) as caught:
        render("close", "text", {"day": 2, "zero": 0}, tmp_path)
    assert str(caught.value) == (
        f"{tmp_path / 'close.text.j2'}, line 3: the template failed (ZeroDivisionError: "
        "integer division or modulo by zero)."
    )
    (tmp_path / "close.text.j2").write_text("第{{ day }}天\n{{ missing.value }}\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"close\.text\.j2, line 2: the template uses a value"):
        render("close", "text", {"day": 2}, tmp_path)


def test_check_templates_finds_a_syntax_error_in_either_markup(tmp_path):
    (tmp_path / "morning.text.j2").write_text("{{ day }\n", encoding="utf-8")
    check_templates("close", tmp_path)  # not the morning's
    with pytest.raises(InputError, match=r"morning\.text\.j2, line 1: the template is broken"):
        check_templates("morning", tmp_path)
    with pytest.raises(InputError, match=r"the template folder .* does not exist"):
        check_templates("close", tmp_path / "nowhere")


def test_export_then_template_dir_renders_byte_for_byte(forum, tmp_path):
    url = vote_thread().serve(forum)
    game = game_file(tmp_path, url)
    folder = tmp_path / "exported"
    code, _, err = run("templates", "export", str(folder))
    assert code == 0, err
    names = sorted(p.name for p in folder.iterdir())
    assert "README.md" in names and "report.html.j2" in names
    assert {"close.bbcode.j2", "close.text.j2", "morning.bbcode.j2", "reminder.text.j2"} <= set(names)
    for kind in ("close", "reminder", "elevator", "morning"):
        for markup in ("bbcode", "text"):
            args = ["announce", "--game", game, "--day", "2", "--kind", kind, "--format", markup,
                    "--provisional", "--seed", "3"]  # fmt: skip
            built_in = run(*args, obj=before_the_close(tmp_path))
            own = run(*args, "--template-dir", str(folder), obj=before_the_close(tmp_path))
            assert built_in[0] == 0 and own == built_in, (kind, markup)
    # The folder's copy is what renders: changing it changes the post.
    close = folder / "close.text.j2"
    close.write_text("自家：" + close.read_text(encoding="utf-8"), encoding="utf-8")
    own = run("announce", "--game", game, "--day", "2", "--format", "text", "--template-dir", str(folder))
    assert own[1].startswith("自家：")


def test_export_never_writes_over_a_template(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "close.bbcode.j2").write_text("mine\n", encoding="utf-8")
    code, _, err = run("templates", "export", str(folder))
    assert code == 2 and "tally never writes over a template" in err
    assert (folder / "close.bbcode.j2").read_text(encoding="utf-8") == "mine\n"
    assert sorted(p.name for p in folder.iterdir()) == ["close.bbcode.j2"]
    a_file = tmp_path / "a-file"
    a_file.write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match="is a file, not a folder"):
        export_templates(a_file)


def test_export_says_what_to_do_next(tmp_path):
    result = runner.invoke(app, ["templates", "export", str(tmp_path / "t")])
    assert result.exit_code == 0
    assert "--template-dir" in result.stderr and "README.md there lists the values" in result.stderr


def test_report_takes_the_template_dir(forum, tmp_path):
    """The report's own template from the folder; autoescaped as the built-in one is."""
    url = vote_thread().serve(forum)
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "report.html.j2").write_text(
        "<h1>{{ game }}</h1>{% for d in days %}<p>{{ d.sentence }}</p>{% endfor %}\n",
        encoding="utf-8",
    )
    out = tmp_path / "report.html"
    code, _, err = run("report", "--game", game_file(tmp_path, url), "-o", str(out),
                       "--template-dir", str(folder),
                       obj=env_at(FakeClock("2024-05-10 09:00:00", CHINA), tmp_path))  # fmt: skip
    assert code == 0, err
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<h1>测试局</h1><p>") and "白桃" in page and "<svg" not in page


@pytest.mark.slow  # the report, its pictures drawn
def test_the_exported_report_template_renders_the_same_page(forum, tmp_path):
    url = vote_thread().serve(forum)
    game = game_file(tmp_path, url)
    folder = tmp_path / "exported"
    export_templates(folder)
    pages = []
    for extra in ([], ["--template-dir", str(folder)]):
        out = tmp_path / f"report{len(extra)}.html"
        code, _, err = run("report", "--game", game, "-o", str(out), *extra,
                           obj=env_at(FakeClock("2024-05-10 09:00:00", CHINA), tmp_path))  # fmt: skip
        assert code == 0, err
        pages.append(out.read_bytes())
    assert pages[0] == pages[1] and b"<svg" in pages[0]
