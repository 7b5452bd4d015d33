"""Makes docs/report.png, the screenshot README shows: `tally report` on the four-day test
game of tests/test_report.py, drawn by headless Chromium (Debian's `chromium`).

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


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="tally-shot-"))
    with LocalForum() as forum:
        game = build(forum, work)
        out = work / "report.html"
        result = Runner().invoke(
            app, ["report", "--game", str(game), "-o", str(out)], obj=env(work)
        )
        assert result.exit_code == 0, result.output
    with Browser(width=1100, height=1500) as browser:
        page = browser.open(out)
        page.evaluate("document.getElementById('day-2').scrollIntoView()")
        shot = page.screenshot()
    image = Image.open(io.BytesIO(shot)).convert("RGB")
    small = image.resize((image.width * 3 // 4, image.height * 3 // 4), Image.LANCZOS)
    target = ROOT / "docs" / "report.png"
    small.quantize(colors=96).save(target, optimize=True)
    print(f"{target}: {target.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
