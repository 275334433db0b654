"""The data contract of the prevalence family: judge verdicts on a calibration and a test set.

:class:`JudgeData` holds gold labels on a calibration subset and a judge verdict (binary) or
score (in [0, 1]) on every item, with an optional stratum; :class:`JudgeCounts` its six
sufficient counts. Tables are read and their columns parsed by :mod:`bayesjudge.io`; past
this module nothing re-checks.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from bayesjudge.errors import DataError
from bayesjudge.io.columns import (
    TableLike,
    check_columns,
    check_no_missing,
    parse_binary,
    parse_unit_interval,
    read_table,
)

__all__ = ["JudgeCounts", "JudgeData"]


@dataclass(frozen=True, slots=True)
class JudgeCounts:
    """The six sufficient counts of a binary judge on a calibration and a test set.

    Attributes
    ----------
    m1, x1 : int
        Calibration items whose gold label is PASS, and how many of them the judge passed.
    m0, x0 : int
        Calibration items whose gold label is FAIL, and how many of them the judge passed.
    n, k : int
        Unlabelled test items, and how many of them the judge passed.
    """

    m1: int
    x1: int
    m0: int
    x0: int
    n: int
    k: int

    @property
    def q1(self) -> float:
        """Calibration sensitivity x1 / m1."""
        return self.x1 / self.m1

    @property
    def q0(self) -> float:
        """Calibration specificity (m0 - x0) / m0."""
        return (self.m0 - self.x0) / self.m0

    @property
    def p_hat(self) -> float:
        """Judged pass rate k / n on the test items."""
        return self.k / self.n

    @property
    def j(self) -> float:
        """Youden's J = q0 + q1 - 1 on the calibration items."""
        return self.q0 + self.q1 - 1.0

    def as_dict(self) -> dict[str, int]:
        """Return the counts as a plain mapping."""
        return {
            "m1": self.m1,
            "x1": self.x1,
            "m0": self.m0,
            "x0": self.x0,
            "n": self.n,
            "k": self.k,
        }


def _validate_counts(m1: int, x1: int, m0: int, x0: int, n: int, k: int) -> JudgeCounts:
    values = {"m1": m1, "x1": x1, "m0": m0, "x0": x0, "n": n, "k": k}
    for name, value in values.items():
        if (
            isinstance(value, bool | np.bool_)
            or not isinstance(value, int | float | np.integer | np.floating)
            or not float(value).is_integer()
            or value < 0
        ):
            raise DataError(f"{name} must be a non-negative whole number; got {value!r}")
    m1, x1, m0, x0, n, k = (int(v) for v in values.values())
    for total, part, t_name, p_name in (
        (m1, x1, "m1", "x1"),
        (m0, x0, "m0", "x0"),
        (n, k, "n", "k"),
    ):
        if part > total:
            raise DataError(
                f"{p_name} must not exceed {t_name}; got {p_name}={part} > {t_name}={total}"
            )
    if m1 == 0:
        raise DataError(
            "the calibration set has no gold-PASS items (m1=0): sensitivity is undefined"
        )
    if m0 == 0:
        raise DataError(
            "the calibration set has no gold-FAIL items (m0=0): specificity is undefined"
        )
    if n == 0:
        raise DataError("there are no unlabelled test items (n=0)")
    return JudgeCounts(m1, x1, m0, x0, n, k)


