"""Ctrl-C can land right after any system call the vault makes. Wherever it lands, the run
sees KeyboardInterrupt (never an OSError it would report as a note's failure, or swallow
and finish as if nothing happened), no descriptor is closed twice, and every note the vault
accepted is there whole once the open batch is committed, as an interrupted run does
before it exits. Each case sends a real SIGINT to the main thread right after the n-th
system call returns, for every n of a scenario that uses each vault operation."""

from __future__ import annotations

import os
import signal
import threading
import types
from pathlib import Path

import pytest

from exporter import interrupts, vaultbatch, vaultio

pytestmark = pytest.mark.skipif(
    not hasattr(signal, "pthread_kill") or not vaultio._DIRFD, reason="needs POSIX signals"
)


class CtrlCAfter:
    """``os`` as vaultio and vaultbatch see it: a SIGINT goes to the main thread right after its n-th
    system call returns (from an fsync thread too). Descriptors are tracked."""

    def __init__(self, at: int) -> None:
        self.at, self.calls, self.lock = at, 0, threading.Lock()
        self.opened: set[int] = set()
        self.double_closed: list[int] = []

    def __getattr__(self, name: str):
        real = getattr(os, name)
        if not isinstance(real, types.BuiltinFunctionType):
            return real

        def call(*args, **kwargs):
            if name == "close":
                with self.lock:
                    if args[0] not in self.opened:
                        self.double_closed.append(args[0])
                    self.opened.discard(args[0])
            result = real(*args, **kwargs)
            with self.lock:
                if name in ("open", "dup"):
                    self.opened.add(result)
                self.calls += 1
                now = self.calls == self.at
            if now:
                signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
            return result

        return call


def scenario(root: Path, done: list[tuple[str, bytes]], batches: list) -> None:
    """Each vault operation once; ``done`` gets each note the vault has accepted."""
    vaultio.write_file(root, "a/b/one.md", b"one")
    done.append(("a/b/one.md", b"one"))
    assert vaultio.read_file(root, "a/b/one.md")[0] == b"one"
    assert vaultio.kind(root, "a/b") == "folder"
    batch = vaultbatch.WriteBatch(root, limit=3)
    batches.append(batch)
    for i in range(5):
        relpath, data = f"{'ac'[i % 2]}/n{i}.md", f"note {i}".encode()
        batch.write(relpath, data)
        done.append((relpath, data))
    batch.commit()
    vaultbatch.sync_folders(root, ["a", "c"])
    vaultio.append_file(root, ".ccexport/log.txt", b"a line\n")
    os.close(vaultio.open_lock_file(root, ".ccexport/lock"))
    done.remove(("a/b/one.md", b"one"))  # from here it may be gone
    assert vaultio.remove_file(root, "a/b/one.md")


@pytest.fixture
def ctrl_c_raises():
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def run(root: Path, at: int) -> tuple[CtrlCAfter, list, list, BaseException | None]:
    fake, done, batches, raised = CtrlCAfter(at), [], [], None
    vaultio.os = vaultbatch.os = fake
    try:
        scenario(root, done, batches)
    except BaseException as exc:  # what the caller would see
        raised = exc
    finally:
        vaultio.os = vaultbatch.os = os
    return fake, done, batches, raised


def test_ctrl_c_after_any_system_call_is_a_ctrl_c_and_loses_no_accepted_note(
    tmp_path, ctrl_c_raises
):
    counted, _, _, raised = run(tmp_path / "count", at=0)
    assert raised is None and counted.calls > 60 and not counted.double_closed
    for at in range(1, counted.calls + 1):
        root = tmp_path / f"at{at}"
        fake, done, batches, raised = run(root, at)
        where = f"Ctrl-C after system call {at} of {counted.calls}"
        assert isinstance(raised, KeyboardInterrupt), (where, raised)
        assert not fake.double_closed, (where, fake.double_closed)
        for batch in batches:  # what the interrupted run does before it exits
            batch.commit()
            assert not batch.failed, where
        for relpath, data in done:
            assert (root / relpath).read_bytes() == data, (where, relpath)


def test_a_ctrl_c_handled_as_sigint_is_blocked_does_not_leave_it_blocked(monkeypatch):
    """Blocking SIGINT runs the handler of a Ctrl-C that came just before; its
    KeyboardInterrupt must not leave SIGINT blocked for the rest of the run."""
    real = signal.pthread_sigmask

    def blocking_then_handling(how, mask):
        before = real(how, mask)
        if how == signal.SIG_BLOCK and signal.SIGINT in set(mask):
            raise KeyboardInterrupt
        return before

    monkeypatch.setattr(interrupts.signal, "pthread_sigmask", blocking_then_handling)
    with pytest.raises(KeyboardInterrupt):
        with interrupts.ctrl_c_held():
            pytest.fail("the block ran although Ctrl-C came first")
    assert signal.SIGINT not in real(signal.SIG_BLOCK, ())


def test_ctrl_c_held_delivers_the_signal_when_the_block_ends(ctrl_c_raises):
    ran = []
    with pytest.raises(KeyboardInterrupt):
        with interrupts.ctrl_c_held():
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
            ran.append("after the signal")  # not cut here
    assert ran == ["after the signal"]
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, ())
