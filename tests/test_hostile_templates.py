"""A director's templates within bounds (issue 34): a render that would not end, or would
write a 100 MB post, is stopped with its sentence; every template file is the folder's own (a
link out, an include through a linked folder, refused); a FIFO, a folder, a dangling link or
an unreadable file of a template's name is named, never passed over for the built-in; a
template not in UTF-8 is one sentence with its line; watch --post at the close does not hang
on a template."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tally.errors import InputError
from tally.outputs.written import template_bounds
from tally.outputs.written.announce import render
from tally.vocabulary import Announcement, Markup

from .conftest import CHINA, FakeClock
from .discuzboard import Board
from .test_announcing_post import NOT_POSTED, setup, watch

LOOPS = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}x"


@pytest.fixture
def board(forum) -> Board:
    return Board(forum)


def house(tmp_path: Path, text: str | bytes, name: str = "close.bbcode.j2") -> Path:
    folder = tmp_path / "house"
    folder.mkdir(exist_ok=True)
    data = text.encode("utf-8") if isinstance(text, str) else text
    (folder / name).write_bytes(data)
    return folder


def close(folder: Path) -> str:
    return render(Announcement.CLOSE, Markup.BBCODE, {"game": "局"}, folder)


@pytest.fixture
def quicker(monkeypatch):
    """For a test that renders nothing but the template that never ends: each second of the
    limit is a second of work (a fiftieth here: the stop and its sentence are the same)."""
    monkeypatch.setattr(template_bounds, "RENDER_SECONDS", 0.02)


@pytest.fixture
def tenth(monkeypatch):
    """For a run that renders tally's own templates beside the one that never ends: a tenth
    of a second, far above what they take on a busy machine."""
    monkeypatch.setattr(template_bounds, "RENDER_SECONDS", 0.1)


def test_a_template_that_loops_without_end_is_stopped(tmp_path, quicker):
    with pytest.raises(InputError, match="the template was stopped, it ran for more than") as info:
        close(house(tmp_path, LOOPS))
    said = str(info.value)
    assert said.startswith(f"{tmp_path / 'house' / 'close.bbcode.j2'}, line 1: the template was "
                           "stopped, it ran for more than 0.02 seconds")  # fmt: skip
    assert "(a render may take 0.02 seconds and write 1,000,000 characters)" in said


def test_a_loop_in_an_included_file_of_any_name_is_stopped(tmp_path, quicker):
    folder = house(tmp_path, "{% include 'loop.txt' %}")
    (folder / "loop.txt").write_text(LOOPS, encoding="utf-8")
    with pytest.raises(InputError, match=r"loop\.txt, line 1: the template was stopped, it ran"):
        close(folder)


@pytest.mark.parametrize(
    "text",
    [
        "{{ 'x' * 100000000 }}",
        "{{ 100000000 * 'x' }}",
        "{{ ['x'] * 100000000 }}",
        "{{ 'x'.ljust(100000000) }}",
        "{{ 'x' | center(100000000) }}",
        "{{ 10 ** 100000000 }}",
        "{{ '%0999999999d' % 1 }}",
        "{{ '%999999999s' | format('x') }}",
        "{% for i in range(3000) %}{{ 'x' * 1000 }}{% endfor %}",
    ],
)
def test_a_template_that_writes_too_much_is_stopped(tmp_path, text):
    with pytest.raises(InputError, match="the template was stopped, it"):
        close(house(tmp_path, text))


def test_a_template_within_the_bounds_renders(tmp_path):
    text = "{{ game }}{{ 'x' * 3 }}{{ 2 ** 10 }}{{ 1700000000 | string }}{{ '%05d' % 7 }}"
    assert close(house(tmp_path, text)) == "局xxx1024170000000000007"


def test_a_link_out_of_the_folder_is_refused(tmp_path):
    elsewhere = tmp_path / "secret.txt"
    elsewhere.write_text("not an announcement", encoding="utf-8")
    folder = tmp_path / "house"
    folder.mkdir()
    (folder / "close.bbcode.j2").symlink_to(elsewhere)
    with pytest.raises(InputError, match="leads out of the template folder"):
        close(folder)


def test_an_include_through_a_linked_folder_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "part.j2").write_text("from elsewhere", encoding="utf-8")
    folder = house(tmp_path, "{% include 'parts/part.j2' %}")
    (folder / "parts").symlink_to(outside, target_is_directory=True)
    with pytest.raises(InputError, match=r"parts/part\.j2 leads out of the template folder"):
        close(folder)


def test_a_link_inside_the_folder_is_a_template(tmp_path):
    folder = house(tmp_path, "{{ game }}!", name="mine.j2")
    (folder / "close.bbcode.j2").symlink_to(folder / "mine.j2")
    assert close(folder) == "局!"


@pytest.mark.parametrize("kind", ["fifo", "folder", "dangling", "unreadable"])
def test_a_template_that_is_no_file_is_named(tmp_path, kind):
    folder = tmp_path / "house"
    folder.mkdir()
    target = folder / "close.bbcode.j2"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "folder":
        target.mkdir()
    elif kind == "dangling":
        target.symlink_to(folder / "gone.j2")
    else:
        target.write_text("x", encoding="utf-8")
        target.chmod(0)
        if os.access(target, os.R_OK):
            pytest.skip("running as a user who reads every file")
    with pytest.raises(InputError, match=str(target)):
        close(folder)


def test_a_template_saved_in_gbk_is_one_sentence_with_its_line(tmp_path):
    folder = house(tmp_path, "第一行\n【{{ game }}】出局\n".encode("gbk"))
    with pytest.raises(InputError, match=r"the template is not UTF-8 text \(byte 0\)") as info:
        close(folder)
    assert str(info.value) == (
        f"{folder / 'close.bbcode.j2'}, line 1: the template is not UTF-8 text (byte 0); save it "
        "as UTF-8."
    )
    (folder / "part.j2").write_bytes("好\n坏".encode("gbk"))
    (folder / "close.bbcode.j2").write_text("{% include 'part.j2' %}", encoding="utf-8")
    with pytest.raises(InputError, match=r"part\.j2, line 1: the template is not UTF-8"):
        close(folder)


def test_watch_post_does_not_hang_on_a_template_at_the_close(board, tmp_path, tenth):
    """The close comes, the final count is shown, the template is stopped at its limit:
    nothing is posted, the command fails as a post not made does (exit 7)."""
    url, game, cookies = setup(board, tmp_path)
    folder = house(tmp_path, LOOPS)
    clock = FakeClock("2024-05-09 21:20:00", CHINA)
    board.clock = clock.now
    result = watch(url, game, cookies, clock, "--post", "--template-dir", str(folder))
    assert result.exit_code == NOT_POSTED, result.stderr
    assert "final" in result.stdout  # the final count was shown
    assert board.replies == []
    [said] = [line for line in result.stderr.splitlines() if line.startswith("tally:")]
    assert said.startswith("tally: the closing announcement was not posted, nor written: ")
    assert "the template was stopped, it ran for more than 0.1 seconds" in said
