"""A command run in a pseudo-terminal, as a person runs it from a shell: what it prints there,
and the keys typed at it (tests/spark/test_cli_sql.py's prompt, test_audit.py's progress)."""
from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import termios
import time
from pathlib import Path


class Terminal:
    """A command run in a pseudo-terminal as from a person's shell: the terminal is its
    controlling one (Ctrl-C sends SIGINT), 200 columns by 50 rows. `seen` is what it printed as
    the screen shows it: a carriage return or a backspace moves back along the line and what
    follows overwrites it, ESC [ K erases the rest of the line, other escape sequences (colours,
    modes) show nothing."""

    ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]")
    TOKENS = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|.", re.DOTALL)

    def __init__(self, argv: list[str], env: dict[str, str], stdout: Path | None = None) -> None:
        """Run `argv`, its stdout the terminal too unless `stdout` names a file for it."""
        pid, fd = pty.fork()
        if pid == 0:   # the child: exec at once (the test's process has the JVM's threads)
            try:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
                if stdout is not None:
                    os.dup2(os.open(stdout, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 1)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self._raw = b""
        self._read_to = 0   # where the next expect starts looking in `seen`
        self.status: int | None = None

    @property
    def printed(self) -> str:
        """All it printed, what was overwritten since too, without escape sequences."""
        return self.ESCAPES.sub("", self._raw.decode("utf-8", "replace"))

    @property
    def seen(self) -> str:
        lines = []
        for line in self._raw.decode("utf-8", "replace").split("\n"):
            row: list[str] = []
            col = 0
            for token in self.TOKENS.findall(line):
                if token in ("\r", "\b"):
                    col = 0 if token == "\r" else max(col - 1, 0)
                elif token in ("\x1b[K", "\x1b[0K"):   # erase to the end of the line
                    del row[col:]
                elif not token.startswith("\x1b"):
                    row[col:col + 1] = [token]
                    col += 1
            lines.append("".join(row))
        return "\n".join(lines)

    def send(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def expect(self, text: str, timeout: float = 180) -> str:
        """What was printed from the last match up to `text`, waiting for it at most `timeout` s."""
        deadline = time.monotonic() + timeout
        while (at := self.seen.find(text, self._read_to)) < 0:
            left = deadline - time.monotonic()
            if left <= 0 or not self._read(left):
                raise AssertionError(f"{text!r} not printed; the terminal shows:\n{self.seen[self._read_to:]}")
        out, self._read_to = self.seen[self._read_to:at], at + len(text)
        return out

    def _read(self, timeout: float) -> bool:
        if select.select([self.fd], [], [], timeout)[0]:
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:   # EIO: the command ended and closed the terminal
                return False
            self._raw += chunk
            return bool(chunk)
        return False

    def wait(self, timeout: float) -> int:
        """The command's exit status, once it ends (within `timeout` s)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._read(0.2)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                return self.status
        raise AssertionError(f"still running after {timeout} s; the terminal shows:\n{self.seen}")

    def close(self) -> None:
        if self.status is None:
            os.kill(self.pid, signal.SIGTERM)
            os.waitpid(self.pid, 0)
        os.close(self.fd)
