from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tally.localforum import LocalForum

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


def page_text(name: str) -> str:
    return (DISCUZ / name).read_text(encoding="utf-8")
