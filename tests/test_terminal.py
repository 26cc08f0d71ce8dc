"""``gamester play`` driven the way a person drives it: through a pseudo-terminal (80 x 24), answering
the prompts and reading the screen (issue 12), and the command line's failure paths (issue 9)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

import gamester

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\r")


class Terminal:
    """``python -m gamester ARGS`` on a pseudo-terminal of ``cols`` x ``rows``."""

    def __init__(
        self,
        *args: str,
        cols: int = 80,
        rows: int = 24,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        full_env = {
            **os.environ,
            "TERM": "dumb",
            "COLUMNS": str(cols),
            "LINES": str(rows),
            "PYTHONUNBUFFERED": "1",
            **(env or {}),
        }
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gamester", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=full_env,
            cwd=cwd,
            start_new_session=True,
            close_fds=True,
        )
        os.close(slave)
        self.fd = master
        self.raw = b""
        self.seen = 0  # how much of the text expect() has consumed

    @property
    def text(self) -> str:
        return _ANSI.sub("", self.raw.decode("utf-8", "replace"))

    def _pump(self, timeout: float) -> bool:
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return False
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # the child closed the terminal
            return False
        if not chunk:
            return False
        self.raw += chunk
        return True

    def expect(self, pattern: str, timeout: float = 60) -> str:
        """Wait until ``pattern`` (a regular expression) appears after what was already matched;
        return the text up to the end of the match."""
        deadline = time.monotonic() + timeout
        rx = re.compile(pattern)
        while True:
            m = rx.search(self.text, self.seen)
            if m:
                out = self.text[self.seen : m.end()]
                self.seen = m.end()
                return out
            left = deadline - time.monotonic()
            if left <= 0 or (self.proc.poll() is not None and not self._pump(0.2)):
                raise AssertionError(f"never saw {pattern!r}; the screen ended:\n{self.text[-2500:]}")
            self._pump(min(left, 0.5))

    def send(self, line: str) -> None:
        os.write(self.fd, line.encode() + b"\r")

    def reading_terminal(self) -> bool | None:
        """Whether the program is blocked waiting for a key (asleep in a read, poll or select
        system call); None where ``/proc/PID/syscall`` cannot be read (not Linux, not allowed)."""
        try:
            with open(f"/proc/{self.proc.pid}/syscall") as f:
                call = f.read().split()
            with open(f"/proc/{self.proc.pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            return None
        # read(0, …), poll, select, pselect6, ppoll (x86-64 and aarch64 numbers)
        waiting = {"0", "7", "23", "270", "271", "63", "72", "73"}
        return (
            state == "S"
            and bool(call)
            and call[0] in waiting
            and (call[0] not in ("0", "63") or call[1] == "0x0")
        )

    def interrupt(self, when_reading: bool = True) -> None:
        """Ctrl-C as a terminal sends it: SIGINT to the foreground process group. With
        ``when_reading``, only once the program is blocked waiting for a key, as a person sees it
        waiting: a SIGINT landing between the program printing its prompt and starting to read is
        only noticed at the next key (CPython checks its signal flag before the read, not in it), a
        window a loaded machine widens. Without /proc to watch, half a second after the screen."""
        if when_reading:
            deadline = time.monotonic() + 60
            while (reading := self.reading_terminal()) is False and time.monotonic() < deadline:
                self._pump(0.05)
            if reading is None:
                time.sleep(0.5)
        os.killpg(self.proc.pid, signal.SIGINT)

    def finish(self, timeout: float = 60) -> int:
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            self._pump(0.2)
        while self._pump(0.1):
            pass
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"still running after {timeout} s:\n{self.text[-2000:]}")
        os.close(self.fd)
        return self.proc.returncode

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        with contextlib.suppress(OSError):
            os.close(self.fd)


@pytest.fixture
def term_env(tmp_path: Path) -> dict[str, str]:
    return {"GAMESTER_CACHE_DIR": str(tmp_path / "cache")}


def play_through(t: Terminal, answer: str = "1", limit: int = 600) -> str:
    """Answer every prompt with ``answer`` until the game is over; the text seen."""
    seen = ""
    for _ in range(limit):
        chunk = t.expect(r"(> $|Game over: .*\n)", timeout=90)
        seen += chunk
        if "Game over: " in chunk:
            return seen
        t.send(answer)
    raise AssertionError("the game did not end")


def quit_without_saving(t: Terminal) -> None:
    """Type ``quit``, skip the save prompt, and expect a clean exit."""
    t.send("quit")
    t.expect("Save the game")
    t.send("")
    assert t.finish() == 0


def test_penneech_table_first_then_a_full_game_and_a_save_prompt_that_asks_again(
    tmp_path: Path, term_env: dict[str, str]
) -> None:
    t = Terminal("play", "penneech", "--seed", "2", "--vs", "random:seed=1", env=term_env)
    try:
        first = t.expect(r"Your moves: .*\n")
        # the table is drawn before the computer plays anything
        assert first.index("Your hand: ") < (first.index(" played ") if " played " in first else len(first))
        assert "Player 1: the computer, random (the easiest" in first
        assert re.search(r"Your hand: (\S+[♣♦♥♠] ?){7}", first)
        assert "seat 0" not in first and "Seat" not in first
        t.expect("> ")
        t.send("help")
        t.expect("How to write a move in Penneech")
        t.expect("> ")
        t.send("1")
        text = play_through(t)
        assert re.search(r"Game over: (You won|Player 1 won), by \d+ points \(\d+ to \d+\)", text)
        assert "Returns" not in text and "[0, 0]" not in text
        t.expect(r"Save the record\? File name \(empty to skip\): ")
        t.send(str(tmp_path / "missing" / "game.json"))
        t.expect("Cannot save there: .*does not exist. Try another name.")
        t.expect(r"Save the record\? ")
        t.send(str(tmp_path / "game.json"))
        t.expect("Record saved to ")
        assert t.finish() == 0
    finally:
        t.close()
    assert "Traceback" not in t.text
    rec = json.loads((tmp_path / "game.json").read_text())
    assert gamester.replay(rec).is_terminal() and rec["play"]["seat"] == 0


@pytest.mark.slow
def test_piquesept_hint_without_the_flag_then_quit_save_and_resume(
    tmp_path: Path, term_env: dict[str, str]
) -> None:
    save = tmp_path / "unfinished.json"
    t = Terminal("play", "piquesept", "--seed", "5", "--seat", "2", "--vs", "heuristic", env=term_env)
    try:
        t.expect(r"you are player 2, one of 4 players")
        t.expect("Your moves: ")
        t.expect("> ")
        t.send("hint")
        hint = t.expect(r"Hint: .*\n", timeout=120)
        assert re.search(r"Hint: (10|[7-9JQKA])[♣♦♥♠]", hint) and "no hint" not in hint
        t.expect("> ")
        t.send("1")
        t.expect("> ")
        t.send("quit")
        t.expect(r"Save the game to resume it later\? File name \(empty to skip\): ")
        t.send(str(save))
        t.expect(r"continue it with:\s+gamester play piquesept --resume ")
        assert t.finish() == 0
    finally:
        t.close()
    rec = json.loads(save.read_text())
    assert rec["play"]["seat"] == 2 and rec["play"]["opponents"][0] == "heuristic"
    assert not gamester.replay(rec).is_terminal()
    made = len(rec["actions"])

    t = Terminal("play", "piquesept", "--resume", str(save), "--save", str(save), env=term_env)
    try:
        start = t.expect(r"Your moves: .*\n")
        assert "you are player 2, one of 4 players. Resuming a saved game." in start
        text = play_through(t)
        text += t.expect("Record saved to ")
        assert re.search(r"Game over: .*card points .*Result: .*you [+-]\d", text, re.S)
        assert t.finish() == 0
    finally:
        t.close()
    done = json.loads(save.read_text())
    assert done["actions"][:made] == rec["actions"] and gamester.replay(done).is_terminal()


def _screens(text: str) -> list[list[str]]:
    """Each Pentyrch turn's screen: from the board's file letters to the move prompt."""
    out = []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.strip() == "a         b         c         d         e         f         g":
            for j in range(i, len(lines)):
                if lines[j].startswith("> "):
                    out.append(lines[i : j + 1])
                    break
    return out


@pytest.mark.parametrize("players", ["4", "2"])
def test_pentyrch_fits_80_by_24_marks_home_and_goal_and_groups_the_moves(
    term_env: dict[str, str], players: str
) -> None:
    t = Terminal(
        "play", "pentyrch", "--seed", "4", "--players", players, "--vs", "random:seed=3", env=term_env
    )
    try:
        first = t.expect(r"Your moves \(court card.*\n")
        if players == "4":
            assert "You are West, hearts (home a4, goal g4)." in first
            assert "Waiting to enter: you J♥ Q♥ K♥; North J♣ Q♣ K♣; East J♦ Q♦ K♦; South J♠ Q♠ K♠" in first
            assert "North: the computer, random" not in first  # three opponents named on one line
            assert "North, East and South: the computer, random (the easiest" in first
        else:
            assert "You are West, hearts (home a4, goal g4) and East, diamonds (home g4, goal a4)." in first
            assert "North+South: the computer, random (the easiest" in first
        t.expect("> ")
        t.send("help")
        t.expect("How to read the Pentyrch board")
        t.expect("> ")
        for _ in range(12):  # a dozen turns: the first group, then its first payment
            t.send("1")
            chunk = t.expect(r"(Pay for (.*\n)+?> |Your moves \(court card.*\n(.*\n)*?> |Game over)")
            if "Game over" in chunk:
                break
            if "Pay for" in chunk:
                t.send("1")
                t.expect(r"Your moves \(court card.*\n(.*\n)*?> |Game over")
        t.send("quit")
        t.expect(r"Save the game to resume it later\? ")
        t.send("")
        assert t.finish() == 0
    finally:
        t.close()
    text = t.text
    assert "Traceback" not in text
    screens = _screens(text)
    assert len(screens) >= 5
    for screen in screens:
        assert len(screen) <= 24, "\n".join(screen)
        assert all(len(line) <= 80 for line in screen), "\n".join(screen)
        board = screen[1:8]
        assert board[3].startswith("4 #") and "#" in board[3][60:]  # West's home and goal framed
        assert board[0].split("|")[0].strip() == "7"  # the cross: nothing drawn beside d7
    assert any("ways to pay" in line for s in screens for line in s)


def test_pentyrch_partner_is_named(term_env: dict[str, str]) -> None:
    t = Terminal(
        "play", "pentyrch", "--seed", "4", "--option", "partners=true", "--vs", "random", env=term_env
    )
    try:
        first = t.expect(r"Your moves \(court card.*\n")
        assert "your partner is East" in first
        quit_without_saving(t)
    finally:
        t.close()


@pytest.mark.slow
def test_ctrl_c_while_the_computer_thinks_and_at_the_save_prompt_exits_130_quietly(
    term_env: dict[str, str],
) -> None:
    # An opponent that searches for 30 seconds a move: Ctrl-C lands while it thinks.
    t = Terminal("play", "penneech", "--seed", "6", "--vs", "ismcts:seconds=30", env=term_env)
    try:
        while True:
            if "thinking…" not in t.expect(r"(> $|thinking…)", timeout=60):
                t.send("1")
                continue
            # A forced move is played at once: interrupt only a computer still thinking (neither
            # showing a new prompt nor waiting for a key), else play on to its next real think.
            t._pump(0.1)
            if t.reading_terminal() is not True and not re.search(r"> $", t.text[t.seen :]):
                break
        t.interrupt(when_reading=False)
        assert t.finish() == 130
    finally:
        t.close()
    assert "Traceback" not in t.text and "KeyboardInterrupt" not in t.text

    t = Terminal("play", "penneech", "--seed", "6", "--vs", "random", env=term_env)
    try:
        t.expect("> ")
        t.send("quit")
        t.expect(r"Save the game to resume it later\? ")
        t.interrupt()
        assert t.finish() == 130
    finally:
        t.close()
    assert "Traceback" not in t.text and "KeyboardInterrupt" not in t.text


def test_a_console_without_suit_symbols_gets_letters(term_env: dict[str, str]) -> None:
    t = Terminal(
        "play", "penneech", "--seed", "2", "--vs", "random", env={**term_env, "PYTHONIOENCODING": "cp1252"}
    )
    try:
        first = t.expect(r"Your moves: .*\n")
        assert re.search(r"Your hand: ((10|[2-9JQKA])[CDHS] ?){7}", first)
        assert not any(s in first for s in "♣♦♥♠")
        quit_without_saving(t)
    finally:
        t.close()
    r = subprocess.run(
        [sys.executable, "-m", "gamester", "rules", "penneech"],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "cp1252"},
        timeout=60,
    )
    assert r.returncode == 0 and b"Traceback" not in r.stderr and b"Penneech" in r.stdout


def test_resume_of_a_record_that_does_not_say_the_seat_asks(tmp_path: Path, term_env: dict[str, str]) -> None:
    state = gamester.load_game("penneech").new_initial_state(seed=3)
    path = tmp_path / "plain.json"
    path.write_text(json.dumps(state.record()))
    t = Terminal("play", "penneech", "--resume", str(path), "--vs", "random", env=term_env)
    try:
        t.expect(r"Which player were you in this game\? \(0 to 1\): ")
        t.send("7")
        t.expect("Please type a number from 0 to 1.")
        t.send("1")
        t.expect("you are player 1, one of 2 players. Resuming a saved game.")
        t.expect("> ")
        quit_without_saving(t)
    finally:
        t.close()
    r = subprocess.run(
        [sys.executable, "-m", "gamester", "play", "penneech", "--resume", str(path)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "give --seat N" in r.stderr


def test_a_turn_up_that_ends_the_game_announces_no_trump() -> None:
    """rules/penneech.md: a turn-up can peg the dealer out; no trick follows it, so no trump is named."""
    import random

    from gamester.games.penneech import render as render_penneech

    game = gamester.load_game("penneech")
    for seed in range(300):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        events = state.last_events()
        if [e["type"] for e in events][-2:] == ["turn_up", "game_over"]:
            break
    else:
        pytest.fail("no game of the first 300 seeds ended on a turn-up")
    lines = render_penneech.narrate_all(events, 0)
    turn = next(x for x in lines if " up " in x)
    assert "trumps" not in turn and ("scores " in turn or "score " in turn)
    assert lines[-1].endswith(")."), lines  # "… wins the game, 61 points to 50 (by 11)."
    mid = [e for e in events if e["type"] == "turn_up"]
    assert "are trumps" in (render_penneech.narrate(mid[0], 0) or "")  # the same event mid-game


@pytest.mark.slow
def test_ctrl_c_with_save_keeps_a_record_that_resumes(tmp_path: Path, term_env: dict[str, str]) -> None:
    save = tmp_path / "left.json"
    t = Terminal("play", "penneech", "--seed", "8", "--vs", "random", "--save", str(save), env=term_env)
    try:
        t.expect("Your moves: ")
        t.expect("> ")
        t.interrupt()
        assert t.finish() == 130
    finally:
        t.close()
    assert "Traceback" not in t.text
    rec = json.loads(save.read_text())
    assert rec["play"] == {"seat": 0, "opponents": [None, "random"]}
    assert not gamester.replay(rec).is_terminal()
