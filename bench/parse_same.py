"""Every Discuz! page tally ships or keeps as a fixture, parsed and diagnosed: what it reads,
written down so that a change to the parser can be shown to read the same, byte for byte.

    .venv/bin/python bench/parse_same.py write before.txt   # on the code before
    .venv/bin/python bench/parse_same.py check before.txt   # on the code after

Each page is read as ``tally`` reads a saved file (``decode_page``), in the games' zone,
with the built-in board profiles: the ``Page`` (``repr`` of the frozen dataclasses, every
post and field) or the sentence it fails with, and ``tally doctor``'s ``Diagnosis``.
"""

from __future__ import annotations

import gzip
import hashlib
import sys
from pathlib import Path
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tally.forums.base import forget_parsed  # noqa: E402
from tally.forums.charset import decode_page  # noqa: E402
from tally.forums.diagnosis import diagnose  # noqa: E402
from tally.forums.discuz import Discuz  # noqa: E402

CHINA = ZoneInfo("Asia/Shanghai")


def pages() -> list[Path]:
    found = [p for p in (ROOT / "fixtures").glob("discuz*/**/*.html")]
    found += list((ROOT / "tally" / "demo" / "sample").glob("*.html.gz"))
    return sorted(found)


def read(path: Path) -> str:
    body = path.read_bytes()
    return decode_page(gzip.decompress(body) if path.suffix == ".gz" else body, source=path.name)


def record(path: Path) -> str:
    """One line: the page's name and the digests of what tally reads from it."""
    text = read(path)
    source = str(path.relative_to(ROOT))
    forget_parsed()
    try:
        parsed = repr(Discuz().pages.parse_page(text, CHINA, source=source))
    except Exception as exc:  # the failure is what is compared
        parsed = f"{type(exc).__name__}: {exc}"
    doctor = repr(diagnose(text, CHINA, source))
    digest = hashlib.sha256(f"{parsed}\n{doctor}".encode()).hexdigest()[:16]
    return f"{source} {digest} {parsed[:60]!r}"


def main() -> int:
    mode, out = sys.argv[1], Path(sys.argv[2])
    lines = [record(p) for p in pages()]
    if mode == "write":
        out.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"{len(lines)} pages written to {out}")
        return 0
    before = out.read_text(encoding="utf-8").splitlines()
    differ = [(a, b) for a, b in zip(before, lines, strict=True) if a != b]
    for a, b in differ:
        print(f"before: {a}\nafter:  {b}")
    print(f"{len(lines)} pages, {len(differ)} read differently")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
