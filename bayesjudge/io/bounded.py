r"""Read a byte stream with limits, so that no input can make a reader run or grow without end.

Every table reader reads its bytes through :class:`BoundedStream`, whatever the source: a
regular file, standard input, a pipe, a FIFO, a device (``/dev/zero``) or a file object. It

* refuses a line longer than :data:`MAX_LINE_BYTES` as soon as it has read that much of it
  (``/dev/zero`` or a binary file never ends a line), naming the source and the line;
* refuses a whole-file read (:func:`read_all`, for the commands that need the table in memory)
  larger than :data:`MAX_READ_BYTES`, rather than running out of memory;
* passes a Parquet file (which starts with ``PAR1``) through as it is: it is binary, with no
  lines;
* reads old Mac line endings (a bare carriage return) as newlines, so that ``\r\n``, ``\n``
  and a bare ``\r`` all read; a file whose first line ends in ``\n`` or ``\r\n`` is passed
  through as it is, so a carriage return inside its quoted values is kept.

The line limits are checked with ``bytes.find``/``bytes.count`` on each block read: Python's
own line reading (``readline``, ``io.TextIOWrapper``) cannot bound a line without reading it,
and pyarrow, which parses the blocks, sees only blocks already bounded here.
"""

from __future__ import annotations

import os
import stat
from typing import IO

import numpy as np

from bayesjudge.errors import DataError

__all__ = [
    "MAX_HEADER_BYTES",
    "MAX_LINE_BYTES",
    "MAX_READ_BYTES",
    "BoundedStream",
    "is_stream_path",
    "read_all",
    "size_text",
]

#: The longest line (record) a table may hold: 16 MiB.
MAX_LINE_BYTES = 16 << 20
#: The most bytes read to find a CSV/TSV header or the first JSON Lines record: 16 MiB.
MAX_HEADER_BYTES = 16 << 20
#: The most bytes a table read whole into memory may hold: 2 GiB (larger judge files of
#: verdicts are streamed to counts, block by block, by the prevalence commands).
MAX_READ_BYTES = 2 << 30
_READ_BLOCK = 1 << 20
_NEWLINE, _RETURN = b"\n", b"\r"
_PARQUET_MAGIC = b"PAR1"


