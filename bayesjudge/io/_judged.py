"""The shared first steps of the readers of tables (judged items, rulings, answers, outcomes).

:func:`read_judged` reads and conforms a table, collecting its problems (the reader adds its
own, then raises them all at once); :meth:`JudgedTable.origin` reports what was read and how;
:func:`verdicts_and_labels` turns scores into verdicts and joins the gold labels kept apart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from bayesjudge.io.groups import GroupCheck
from bayesjudge.io.labels import JoinReport, LabelSource, RepeatRule, join_labels, read_labels
from bayesjudge.io.mapping import Field, OneOf, conform, verdicts_from_scores
from bayesjudge.io.problems import Problems
from bayesjudge.io.source import InputReport
from bayesjudge.io.tables import TableLike, read_table


@dataclass(frozen=True, slots=True)
class JudgedTable:
    """A table as read, its conformed rows, its problems (not raised), mapping and format."""

    table: pd.DataFrame
    parsed: pd.DataFrame
    problems: Problems
    columns: dict[str, str]
    format: str
    name: str

    def origin(
        self,
        items: int,
        *,
        labels: str | None = None,
        join: JoinReport | None = None,
        threshold: float | None = None,
        epochs: str | None = None,
    ) -> InputReport:
        """Return what was read and how, ``items`` being the number of items finally kept."""
        return InputReport(
            source=self.name,
            format=str(self.table.attrs.get("format", self.format)),
            rows=len(self.table),
            items=items,
            columns=self.columns,
            labels=labels,
            join=join,
            threshold=threshold,
            epochs=epochs,
        )


def read_judged(
    source: TableLike,
    fields: Sequence[Field | OneOf],
    *,
    format: str,
    columns: Mapping[str, str] | None,
    positive: Sequence[str],
    negative: Sequence[str],
    strict: bool,
    groups: GroupCheck,
    threshold: float | None = None,
    argument: str = "data",
    table: pd.DataFrame | None = None,
) -> JudgedTable:
    """Read a table and conform it to ``fields``, collecting its problems (not raised).

    ``table`` is ``source`` already read by :func:`~bayesjudge.io.read_table` (then it is not
    read again). The source is named as the table's ``source`` attr names it (``argument``
    otherwise); a ``threshold`` given with a ``verdict`` column is a problem.
    """
    if table is None:
        table = read_table(source, format=format, argument=argument)  # type: ignore[arg-type]
    name = str(table.attrs.get("source", argument))
    problems = Problems(name)
    parsed = conform(
        table,
        fields,
        columns=columns,
        positive=positive,
        negative=negative,
        strict=strict,
        problems=problems,
        groups=groups,
    )
    used = dict(parsed.attrs.get("columns", {}))
    if threshold is not None and "verdict" in used:
        problems.add(
            "a threshold turns a 'score' column into verdicts, but these data have a 'verdict' "
            "column; drop the threshold"
        )
    return JudgedTable(table, parsed, problems, used, format, name)


def verdicts_and_labels(
    parsed: pd.DataFrame,
    *,
    threshold: float | None,
    labels: LabelSource | None,
    label_columns: Mapping[str, str] | None,
    positive: Sequence[str],
    negative: Sequence[str],
    repeats: RepeatRule,
    by: Sequence[str] = (),
) -> tuple[pd.DataFrame, JoinReport | None, str | None]:
    """Make verdicts of scores at ``threshold``; join ``labels`` by item (and ``by``), if any.

    Returns the rows, the join's report and the labels' source name (None without labels).
    """
    if threshold is not None:
        scores = parsed.pop("score").to_numpy(dtype=float)
        parsed["verdict"] = verdicts_from_scores(scores, threshold=threshold)
    if labels is None:
        return parsed, None, None
    gold = read_labels(labels, columns=label_columns, positive=positive, negative=negative)
    joined, join = join_labels(parsed, gold, by=by, repeats=repeats, option="epochs")
    return joined, join, str(gold.attrs.get("source", "labels"))
