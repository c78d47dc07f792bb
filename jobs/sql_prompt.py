"""The prompt of `controller-replay sql --warehouse W` without a query: statements typed at a
terminal, or read from stdin when it is not one, each run as it ends on the one session the
command opened. Nothing here knows Spark: `run` runs one statement and says whether it ran.

    reader = StatementReader()
    reader.feed("SELECT rule")                   # []: the statement goes on
    reader.feed("FROM violations; SHOW TABLES")  # ["SELECT rule\\nFROM violations"]
    reader.rest()                                # "SHOW TABLES": not ended yet

A statement ends at a `;` outside quotes ('...', "...", `...`) and comments (`--` to the end of
the line, `/* ... */`, which nest as in Spark's lexer); a statement of comments alone is no
statement. At a terminal, `exit` or `quit` on a statement's first line, or Ctrl-D on an empty
line, ends the prompt with status 0; Ctrl-C drops what is typed of the statement (or cancels the
statement running). Each statement is one entry of the history (readline's), kept in
history_path(). From a pipe, the last statement needs no `;`, each is printed after a `-- `
heading as the one-shot command prints several, and the status is 2 if any failed."""
from __future__ import annotations

import json
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Callable, Iterable

PROMPT = "sql> "
CONTINUED = "  -> "
EXIT_WORDS = frozenset({"exit", "quit"})
HISTORY_LENGTH = 1000

Run = Callable[[str], bool]