@dataclass(frozen=True, slots=True, eq=False)
class JudgeData:
    """Validated judge data: a gold-labelled calibration set and an unlabelled test set.

    Build it with :meth:`from_frame`, :meth:`from_csv` or :meth:`from_counts`; the constructor
    itself does not validate.

    Attributes
    ----------
    cal_label : ndarray of float, shape (m,)
        Gold labels (1.0 = PASS / correct, 0.0 = FAIL) of the calibration items.
    cal_judge : ndarray of float, shape (m,)
        Judge output on the calibration items: 0.0/1.0 verdicts or scores in [0, 1].
    test_judge : ndarray of float, shape (n,)
        Judge output on the unlabelled test items.
    kind : {"verdict", "score"}
        Whether the judge output is a binary verdict or a score in [0, 1].
    cal_stratum, test_stratum : ndarray of str or None
        Optional stratum of each item.
    """

    cal_label: np.ndarray
    cal_judge: np.ndarray
    test_judge: np.ndarray
    kind: Literal["verdict", "score"]
    cal_stratum: np.ndarray | None = None
    test_stratum: np.ndarray | None = None

    COLUMNS = ("label", "verdict", "score", "stratum")

    # ---- constructors
    @classmethod
    def from_frame(cls, frame: pd.DataFrame, *, strict: bool = False) -> JudgeData:
        """Validate a table with columns ``label``, ``verdict`` or ``score``, optional ``stratum``.

        Parameters
        ----------
        frame : DataFrame
            One row per item. ``label`` is the gold label (binary; blank/NaN marks an
            unlabelled test item). ``verdict`` is the judge's binary verdict, or ``score`` its
            score in [0, 1] (exactly one of the two). ``stratum`` is an optional group label.
        strict : bool
            If true, any other column is an error.

        Raises
        ------
        DataError
            On a missing or unknown column, a non-binary value, a score outside [0, 1], a
            missing judge output, no unlabelled rows, or a calibration class with no items.

        Examples
        --------
        >>> import pandas as pd
        >>> frame = pd.DataFrame({"label": [1, 0, None, None], "verdict": ["pass", "fail", 1, 0]})
        >>> JudgeData.from_frame(frame).counts
        JudgeCounts(m1=1, x1=1, m0=1, x0=0, n=2, k=1)
        """
        frame = read_table(frame)
        has_verdict, has_score = "verdict" in frame.columns, "score" in frame.columns
        if has_verdict == has_score:
            raise DataError(
                "judge data need exactly one of the columns 'verdict' (binary) or 'score' "
                f"(in [0, 1]); the table has {list(frame.columns)}"
            )
        judge_column = "verdict" if has_verdict else "score"
        check_columns(
            frame,
            required=["label", judge_column],
            optional=["stratum"],
            strict=strict,
            argument="judge data",
        )
        label = parse_binary(frame["label"], column="label", allow_missing=True, frame=frame)
        if has_verdict:
            judge = parse_binary(frame["verdict"], column="verdict", frame=frame)
        else:
            judge = parse_unit_interval(frame["score"], column="score", frame=frame)
        stratum = None
        if "stratum" in frame.columns:
            check_no_missing(frame, "stratum")
            stratum = frame["stratum"].astype(str).str.strip().to_numpy()
        labelled = ~np.isnan(label)
        data = cls(
            cal_label=label[labelled],
            cal_judge=judge[labelled],
            test_judge=judge[~labelled],
            kind="verdict" if has_verdict else "score",
            cal_stratum=None if stratum is None else stratum[labelled],
            test_stratum=None if stratum is None else stratum[~labelled],
        )
        data._check_classes()
        return data

    @classmethod
    def from_csv(cls, path: str | os.PathLike[str], *, strict: bool = False) -> JudgeData:
        """Read and validate a CSV file; see :meth:`from_frame` for the columns."""
        return cls.from_frame(read_table(path), strict=strict)

    @classmethod
    def from_counts(cls, m1: int, x1: int, m0: int, x0: int, n: int, k: int) -> JudgeData:
        """Build judge data from the six counts of a binary judge.

        Parameters
        ----------
        m1, x1 : int
            Gold-PASS calibration items and how many the judge passed.
        m0, x0 : int
            Gold-FAIL calibration items and how many the judge passed.
        n, k : int
            Unlabelled test items and how many the judge passed.

        Examples
        --------
        >>> JudgeData.from_counts(122, 103, 401, 2, 3330, 50).counts.q0
        0.9950124688279302
        """
        counts = _validate_counts(m1, x1, m0, x0, n, k)
        cal_label = np.repeat([1.0, 0.0], [counts.m1, counts.m0])
        cal_judge = np.concatenate(
            [
                np.repeat([1.0, 0.0], [counts.x1, counts.m1 - counts.x1]),
                np.repeat([1.0, 0.0], [counts.x0, counts.m0 - counts.x0]),
            ]
        )
        test_judge = np.repeat([1.0, 0.0], [counts.k, counts.n - counts.k])
        return cls(cal_label=cal_label, cal_judge=cal_judge, test_judge=test_judge, kind="verdict")

    @classmethod
    def coerce(cls, data: JudgeData | TableLike, *, strict: bool = False) -> JudgeData:
        """Return ``data`` if it is already validated, else validate it as a table or CSV path."""
        if isinstance(data, JudgeData):
            return data
        return cls.from_frame(read_table(data), strict=strict)

    def _check_classes(self) -> None:
        if self.n == 0:
            raise DataError(
                "column 'label': every row is labelled, so there are no unlabelled test items; "
                "leave 'label' blank for the items whose success rate is to be estimated"
            )
        if self.m1 == 0 or self.m0 == 0:
            missing = "PASS (1)" if self.m1 == 0 else "FAIL (0)"
            raise DataError(
                f"column 'label': the calibration set has no gold-{missing} items, so the judge's "
                f"{'sensitivity' if self.m1 == 0 else 'specificity'} cannot be estimated"
            )

    # ---- views
    @property
    def m(self) -> int:
        """Number of calibration (gold-labelled) items."""
        return int(self.cal_label.size)

    @property
    def m1(self) -> int:
        """Number of gold-PASS calibration items."""
        return int(np.sum(self.cal_label == 1.0))

    @property
    def m0(self) -> int:
        """Number of gold-FAIL calibration items."""
        return int(np.sum(self.cal_label == 0.0))

    @property
    def n(self) -> int:
        """Number of unlabelled test items."""
        return int(self.test_judge.size)

    @property
    def counts(self) -> JudgeCounts:
        """The six sufficient counts; only defined for binary verdicts.

        Raises
        ------
        DataError
            If the judge output is a score rather than a binary verdict.
        """
        if self.kind != "verdict":
            raise DataError(
                "these judge data hold scores, not binary verdicts; the six counts (and the "
                "models built on them) need a binary 'verdict' column"
            )
        positive = self.cal_label == 1.0
        return JudgeCounts(
            m1=self.m1,
            x1=int(np.sum(self.cal_judge[positive])),
            m0=self.m0,
            x0=int(np.sum(self.cal_judge[~positive])),
            n=self.n,
            k=int(np.sum(self.test_judge)),
        )

    @property
    def strata(self) -> tuple[str, ...]:
        """Sorted distinct strata, or an empty tuple when there is no stratum column."""
        if self.cal_stratum is None or self.test_stratum is None:
            return ()
        return tuple(
            sorted({str(s) for s in self.cal_stratum} | {str(s) for s in self.test_stratum})
        )

    def stratified_counts(self) -> dict[str, np.ndarray]:
        """Return the six counts per stratum, each an integer array along :attr:`strata`.

        Raises
        ------
        DataError
            If the data have no stratum column or hold scores rather than binary verdicts.

        Examples
        --------
        >>> frame = pd.DataFrame({"label": [1, 0, None, 1, 0, None],
        ...                       "verdict": [1, 0, 1, 1, 1, 0],
        ...                       "stratum": ["a", "a", "a", "b", "b", "b"]})
        >>> JudgeData.from_frame(frame).stratified_counts()["x0"].tolist()
        [0, 1]
        """
        if not self.strata:
            raise DataError("the stratified model needs judge data with a 'stratum' column")
        per = [self.stratum(name).counts for name in self.strata]
        return {
            field: np.array([getattr(c, field) for c in per], dtype=np.int64)
            for field in ("m1", "x1", "m0", "x0", "n", "k")
        }

    def stratum(self, name: str) -> JudgeData:
        """Return the items of one stratum as judge data (without checking its classes)."""
        if self.cal_stratum is None or self.test_stratum is None:
            raise DataError("these judge data have no 'stratum' column")
        if name not in self.strata:
            raise DataError(f"unknown stratum {name!r}; the strata are {list(self.strata)}")
        cal, test = self.cal_stratum == name, self.test_stratum == name
        return JudgeData(
            cal_label=self.cal_label[cal],
            cal_judge=self.cal_judge[cal],
            test_judge=self.test_judge[test],
            kind=self.kind,
            cal_stratum=self.cal_stratum[cal],
            test_stratum=self.test_stratum[test],
        )

    def flipped(self) -> JudgeData:
        """Return the same data with PASS and FAIL swapped in both labels and judge output."""
        return JudgeData(
            cal_label=1.0 - self.cal_label,
            cal_judge=1.0 - self.cal_judge,
            test_judge=1.0 - self.test_judge,
            kind=self.kind,
            cal_stratum=self.cal_stratum,
            test_stratum=self.test_stratum,
        )

    def to_frame(self) -> pd.DataFrame:
        """Return the data as a table in the input format (calibration rows first)."""
        column = "verdict" if self.kind == "verdict" else "score"
        frame = pd.DataFrame(
            {
                "label": np.concatenate([self.cal_label, np.full(self.n, np.nan)]),
                column: np.concatenate([self.cal_judge, self.test_judge]),
            }
        )
        if self.kind == "verdict":
            frame[column] = frame[column].astype(int)
        if self.cal_stratum is not None and self.test_stratum is not None:
            frame["stratum"] = np.concatenate([self.cal_stratum, self.test_stratum])
        frame["label"] = frame["label"].astype("Int64")
        return frame

    def __repr__(self) -> str:
        strata = f", strata={len(self.strata)}" if self.strata else ""
        return f"JudgeData(kind={self.kind!r}, m1={self.m1}, m0={self.m0}, n={self.n}{strata})"
