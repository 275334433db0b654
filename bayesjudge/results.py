"""Small frozen result objects shared by the frequentist and Bayesian estimators.

Every estimator in bayesjudge returns an :class:`Estimate`; its :class:`Interval` carries its own
mass (``prob``) and kind, so frequentist and Bayesian answers line up in one table.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

__all__ = [
    "JSON_ROW_FIELDS",
    "ROW_COLUMNS",
    "Estimate",
    "EstimatesFrame",
    "Interval",
    "PosteriorSummary",
    "estimates_frame",
    "finite_or_none",
    "unchecked_diagnostics",
]

#: The columns of the table every estimate becomes, in order.
ROW_COLUMNS = (
    "method",
    "estimate",
    "low",
    "high",
    "prob",
    "interval",
    "std_error",
    "j",
    "unclipped",
    "note",
)

#: The fields of an estimate in the JSON output of the commands, in order.
JSON_ROW_FIELDS = ("method", "estimate", "low", "high", "prob", "note")


@dataclass(frozen=True, slots=True)
class Interval:
    """An interval of probability mass ``prob`` for a scalar quantity.

    Parameters
    ----------
    low, high : float
        The bounds, ``low <= high``.
    prob : float
        The nominal mass in (0, 1): coverage for a confidence interval, posterior mass for a
        credible interval.
    kind : str
        How it was made, e.g. ``"delta"``, ``"lang_reiczigel"``, ``"bootstrap_percentile"``,
        ``"clt"``, ``"eti"`` (equal-tailed), ``"hdi"`` (highest density).

    Examples
    --------
    >>> Interval(0.2, 0.4, 0.95, "eti").contains(0.3)
    True
    """

    low: float
    high: float
    prob: float
    kind: str

    def __post_init__(self) -> None:
        if not 0.0 < self.prob < 1.0:
            raise ValueError(f"prob must lie in (0, 1); got {self.prob!r}")
        if not self.low <= self.high:
            raise ValueError(f"interval bounds out of order: low={self.low!r} > high={self.high!r}")

    @property
    def width(self) -> float:
        """Return ``high - low``."""
        return self.high - self.low

    def contains(self, value: float) -> bool:
        """Return whether ``low <= value <= high``."""
        return self.low <= value <= self.high


@dataclass(frozen=True, slots=True)
class Estimate:
    """A point estimate of the true success rate with its interval and provenance.

    Parameters
    ----------
    method : str
        Stable machine name of the estimator, e.g. ``"rogan_gladen_delta"``.
    estimate : float or None
        The point estimate; ``None`` when the method could not produce one (see ``notes``).
    interval : Interval or None
        The interval estimate, if the method has one.
    se : float or None
        Standard error, where the method defines one.
    j : float or None
        The Youden J = Se + Sp - 1 of the judge that the method used, if any.
    unclipped : float or None
        The estimate before clipping to [0, 1], for methods that clip.
    notes : tuple of str
        Human-readable remarks (clipping, non-identifiability, fall-backs).

    Examples
    --------
    >>> e = Estimate("naive", 0.7, Interval(0.65, 0.75, 0.95, "wilson"))
    >>> e.to_row()["low"]
    0.65
    """

    method: str
    estimate: float | None
    interval: Interval | None = None
    se: float | None = None
    j: float | None = None
    unclipped: float | None = None
    notes: tuple[str, ...] = field(default=())

    @classmethod
    def not_identifiable(cls, method: str, reason: str, *, j: float | None = None) -> Estimate:
        """Return the row shown when ``method`` cannot estimate anything, with its reason."""
        return cls(method=method, estimate=None, j=j, notes=(f"not identifiable: {reason}",))

    @property
    def identifiable(self) -> bool:
        """Whether a point estimate exists."""
        return self.estimate is not None

    def to_row(self) -> dict[str, Any]:
        """Return the estimate as a flat mapping with the keys of :data:`ROW_COLUMNS`."""
        iv = self.interval
        return {
            "method": self.method,
            "estimate": self.estimate,
            "low": None if iv is None else iv.low,
            "high": None if iv is None else iv.high,
            "prob": None if iv is None else iv.prob,
            "interval": None if iv is None else iv.kind,
            "std_error": self.se,
            "j": self.j,
            "unclipped": self.unclipped,
            "note": "; ".join(self.notes) if self.notes else None,
        }

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON row of the commands: ``method, estimate, low, high, prob, note``."""
        row = self.to_row()
        return {key: row[key] for key in JSON_ROW_FIELDS}

    def to_series(self) -> pd.Series:
        """Return the estimate as a pandas row (a Series indexed by :data:`ROW_COLUMNS`)."""
        return pd.Series(self.to_row(), index=list(ROW_COLUMNS), name=self.method)


