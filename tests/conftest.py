from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from typer.testing import CliRunner

from tally.demo.localforum import LocalForum
from tally.environment import Environment
from tally.forums.http import HttpOptions

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
DISCUZ = FIXTURES / "discuz"
CHINA = ZoneInfo("Asia/Shanghai")


@pytest.fixture
def forum() -> Iterator[LocalForum]:
    with LocalForum() as f:
        yield f


@pytest.fixture(scope="session")
def scenario() -> dict:
    """What was written into the real Discuz! before its pages were saved: the ground truth."""
    return json.loads((DISCUZ / "scenario.json").read_text(encoding="utf-8"))


# The first columns of `tally archive`, as shared CONTRACT.md names them (not imported from
# tally: the tests hold the contract, the code follows it).
CONTRACT_COLUMNS = [
    "platform",
    "thread_id",
    "post_id",
    "parent_post_id",
    "floor",
    "author",
    "author_id",
    "time",
    "edited_at",
    "text",
]


def read_csv(path: Path) -> list[dict[str, str]]:
    """A CSV tally wrote, as a director's spreadsheet reads it (UTF-8 with a BOM)."""
    import csv
    import io

    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf"), "Excel needs the UTF-8 byte-order mark"
    return list(csv.DictReader(io.StringIO(raw[3:].decode("utf-8"))))


def page_text(name: str) -> str:
    return (DISCUZ / name).read_text(encoding="utf-8")


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    """No test touches the user's own cache folder."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))


# The politeness delay between two requests to one host (25 ms) is for real forums; the
# tests' loopback forums get none, except the tests of the delay itself.
TEST_ENV = Environment(http=HttpOptions(host_delay=0))


class Runner(CliRunner):
    """A CliRunner whose commands run in ``TEST_ENV`` unless a test hands in its own."""

    def invoke(self, app, args=None, **kwargs):  # type: ignore[no-untyped-def, override]
        kwargs.setdefault("obj", TEST_ENV)
        return super().invoke(app, args, **kwargs)
