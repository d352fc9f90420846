"""A small Language Server Protocol client: JSON-RPC with `Content-Length` framing over a subprocess's pipes.

Written by hand (no pygls) so that the tests see the server as an editor does: bytes on a pipe.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Callable, Optional

TIMEOUT = 120.0  # seconds; the shared test machine can be slow, a healthy answer takes well under one


class Client:
    def __init__(self, cwd: Path, command: Optional[list[str]] = None) -> None:
        self.process = subprocess.Popen(
            command or [sys.executable, "-m", "fsdp_unpatch", "server"],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._incoming: queue.Queue[Optional[dict]] = queue.Queue()
        self.notifications: list[dict] = []  # every notification the server sent, in order
        self._seen = 0  # how many of them `notification` has handed out
        self._next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            headers = {}
            while True:
                line = stream.readline()
                if not line:
                    self._incoming.put(None)  # the server closed its output
                    return
                if not line.strip():
                    break
                name, colon, value = line.decode("ascii", "replace").partition(":")
                if not colon or name.strip().lower() not in ("content-length", "content-type"):
                    self._incoming.put({"bad header": line.decode("ascii", "replace")})  # not the protocol
                    return
                headers[name.strip().lower()] = value.strip()
            self._incoming.put(json.loads(stream.read(int(headers["content-length"]))))

    def _send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def _receive(self) -> dict:
        try:
            message = self._incoming.get(timeout=TIMEOUT)
        except queue.Empty:
            raise AssertionError(f"no message from the server in {TIMEOUT} s") from None
        if message is None:
            stderr = self.process.stderr.read().decode("utf-8", "replace") if self.process.stderr else ""
            raise AssertionError(f"the server closed its output:\n{stderr}")
        assert "bad header" not in message, f"the server wrote outside the protocol: {message['bad header']!r}"
        if "method" in message and "id" in message:  # a request of the server's: accept it
            self._send({"id": message["id"], "result": None})
        elif "method" in message:
            self.notifications.append(message)
        return message

    def notify(self, method: str, params: Any) -> None:
        self._send({"method": method, "params": params})

    def notify_at_once(self, notifications: list[tuple[str, Any]]) -> None:
        """Several notifications in one write, as a fast typist's editor sends them."""
        frames = b""
        for method, params in notifications:
            body = json.dumps({"jsonrpc": "2.0", "method": method, "params": params}).encode("utf-8")
            frames += b"Content-Length: %d\r\n\r\n" % len(body) + body
        assert self.process.stdin is not None
        self.process.stdin.write(frames)
        self.process.stdin.flush()

    def request(self, method: str, params: Any) -> Any:
        self._next_id += 1
        self._send({"id": self._next_id, "method": method, "params": params})
        while True:
            message = self._receive()
            if message.get("id") == self._next_id and "method" not in message:
                assert "error" not in message, message["error"]
                return message.get("result")

    def answer(self, method: str, params: Any) -> dict:
        """The whole response to a request: its `result`, or its `error` (which `request` refuses)."""
        self._next_id += 1
        self._send({"id": self._next_id, "method": method, "params": params})
        while True:
            message = self._receive()
            if message.get("id") == self._next_id and "method" not in message:
                return message

    def notification(self, method: str, where: Callable[[dict], bool] = lambda params: True) -> dict:
        """The params of the next notification `method` (after those already handed out) that `where` accepts."""
        while True:
            while self._seen < len(self.notifications):
                message = self.notifications[self._seen]
                self._seen += 1
                if message["method"] == method and where(message["params"]):
                    return message["params"]
            self._receive()

    def close(self) -> int:
        """shutdown, then exit: the server's exit status."""
        assert self.request("shutdown", None) is None
        self.notify("exit", None)
        try:
            return self.process.wait(timeout=TIMEOUT)
        finally:
            for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
                if stream is not None:
                    stream.close()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def apply_edits(text: str, edits: list[dict]) -> str:
    """`text` with LSP TextEdits applied (UTF-16 positions; edits do not overlap), as an editor applies them."""
    lines = text.splitlines(keepends=True)

    def offset(position: dict) -> int:
        line, character = position["line"], position["character"]
        if line >= len(lines):
            return len(text)
        before = sum(len(lines[i]) for i in range(line))
        units = lines[line].encode("utf-16-le")[: 2 * character].decode("utf-16-le")
        return before + len(units)

    spans = sorted(
        ((offset(e["range"]["start"]), offset(e["range"]["end"]), e["newText"]) for e in edits), reverse=True
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text
