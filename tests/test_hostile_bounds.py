"""Every path and number from a user within bounds (issue 34): files read only when regular
and never past a cap (a FIFO as the config blocked forever, /dev/zero was a MemoryError),
``~nouser`` paths, dates and URL parts Python cannot hold, board profiles' selectors, an
output folder that cannot be made; doctor --json on a page it cannot decode, a UTF-16 page.
Each asserts the sentence or the exact result; the property tests generate URLs, profiles and
config files (TALLY_FUZZ_EXAMPLES examples each, 80 by default)."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from tally import environment
from tally import settings as config
from tally.cli import app
from tally.errors import ExitStatus, GameFileError, InputError, TallyError
from tally.forums import resolve_url
from tally.forums.boards import Boards, built_in, parse_boards
from tally.forums.discuz import Discuz
from tally.rules.game.gamefile import load_game, parse_game

from .conftest import CHINA, DISCUZ, FakeClock, Runner, quiet_environ
from .strategies import fuzz

FUZZ = fuzz(HealthCheck.function_scoped_fixture)
GAME = Path(__file__).resolve().parent.parent / "tally" / "demo" / "sample" / "game.toml"
runner = Runner()


def game_text(**swap: str) -> str:
    text = GAME.read_text(encoding="utf-8").replace("${FORUM}", "http://127.0.0.1:9/")
    for old, new in swap.items():
        text = text.replace(old.replace("_", " "), new)
    return text


# -- files: regular, and capped -------------------------------------------------------------


@contextlib.contextmanager
def never_read(fifo: Path) -> Iterator[list[str]]:
    """While tally runs in this process: whoever opens ``fifo`` to read is written down and
    let go at once (a writer comes and leaves: the read ends instead of hanging the suite,
    which is what a run in another process with a timeout was for)."""
    readers: list[str] = []
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.005):
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # ENXIO: nobody has it open to read
                continue
            readers.append(f"{fifo} was opened to read")
            os.close(fd)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield readers
    finally:
        done.set()
        watcher.join()


def test_a_fifo_as_the_config_file_does_not_block(tmp_path):
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    with never_read(fifo) as readers:
        result = runner.invoke(app, ["config"],
                               obj=FakeClock().env(environ=quiet_environ(TALLY_CONFIG=str(fifo))))
    assert readers == []
    assert result.exit_code == ExitStatus.BAD_INPUT
    assert result.stderr == (
        f"tally: {fifo} is a named pipe (FIFO), not a config file; give a file.\n"
    )


@pytest.mark.parametrize("what", ["config", "game"])
def test_dev_zero_is_no_file(tmp_path, what):
    args = ["cards", "list", "--game", "/dev/zero"] if what == "game" else ["config"]
    env = {"TALLY_CONFIG": "/dev/zero"} if what == "config" else {}
    result = runner.invoke(app, args, obj=FakeClock().env(environ=quiet_environ(**env)))
    assert result.exit_code == ExitStatus.BAD_INPUT
    kind = "config file" if what == "config" else "game file"
    assert (
        result.stderr
        == f"tally: /dev/zero is a device or special file, not a {kind}; give a file.\n"
    )


def test_a_file_past_the_cap_is_refused_before_it_is_parsed(tmp_path):
    big = tmp_path / "config.toml"
    big.write_bytes(b"# " + b"x" * (5 << 20) + b"\n")
    result = runner.invoke(app, ["config"],
                           obj=FakeClock().env(environ=quiet_environ(TALLY_CONFIG=str(big))))
    assert result.exit_code == ExitStatus.BAD_INPUT
    assert result.stderr == (
        f"tally: {big} is larger than 4 MB, more than any config file; is it the right file?\n"
    )


@pytest.mark.parametrize("size", [0, 5, 40_000, 200_000, 300_000])
def test_a_file_that_grew_since_its_size_was_taken_is_read_to_its_end_or_past_the_cap(
    tmp_path, size
):
    """A file is read as long as fstat said and one byte more (never a buffer of the cap's
    size); one that grew since (a stale size: 0, 5) is read on, in pieces, to its end, and
    one past the cap stops one byte past it, which its reader refuses."""
    from tally.files import _read_upto, read_own

    data = bytes(range(256)) * 1000  # 256,000 bytes
    path = tmp_path / "grown"
    path.write_bytes(data)
    limit = 250_000
    fd = os.open(path, os.O_RDONLY)
    try:
        assert _read_upto(fd, size, limit) == data[: limit + 1]
    finally:
        os.close(fd)
    path.write_bytes(data[:200_000])
    with path.open("rb", buffering=0) as f:
        assert _read_upto(f.fileno(), size, limit) == data[:200_000]
    assert read_own(path, limit) == data[:200_000]
    assert read_own(path, 199_999) is None


@pytest.mark.parametrize("option", ["--cookies", "--boards", "--archive", "saved page"])
def test_a_fifo_given_for_any_file_is_one_sentence_not_a_wait(tmp_path, option):
    fifo = tmp_path / "given"
    os.mkfifo(fifo, 0o600)
    game = tmp_path / "game.toml"
    game.write_text(game_text(), encoding="utf-8")
    source = str(fifo) if option == "saved page" else "http://127.0.0.1:9/thread-23-1-1.html"
    extra = [] if option == "saved page" else [option, str(fifo)]
    args = ["votes", source, "--game", str(game), *extra]
    with never_read(fifo) as readers:
        done = runner.invoke(app, args, obj=FakeClock().env(
            environ=quiet_environ(TALLY_CONFIG=str(tmp_path / "none"))))  # fmt: skip
    said = done.stderr
    assert readers == []
    assert done.exit_code == ExitStatus.BAD_INPUT, said
    assert said.startswith("tally: ") and str(fifo) in said and said.count("\n") == 1
    if option == "--cookies":
        assert said == f"tally: {fifo} is a named pipe (FIFO), not a cookie file; give a file.\n"
    if option == "--boards":
        assert said == (
            f"tally: {fifo} is a named pipe (FIFO), not a board profile file; give a file.\n"
        )


# -- paths and numbers ----------------------------------------------------------------------


def test_a_home_folder_of_nobody_is_one_sentence(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('template_dir = "~nosuchuser34/templates"\n', encoding="utf-8")
    with pytest.raises(InputError, match="there is no such user here") as info:
        config.load_config(path)
    assert str(info.value) == (
        f"config file {path}, key 'template_dir': '~nosuchuser34/templates' starts with the home "
        "folder of ~nosuchuser34, and there is no such user here."
    )
    with pytest.raises(InputError, match=r"TALLY_CONFIG: '~nosuchuser34/c\.toml' starts with"):
        environment.config_file({"TALLY_CONFIG": "~nosuchuser34/c.toml"}, "linux")


@pytest.mark.parametrize(
    "when", ["0001-01-01T00:00:00", "9999-12-31T23:59:59", "1900-05-01T00:00:00"]
)
def test_a_date_no_game_is_played_on_is_refused(when):
    text = game_text().replace("opens = 2023-03-14T09:30:00", f"opens = {when}")
    with pytest.raises(
        GameFileError, match=f"key 'day 2.opens': {when} is not a date of a forum game"
    ):
        parse_game(text, source="game.toml")


@pytest.mark.parametrize(
    "url",
    [
        "https://bbs.example.com/forum.php?mod=viewthread&tid=23&page=²",
        "https://bbs.example.com/forum.php?mod=viewthread&tid=23&page=0",
        "https://bbs.example.com/forum.php?mod=viewthread&tid=23&page=99999999999999999999",
        "https://tieba.baidu.com/p/123?pn=٣",
    ],
)
def test_a_page_number_python_cannot_take_is_one_sentence(url):
    with pytest.raises(InputError, match="which is not a page number"):
        resolve_url(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://bbs.example.com/thread-٢٣-1-1.html",
        "https://bbs.example.com/forum.php?mod=viewthread&tid=²",
        "https://bbs.example.com/forum.php?mod=viewthread&tid=1234567890123456789012",
        "https://tieba.baidu.com/p/١٢٣",
    ],
)
def test_a_thread_id_of_other_digits_is_no_thread(url):
    with pytest.raises(InputError, match="is not a thread URL tally knows"):
        resolve_url(url)


_URL_PARTS = st.lists(st.sampled_from(
    ["https://", "http://", "bbs.example.com", "tieba.baidu.com", "/", "forum.php", "?", "&",
     "mod=viewthread", "tid=", "page=", "pn=", "p/", "thread-", "-1-1.html", "23", "²", "٣",
     "0", "99999999999999999999", "%", "[", "]", ":", "#", "@", " "]), max_size=12)  # fmt: skip


@FUZZ
@given(_URL_PARTS)
def test_any_url_is_a_thread_or_one_sentence(parts):
    try:
        _, ref = resolve_url("".join(parts))
    except InputError:
        return
    assert ref.thread_id.isascii() and ref.thread_id.isdigit() and 1 <= ref.page <= 1_000_000


# -- board profiles -------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["post", "title"])
def test_a_page_field_selector_with_pid_is_refused_naming_profile_and_key(key):
    text = f'[board.ours]\nhosts = ["bbs.example.com"]\n[board.ours.selectors]\n{key} = ["div#{{pid}}"]\n'
    with pytest.raises(
        InputError, match=r"holds \{pid\}, which stands for a post's id only"
    ) as info:
        parse_boards(text, "boards.toml")
    assert str(info.value) == (
        f"boards.toml, [board.ours] selectors.{key}: 'div#{{pid}}' holds {{pid}}, which stands "
        f"for a post's id only in a field read inside a post; {key} is read on the whole page."
    )


_SELECTOR = st.lists(st.sampled_from(
    ["div", "#", "post_", "{pid}", "{", "}", ".", "pi", "[", "]", "id", "=", '"', "^", ">", " ",
     ":", "nth-child(", ")", "a", "*", ",", "em", "authi"]), min_size=1, max_size=8).map("".join)  # fmt: skip
VOTE_PAGE = (DISCUZ / "vote-p1.html").read_text(encoding="utf-8")


@FUZZ
@given(st.sampled_from(["post", "floor", "author", "time", "body", "title"]), _SELECTOR)
def test_any_profile_is_refused_at_load_or_reads_the_page_or_says_why(key, selector):
    text = (f"[board.fuzz]\nmarks = [\"Discuz!\"]\n[board.fuzz.selectors]\n{key} = "
            f"[{json.dumps(selector)}]\n")  # fmt: skip
    try:
        boards = Boards([*parse_boards(text, "boards.toml"), *built_in()])
    except InputError:
        return
    try:
        page = Discuz().pages.parse_page(VOTE_PAGE, CHINA, source="p1", boards=boards)
    except TallyError:
        return
    assert page.thread_id == "23" and page.posts


# -- config files ---------------------------------------------------------------------------


_CONFIG_LINES = st.lists(st.sampled_from(
    ['timezone = "Asia/Shanghai"', 'timezone = "Mars/Base"', "timezone = 8", 'color = false',
     'template_dir = "~nosuchuser34/t"', 'template_dir = "~/t"', 'cookies = ""', "politeness = -1",
     "politeness = 1e400", "politeness = nan", "[x]", "＝", "“a”", "\x00", "cache_dir = 0",
     'boards = "b.toml"', "unknown = 1", "color = \"yes\""]), max_size=5)  # fmt: skip


@FUZZ
@given(_CONFIG_LINES)
def test_any_config_file_is_settings_or_one_sentence(tmp_path_factory, lines):
    path = tmp_path_factory.mktemp("cfg") / "config.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    try:
        loaded = config.load_config(path)
    except InputError as exc:
        assert "\n" not in str(exc)
        return
    assert set(loaded) <= set(config.NAMES)


# -- outputs, doctor ------------------------------------------------------------------------


def test_templates_export_into_a_folder_that_cannot_be_made(tmp_path):
    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    result = runner.invoke(app, ["templates", "export", str(tmp_path / "a-file" / "mine")])
    assert result.exit_code == ExitStatus.OUTPUT
    assert result.stderr == (
        f"tally: the folder {tmp_path / 'a-file' / 'mine'} cannot be made (Not a directory).\n"
    )


def test_doctor_json_on_a_page_it_cannot_decode_prints_json(tmp_path):
    page = tmp_path / "page.html"
    page.write_bytes(b'<html><head><meta charset="utf-8"></head><body>' + b"\xff\xfe\xfd" * 40
                     + b"Discuz!</body></html>")  # fmt: skip
    result = runner.invoke(app, ["doctor", str(page), "--json"])
    report = json.loads(result.stdout)
    assert result.exit_code == ExitStatus.NOT_A_THREAD
    assert report["readable"] is False and "is not valid utf-8" in report["problem"]


def test_a_utf16_page_with_its_byte_order_mark_is_read(tmp_path):
    page = tmp_path / "vote-p1.html"
    page.write_bytes(VOTE_PAGE.encode("utf-16"))  # little-endian, with the BOM
    result = runner.invoke(app, ["doctor", str(page), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["readable"] is True
    from tally.forums.charset import decode_page

    assert decode_page(VOTE_PAGE.encode("utf-16-be").join([b"\xfe\xff", b""])) == VOTE_PAGE


def test_a_game_file_that_is_a_folder(tmp_path):
    with pytest.raises(GameFileError, match="is a folder, not a game file"):
        load_game(tmp_path)
