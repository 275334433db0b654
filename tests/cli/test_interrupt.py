"""Ctrl-C ends a command with exit 130 and one line at any moment: while the command line is
still importing, and while the sampler runs (issue 31).

Subprocesses are synchronised with what they print, never with sleeps that race. The sampling
tests run the command line with the sampler's wait announced on stderr (the child wraps the
private ``bayesjudge.inference.sampling._wait``): SIGINT is sent once the sampler runs, with
far more draws than it can finish before the signal arrives. The import test runs Python with
``-X importtime`` and sends SIGINT once NumPy has been imported, while SciPy and the families'
modules still are. Each child gets Python's own Ctrl-C handler even where the test runner was
started as a background job (SIGINT ignored), as the other Ctrl-C tests do.
"""

from __future__ import annotations

import os
import re
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bayesjudge.cli.common import EXIT_INTERRUPTED
from bayesjudge.examples import example_file
from bayesjudge.reporting.output import write_manifest

DEADLINE = 600.0  # seconds: an upper bound for a subprocess to reach a step, never a wait
# The command line as ``python -m bayesjudge`` runs it, with Python's own Ctrl-C handler and the
# sampler's wait announced on stderr ("sampling", once the background sampler was started).
SAMPLING_ENTRY = """
import os, runpy, signal
signal.signal(signal.SIGINT, signal.default_int_handler)
from bayesjudge.inference import sampling
wait = sampling._wait
def announced(background):
    os.write(2, b"sampling\\n")
    return wait(background)
sampling._wait = announced
runpy.run_module("bayesjudge", run_name="__main__")
"""
MANY = ["--draws", "200000", "--chains", "2", "--no-progress"]


def _default_sigint() -> None:
    """In the child before exec: SIGINT as in a terminal, even under a background test runner."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt_when(process: subprocess.Popen[bytes], marker: re.Pattern[bytes]) -> bytes:
    """Read the child's stderr until a line matches ``marker``, send SIGINT, return all stderr."""
    assert process.stderr is not None
    seen = b""
    end = time.monotonic() + DEADLINE
    with selectors.DefaultSelector() as selector:
        selector.register(process.stderr, selectors.EVENT_READ)
        while not any(marker.search(line) for line in seen.splitlines()):
            assert time.monotonic() < end, f"the command never reached {marker.pattern!r}"
            if not selector.select(timeout=1.0):
                continue
            chunk = os.read(process.stderr.fileno(), 65536)
            assert chunk, f"the command ended before {marker.pattern!r}:\n{seen.decode()}"
            seen += chunk
    process.send_signal(signal.SIGINT)
    rest = process.communicate(timeout=DEADLINE)[1]
    return seen + rest


def _run_interrupted(argv: list[str], marker: re.Pattern[bytes]) -> tuple[int, bytes]:
    process = subprocess.Popen(
        argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=_default_sigint,  # the tests start no threads of their own
    )
    try:
        stderr = _interrupt_when(process, marker)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode, stderr


@pytest.mark.parametrize(
    ("command", "example"),
    [
        ("estimate", "judge"),
        # the same sampler call as estimate; compiling their models takes 1.5 and 2.5 minutes
        # on a loaded 2-core machine, so they run with the slow tests
        pytest.param("rank", "systems", marks=pytest.mark.slow),
        pytest.param("panel", "panel", marks=pytest.mark.slow),
    ],
)
def test_ctrl_c_while_sampling_ends_with_130_and_leaves_the_old_report(
    tmp_path: Path, command: str, example: str
) -> None:
    # nutpie returns the draws made before a Ctrl-C, the rest NaN: they reached the posterior
    # predictive step ("p < 0, p > 1 or p contains NaNs", exit 1) before the sampler call
    # raised the interrupt again
    out = tmp_path / "report"
    out.mkdir()
    (out / "report.html").write_text("previous")
    write_manifest(out, kind="report")  # a report an earlier run wrote
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    argv = [sys.executable, "-c", SAMPLING_ENTRY, command, example_file(example)]
    code, stderr = _run_interrupted([*argv, "--out", str(out), *MANY], re.compile(rb"^sampling$"))
    assert code == EXIT_INTERRUPTED, stderr.decode()
    assert stderr.endswith(b"sampling\nbayesjudge: interrupted\n"), stderr.decode()
    assert b"Traceback" not in stderr
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(os.listdir(tmp_path)) == ["report"]  # no staging folder or temporary file


def test_ctrl_c_while_importing_ends_with_130_without_a_traceback(tmp_path: Path) -> None:
    data = tmp_path / "judge.csv"
    data.write_bytes(Path(example_file("judge")).read_bytes())
    # -X importtime prints one line as each module is imported: "... |   numpy"
    code, stderr = _run_interrupted(
        [sys.executable, "-X", "importtime", "-m", "bayesjudge", "baselines", str(data)],
        re.compile(rb"\|\s+numpy$"),
    )
    assert code == EXIT_INTERRUPTED, stderr.decode()
    assert b"Traceback" not in stderr
    assert stderr.endswith(b"\nbayesjudge: interrupted\n"), stderr.decode()[-2000:]


# A Ctrl-C that lands in a weak-reference callback while the command line imports (as one did
# in importlib's module-lock callback): the callback swallows it ("Exception ignored"), so it
# must be recorded and raised when the imports end, not lost while the command runs to its end.
SWALLOWED_ENTRY = """
import os, runpy, signal, sys, weakref
signal.signal(signal.SIGINT, signal.default_int_handler)

class SwallowOnce:
    done = False
    def find_spec(self, name, path=None, target=None):
        if name == "bayesjudge.cli.app" and not self.done:
            self.done = True
            class Lock:
                pass
            lock = Lock()
            ref = weakref.ref(lock, lambda _: os.kill(os.getpid(), signal.SIGINT))
            del lock  # the callback runs, the handler raises inside it, Python swallows it
        return None

sys.meta_path.insert(0, SwallowOnce())
runpy.run_module("bayesjudge", run_name="__main__")
"""


def test_a_ctrl_c_swallowed_while_importing_still_ends_with_130(tmp_path: Path) -> None:
    data = tmp_path / "judge.csv"
    data.write_bytes(Path(example_file("judge")).read_bytes())
    run = subprocess.run(
        [sys.executable, "-c", SWALLOWED_ENTRY, "baselines", str(data)],
        capture_output=True,
        timeout=DEADLINE,
        preexec_fn=_default_sigint,
        check=False,
    )
    assert run.returncode == EXIT_INTERRUPTED, run.stderr.decode()
    assert b"Traceback" not in run.stderr
    assert run.stderr.endswith(b"bayesjudge: interrupted\n"), run.stderr.decode()
    assert run.stdout == b""
