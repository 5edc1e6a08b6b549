"""Stopping a run: Ctrl-C says how far it got and exits 130; killing the main process leaves
no worker process behind. Real processes, real signals (Linux /proc to find the workers)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import weakref
from pathlib import Path

import pytest
from conftest import note_files
from test_sync import write_sessions

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


def start(vault: Path, home: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "exporter", "--vault", str(vault), "--home", str(home), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
        env={**os.environ, "NO_COLOR": "1"},
    )


def related(marker: str) -> list[int]:
    """Processes whose command line names ``marker`` (the run and its forked workers)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if marker.encode() in cmdline and state != "Z":
                found.append(int(entry))
    return found


def wait_for(condition, seconds: float = 120) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture(scope="module")
def big_home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("signals") / "home"
    write_sessions(home, 300, turns=10)
    return home


def test_ctrl_c_says_how_far_it_got_exits_130_and_the_next_run_finishes(tmp_path, big_home):
    vault = tmp_path / "vault"
    process = start(vault, big_home, "--jobs", "2")
    assert wait_for(lambda: len(note_files(vault)) >= 5), "no note was written"
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C sends: the whole foreground group
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "Exception" not in err, err
    line = next(x for x in err.splitlines() if x.startswith("interrupted:"))
    assert line.endswith("notes written, run again to finish")
    written = int(line.split()[1])
    assert 0 < written <= len(note_files(vault)) < 300
    assert wait_for(lambda: not related(str(vault)), 10), "workers outlived the run"
    again = subprocess.run(
        [sys.executable, "-m", "exporter", "--vault", str(vault), "--home", str(big_home)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert again.returncode == 0, again.stderr
    assert len(note_files(vault)) == 300
    for text in note_files(vault).values():  # every note is whole
        assert b"%% ccexport:end" in text


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_killing_the_main_process_leaves_no_worker_behind(tmp_path, big_home, sig):
    vault = tmp_path / f"vault-{sig.name}"
    process = start(vault, big_home, "--jobs", "2")
    assert wait_for(lambda: len(related(str(vault))) >= 2), "the worker pool never started"
    process.send_signal(sig)
    process.wait(timeout=30)
    assert wait_for(lambda: not related(str(vault)), 10), related(str(vault))
    # and the pipes the caller waits on are closed: reading them ends
    assert process.stdout.read() is not None and process.stderr.read() is not None


def test_a_ctrl_c_python_drops_still_stops_the_run(tmp_path):
    """Python drops an exception raised while it runs a weakref callback or a finalizer
    (CI saw a Ctrl-C land in one, and the run went on to the end): the run still stops at
    the next unit, as interrupted, and the next run finishes."""
    from exporter.export import ExportOptions, Interrupted, run_export

    home, vault = tmp_path / "home", tmp_path / "vault"
    write_sessions(home, 12)

    printed, refs = [], []

    class Thing:
        pass

    def ctrl_c(ref: weakref.ref) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1)  # the KeyboardInterrupt is raised here, in a weakref callback

    def dropped(done: int, total: int) -> None:
        if done == 3:
            thing = Thing()
            refs.append(weakref.ref(thing, ctrl_c))
            del thing  # the callback runs, and Python drops what it raises

    hook, sys.unraisablehook = sys.unraisablehook, printed.append
    try:
        with pytest.raises(Interrupted):
            run_export(ExportOptions(vault=vault, home=home, workers=1), progress=dropped)
    finally:
        sys.unraisablehook = hook
    assert 0 < len(note_files(vault)) < 12
    assert not printed  # not reported as "Exception ignored": it was not ignored
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # as it was
    report = run_export(ExportOptions(vault=vault, home=home, workers=1))
    assert not report.failed and len(note_files(vault)) == 12


def test_a_ctrl_c_while_the_command_still_imports_is_one_line_and_exit_130(tmp_path):
    # Timing a real SIGINT into the first tenths of a second is flaky; instead the import of
    # the command line raises KeyboardInterrupt, as Python does when Ctrl-C lands there.
    script = tmp_path / "early.py"
    script.write_text(
        "import sys\n"
        "class Interrupt:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'exporter.cli':\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Interrupt())\n"
        "sys.argv = ['ccexport', '--help']\n"
        "from exporter.command import console\n"
        "console()\n"
    )
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=60)  # fmt: skip
    assert proc.returncode == 130 and proc.stderr == "interrupted\n", proc.stderr


def _drop_a_ctrl_c() -> None:
    """A Ctrl-C that lands in a weakref callback, where Python drops what it raises."""

    class Thing:
        pass

    def ctrl_c(ref: weakref.ref) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1)  # the KeyboardInterrupt is raised here, and dropped

    thing = Thing()
    ref = weakref.ref(thing, ctrl_c)
    del thing
    assert ref() is None


def test_a_ctrl_c_dropped_after_the_last_check_is_raised_as_the_block_ends():
    """Past the run's last check (its index notes, its state), a dropped Ctrl-C was lost:
    a ``watch`` went on running after it. It is raised as the block ends."""
    from exporter.interrupts import ctrl_c_noted

    with pytest.raises(KeyboardInterrupt):
        with ctrl_c_noted():
            _drop_a_ctrl_c()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # as it was
    with ctrl_c_noted():  # and it is not raised again by the next block
        pass


def test_a_ctrl_c_dropped_before_an_inner_block_is_raised_as_it_begins():
    from exporter.interrupts import ctrl_c_noted

    with pytest.raises(KeyboardInterrupt):
        with ctrl_c_noted():
            _drop_a_ctrl_c()
            with ctrl_c_noted():  # (run_export's, inside watch's): never reached
                raise AssertionError("the Ctrl-C was lost")


def test_a_ctrl_c_dropped_while_watch_waits_stops_it(tmp_path):
    from exporter.export import ExportOptions
    from exporter.watch import watch

    write_sessions(tmp_path / "home", 1)
    options = ExportOptions(vault=tmp_path / "v", home=tmp_path / "home", workers=1)
    waits = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        if len(waits) == 2:
            _drop_a_ctrl_c()

    with pytest.raises(KeyboardInterrupt):
        watch(options, interval=0.01, sleep=sleep, rounds=10)
    assert len(waits) == 2  # stopped at the round after it, not after ten
