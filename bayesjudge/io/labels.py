"""Join gold labels kept in a separate table onto judge results, by item id, dropping nothing.

Gold labels often live in their own sheet (``id,label``) beside the judge's results. The join:

* compares ids as **text, exactly**: ``"007"`` and ``"7"`` are different ids, nothing is coerced
  (when ids that fail to match would match after ignoring case, spaces and leading zeros, the
  error says so as a hint);
* refuses, naming the ids (the first few, with counts): an id twice in the labels and an id with
  several result rows (epochs, repeats) unless a rule says how to combine them (``repeats=``);
* label ids absent from the results follow one rule (:func:`report_absent_ids`, shared with the
  streamed join of :mod:`bayesjudge.io.stream`): a warning naming them, and the join goes on,
  since a labels sheet often covers more items than one set of results; but an error when no
  label id is among the results, when absent ids match result ids once case, spaces and leading
  zeros are ignored (the files spell the ids differently), or when the join fails anyway;
* counts everything in a :class:`JoinReport`: result rows, items, labelled and unlabelled items,
  label rows used, blank labels, rows combined.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import IO, Literal, get_args

import numpy as np
import pandas as pd

from bayesjudge.io.mapping import Field, conform
from bayesjudge.io.problems import Problems, row_names
from bayesjudge.io.tables import TableFormat, read_table

__all__ = [
    "JoinReport",
    "LabelSource",
    "RepeatRule",
    "join_labels",
    "read_labels",
    "report_absent_ids",
]

type RepeatRule = Literal["error", "keep", "first", "majority", "any", "all"]
#: A source of gold labels kept apart: a DataFrame, a path or a binary file.
type LabelSource = pd.DataFrame | str | os.PathLike[str] | IO[bytes]
REPEAT_RULES: tuple[str, ...] = get_args(RepeatRule.__value__)
LABEL_FIELDS = (Field("item", "text"), Field("label", "binary", missing=True))
_SHOWN = 5


@dataclass(frozen=True, slots=True)
class JoinReport:
    """What a label join did; nothing is dropped without being counted here.

    Attributes
    ----------
    result_rows : int
        Rows of the results table.
    items : int
        Rows of the joined table (``result_rows - combined_rows``).
    labelled, unlabelled : int
        Joined rows with a gold label, and without one.
    label_rows : int
        Rows of the labels table (those whose id is not among the results' ids were warned of
        and left unused, see :func:`report_absent_ids`).
    blank_labels : int
        Label rows whose label is missing (blank, NA, ...): their items stay unlabelled.
    combined_rows : int
        Result rows merged into an earlier row of the same id by the ``repeats`` rule.
    repeats : str
        The rule used.
    """

    result_rows: int
    items: int
    labelled: int
    unlabelled: int
    label_rows: int
    blank_labels: int
    combined_rows: int
    repeats: str

    def to_dict(self) -> dict[str, int | str]:
        """Return the report as a plain mapping (for JSON)."""
        return asdict(self)


def read_labels(
    source: LabelSource,
    *,
    columns: Mapping[str, str] | None = None,
    positive: Sequence[str] = (),
    negative: Sequence[str] = (),
    format: TableFormat = "auto",
) -> pd.DataFrame:
    r"""Read a gold-label table: columns ``item`` and ``label`` (mappable: ``{"item": "uid"}``).

    Without an ``item`` column, a column named ``id``, ``sample_id``, ``item_id`` or
    ``question_id`` is the item (:func:`bayesjudge.io.groups.item_column`); the hints name the
    command line's ``--labels-map``. A missing label (blank, NA, ...) is allowed and counted by
    :func:`join_labels` as a blank label. Other columns are ignored.

    Examples
    --------
    >>> import io
    >>> text = io.BytesIO(b"id,gold\n007,correct\n8,\n")
    >>> labels = read_labels(text, columns={"item": "id", "label": "gold"})
    >>> labels.index.tolist(), labels["item"].tolist(), labels["label"].tolist()
    ([2, 3], ['007', '8'], [1.0, nan])
    """
    frame = read_table(source, format=format, argument="labels")
    return conform(
        frame,
        LABEL_FIELDS,
        columns=columns,
        positive=positive,
        negative=negative,
        option="--labels-map",
    )


def _normalised(ids: pd.Series) -> pd.Series:
    folded = ids.astype(object).astype(str).str.replace(r"\s+", "", regex=True).str.casefold()
    digits = folded.str.fullmatch(r"\d+")
    return folded.where(~digits, folded.str.lstrip("0").replace("", "0"))


def _id_list(ids: Sequence[object], counts: Sequence[int] | None = None, *, unit: str = "") -> str:
    shown = list(ids)[:_SHOWN]
    if counts is None:
        parts = [repr(i) for i in shown]
    else:
        parts = [f"{i!r} ({c} {unit})" for i, c in zip(shown, counts, strict=False)]
    rest = len(ids) - len(shown)
    return ", ".join(parts) + (f", and {rest} more" if rest else "")


def join_labels(
    results: pd.DataFrame,
    labels: pd.DataFrame,
    *,
    by: Sequence[str] = (),
    repeats: RepeatRule = "error",
    option: str = "repeats",
) -> tuple[pd.DataFrame, JoinReport]:
    r"""Attach gold labels to judge results by item id.

    Parameters
    ----------
    results : DataFrame
        Conformed results (see :func:`bayesjudge.io.conform`): an ``item`` column and a
        ``verdict`` (or other) columns; no ``label`` values of its own.
    labels : DataFrame
        Conformed labels: ``item`` and ``label`` (float 1/0, NaN = blank), e.g. from
        :func:`read_labels`.
    by : sequence of str
        Further result columns that, with ``item``, identify one result (e.g. ``("system",)``
        when several systems answered each item); labels are still joined by ``item`` alone.
    repeats : {"error", "keep", "first", "majority", "any", "all"}
        What to do with an id that has several result rows (epochs, repeated rulings).
        ``"error"`` refuses them; ``"keep"`` keeps every row, each with the item's label;
        ``"first"`` keeps the first row in file order; ``"majority"``, ``"any"``, ``"all"``
        combine the ``verdict`` column: PASS when more than half (a tie is FAIL), at least one,
        or every row passed. Other columns take the first row's value; the joined row keeps the
        first row's index (its file line).
    option : str
        What the messages call the ``repeats`` rule (e.g. ``"epochs"`` for a contract whose
        option has that name; then ``"keep"`` is not offered).

    Returns
    -------
    joined : DataFrame
        The results (one row per id unless ``"keep"``) with a ``label`` column (NaN: unlabelled).
    report : JoinReport
        The counts of the join.

    Raises
    ------
    DataError
        Listing every problem: ids repeated in the labels, label ids absent from the results when
        :func:`report_absent_ids` refuses them, ids with several result rows under
        ``repeats="error"``, a combining rule without a ``verdict`` column, or results that
        already carry labels.

    Warns
    -----
    UserWarning
        Naming label ids absent from the results, when the join goes on without them.

    Examples
    --------
    >>> results = pd.DataFrame({"item": ["007", "008", "008", "009"], "verdict": [1.0, 1, 0, 0]})
    >>> labels = pd.DataFrame({"item": ["007", "008"], "label": [1.0, 0.0]})
    >>> joined, report = join_labels(results, labels, repeats="first")
    >>> joined
      item  verdict  label
    0  007      1.0    1.0
    1  008      1.0    0.0
    3  009      0.0    NaN
    >>> report.labelled, report.unlabelled, report.combined_rows
    (2, 1, 1)
    """
    if repeats not in REPEAT_RULES:
        raise ValueError(f"repeats must be one of {list(REPEAT_RULES)}; got {repeats!r}")
    problems = Problems("label join")
    for name, table, needed in (
        ("results", results, ["item", *by]),
        ("labels", labels, ["item", "label"]),
    ):
        absent = [c for c in needed if c not in table.columns]
        if absent:
            problems.add(f"the {name} have no column(s) {absent}")
    if "label" in results.columns and results["label"].notna().any():
        problems.add(
            "the results already carry labels in column 'label'; give labels in one place only"
        )
    if repeats in ("majority", "any", "all") and "verdict" not in results.columns:
        problems.add(f"{option}={repeats!r} combines verdicts, but the results have no 'verdict'")
    problems.raise_if_any()

    label_ids = labels["item"].astype(object)
    duplicated = label_ids.duplicated(keep=False).to_numpy()
    if duplicated.any():
        counts = label_ids[duplicated].value_counts(sort=False)
        first_rows = np.flatnonzero(duplicated)[: problems.limit]
        problems.add(
            f"labels: each id must appear once; {counts.size} id(s) appear more than once: "
            f"{_id_list(counts.index.tolist(), counts.tolist(), unit='rows')} "
            f"(first at {', '.join(row_names(labels.index, first_rows))})"
        )

    keys = ["item", *by]
    key_frame = results[keys].astype(object)
    codes = key_frame.groupby(keys, sort=False, dropna=False).ngroup().to_numpy()
    groups, first, sizes = np.unique(codes, return_index=True, return_counts=True)
    repeated = sizes > 1
    if repeats == "error" and repeated.any():
        shown_ids = key_frame.iloc[first[repeated]]
        shown = [r[0] if len(keys) == 1 else tuple(r) for r in shown_ids.itertuples(index=False)]
        problems.add(
            f"results: {int(repeated.sum())} id(s) have several rows (epochs or repeats?): "
            f"{_id_list(shown, sizes[repeated].tolist(), unit='rows')}; say how to combine them "
            f"with {option}='first', 'majority', 'any' or 'all'"
            + (" (or 'keep' to keep every row)" if option == "repeats" else "")
        )

    result_ids = pd.Index(results["item"].astype(object).unique())
    distinct = label_ids.drop_duplicates()
    report_absent_ids(
        distinct[~distinct.isin(result_ids)].tolist(),
        labelled=distinct.size,
        results=pd.Series(result_ids, dtype=object),
        problems=problems,
    )
    problems.raise_if_any()

    if repeats in ("error", "keep"):
        joined = results.copy()
    else:
        joined = results.iloc[first].copy()
        if repeats != "first":
            verdict = results["verdict"].to_numpy(dtype=float)
            order = np.searchsorted(groups, codes)
            passes = np.bincount(order, weights=verdict, minlength=groups.size)
            rule = {
                "majority": 2 * passes > sizes,
                "any": passes > 0,
                "all": passes == sizes,
            }[repeats]
            joined["verdict"] = rule.astype(float)
    position = pd.Index(label_ids).get_indexer(joined["item"].astype(object))
    values = labels["label"].to_numpy(dtype=float)
    joined["label"] = np.where(position >= 0, values[np.maximum(position, 0)], np.nan)
    labelled = int(joined["label"].notna().sum())
    report = JoinReport(
        result_rows=len(results),
        items=len(joined),
        labelled=labelled,
        unlabelled=len(joined) - labelled,
        label_rows=len(labels),
        blank_labels=int(labels["label"].isna().sum()),
        combined_rows=len(results) - len(joined),
        repeats=repeats,
    )
    return joined, report


def report_absent_ids(
    absent: Sequence[object],
    *,
    labelled: int,
    results: pd.Series,
    problems: Problems,
    every_result: bool = True,
) -> None:
    """Apply the one rule for label ids that are not among the results' ids.

    A labels sheet often covers more items than one set of results (one log of several), so
    absent ids are warned of, naming how many and the first few, and their labels go unused.
    They are a problem instead (recorded in ``problems``, for the caller to raise) when no label
    id is among the results (the labels are for other results, or the wrong column is read as
    the id), when some of them match a result id once case, spaces and leading zeros are
    ignored (the files spell the ids differently: ``"7"`` and ``"007"``), or when ``problems``
    already holds another problem, so that the failed join lists everything.

    Parameters
    ----------
    absent : sequence
        The distinct label ids not among the results' ids, in the labels' order.
    labelled : int
        How many distinct ids the labels hold.
    results : Series
        The results' ids, for the near-miss hint (all of them, or a sample).
    problems : Problems
        Where a refusal is recorded.
    every_result : bool
        Whether ``results`` holds every result id (the hint then counts the near misses).

    Warns
    -----
    UserWarning
        When the absent ids are left out and the join goes on.

    Examples
    --------
    >>> import warnings
    >>> problems = Problems("label join")
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     report_absent_ids(["c"], labelled=3, results=pd.Series(["a", "b"]), problems=problems)
    >>> print(caught[0].message)
    labels: 1 of 3 label id(s) are not among the results' ids: 'c'; their labels are not used
    >>> report_absent_ids(["7"], labelled=1, results=pd.Series(["007"]), problems=problems)
    >>> print(problems.message())  # doctest: +NORMALIZE_WHITESPACE
    label join: 1 of 1 label id(s) are not among the results' ids: '7'; 1 of them match a
    result id once case, spaces and leading zeros are ignored (e.g. label id '7' vs result id
    '007'): ids are compared exactly, as text, so make them agree in one of the files
    """
    if not len(absent):
        return
    message = (
        f"{len(absent)} of {labelled} label id(s) are not among the results' ids: "
        f"{_id_list(absent)}"
    )
    near = near_misses(pd.Series(list(absent), dtype=object), results)
    if near:
        some = f"{near[0]} of them" if every_result else "some"
        problems.add(
            f"{message}; {some} match a result id once case, spaces and leading zeros are "
            f"ignored (e.g. label id {near[1]!r} vs result id {near[2]!r}): ids are compared "
            "exactly, as text, so make them agree in one of the files"
        )
    elif len(absent) == labelled:
        problems.add(
            f"{message}; no label id is among the results' ids, so no label can be used: check "
            "that the labels are for these results and that the results' id column is the one "
            "read as the item (columns={'item': ...}, on the command line --map item=COLUMN)"
        )
    elif problems:
        problems.add(message)
    else:
        warnings.warn(f"labels: {message}; their labels are not used", UserWarning, stacklevel=3)


def near_misses(absent: pd.Series, present: pd.Series) -> tuple[int, str, str] | None:
    """Count absent ids that match a present id after normalising; return one example pair."""
    normal_present = _normalised(present)
    lookup = pd.Series(present.to_numpy(), index=normal_present.to_numpy())
    lookup = lookup[~lookup.index.duplicated()]
    normal_absent = _normalised(absent)
    hit = normal_absent.isin(lookup.index).to_numpy()
    if not hit.any():
        return None
    position = int(np.flatnonzero(hit)[0])
    example = str(lookup[normal_absent.iloc[position]])
    return int(hit.sum()), str(absent.iloc[position]), example
