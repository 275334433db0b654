"""The data contract of the channel family: per-item correctness before and after each step.

Tables read through the input layer (:mod:`bayesjudge.io`): any table format, the user's column
names (``columns={"e0": "before", "e1": "after"}``) and PASS/FAIL spellings, every problem
reported at once with the file line it is on. Ids are text: ``"007"`` and ``"7"`` are two
items. Past this module nothing re-checks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bayesjudge.errors import DataError
from bayesjudge.io._judged import read_judged
from bayesjudge.io.groups import GroupCheck
from bayesjudge.io.mapping import Field
from bayesjudge.io.problems import report_repeated
from bayesjudge.io.source import InputFormat, InputReport, check_format
from bayesjudge.io.tables import TableLike, read_table

__all__ = ["PairedOutcomes"]

_STAGE = re.compile(r"e\d+")


def _stages(available: Sequence[str], columns: Mapping[str, str]) -> list[str]:
    """Return the stage names read: those mapped, and the table's ``e<N>`` columns not mapped."""
    mapped = {name for name in columns if _STAGE.fullmatch(name)}
    targets = set(columns.values())
    direct = {c for c in available if _STAGE.fullmatch(c) and c not in targets}
    return sorted(mapped | direct, key=lambda name: int(name[1:]))


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
    origin : InputReport or None
        What was read and how.
    """

    items: np.ndarray
    outcomes: np.ndarray
    stages: tuple[str, ...]
    slice: np.ndarray | None = None
    origin: InputReport | None = None

    @classmethod
    def from_frame(
        cls,
        frame: TableLike,
        *,
        strict: bool = False,
        format: InputFormat = "auto",
        columns: Mapping[str, str] | None = None,
        positive: Sequence[str] = (),
        negative: Sequence[str] = (),
    ) -> PairedOutcomes:
        """Validate a table with ``item``, ``e0``, ``e1`` [, ``e2``, ...] and optional ``slice``.

        The stage columns must be consecutive from ``e0``; each holds a PASS/FAIL correctness
        value (``1/0``, ``true/false``, ``correct/incorrect`` ...) with no blanks; each item
        appears once (ids compared as text).

        Parameters
        ----------
        frame : DataFrame, path, ``"-"`` or binary file
            One row per item.
        strict : bool
            If true, a column none of these names reads is an error.
        format : {"auto", "csv", "tsv", "jsonl", "parquet"}
            The table format of a path.
        columns : mapping, optional
            ``{name: column of the table}``, e.g. ``{"e0": "draft_ok", "e1": "revised_ok"}``.
        positive, negative : sequence of str
            Extra PASS and FAIL spellings.

        Raises
        ------
        DataError
            On a missing stage column or a gap in the stages; then, listing every problem at
            once, a value that is not PASS/FAIL, a blank, a repeated item, or an unknown column
            when ``strict``.

        Examples
        --------
        >>> import pandas as pd
        >>> t = pd.DataFrame({"item": [1, 2], "e0": [0, 1], "e1": ["pass", "fail"]})
        >>> PairedOutcomes.from_frame(t).outcomes
        array([[0, 1],
               [1, 0]])
        """
        check_format(format, table_for="paired outcomes")
        table = read_table(frame, format=format, argument="paired outcomes")  # type: ignore[arg-type]
        name = str(table.attrs.get("source", "paired outcomes"))
        stages = _stages([str(c) for c in table.columns], dict(columns or {}))
        expected = [f"e{i}" for i in range(len(stages))]
        if len(stages) < 2 or stages != expected:
            raise DataError(
                f"{name}: paired outcomes need consecutive stage columns e0, e1[, e2, ...] (at "
                f"least e0 and e1); the table has {list(table.columns)}; name yours with "
                "--map e0=COLUMN (in Python: columns={'e0': ...})"
            )
        fields = [
            Field("item", "text"),
            *(Field(stage, "binary") for stage in stages),
            Field("slice", "text", required=False),
        ]
        read = read_judged(
            frame,
            fields,
            table=table,
            argument="paired outcomes",
            format=format,
            columns=columns,
            positive=positive,
            negative=negative,
            strict=strict,
            groups=GroupCheck(),
        )
        parsed = read.parsed
        if "item" in parsed.columns:
            report_repeated(parsed, ["item"], what="item", problems=read.problems)
        read.problems.raise_if_any()
        outcomes = np.column_stack([parsed[c].to_numpy(dtype=float) for c in stages]).astype(int)
        slices = None
        if "slice" in parsed.columns:
            slices = parsed["slice"].to_numpy(dtype=object).astype(str)
        return cls(
            items=parsed["item"].to_numpy(dtype=object).astype(str),
            outcomes=outcomes,
            stages=tuple(stages),
            slice=slices,
            origin=read.origin(len(parsed)),
        )

    def __repr__(self) -> str:
        return f"PairedOutcomes(items={self.items.size}, stages={list(self.stages)})"
