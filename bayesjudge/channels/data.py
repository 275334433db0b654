"""The data contract of the channel family: per-item correctness before and after each step.

Tables are read and their columns parsed by :mod:`bayesjudge.io`; past this module nothing
re-checks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bayesjudge.errors import DataError
from bayesjudge.io.columns import (
    TableLike,
    check_columns,
    check_no_missing,
    check_unique,
    matches,
    parse_binary,
    read_table,
)

__all__ = ["PairedOutcomes"]


@dataclass(frozen=True, slots=True, eq=False)
class PairedOutcomes:
    """Validated per-item correctness before and after each step of a pipeline.

    Attributes
    ----------
    items : ndarray of str, shape (N,)
        Item identifiers.
    outcomes : ndarray of int, shape (N, S + 1)
        Correctness E0, E1, ..., ES of each item (1 = correct) after 0..S steps.
    stages : tuple of str
        The column names ``("e0", "e1", ...)``.
    slice : ndarray of str or None
        Optional slice of each item.
    """

    items: np.ndarray
    outcomes: np.ndarray
    stages: tuple[str, ...]
    slice: np.ndarray | None = None

    @classmethod
    def from_frame(cls, frame: TableLike, *, strict: bool = False) -> PairedOutcomes:
        """Validate a table with ``item``, ``e0``, ``e1`` [, ``e2``, ...] and optional ``slice``.

        The stage columns must be consecutive from ``e0``; each holds a binary correctness
        value with no blanks; each item appears once.

        Raises
        ------
        DataError
            On a missing stage column, a gap in the stages, a non-binary or missing value, a
            repeated item, or an unknown column when ``strict``.

        Examples
        --------
        >>> import pandas as pd
        >>> t = pd.DataFrame({"item": [1, 2], "e0": [0, 1], "e1": ["pass", "fail"]})
        >>> PairedOutcomes.from_frame(t).outcomes
        array([[0, 1],
               [1, 0]])
        """
        frame = read_table(frame, argument="paired outcomes")
        stage_columns = sorted(
            (c for c in frame.columns if matches(r"e\d+", c)), key=lambda c: int(c[1:])
        )
        expected = [f"e{i}" for i in range(len(stage_columns))]
        if len(stage_columns) < 2 or stage_columns != expected:
            raise DataError(
                "paired outcomes need consecutive stage columns e0, e1[, e2, ...] (at least e0 "
                f"and e1); the table has {list(frame.columns)}"
            )
        check_columns(
            frame,
            required=["item", *stage_columns],
            optional=["slice"],
            strict=strict,
            argument="paired outcomes",
        )
        check_no_missing(frame, "item")
        frame["item"] = frame["item"].astype(str).str.strip()
        check_unique(frame, ["item"], what="item")
        outcomes = np.column_stack(
            [parse_binary(frame[c], column=c, frame=frame) for c in stage_columns]
        ).astype(int)
        slices = None
        if "slice" in frame.columns:
            check_no_missing(frame, "slice")
            slices = frame["slice"].astype(str).str.strip().to_numpy()
        return cls(
            items=frame["item"].to_numpy(dtype=str),
            outcomes=outcomes,
            stages=tuple(stage_columns),
            slice=slices,
        )

    def __repr__(self) -> str:
        return f"PairedOutcomes(items={self.items.size}, stages={list(self.stages)})"
