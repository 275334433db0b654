"""Columns read as a person would: the id column by its name, and groups never pooled silently.

Item ids
    A table without an ``item`` column, and without ``--map item=...``, has its item read from a
    column named ``id``, ``sample_id``, ``item_id`` or ``question_id`` (in any case and
    punctuation: ``ID``, ``Sample-ID``); :func:`item_column` picks it, in data and in labels
    files alike, and the input summary says which column it took (``item=id``).

Gold labels
    :func:`is_label_like` says whether a name reads as a gold label (``label``, ``gold``,
    ``human_label``, ``human``, ``truth``, ``ground_truth``, ``reference``): such a column is
    never taken as a judge.

Groups
    A table that holds several groups of rows, e.g. two models' answers to the same questions,
    must not be pooled into one answer without a word. :class:`GroupTally` looks at the columns
    no field reads: one whose name says it is a group (``model``, ``system``, ``judge``,
    ``task``, ``split``, ``dataset``, ``subset``, ``category``, ``variant``, ``run``,
    ``version``, in any case and punctuation, also plural or with ``_name``/``_id``) holding 2
    to :data:`MAX_GROUPS` values, or any column whose few values split the rows so that each id
    appears once in each, is refused with the fix in one line (:meth:`GroupTally.refusal`).
    A column holding only PASS/FAIL values (another judge's verdicts) is no group. A user who
    means to pool says so with ``--map pool=COLUMN`` (in Python
    ``columns={"pool": COLUMN}``). The tally takes a table whole or block by block (streamed
    files), with bounded memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import pandas as pd

__all__ = [
    "GROUP_NAMES",
    "ITEM_NAMES",
    "LABEL_NAMES",
    "MAX_GROUPS",
    "POOL",
    "GroupCheck",
    "GroupTally",
    "is_group_name",
    "is_label_like",
    "item_column",
]

#: Names of a column that splits the rows into groups (compared with case and punctuation folded).
GROUP_NAMES: tuple[str, ...] = (
    "model", "system", "judge", "task", "split", "dataset", "subset", "category", "variant",
    "run", "version",
)  # fmt: skip
#: Names read as the item id when the table has no ``item`` column, in order of preference.
ITEM_NAMES: tuple[str, ...] = ("item_id", "sample_id", "question_id", "id")
#: Names that read as a gold label.
LABEL_NAMES: tuple[str, ...] = (
    "label", "gold", "gold_label", "human_label", "human", "truth", "ground_truth", "reference",
)  # fmt: skip
#: Most distinct values a column may hold to count as a group column.
MAX_GROUPS = 20
#: The mapping name that pools a group column on purpose: ``--map pool=COLUMN``.
POOL = "pool"
#: Most distinct ids (and id-group pairs) remembered; past it, "once in each" is not judged.
_MAX_TALLIED = 1_000_000
_SHOWN = 5
#: Names of a column numbering repeated rulings of one item (``--epochs`` combines them).
_EPOCH_NAMES = frozenset(
    {"epoch", "epochs", "repeat", "trial", "attempt", "sample", "seed", "ruling", "retry"}
)


def _normal(name: str) -> str:
    return re.sub(r"[^0-9a-z]+", "_", str(name).casefold()).strip("_")


def is_group_name(column: str) -> bool:
    """Whether a column's name says it splits the rows into groups.

    Examples
    --------
    >>> [is_group_name(c) for c in ["Model", "model_name", "splits", "judge-id", "score"]]
    [True, True, True, True, False]
    """
    normal = _normal(column)
    for suffix in ("_name", "_id", "s"):
        if normal.endswith(suffix) and normal.removesuffix(suffix) in GROUP_NAMES:
            return True
    return normal in GROUP_NAMES


def is_label_like(column: str) -> bool:
    """Whether a column's name reads as a gold label (never a judge).

    Examples
    --------
    >>> [is_label_like(c) for c in ["human_label", "Ground Truth", "judge_a"]]
    [True, True, False]
    """
    return _normal(column) in LABEL_NAMES


def item_column(available: Sequence[str], columns: Mapping[str, str] | None = None) -> str | None:
    """Return the column read as the item id when none is named: ``id``, ``sample_id``, ...

    None when the table has an ``item`` column, when ``columns`` maps ``item``, or when no
    column has an id-like name (:data:`ITEM_NAMES`, case and punctuation folded); a column
    that ``columns`` maps to another name is not taken.

    Examples
    --------
    >>> item_column(["ID", "verdict"]), item_column(["item", "id"]), item_column(["gold"])
    ('ID', None, None)
    """
    mapping = dict(columns or {})
    if "item" in mapping or "item" in available:
        return None
    taken = set(mapping.values())
    normal = {_normal(c): c for c in reversed(list(available)) if c not in taken}
    for name in ITEM_NAMES:
        if name in normal:
            return normal[name]
    return None


class Verdicts(Protocol):
    """What :meth:`GroupTally.refusal` needs of the PASS/FAIL spellings.

    :class:`bayesjudge.io.mapping.Spellings` is one: the code of each value, -2 when it is
    neither a PASS, a FAIL nor a missing value.
    """

    def codes(self, values: Iterable[object]) -> np.ndarray:
        """Return each value's code."""
        ...


