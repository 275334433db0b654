"""Progress of a fit when standard error is not a terminal: a line every few seconds.

On a terminal, nutpie draws its own progress bar (with the time left). Written to a log file
or a CI console, that bar is switched off, and a fit of minutes would show nothing; so, within
:func:`progress_lines` (which the command line enters), a nutpie fit whose progress bar is left
to its default writes a line such as ``sampling: 40% of draws, about 12 s left`` every
:data:`PROGRESS_EVERY` seconds, through nutpie's public ``progress_callback`` option of
``nutpie.sample`` (:class:`ProgressLines`). Library calls outside :func:`progress_lines` write
nothing. PyMC's own sampler (when nutpie is not installed) has no such hook and stays quiet.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TextIO

__all__ = ["PROGRESS_EVERY", "ProgressLines", "line_stream", "progress_lines"]

#: Seconds between two progress lines.
PROGRESS_EVERY = 5.0

_STREAM: ContextVar[TextIO | None] = ContextVar("bayesjudge_progress_lines", default=None)


@contextmanager
def progress_lines(stream: TextIO) -> Iterator[None]:
    """Within this block, fits off a terminal report their progress as lines on ``stream``.

    Parameters
    ----------
    stream : text stream
        Where the lines go (the command line passes standard error).

    Examples
    --------
    >>> import io
    >>> with progress_lines(io.StringIO()):
    ...     line_stream(None, terminal=False) is not None
    True
    >>> line_stream(None, terminal=False) is None
    True
    """
    token = _STREAM.set(stream)
    try:
        yield
    finally:
        _STREAM.reset(token)


def line_stream(progressbar: bool | None, *, terminal: bool) -> TextIO | None:
    """Return where a fit writes progress lines, or None when it writes none.

    Lines are written only when the progress bar was left to its default (``progressbar``
    None), standard error is not a ``terminal`` (where the bar is shown instead) and the
    caller is within :func:`progress_lines`.
    """
    if progressbar is not None or terminal:
        return None
    return _STREAM.get()


class ProgressLines:
    """A ``progress_callback`` for ``nutpie.sample`` that writes a line every few seconds.

    Each line gives the share of draws made (tuning included) over all chains and the time
    left, extrapolated from the time since nutpie first called it (when sampling began):
    ``left = elapsed * (total - done) / done``.

    Parameters
    ----------
    stream : text stream
        Where the lines go.
    every : float
        Seconds between two lines (default :data:`PROGRESS_EVERY`).
    clock : callable
        Returns the time in seconds (``time.monotonic`` by default; tests pass their own).

    Examples
    --------
    >>> import io, types
    >>> now = iter([0.0, 6.0])
    >>> out = io.StringIO()
    >>> report = ProgressLines(out, clock=lambda: next(now))
    >>> report([types.SimpleNamespace(finished_draws=0, total_draws=3000)])  # sampling begins
    >>> report([types.SimpleNamespace(finished_draws=1200, total_draws=3000)])
    >>> print(out.getvalue(), end="")
    sampling: 40% of draws, about 9 s left
    """

    def __init__(
        self,
        stream: TextIO,
        *,
        every: float = PROGRESS_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._stream = stream
        self._every = every
        self._clock = clock
        self._start: float | None = None  # the first call: sampling is under way
        self._last = 0.0

    @staticmethod
    def line(done: int, total: int, elapsed: float) -> str:
        """Return the line for ``done`` of ``total`` draws made in ``elapsed`` seconds.

        Examples
        --------
        >>> ProgressLines.line(400, 1000, 8.0)
        'sampling: 40% of draws, about 12 s left'
        """
        left = elapsed * (total - done) / done
        return f"sampling: {100 * done / total:.0f}% of draws, about {left:.0f} s left"

    def __call__(self, chains: Sequence[Any]) -> None:
        """Write a line if ``every`` seconds passed since the last and sampling is under way.

        ``chains`` are nutpie's ``ChainProgress`` objects (``finished_draws``, ``total_draws``).
        """
        now = self._clock()
        if self._start is None:  # compiling and starting the chains are not sampling time
            self._start = self._last = now
            return
        if now - self._last < self._every:
            return
        done = sum(int(c.finished_draws) for c in chains)
        total = sum(int(c.total_draws) for c in chains)
        if not 0 < done < total:
            return
        self._last = now
        self._stream.write(self.line(done, total, now - self._start) + "\n")
        self._stream.flush()
