"""The data contracts of the retry-gate family: repeated rulings and revise-then-rejudge logs.

* :class:`Rulings` - repeated judge rulings per item (long format), aggregated per item;
* :class:`LoopLog` - loop logs (item, attempt, verdict, correct).

Tables are read and their columns parsed by :mod:`bayesjudge.io`; past this module nothing
re-checks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from bayesjudge.errors import DataError
from bayesjudge.io.columns import (
    TableLike,
    check_columns,
    check_constant_per_item,
    check_no_missing,
    check_unique,
    first_positions,
    parse_binary,
    read_table,
    row_label,
    shown,
)

__all__ = ["LoopLog", "Rulings"]


@dataclass(frozen=True, slots=True, eq=False)
class Rulings:
    """Validated repeated rulings, aggregated per item.

    Attributes
    ----------
    items : ndarray of str, shape (N,)
        Item identifiers, in order of first appearance.
    r : ndarray of int, shape (N,)
        Number of rulings of each item.
    k : ndarray of int, shape (N,)
        Number of those rulings that passed.
    label : ndarray of float, shape (N,)
        Gold label per item (NaN for unlabelled items).
    slice : ndarray of str or None
        Optional slice of each item.
    sequence : tuple of (ndarray of str, ndarray of float) or None
        Every ruling in order (by the ``ruling`` column when there is one, else by row): the
        item of each ruling and its verdict; what the lag-1 independence check reads.
    """

    items: np.ndarray
    r: np.ndarray
    k: np.ndarray
    label: np.ndarray
    slice: np.ndarray | None = None
    sequence: tuple[np.ndarray, np.ndarray] | None = None

    @classmethod
    def from_frame(
        cls, frame: TableLike, *, strict: bool = False, allow_duplicates: bool = True
    ) -> Rulings:
        """Validate rulings in long format: ``item``, ``verdict``, optional ``label``, ``slice``.

        One row per ruling. An optional ``ruling`` column numbers the rulings of an item; with
        it, or with ``allow_duplicates=False``, a repeated (item, ruling) row is an error. The
        gold label and the slice, when given, must be the same on every row of an item.

        Raises
        ------
        DataError
            On a missing or unknown column, a non-binary verdict or label, a missing value, a
            duplicated ruling, or an item whose label or slice differs between its rows.

        Examples
        --------
        >>> import pandas as pd
        >>> t = pd.DataFrame({"item": ["a", "a", "b"], "verdict": [1, 0, 0], "label": [1, 1, None]})
        >>> Rulings.from_frame(t).k
        array([1, 0])
        """
        frame = read_table(frame, argument="rulings")
        check_columns(
            frame,
            required=["item", "verdict"],
            optional=["label", "slice", "ruling"],
            strict=strict,
            argument="rulings",
        )
        check_no_missing(frame, "item")
        frame["item"] = frame["item"].astype(str).str.strip()
        verdict = parse_binary(frame["verdict"], column="verdict", frame=frame)
        order = np.arange(len(frame))
        if "ruling" in frame.columns:
            check_no_missing(frame, "ruling")
            number = pd.to_numeric(frame["ruling"], errors="coerce").to_numpy(dtype=float)
            bad = ~np.isfinite(number) | (number != np.round(number))
            if bad.any():
                position = int(np.flatnonzero(bad)[0])
                raise DataError(
                    f"column 'ruling' must hold whole numbers numbering each item's rulings; "
                    f"row {row_label(frame, position)} has {shown(frame['ruling'].iloc[position])}"
                )
            frame["ruling"] = number.astype(np.int64)
            check_unique(frame, ["item", "ruling"], what="ruling")
            order = np.argsort(number, kind="stable")
        elif not allow_duplicates:
            raise DataError(
                "rulings: duplicate rulings are not allowed here, so a 'ruling' column numbering "
                "each item's rulings is required"
            )
        label = (
            parse_binary(frame["label"], column="label", allow_missing=True, frame=frame)
            if "label" in frame.columns
            else np.full(len(frame), np.nan)
        )
        codes, items = pd.factorize(frame["item"], sort=False)
        check_constant_per_item(frame, codes, label, column="label")
        slices = None
        if "slice" in frame.columns:
            check_no_missing(frame, "slice")
            raw_slice = frame["slice"].astype(str).str.strip().to_numpy()
            slice_codes = pd.factorize(raw_slice)[0].astype(float)
            check_constant_per_item(frame, codes, slice_codes, column="slice")
            slices = raw_slice[first_positions(codes, len(items))]
        r = np.bincount(codes, minlength=len(items))
        k = np.bincount(codes, weights=verdict, minlength=len(items)).astype(int)
        item_label = label[first_positions(codes, len(items))]
        sequence = (frame["item"].to_numpy(dtype=str)[order], verdict[order])
        return cls(
            items=np.asarray(items, dtype=str),
            r=r,
            k=k,
            label=item_label,
            slice=slices,
            sequence=sequence,
        )

    @property
    def labelled(self) -> np.ndarray:
        """Boolean mask of gold-labelled items."""
        return ~np.isnan(self.label)

    @property
    def score(self) -> np.ndarray:
        """Fraction of each item's rulings that passed, k / r."""
        return self.k / self.r

    def __repr__(self) -> str:
        return (
            f"Rulings(items={self.items.size}, labelled={int(self.labelled.sum())}, "
            f"rulings={int(self.r.sum())})"
        )