class StatementReader:
    """Lines in, whole statements out (without their `;`), across as many lines as they take."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        """Forget the statement begun (Ctrl-C)."""
        self._text: list[str] = []
        self._quote: str | None = None   # the quote character while inside a quoted string or name
        self._escaped = False            # the last character was a backslash in a string
        self._line_comment = False
        self._comment_depth = 0          # nested /* */ comments open
        self._content = False            # something other than blanks and comments was read

    @property
    def started(self) -> bool:
        """Whether a statement has begun (anything but blanks typed since the last one ended)."""
        return bool("".join(self._text).strip())

    def rest(self) -> str | None:
        """The statement begun and not ended, if it holds more than comments."""
        return "".join(self._text).strip() if self._content else None

    def feed(self, line: str) -> list[str]:
        """The statements `line` (without its line end) ends, in order."""
        done = []
        text = line + "\n"
        i = 0
        while i < len(text):
            c, two = text[i], text[i:i + 2]
            step = 1
            if self._quote:
                if self._escaped:
                    self._escaped = False
                elif c == "\\" and self._quote != "`":   # Spark unescapes strings, not names
                    self._escaped = True
                elif c == self._quote:
                    self._quote = None
            elif self._line_comment:
                self._line_comment = c != "\n"
            elif self._comment_depth:
                if two in ("/*", "*/"):
                    self._comment_depth += 1 if two == "/*" else -1
                    step = 2
            elif two == "--":
                self._line_comment, step = True, 2
            elif two == "/*":
                self._comment_depth, step = 1, 2
            elif c == ";":
                if self._content:
                    done.append("".join(self._text).strip())
                self._text, self._content = [], False
                i += 1
                continue
            elif not c.isspace():
                self._content = True
                if c in "'\"`":
                    self._quote = c
            self._text.append(text[i:i + step])
            i += step
        return done


def history_path() -> Path:
    """Where the prompt keeps its history: $XDG_STATE_HOME/controller-replay/sql_history, the
    XDG base directories' place for a program's history, or ~/.local/state/... when that is not
    set (or not absolute, which the spec says to ignore)."""
    state = os.environ.get("XDG_STATE_HOME", "")
    base = Path(state) if os.path.isabs(state) else Path.home() / ".local" / "state"
    return base / "controller-replay" / "sql_history"


class History:
    """readline's history, one entry per statement (its lines as typed), loaded from and saved
    to `path` as one JSON string per line: readline's own file holds one line per entry, and a
    statement has several."""

    def __init__(self, readline, path: Path) -> None:
        self.readline, self.path = readline, path
        readline.set_auto_history(False)
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError:   # no history yet, or none readable: the prompt works without
            lines = []
        for line in lines[-HISTORY_LENGTH:]:
            try:
                readline.add_history(json.loads(line))
            except (ValueError, TypeError):
                continue

    def add(self, entry: str) -> None:
        n = self.readline.get_current_history_length()
        if entry.strip() and (n == 0 or self.readline.get_history_item(n) != entry):
            self.readline.add_history(entry)

    def save(self) -> None:
        n = self.readline.get_current_history_length()
        entries = [self.readline.get_history_item(i) for i in range(max(1, n - HISTORY_LENGTH + 1), n + 1)]
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            partial = self.path.with_name(self.path.name + ".partial")
            partial.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
            os.replace(partial, self.path)
        except OSError as exc:
            print(f"sql: history not saved: {exc}", file=sys.stderr)


def is_exit(line: str) -> bool:
    return line.strip().rstrip(";").strip().lower() in EXIT_WORDS


def heading(statement: str) -> str:
    """`statement` as the SQL comment printed above its answer."""
    return "\n".join("-- " + line for line in statement.splitlines())


def prompt(run: Run, cancel: Callable[[], None], history_file: Path) -> int:
    """Read statements at a terminal and run each as it ends, until exit, quit or Ctrl-D: 0.
    Ctrl-C while one runs calls `cancel`."""
    try:
        import readline
    except ImportError:   # a Python built without it: no line editing, no history
        readline = None
    history = History(readline, history_file) if readline else None
    reader = StatementReader()
    typed: list[str] = []   # the lines of the statements begun, one history entry
    try:
        while True:
            try:
                line = input(CONTINUED if reader.started else PROMPT)
                if not reader.started and is_exit(line):
                    return 0
                typed.append(line)
                statements = reader.feed(line)
                if not reader.started:
                    if history:
                        history.add("\n".join(typed))
                    typed = []
                for statement in statements:
                    if run_cancellable(run, cancel, statement):
                        break   # Ctrl-C: the line's later statements are not run either
            except KeyboardInterrupt:   # Ctrl-C at the prompt: the statement being typed is dropped
                reader.clear()
                typed = []
                print()
            except EOFError:
                print()
                return 0
    finally:
        if history:
            history.save()


def run_cancellable(run: Run, cancel: Callable[[], None], statement: str) -> bool:
    """run(statement) in a thread of its own and, once Ctrl-C is pressed, `cancel` every half
    second until it returns (a Ctrl-C before the statement's first job starts has nothing to
    cancel yet; a cancelled statement fails, and says so); whether Ctrl-C was pressed. A Ctrl-C
    only sets a flag meanwhile: raised as KeyboardInterrupt it could break into a py4j call
    (cancel's), and the connection would be left with an answer unread, which its next call
    would take for its own. Call from the main thread (it sets the SIGINT handler)."""
    pressed = threading.Event()
    worker = threading.Thread(target=run, args=(statement,), name="sql-statement", daemon=True)
    previous = signal.signal(signal.SIGINT, lambda signum, frame: pressed.set())
    try:
        worker.start()
        while worker.is_alive():
            worker.join(0.5 if pressed.is_set() else 0.1)   # returns as soon as the statement has run
            if pressed.is_set() and worker.is_alive():
                cancel()
    finally:
        signal.signal(signal.SIGINT, previous)
    return pressed.is_set()


def piped(run: Run, lines: Iterable[str]) -> int:
    """Run the statements of `lines` (a file, stdin) in order, each after its heading, and the
    last even without its `;`, until the end or an exit line: 2 if any failed, else 0."""
    reader = StatementReader()
    failed = 0
    for line in lines:
        if not reader.started and is_exit(line):
            break
        for statement in reader.feed(line.rstrip("\r\n")):
            print(heading(statement), flush=True)
            failed += not run(statement)
    rest = reader.rest()
    if rest:
        print(heading(rest), flush=True)
        failed += not run(rest)
    return 2 if failed else 0