@dataclass(frozen=True, slots=True)
class GroupCheck:
    """What a command offers for a table of several groups, for the refusal's fix.

    Parameters
    ----------
    by : bool
        Whether the command analyses each group with ``--by COLUMN``.
    rank : bool
        Whether to suggest ``bayesjudge rank`` when the groups look like systems answering the
        same items (False for ``rank`` itself).
    named_only : bool
        Whether only columns named as groups count (for data whose ids repeat by design, as
        the retry gate's rulings); otherwise a column whose values hold each id once also does.
    """

    by: bool = False
    rank: bool = True
    named_only: bool = False


def _hashes(values: pd.Series) -> np.ndarray:
    return pd.util.hash_pandas_object(values, index=False).to_numpy()


@dataclass(slots=True)
class GroupTally:
    """The distinct values of the columns no field reads, and how ids fall into them.

    Parameters
    ----------
    columns : sequence of str
        The unread columns to look at (see :meth:`for_table`).
    item : bool
        Whether an item id is read (then each group's ids are tallied too).

    Examples
    --------
    >>> frame = pd.DataFrame({"id": ["1", "2", "1", "2"], "model": ["a", "a", "b", "b"]})
    >>> tally = GroupTally(["model"], item=True)
    >>> tally.add({"model": frame["model"]}, items=frame["id"])
    >>> from bayesjudge.io.mapping import Spellings
    >>> print(tally.refusal(source="evals.csv", check=GroupCheck(by=True), spellings=Spellings()))
    column 'model' holds 2 groups ('a', 'b') and each id appears once in each: \
analyse each group with --by model, or compare the systems with bayesjudge rank evals.csv \
--map system=model (and your other --map options), or pool them on purpose with --map pool=model
    """

    columns: Sequence[str]
    item: bool = False
    rows: int = 0
    values: dict[str, dict[object, int]] = field(default_factory=dict)
    pairs: dict[str, set[int]] = field(default_factory=dict)
    items: set[int] = field(default_factory=set)
    full: bool = False

    def __post_init__(self) -> None:
        self.columns = list(self.columns)
        for column in self.columns:
            self.values.setdefault(column, {})
            self.pairs.setdefault(column, set())

    @classmethod
    def for_table(
        cls, available: Sequence[str], used: Mapping[str, str], columns: Mapping[str, str] | None
    ) -> GroupTally:
        """Return a tally of the columns of a table that no field reads and none pools.

        Without an item column only the columns named as groups are tallied (no other can
        count as one), so a streamed file reads no more than it needs.

        Parameters
        ----------
        available : sequence of str
            The table's columns.
        used : mapping
            ``{name: column}`` the fields read
            (from :func:`~bayesjudge.io.mapping.resolve_columns`).
        columns : mapping, optional
            The user's mapping; its ``pool`` entry names a column pooled on purpose.
        """
        mapping = dict(columns or {})
        skip = {*used.values(), mapping.get(POOL)}
        item = "item" in used
        # without ids, only a column named as a group can be one: read no other
        unread = [c for c in available if c not in skip and (item or is_group_name(c))]
        return cls(unread, item=item)

    def add(self, block: Mapping[str, pd.Series], *, items: pd.Series | None = None) -> None:
        """Tally one block of rows: the unread columns' values, and the rows' ids if read."""
        size = len(items) if items is not None else len(next(iter(block.values()), []))
        self.rows += size
        item_hashes = None
        if self.item and items is not None:
            item_hashes = _hashes(items.astype(object))
            if not self.full:
                self.items.update(item_hashes.tolist())
        for column in list(self.values):
            if column not in block:
                continue
            series = block[column].astype(object)
            seen = self.values[column]
            for value, count in series.value_counts(dropna=True).items():
                key = value.strip() if isinstance(value, str) else value
                if key == "":
                    continue
                seen[key] = seen.get(key, 0) + int(count)
            if len(seen) > MAX_GROUPS:  # too many values to be groups: stop looking at it
                del self.values[column]
                self.pairs.pop(column, None)
                continue
            if item_hashes is not None and not self.full:
                pair = item_hashes * np.uint64(1_000_003) + _hashes(series)
                self.pairs[column].update(pair.tolist())
        if len(self.items) > _MAX_TALLIED or any(
            len(p) > _MAX_TALLIED for p in self.pairs.values()
        ):
            self.full = True
            self.items.clear()
            for pairs in self.pairs.values():
                pairs.clear()

    def merge(self, other: GroupTally) -> None:
        """Add the tally of another part of the same table (another file)."""
        self.rows += other.rows
        self.full = self.full or other.full
        self.items.update(other.items)
        for column in list(self.values):
            if column not in other.values:
                if column in other.columns:  # too many values there
                    del self.values[column]
                    self.pairs.pop(column, None)
                continue
            seen = self.values[column]
            for value, count in other.values[column].items():
                seen[value] = seen.get(value, 0) + count
            if len(seen) > MAX_GROUPS:
                del self.values[column]
                self.pairs.pop(column, None)
            else:
                self.pairs[column].update(other.pairs.get(column, set()))

    def _once_each(self, column: str) -> bool:
        groups = len(self.values[column])
        return (
            self.item
            and not self.full
            and len(self.pairs[column]) == self.rows
            and groups * len(self.items) == self.rows
        )

    def refusal(self, *, source: str, check: GroupCheck, spellings: Verdicts) -> str | None:
        """Return the one-line refusal for the first group column, or None if there is none.

        ``source`` is the file the suggested ``bayesjudge rank`` command reads.

        A column is a group column when it holds 2 to :data:`MAX_GROUPS` values, each on at
        least two rows on average, and either its name says so (:func:`is_group_name`) or each
        id appears once in each of its values.
        """
        found = []
        for column, seen in self.values.items():
            groups = len(seen)
            if not 2 <= groups <= MAX_GROUPS or self.rows < 2 * groups:
                continue
            if (spellings.codes(seen) >= -1).all():
                continue  # PASS/FAIL values: another judge's verdicts, not groups
            named = is_group_name(column)
            once = self._once_each(column)
            if not named and (check.named_only or _normal(column) in _EPOCH_NAMES):
                continue  # repeated rulings of an item: the repeated-id warning's case
            if named or once:
                found.append((not named, column, once))
        if not found:
            return None
        _, column, once = min(found)
        names = sorted(map(str, self.values[column]))
        shown = ", ".join(map(repr, names[:_SHOWN])) + (", ..." if len(names) > _SHOWN else "")
        text = f"column {column!r} holds {len(names)} groups ({shown})"
        if once:
            text += " and each id appears once in each"
        elif self.item and not self.full and len(self.items) < self.rows:
            text += " and ids repeat across them"
        fixes = [
            f"analyse each group with --by {column}"
            if check.by
            else f"keep one group's rows (filter the file on {column!r})"
        ]
        systems = _normal(column).split("_")[0] in ("model", "models", "system", "systems")
        if check.rank and (once or systems):
            fixes.append(
                f"compare the systems with bayesjudge rank {source} --map system={column} "
                "(and your other --map options)"
            )
        fixes.append(f"pool them on purpose with --map {POOL}={column}")
        return f"{text}: {', or '.join(fixes)}"
