"""Split one table into groups by the values of a column: the command line's ``--by COLUMN``.

A team's eval file often holds several groups in one table (a ``model``, ``task`` or ``split``
column). :func:`split_table` cuts the table into one table per value of the column, each then
read by the family's contract exactly as a file holding only those rows would be.

The labels rule
---------------
Gold labels kept in a separate table are joined by item id, as without groups. An item id may
repeat across groups (two models answering the same questions): its label then applies to the
item in every group. When the labels table has the grouping column too, labels are joined on
(item, column) instead: each group takes the label rows of its own value. Label ids that are in
no group follow the usual rule (:func:`~bayesjudge.io.labels.report_absent_ids`: a warning, or
an error when no id or a misspelled id matches).
"""

from __future__ import annotations

import difflib
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from bayesjudge.errors import DataError
from bayesjudge.io._split_limit import MAX_GROUPS as _LIMIT
from bayesjudge.io.labels import LABEL_FIELDS, report_absent_ids
from bayesjudge.io.mapping import Field, OneOf, conform, resolve_columns
from bayesjudge.io.problems import Problems, row_names

__all__ = ["MAX_GROUPS", "TableGroup", "TableGroups", "split_table"]

#: Most groups one table is split into: each group is a separate analysis (a separate fit).
#: Set in ``bayesjudge.io._split_limit``, a module without imports, so that the command line's
#: parser can name it in ``--by``'s help without loading pandas.
MAX_GROUPS = _LIMIT


@dataclass(frozen=True, slots=True, eq=False)
class TableGroup:
    """One group of a split table.

    Attributes
    ----------
    value : str
        The group's value of the grouping column (as text, surrounding spaces stripped).
    data : DataFrame
        The group's rows, without the grouping column, named by their file lines.
    labels : DataFrame or None
        The label rows that apply to the group (raw, as read), when labels are kept apart.
    """

    value: str
    data: pd.DataFrame
    labels: pd.DataFrame | None = None


@dataclass(frozen=True, slots=True, eq=False)
class TableGroups:
    """A table split by the values of one column (see :func:`split_table`).

    Attributes
    ----------
    column : str
        The grouping column.
    source : str
        The table's name (its file).
    groups : tuple of TableGroup
        One per distinct value, in sorted order of the values.
    labels_by : bool
        Whether labels were joined on (item, column) rather than by item alone.
    item : str or None
        The table's item column, when it has one.
    shared : int
        Item ids that appear in more than one group (the groups answer the same items).
    shared_example : str or None
        One of them.
    """

    column: str
    source: str
    groups: tuple[TableGroup, ...]
    labels_by: bool = False
    item: str | None = None
    shared: int = 0
    shared_example: str | None = None

    @property
    def values(self) -> tuple[str, ...]:
        """The groups' values, in order."""
        return tuple(g.value for g in self.groups)


def _column(table: pd.DataFrame, column: str, *, name: str, option: str) -> str:
    """Return the table's column named ``column``, or raise naming near spellings."""
    present = [str(c) for c in table.columns]
    wanted = column.strip()
    if wanted in present:
        return wanted
    near = difflib.get_close_matches(wanted, present, n=2, cutoff=0.6)
    folded = [c for c in present if c.casefold() == wanted.casefold()]
    near = list(dict.fromkeys(folded + near))[:2]
    if near:
        hint = f"did you mean {' or '.join(map(repr, near))}? use {option} {near[0]}"
    else:
        shown = ", ".join(map(repr, present[:12])) + (", ..." if len(present) > 12 else "")
        hint = f"the table has {shown}"
    raise DataError(f"{name}: {option} {wanted!r}: the table has no such column; {hint}")


def _text(values: pd.Series) -> pd.Series:
    """Values as stripped text (missing stays missing), as the contracts read a text column."""
    return values.astype(pd.StringDtype(storage="pyarrow", na_value=np.nan)).str.strip()


def _blank_rows(text: pd.Series, *, name: str, column: str, option: str) -> None:
    blank = (text.isna() | (text == "")).to_numpy(dtype=bool)
    if blank.any():
        problems = Problems(name)
        positions = np.flatnonzero(blank)
        problems.add_rows(
            f"{option} {column}: column {column!r} must name a group on every row; it is blank",
            rows=row_names(text.index, positions[: problems.limit]),
            total=int(positions.size),
        )
        problems.raise_if_any()


