"""Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe):
no driver, no websocket library, only the browser Debian packages (`chromium-headless-shell`,
or `chromium`).

    with Browser() as browser:
        page = browser.open(Path("report.html"))
        page.evaluate("document.title"), page.errors, page.screenshot()

One Chromium serves a session's tests (the ``browser`` fixture of conftest.py): each test
takes ``Browser.fresh``, a browser context of its own (its own cookies, storage and cache,
as a new profile would have), and the second a launch and a close take is paid once.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
    # Chromium's own pages, which a headless browser never shows: each window it opened
    # loaded two of its omnibox's popups, each in a renderer of its own, ~0.45 s of CPU a
    # window (the tests' seven browser windows: Chromium took 10 s of CPU, 5 s without).
    # Chromium ignores a feature name it does not know: test_chromium_renders_the_report
    # fails when a page of Chromium's own is open again (a renamed feature, a new page).
    "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup,"
    "PreloadTopChromeWebUI",
)
# The first window's tab: a blank page, not the new-tab page (another of Chromium's own).
FIRST_PAGE = "about:blank"


def chromium() -> str | None:
    """The browser to drive: Debian's chromium-headless-shell (Chromium's own headless build,
    the same Blink without a window of the browser's own: the seven browser tests took 2.8 s
    of its CPU, 4.7-5.1 s of chromium's), else chromium itself."""
    for name in ("chromium-headless-shell", "chromium", "chromium-browser"):
        if found := shutil.which(name):
            return found
    return None


class Browser:
    def __init__(self, width: int = 1200, height: int = 900, *, mobile: bool = False):
        """``mobile``: a phone's viewport (the page's meta viewport honoured, touch)."""
        self.mobile = mobile
        exe = chromium()
        if exe is None:
            raise FileNotFoundError("neither chromium-headless-shell nor chromium is installed")
        self.profile = tempfile.mkdtemp(prefix="tally-chromium-")
        # Commands go to the browser's fd 3, answers come from its fd 4, each message
        # ending in a NUL byte.
        to_browser, self._send = os.pipe()
        self._receive, from_browser = os.pipe()
        child_in = fcntl.fcntl(to_browser, fcntl.F_DUPFD, 10)
        child_out = fcntl.fcntl(from_browser, fcntl.F_DUPFD, 10)
        os.close(to_browser)
        os.close(from_browser)

        def wire() -> None:
            # In the child: its pipe ends become fds 3 and 4, and nothing else is inherited
            # (pass_fds cannot rename descriptors, and close_fds would close 3 and 4).
            os.dup2(child_in, 3)
            os.dup2(child_out, 4)
            os.closerange(5, 1 << 16)

        self.proc = subprocess.Popen(
            [exe, *FLAGS, f"--user-data-dir={self.profile}", f"--window-size={width},{height}",
             FIRST_PAGE],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire,
            close_fds=False,
        )
        os.close(child_in)
        os.close(child_out)
        self.width, self.height = width, height
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        self.context: str | None = None  # the browser context new pages open in

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with contextlib.suppress(Exception):  # closing anyway
            self.call("Browser.close", timeout=5)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self._send)
        os.close(self._receive)
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read(self, timeout: float) -> dict[str, Any]:
        import select

        deadline = time.monotonic() + timeout
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._receive], [], [], max(0.0, left))
            if not ready:
                raise TimeoutError("chromium did not answer")
            chunk = os.read(self._receive, 1 << 20)
            if not chunk:
                raise ConnectionError("chromium closed the pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return dict(json.loads(message))

    def call(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None,
        timeout: float = 30.0,
    ) -> dict[str, Any]:  # fmt: skip
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._send, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read(timeout)
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return dict(answer.get("result", {}))
            self.events.append(answer)

    def wait_for(self, method: str, session: str, timeout: float = 30.0) -> dict[str, Any]:
        for event in self.events:
            if event.get("method") == method and event.get("sessionId") == session:
                return event
        deadline = time.monotonic() + timeout
        while True:
            event = self._read(max(0.1, deadline - time.monotonic()))
            self.events.append(event)
            if event.get("method") == method and event.get("sessionId") == session:
                return event

    def new_page(self, domains: tuple[str, ...] = ("Page", "Runtime", "Log", "DOM", "CSS")) -> Page:
        """A blank tab (in this browser's context), its viewport width × height."""
        blank: dict[str, Any] = {"url": "about:blank"}
        if self.context is not None:
            blank["browserContextId"] = self.context
        target = self.call("Target.createTarget", blank)["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in domains:
            self.call(f"{domain}.enable", session=session)
        metrics = {
            "width": self.width,
            "height": self.height,
            "deviceScaleFactor": 1,
            "mobile": self.mobile,
        }
        self.call("Emulation.setDeviceMetricsOverride", metrics, session=session)
        return Page(self, session)

    def open(self, path: Path) -> Page:
        page = self.new_page()
        self.call("Page.navigate", {"url": path.resolve().as_uri()}, session=page.session)
        self.wait_for("Page.loadEventFired", page.session)
        return page

    @contextlib.contextmanager
    def fresh(self, width: int = 1200, height: int = 900, *, mobile: bool = False) -> Iterator[Browser]:
        """This browser as if launched anew: a browser context of its own (cookies, storage,
        cache), its pages width × height; the context and its pages go at the end."""
        context = self.call("Target.createBrowserContext")["browserContextId"]
        saved = (self.width, self.height, self.mobile, self.context)
        self.width, self.height, self.mobile, self.context = width, height, mobile, context
        try:
            yield self
        finally:
            self.width, self.height, self.mobile, self.context = saved
            self.call("Target.disposeBrowserContext", {"browserContextId": context})


@dataclass
class Page:
    browser: Browser
    session: str
    _seen: int = field(default=0)

    def evaluate(self, expression: str) -> Any:
        got = self.browser.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True},
            session=self.session,
        )
        if "exceptionDetails" in got:
            raise RuntimeError(f"{expression}: {got['exceptionDetails']}")
        return got["result"].get("value")

    @property
    def errors(self) -> list[str]:
        """Script errors and console errors the page caused."""
        found = []
        for e in self.browser.events:
            if e.get("sessionId") != self.session:
                continue
            params = e.get("params", {})
            if e.get("method") == "Runtime.exceptionThrown":
                found.append(json.dumps(params.get("exceptionDetails", {}))[:300])
            elif e.get("method") == "Runtime.consoleAPICalled" and params.get("type") == "error":
                found.append(json.dumps(params.get("args", []))[:300])
            elif e.get("method") == "Log.entryAdded" and params["entry"]["level"] == "error":
                found.append(params["entry"].get("text", ""))
        return found

    def fonts_of(self, selector: str) -> list[dict[str, Any]]:
        """The fonts the browser drew the first node matching ``selector`` with."""
        root = self.browser.call("DOM.getDocument", session=self.session)["root"]["nodeId"]
        node = self.browser.call(
            "DOM.querySelector", {"nodeId": root, "selector": selector}, session=self.session
        )["nodeId"]
        got = self.browser.call(
            "CSS.getPlatformFontsForNode", {"nodeId": node}, session=self.session
        )
        return list(got["fonts"])

    def screenshot(self) -> bytes:
        got = self.browser.call(
            "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": False},
            session=self.session,
        )  # fmt: skip
        return base64.b64decode(got["data"])
