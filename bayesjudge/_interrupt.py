"""A Ctrl-C that is never lost.

Python turns SIGINT into ``KeyboardInterrupt`` at the next bytecode of the main thread. When
that bytecode belongs to a finaliser or a weak-reference callback (``__del__``, a
``WeakValueDictionary`` cleaning itself up, both frequent while xarray and h5py write files),
the exception cannot propagate: Python prints "Exception ignored in ..." and carries on, so
a long command would run to its end after the user pressed Ctrl-C.

:func:`catching_ctrl_c` (used by the command line) therefore also records each Ctrl-C, drops
the "Exception ignored" report of a swallowed one, and long loops call
:func:`check_interrupted` at their checkpoints (between study chunks), which raises the
recorded interrupt again where it can propagate. The samplers swallow a Ctrl-C too (nutpie and
PyMC stop and return the draws made so far), so the sampler call raises it again
(:mod:`bayesjudge.inference.sampling`) before any of those draws is used.

:func:`interrupted_exit` is the command line's one way to end on a Ctrl-C: one line on stderr,
exit code 130. This module imports only the standard library, so the entry point
(:mod:`bayesjudge.__main__`) can use it before the slow imports of the command line.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

__all__ = ["EXIT_INTERRUPTED", "catching_ctrl_c", "check_interrupted", "interrupted_exit"]

#: Exit code of a command ended by Ctrl-C (128 + SIGINT, as a shell reports it).
EXIT_INTERRUPTED = 130

_seen = threading.Event()


def check_interrupted() -> None:
    """Raise ``KeyboardInterrupt`` if a Ctrl-C was recorded (and possibly swallowed)."""
    if _seen.is_set():
        raise KeyboardInterrupt


def interrupted_exit() -> int:
    """Say on stderr that the command was interrupted and return :data:`EXIT_INTERRUPTED`."""
    print("bayesjudge: interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


def _on_ctrl_c(signum: int, frame: FrameType | None) -> None:
    _seen.set()
    raise KeyboardInterrupt


@contextmanager
def catching_ctrl_c() -> Iterator[None]:
    """Record every Ctrl-C while the block runs and raise it again when leaving normally.

    Outside the main thread (where signal handlers cannot be set), or where Ctrl-C is ignored
    (a process started with SIGINT ignored, as ``nohup`` does), the block runs unchanged.
    """
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    ):
        yield
        return
    _seen.clear()
    previous_handler = signal.signal(signal.SIGINT, _on_ctrl_c)
    previous_hook = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt) and _seen.is_set():
            return  # recorded: raised again at the next checkpoint
        previous_hook(unraisable)

    sys.unraisablehook = hook
    try:
        yield
        check_interrupted()  # the last checkpoint: an interrupt swallowed near the end
    finally:
        sys.unraisablehook = previous_hook
        if previous_handler is not None:
            signal.signal(signal.SIGINT, previous_handler)
        _seen.clear()