@dataclass(frozen=True, slots=True, eq=False)
class LoopLog:
    """Validated revise-then-rejudge loop logs: one row per attempt of an item.

    Attributes
    ----------
    item : ndarray of str
        Item identifier of each attempt.
    attempt : ndarray of int
        Attempt number (1, 2, ...) within the item, sorted within each item.
    verdict : ndarray of float
        The judge's verdict on the attempt (1.0 = PASS).
    correct : ndarray of float
        Whether the attempt was truly correct (1.0), as gold labels say.
    """

    item: np.ndarray
    attempt: np.ndarray
    verdict: np.ndarray
    correct: np.ndarray

    @classmethod
    def from_frame(cls, frame: TableLike, *, strict: bool = False) -> LoopLog:
        """Validate loop logs with columns ``item``, ``attempt``, ``verdict``, ``correct``.

        Raises
        ------
        DataError
            On a missing or unknown column, a non-binary verdict or correctness, an attempt
            that is not a positive whole number, or a repeated (item, attempt) row.
        """
        frame = read_table(frame, argument="loop log")
        check_columns(
            frame,
            required=["item", "attempt", "verdict", "correct"],
            optional=[],
            strict=strict,
            argument="loop log",
        )
        check_no_missing(frame, "item")
        check_no_missing(frame, "attempt")
        attempt = pd.to_numeric(frame["attempt"], errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(attempt) | (attempt < 1) | (attempt != np.round(attempt))
        if bad.any():
            position = int(np.flatnonzero(bad)[0])
            raise DataError(
                f"column 'attempt' must hold whole numbers >= 1; row {row_label(frame, position)} "
                f"has {shown(frame['attempt'].iloc[position])}"
            )
        frame["item"] = frame["item"].astype(str).str.strip()
        frame["attempt"] = attempt.astype(int)
        check_unique(frame, ["item", "attempt"], what="attempt")
        verdict = parse_binary(frame["verdict"], column="verdict", frame=frame)
        correct = parse_binary(frame["correct"], column="correct", frame=frame)
        order = np.lexsort((frame["attempt"].to_numpy(), frame["item"].to_numpy()))
        return cls(
            item=frame["item"].to_numpy(dtype=str)[order],
            attempt=frame["attempt"].to_numpy()[order],
            verdict=verdict[order],
            correct=correct[order],
        )

    def __repr__(self) -> str:
        return f"LoopLog(items={np.unique(self.item).size}, attempts={self.item.size})"