def split_table(
    table: pd.DataFrame,
    column: str,
    *,
    fields: Sequence[Field | OneOf],
    columns: Mapping[str, str] | None = None,
    labels: pd.DataFrame | None = None,
    label_columns: Mapping[str, str] | None = None,
    positive: Sequence[str] = (),
    negative: Sequence[str] = (),
    limit: int = MAX_GROUPS,
    option: str = "by",
) -> TableGroups:
    r"""Split a table into one table per value of ``column``, with the labels that apply to each.

    Parameters
    ----------
    table : DataFrame
        The table as read (:func:`bayesjudge.io.read_table`: text columns, rows named by their
        file lines; ``attrs["source"]`` its name).
    column : str
        The grouping column. Its values are read as text, stripped of surrounding spaces; a
        blank value is an error naming its rows.
    fields : sequence of Field or OneOf
        The contract's columns: the grouping column must not be one of those read, and the
        ``item`` column (with ``columns``) keys the join of labels kept apart.
    columns : mapping, optional
        The contract's column mapping (``--map``).
    labels : DataFrame, optional
        Gold labels kept apart, as read (raw columns); see the module's labels rule.
    label_columns : mapping, optional
        The labels table's column mapping (``--labels-map``).
    positive, negative : sequence of str
        Extra PASS and FAIL spellings, to check the labels table once, before the split.
    limit : int
        Most groups allowed.
    option : str
        What the messages call the grouping option (``"--by"`` on the command line).

    Returns
    -------
    TableGroups
        The groups, in sorted order of their values; each group's table keeps the file lines
        of its rows and drops the grouping column.

    Raises
    ------
    DataError
        On a grouping column the table lacks (with near spellings), one the contract reads, a
        blank value, more than ``limit`` groups, or labels kept apart without an item column on
        either side; and on label ids the usual rule refuses.

    Warns
    -----
    UserWarning
        Naming label ids (or label rows of a group value) that no group holds.

    Examples
    --------
    >>> from bayesjudge.io.mapping import Field
    >>> table = pd.DataFrame({"model": ["a", "b", "a"], "verdict": ["1", "0", "1"]})
    >>> groups = split_table(table, "model", fields=[Field("verdict", "binary")])
    >>> groups.values, [len(g.data) for g in groups.groups], list(groups.groups[0].data)
    (('a', 'b'), [2, 1], ['verdict'])
    """
    name = str(table.attrs.get("source", "data"))
    found = _column(table, column, name=name, option=option)
    used = resolve_columns(
        [str(c) for c in table.columns],
        fields,
        columns=columns,
        strict=False,
        problems=Problems(name),
    )
    read_as = [n for n, c in used.items() if c == found]
    if read_as:
        raise DataError(
            f"{name}: {option} {found!r}: the column is read as {read_as[0]!r}; group by a "
            "column that is not otherwise read (e.g. model, task or split)"
        )
    text = _text(table[found])
    _blank_rows(text, name=name, column=found, option=option)
    values = sorted(text.unique().tolist())
    if len(values) > limit:
        shown = ", ".join(map(repr, values[:5]))
        raise DataError(
            f"{name}: {option} {found!r}: the column has {len(values)} distinct values ({shown}, "
            f"...); at most {limit} groups are analysed, each a separate fit: group by a column "
            "with fewer values, or keep fewer rows"
        )
    body = table.drop(columns=[found])
    codes = pd.Categorical(text, categories=values).codes
    parts = [body[codes == i] for i in range(len(values))]
    for part in parts:
        part.attrs.update(table.attrs)
    item = used.get("item")
    shared, example = 0, None
    if item is not None:
        # an id in several groups: the groups answer the same items (systems on one test set)
        pairs = pd.DataFrame({"item": _text(table[item]), "group": codes}).dropna()
        per_item = pairs.drop_duplicates().groupby("item", sort=False)["group"].size()
        repeated = per_item[per_item > 1]
        shared = int(repeated.size)
        example = str(repeated.index[0]) if shared else None
    if labels is None:
        return TableGroups(
            found,
            name,
            tuple(TableGroup(v, p) for v, p in zip(values, parts, strict=True)),
            item=item,
            shared=shared,
            shared_example=example,
        )
    label_parts, labels_by = _split_labels(
        labels,
        found,
        values=values,
        parts=parts,
        data_item=used.get("item"),
        label_columns=label_columns,
        positive=positive,
        negative=negative,
        option=option,
    )
    return TableGroups(
        found,
        name,
        tuple(TableGroup(v, p, lab) for v, p, lab in zip(values, parts, label_parts, strict=True)),
        labels_by=labels_by,
        item=item,
        shared=shared,
        shared_example=example,
    )


def _split_labels(
    labels: pd.DataFrame,
    column: str,
    *,
    values: list[str],
    parts: list[pd.DataFrame],
    data_item: str | None,
    label_columns: Mapping[str, str] | None,
    positive: Sequence[str],
    negative: Sequence[str],
    option: str,
) -> tuple[list[pd.DataFrame], bool]:
    """Return each group's label rows, and whether they were chosen by the grouping column."""
    name = str(labels.attrs.get("source", "labels"))
    if column in labels.columns and column not in (label_columns or {}).values():
        text = _text(labels[column])
        _blank_rows(text, name=name, column=column, option=option)
        other = sorted(set(text.unique().tolist()) - set(values))
        if other:
            warnings.warn(
                f"labels: {name}: {int(text.isin(other).sum())} label row(s) have a {column!r} "
                f"value that no data row has ({', '.join(map(repr, other[:5]))}); their labels "
                "are not used",
                UserWarning,
                stacklevel=4,
            )
        rest = labels.drop(columns=[column])
        grouped = []
        for value in values:
            part = rest[(text == value).to_numpy(dtype=bool)]
            part.attrs.update(labels.attrs)
            grouped.append(part)
        return grouped, True
    gold = conform(
        labels, LABEL_FIELDS, columns=label_columns, positive=positive, negative=negative
    )
    if data_item is None:
        # no item column in the data: the contract's own join names what is missing
        return [labels for _ in values], False
    ids = [set(_text(p[data_item]).dropna().tolist()) for p in parts]
    every = set().union(*ids)
    label_ids = gold["item"].astype(object)
    distinct = label_ids.drop_duplicates()
    problems = Problems("label join")
    report_absent_ids(
        distinct[~distinct.isin(every)].tolist(),
        labelled=distinct.size,
        results=pd.Series(sorted(every), dtype=object),
        problems=problems,
    )
    problems.raise_if_any()
    grouped = []
    for group_ids in ids:
        part = labels[label_ids.isin(group_ids).to_numpy(dtype=bool)]
        part.attrs.update(labels.attrs)
        grouped.append(part)
    return grouped, False