class EstimatesFrame(pd.DataFrame):
    """A table of estimates (a DataFrame) that prints readably in a terminal.

    ``print(frame)`` shows method, estimate, interval and standard error rounded to three
    places within 80 columns, with each distinct note once below the table (marked ``[1]``,
    ``[2]``, ...) instead of pandas' truncated view; in Jupyter it renders as HTML with rounded
    numbers. Every DataFrame operation returns a plain DataFrame.

    Examples
    --------
    >>> frame = estimates_frame([Estimate("naive", 0.7, Interval(0.65, 0.75, 0.95, "wilson"),
    ...                                   notes=("assumes a random gold sample",))])
    >>> print(frame)
    method  estimate    low   high  std_error  note
    naive      0.700  0.650  0.750          -   [1]
    [1] assumes a random gold sample
    """

    @property
    def _constructor(self) -> type[pd.DataFrame]:
        return pd.DataFrame

    def __repr__(self) -> str:
        return _estimates_text(self)

    def _repr_html_(self) -> str:
        return pd.DataFrame(self).to_html(
            index=False, na_rep="", float_format=lambda x: f"{x:.4f}", border=0
        )


def _estimates_text(frame: pd.DataFrame) -> str:
    def number(value: Any) -> str:
        return "-" if value is None or not math.isfinite(float(value)) else f"{float(value):.3f}"

    notes: list[str] = []
    rows = []
    for record in frame.to_dict(orient="records"):
        note = record.get("note")
        mark = ""
        if isinstance(note, str) and note:
            if note not in notes:
                notes.append(note)
            mark = f"[{notes.index(note) + 1}]"
        rows.append(
            [
                str(record.get("method", "")),
                *(number(record.get(c)) for c in ("estimate", "low", "high", "std_error")),
                mark,
            ]
        )
    header = ["method", "estimate", "low", "high", "std_error", "note"]
    widths = [
        max(len(header[i]), *(len(r[i]) for r in rows)) if rows else len(header[i])
        for i in range(len(header))
    ]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    out = [line(header), *(line(r) for r in rows)]
    for k, note in enumerate(notes):
        out.append(
            textwrap.fill(note, width=80, initial_indent=f"[{k + 1}] ", subsequent_indent="    ")
        )
    return "\n".join(out)


def estimates_frame(estimates: list[Estimate] | tuple[Estimate, ...]) -> EstimatesFrame:
    """Stack estimates into one table with the columns of :data:`ROW_COLUMNS`.

    Missing values are NaN in numeric columns and None in text columns. The table is an
    :class:`EstimatesFrame`: a DataFrame that prints readably in a terminal.
    """
    frame = pd.DataFrame([e.to_row() for e in estimates], columns=list(ROW_COLUMNS))
    numeric = ["estimate", "low", "high", "prob", "std_error", "j", "unclipped"]
    frame[numeric] = frame[numeric].astype(float)
    return EstimatesFrame(frame)


def finite_or_none(value: float | None) -> float | None:
    """Return ``value`` as a float, or None when it is missing or not finite (for JSON output)."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


@dataclass(frozen=True, slots=True)
class PosteriorSummary:
    """Summary of the posterior draws (or exact posterior) of one scalar quantity.

    Attributes
    ----------
    name : str
        The quantity summarised, e.g. ``"pi"`` or ``"se[short]"``.
    mean, sd, median : float
        Posterior mean, standard deviation and median.
    eti : Interval
        Equal-tailed interval of mass ``eti.prob``.
    hdi : Interval or None
        Highest-density interval of the same mass, where one was computed.

    Examples
    --------
    >>> s = PosteriorSummary("pi", 0.3, 0.05, 0.3, Interval(0.2, 0.4, 0.95, "eti"))
    >>> s.to_dict()["low"]
    0.2
    """

    name: str
    mean: float
    sd: float
    median: float
    eti: Interval
    hdi: Interval | None = None

    def to_dict(self) -> dict[str, float | str]:
        """Return ``{"mean", "sd", "low", "high", "prob"}`` with the equal-tailed bounds."""
        return {
            "mean": self.mean,
            "sd": self.sd,
            "low": self.eti.low,
            "high": self.eti.high,
            "prob": self.eti.prob,
        }


def unchecked_diagnostics(method: str) -> dict[str, Any]:
    """Return the ``diagnostics`` block of a result no sampler made (e.g. ``method="exact"``).

    The same keys as :meth:`bayesjudge.inference.diagnostics.Diagnostics.json_block`, with no
    numbers: nothing was sampled, so there is nothing to check.

    Examples
    --------
    >>> unchecked_diagnostics("exact")["passed"]
    True
    """
    return {
        "passed": True,
        "method": method,
        "r_hat_max": None,
        "ess_bulk_min": None,
        "ess_tail_min": None,
        "divergences": None,
        "failures": [],
        "attempts": [],
    }