def size_text(size: int) -> str:
    """Return a byte count as people say it: ``16 MB``, ``2 GB``, ``512 bytes``.

    Examples
    --------
    >>> size_text(16 << 20), size_text(2 << 30), size_text(1000)
    ('16 MB', '2 GB', '1000 bytes')
    """
    for unit, shift in (("GB", 30), ("MB", 20), ("KB", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size} bytes"


def is_stream_path(path: str | os.PathLike[str]) -> bool:
    """Whether a path names something that can be read only once: ``-``, a pipe, a FIFO, a device.

    Standard input (``-``, ``/dev/stdin``), process substitution (``/dev/fd/63``), named pipes
    and character devices cannot be opened twice to see the same bytes, so a reader must open
    them once and buffer what it needs to detect the format. A missing path, a folder and a
    regular file are not streams.

    Examples
    --------
    >>> is_stream_path("-"), is_stream_path("/dev/null"), is_stream_path(".")
    (True, True, False)
    """
    text = os.fspath(path)
    if text == "-":
        return True
    try:
        mode = os.stat(text).st_mode
    except (OSError, ValueError):
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


class BoundedStream:
    r"""A binary stream read with a line limit, bare carriage returns read as newlines.

    Parameters
    ----------
    raw : binary file object
        What is read (already decompressed, when the source is gzip).
    name : str
        The source as messages name it (a path, ``<stdin>``).
    closes : sequence of binary file objects
        What :meth:`close` closes (the decompressor and the file under it); nothing for a
        stream the caller owns, such as standard input.
    max_line : int
        The longest line allowed, in bytes (:data:`MAX_LINE_BYTES`).

    Raises
    ------
    DataError
        From :meth:`read`, when a line grows past ``max_line``:
        ``"<name>: line 1 is longer than 16 MB: is this a data file?"``.

    Examples
    --------
    >>> import io
    >>> stream = BoundedStream(io.BytesIO(b"a,b\r1,2\r"), name="old.csv")
    >>> stream.read()
    b'a,b\n1,2\n'
    >>> BoundedStream(io.BytesIO(b"x" * 100), name="long.csv", max_line=10).read()
    Traceback (most recent call last):
    ...
    bayesjudge.errors.DataError: long.csv: line 1 is longer than 10 bytes: is this a data file?
    """

    def __init__(
        self,
        raw: IO[bytes],
        *,
        name: str,
        closes: tuple[IO[bytes], ...] = (),
        max_line: int = MAX_LINE_BYTES,
    ) -> None:
        self.raw = raw
        self.name = name
        self.max_line = max_line
        self._closes = closes
        self._line = 1  # the line being read
        self._since = 0  # bytes of that line read so far
        self._bare_returns: bool | None = None  # None until the first line ending is seen
        self._held = b""  # a carriage return at the end of a block: its \n may follow
        self._ended = False
        self._binary: bool | None = None  # Parquet is read as it is, without line limits

    @property
    def line(self) -> int:
        """The 1-based number of the line the stream has read into."""
        return self._line

    def read(self, size: int | None = -1) -> bytes:
        """Read up to ``size`` bytes (all, when negative or None), checking every line's length."""
        if size is None or size < 0:
            return b"".join(iter(lambda: self.read(_READ_BLOCK), b""))
        while True:
            chunk = b"" if self._ended else self.raw.read(max(size, 1))
            if isinstance(chunk, str):
                raise DataError(f"{self.name}: open the file in binary mode ('rb'), not as text")
            if self._binary is None:
                self._binary = chunk.startswith(_PARQUET_MAGIC)
            if self._binary:
                return chunk
            if not chunk:
                self._ended = True
            chunk = self._translate(self._held + chunk)
            if chunk or self._ended:
                break
        self._count(chunk)
        return chunk

    def _translate(self, chunk: bytes) -> bytes:
        """Read bare carriage returns as newlines, in a file whose first line ending is one."""
        self._held = b""
        if self._bare_returns is None:
            end = _first_line_end(chunk)
            if end < 0:
                if self._ended:
                    self._bare_returns = False
                return chunk
            if end == len(chunk) - 1 and not self._ended and chunk.endswith(_RETURN):
                self._held = _RETURN  # a \r at the very end of the block: is a \n next?
                return chunk[:end]
            self._bare_returns = chunk[end : end + 1] == _RETURN and (
                chunk[end + 1 : end + 2] != _NEWLINE
            )
        if not self._bare_returns:
            return chunk
        if chunk.endswith(_RETURN) and not self._ended:
            self._held, chunk = _RETURN, chunk[:-1]
        return chunk.replace(b"\r\n", _NEWLINE).replace(_RETURN, _NEWLINE)

    def _count(self, chunk: bytes) -> None:
        """Advance the line count over ``chunk``; refuse a line longer than ``max_line``."""
        last = chunk.rfind(_NEWLINE)
        if last < 0:
            if self._since + len(chunk) > self.max_line:
                self._too_long(self._line)
            self._since += len(chunk)
            return
        if self._since + len(chunk) > self.max_line:  # some line here may be too long
            ends = np.flatnonzero(np.frombuffer(chunk, dtype=np.uint8) == _NEWLINE[0])
            lengths = np.diff(ends, prepend=-1) - 1
            lengths[0] += self._since
            if lengths.max() > self.max_line:
                self._too_long(self._line + int(np.argmax(lengths > self.max_line)))
        self._line += chunk.count(_NEWLINE)
        self._since = len(chunk) - last - 1
        if self._since > self.max_line:
            self._too_long(self._line)

    def _too_long(self, line: int) -> None:
        raise DataError(
            f"{self.name}: line {line} is longer than {size_text(self.max_line)}: is this a data "
            "file?"
        )

    def close(self) -> None:
        """Close what this stream was given to close."""
        for stream in self._closes:
            stream.close()


def _first_line_end(chunk: bytes) -> int:
    r"""Return the offset of the first ``\n`` or ``\r`` in ``chunk`` (-1 when there is none)."""
    ends = [i for i in (chunk.find(_NEWLINE), chunk.find(_RETURN)) if i >= 0]
    return min(ends) if ends else -1


def read_all(stream: IO[bytes], *, name: str, limit: int | None = None) -> bytes:
    r"""Read a stream to its end, refusing more than ``limit`` bytes (:data:`MAX_READ_BYTES`).

    Raises
    ------
    DataError
        ``"<name>: larger than 2 GB, the most a table read into memory may hold"``, or, when
        memory runs out first, ``"<name>: memory ran out after reading 900 MB of it"``.

    Examples
    --------
    >>> import io
    >>> read_all(io.BytesIO(b"a,b\n"), name="t.csv")
    b'a,b\n'
    >>> read_all(io.BytesIO(b"a" * 2048), name="t", limit=1024)
    Traceback (most recent call last):
    ...
    bayesjudge.errors.DataError: t: larger than 1 KB, the most a table read into memory may hold
    """
    limit = MAX_READ_BYTES if limit is None else limit
    blocks: list[bytes] = []
    total = 0
    try:
        while block := stream.read(min(_READ_BLOCK, limit + 1 - total)):
            total += len(block)
            if total > limit:
                raise DataError(
                    f"{name}: larger than {size_text(limit)}, the most a table read into memory "
                    "may hold"
                )
            blocks.append(block)
        return b"".join(blocks)
    except MemoryError:
        blocks.clear()
        raise DataError(f"{name}: memory ran out after reading {total >> 20} MB of it") from None
