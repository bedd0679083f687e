"""A headless Chromium driven through its DevTools protocol, for the HTML page's tests.

The browser talks the protocol over a pair of pipes (``--remote-debugging-pipe``: it reads
commands from file descriptor 3 and writes answers and events to 4, each message JSON ended by a
NUL byte), so no WebSocket library and no port are needed.
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
from pathlib import Path
from typing import Any

NAMES = ("chromium", "chromium-browser", "google-chrome")


def find_chromium() -> str | None:
    for name in NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def open_browser(width: int = 1400, height: int = 900) -> Iterator[Browser]:
    """A browser for a pytest fixture (``yield from``): a test fails on CI without Chromium and
    is skipped elsewhere; the browser is closed afterwards."""
    import pytest

    binary = find_chromium()
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing: scripts/run test installs it")
        pytest.skip("chromium is not installed (scripts/run test installs it)")
    b = Browser(binary, width=width, height=height)
    try:
        yield b
    finally:
        b.close()


class BrowserError(Exception):
    pass


class Browser:
    """One headless browser with one page, attached (flat sessions)."""

    def __init__(self, binary: str, width: int = 1400, height: int = 900) -> None:
        self.profile = tempfile.mkdtemp(prefix="replcheck-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # Out of the way of 3 and 4 first, so that placing one cannot overwrite the other.
        high_r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD_CLOEXEC, 64)
        high_w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD_CLOEXEC, 64)
        os.close(to_browser_r)
        os.close(from_browser_w)

        def fds() -> None:  # in the child: the protocol's pipes on 3 and 4 (kept by exec)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        self.proc = subprocess.Popen(
            [
                binary,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                f"--user-data-dir={self.profile}",
                f"--window-size={width},{height}",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,
            preexec_fn=fds,
        )
        os.close(high_r)
        os.close(high_w)
        self._buffer = b""
        self._id = 0
        self.events: list[dict[str, Any]] = []
        self.session = ""
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=True)
        self.call(
            "Emulation.setDeviceMetricsOverride",
            session=True,
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    # --- the protocol -------------------------------------------------------------------------

    def _read(self, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise BrowserError("the browser did not answer")
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise BrowserError("the browser closed its pipe")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def call(self, method: str, *, session: bool = False, timeout: float = 60.0, **params: Any):
        self._id += 1
        message: dict[str, Any] = {"id": self._id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read(timeout)
            if answer.get("id") == self._id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    # --- what the tests do ----------------------------------------------------------------------

    def open(self, path: Path, timeout: float = 60.0) -> None:
        self.call("Page.navigate", session=True, url=path.resolve().as_uri())
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.evaluate("document.readyState === 'complete'"):
                return
            time.sleep(0.05)
        raise BrowserError(f"{path} did not load")

    def evaluate(self, expression: str) -> Any:
        result = self.call(
            "Runtime.evaluate", session=True, expression=expression, returnByValue=True
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """A real mouse click (press and release) at the middle of the element."""
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            "e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            "return [r.left + Math.min(r.width / 2, 40), r.top + r.height / 2]; })()"
        )
        x, y = box
        for kind in ("mousePressed", "mouseReleased"):
            self.call(
                "Input.dispatchMouseEvent",
                session=True,
                type=kind,
                x=x,
                y=y,
                button="left",
                clickCount=1,
            )

    def errors(self) -> list[str]:
        """Script errors and console errors the page reported so far."""
        out = []
        for e in self.events:
            method, params = e.get("method"), e.get("params", {})
            if method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                out.append(str(details.get("exception", {}).get("description") or details))
            elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
                out.append(" ".join(str(a.get("value")) for a in params.get("args", [])))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                out.append(str(params["entry"].get("text")))
        return out

    def requests(self) -> list[str]:
        return [
            e["params"]["request"]["url"]
            for e in self.events
            if e.get("method") == "Network.requestWillBeSent"
        ]

    def screenshot(self, path: Path) -> None:
        data = self.call("Page.captureScreenshot", session=True, format="png")["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        with contextlib.suppress(BrowserError):
            self.call("Browser.close", timeout=10)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)
        shutil.rmtree(self.profile, ignore_errors=True)
