"""``--by COLUMN``: one answer per group of a table, for any command that reads one table.

A command with ``--by`` splits its table (:func:`bayesjudge.io.split.split_table`), runs its
usual analysis on each group's rows (:func:`run_groups`), and prints one table with a row per
group (:func:`groups_table`), or with ``--json`` one object ``{"by": COLUMN, "groups": {VALUE:
<the command's usual JSON>}}`` (:func:`groups_json`). A group that cannot be analysed (no
gold-FAIL item, too few rows) gets its error as its line and ``{"error": ...}`` as its JSON;
the command fails (exit 2) only when every group does.
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bayesjudge.cli.common import UserError
from bayesjudge.errors import DataError
from bayesjudge.io._split_limit import MAX_GROUPS

if TYPE_CHECKING:
    import pandas as pd

    from bayesjudge.io.split import TableGroup, TableGroups

__all__ = [
    "BY_SHOWN",
    "GroupOutcome",
    "add_by_option",
    "group_name",
    "groups_json",
    "groups_table",
    "run_groups",
]

#: Most groups whose full one-screen text is printed after the table of groups.
BY_SHOWN = 3


def add_by_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--by COLUMN`` (one answer per value of a column of DATA)."""
    parser.add_argument(
        "--by",
        metavar="COLUMN",
        default=None,
        help="one answer per group: split DATA by the values of COLUMN (read as text; at most "
        f"{MAX_GROUPS} groups) and analyse each group's rows on their own. --labels is joined "
        "by item id, a label applying to its item in every group, or on (item, COLUMN) when "
        "the labels file has COLUMN too",
    )


@dataclass(frozen=True, slots=True)
class GroupOutcome[T]:
    """What one group's analysis gave: its result, or the error that stopped it.

    Attributes
    ----------
    value : str
        The group's value of the grouping column.
    result : object or None
        The command's result for the group's rows (None when it failed).
    error : str or None
        The one-line error of a group that could not be analysed.
    """

    value: str
    result: T | None = None
    error: str | None = None


def group_name(column: str, value: str) -> str:
    """Return how a group is named in messages: ``model='gpt-small'``."""
    return f"{column}={value!r}"


def run_groups[T](groups: TableGroups, analyse: Callable[[TableGroup], T]) -> list[GroupOutcome[T]]:
    """Analyse each group on its own; a group's data error becomes its outcome's error.

    Warnings raised while a group is analysed are raised again with the group's name in front,
    so the command's warnings say which group they concern.

    Raises
    ------
    UserError
        When every group failed: their errors, one line each (once, when all are the same).
    """
    outcomes: list[GroupOutcome[T]] = []
    for group in groups.groups:
        name = group_name(groups.column, group.value)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                outcomes.append(GroupOutcome(group.value, result=analyse(group)))
            except (DataError, UserError) as exc:
                outcomes.append(GroupOutcome(group.value, error=str(exc)))
        for item in caught:
            warnings.warn_explicit(
                f"{name}: {item.message}", item.category, item.filename, item.lineno
            )
    if all(o.error is not None for o in outcomes):
        errors = list(dict.fromkeys(str(o.error) for o in outcomes))
        if len(errors) == 1:
            raise UserError(f"--by {groups.column}: every group failed: {errors[0]}")
        lines = [f"  {group_name(groups.column, o.value)}: {o.error}" for o in outcomes]
        raise UserError(f"--by {groups.column}: every group failed:\n" + "\n".join(lines))
    for o in outcomes:
        if o.error is not None:
            warnings.warn(
                f"{group_name(groups.column, o.value)}: no answer: {o.error}",
                UserWarning,
                stacklevel=2,
            )
    return outcomes


def groups_json[T](
    column: str, outcomes: Sequence[GroupOutcome[T]], payload: Callable[[T], dict[str, Any]]
) -> dict[str, Any]:
    """Return ``{"by": column, "groups": {value: payload(result) or {"error": message}}}``."""
    return {
        "by": column,
        "groups": {
            o.value: {"error": o.error} if o.result is None else payload(o.result) for o in outcomes
        },
    }


def groups_table[T](
    column: str,
    outcomes: Sequence[GroupOutcome[T]],
    row: Callable[[T], dict[str, Any]],
) -> str:
    """Return the table of groups: one row per group, a failed group's error on its own row.

    ``row`` gives the command's columns for a result (counts, the main estimate and its
    interval); a failed group shows ``error:`` and its message after the group's value.
    """
    import pandas as pd

    rows = [row(o.result) for o in outcomes if o.result is not None]
    frame = pd.DataFrame(rows)
    values = [o.value for o in outcomes if o.result is not None]
    width = max(len(column), *(len(v) for v in values))
    # the groups' values left-aligned, as names are read
    frame.insert(0, column.ljust(width), [v.ljust(width) for v in values])
    lines = _aligned(frame).splitlines()
    for o in outcomes:
        if o.error is not None:
            lines.append(f"{group_name(column, o.value)}: no answer: {o.error}")
    return "\n".join(lines)


def _aligned(frame: pd.DataFrame) -> str:
    """Return the frame as text, numbers right-aligned, missing values as ``-``."""
    return frame.to_string(index=False, na_rep="-", float_format=lambda v: f"{v:.4f}")
