"""Makes docs/report.png and docs/report-phone.png, the screenshots README shows: `tally
report` on the four-day test game of tests/test_report.py, drawn by headless Chromium
(Debian's `chromium`) at 1100 px and at 390 px (a phone).

    .venv/bin/python docs/screenshot.py
"""

from __future__ import annotations

import io
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402

from tally.cli import app  # noqa: E402
from tally.demo.localforum import LocalForum  # noqa: E402
from tests.browser import Browser  # noqa: E402
from tests.conftest import Runner  # noqa: E402
from tests.test_report import build, env  # noqa: E402


def shot(page_file: Path, width: int, height: int, target: Path, scale: float) -> None:
    with Browser(width=width, height=height, mobile=width < 600) as browser:
        page = browser.open(page_file)
        page.evaluate("document.getElementById('day-3').scrollIntoView()")
        image = Image.open(io.BytesIO(page.screenshot())).convert("RGB")
    small = image.resize((int(image.width * scale), int(image.height * scale)), Image.LANCZOS)
    small.quantize(colors=96).save(target, optimize=True)
    print(f"{target}: {target.stat().st_size // 1024} KB")


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="tally-shot-"))
    with LocalForum() as forum:
        game = build(forum, work)
        out = work / "report.html"
        result = Runner().invoke(
            app, ["report", "--game", str(game), "-o", str(out)], obj=env(work)
        )
        assert result.exit_code == 0, result.output
    shot(out, 1100, 1500, ROOT / "docs" / "report.png", 0.75)
    shot(out, 390, 1400, ROOT / "docs" / "report-phone.png", 0.75)


if __name__ == "__main__":
    main()
