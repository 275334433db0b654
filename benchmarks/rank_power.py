"""Power and coverage of ``rank``'s default beside the shared and per-system judges and baselines.

The grid of issue 27 (item 2): true difference between adjacent systems 0, 0.05 or 0.10;
the judge's Sp gap between the first and the last system 0 (a shared judge), 0.10 or 0.25;
2 or 4 systems; paired (every system answers the same items) or unpaired (each its own).
Every data set has 1,500 items per design unit, 150 of them gold-labelled for every system,
item difficulty spread 1 on the logit scale, judge Se 0.90 for every system, Sp centred on 0.80
(system s of k gets ``0.80 + gap * (1/2 - s / (k - 1))``: 0.85 and 0.75 at gap 0.10, 0.925 and
0.675 at gap 0.25, so the judge is kinder to the later, better systems' wrong answers), and true
success rates centred on 0.65 (system s gets ``0.65 + diff * (s - (k - 1) / 2)``).

Methods, on every pair (a, b) of systems (a before b), the difference being pi_b - pi_a:

* ``default``: what ``bayesjudge rank`` does with its defaults. For two systems with gold labels
  of both classes, the average of the shared and per-system fits weighted by the posterior
  probability of one judge (:func:`bayesjudge.systems.average.judge_evidence`), a fit that
  converged but failed only its predictive check set aside, exactly as
  ``bayesjudge.systems.analysis`` does; for three or more systems the default is the
  per-system judge with partial pooling (the package does not average there), so ``default``
  is the ``system`` fit.
* ``shared`` and ``system``: ``--judge shared`` and ``--judge system`` (pooling by default).
  These come from the same two fits as ``default``, so one replicate costs two fits.
* ``ppi++``: :func:`bayesjudge.systems.baselines.ppi_difference` (power-tuned, CLT interval);
  ``ppi_py``: the same estimand with the reference implementation ``ppi_py.ppi_mean_ci``
  (paired: the mean of the per-item difference; unpaired: each system's interval, differenced
  with their standard errors added in quadrature).
* ``mcnemar``: McNemar's mid-p test on the *judge's verdicts* of the items unlabelled for both
  systems (what a user without a judge model runs;
  :func:`~bayesjudge.systems.baselines.mcnemar_test`);
  ``mcnemar_gold``: the same test on the *gold labels* of the items labelled for both. Paired
  designs only; a test, so no interval and no coverage.

A Bayesian method declares a winner when P(B > A) >= 0.975 or <= 0.025; a frequentist one when
its two-sided p-value is below 0.05 (for PPI, when its 95% interval excludes 0). At a pair
whose true difference is 0 that is a false winner; at a pair whose true difference is the
cell's step it is power.

Replicates run in replicate-major order (replicate 1 of every cell, then replicate 2, ...), so
at any stopping time the cells have the same count to within one; the raw rows are appended to
``results/rank_power_raw.csv`` as each replicate finishes, and a rerun skips the (cell,
replicate) pairs already there. Each replicate's seed is a function of its cell and number.

Run: ``nice -n 19 python benchmarks/rank_power.py --replicates R [--systems 2 4] [--draws D
--tune T] [--shard i/n]`` (n processes with shards 0/n to n-1/n share the work), then
``python benchmarks/rank_power.py --summarize`` to write ``results/rank_power.md``.
"""

from __future__ import annotations

import argparse
import csv
import fcntl
import io
import math
import sys
import time
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _record import RESULTS, record

RAW = RESULTS / "rank_power_raw.csv"
N_ITEMS = 1500
N_GOLD = 150
SE = 0.90
SP_CENTRE = 0.80
PI_CENTRE = 0.65
DIFFS = (0.0, 0.05, 0.10)
GAPS = (0.0, 0.10, 0.25)
SIZES = (2, 4)
DESIGNS = ("paired", "unpaired")
BAYES = ("default", "shared", "system")
METHODS = (*BAYES, "ppi++", "ppi_py", "mcnemar", "mcnemar_gold")
FIELDS = (
    "cell",
    "systems",
    "design",
    "diff",
    "gap",
    "replicate",
    "seed",
    "method",
    "a",
    "b",
    "true_diff",
    "estimate",
    "low",
    "high",
    "p_b_better",
    "p_value",
    "declared",
    "covers",
    "weight_shared",
    "default_rests_on",
    "passed",
    "draws",
    "seconds",
)


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell of the grid: number of systems, design, adjacent true difference, Sp gap."""

    systems: int
    design: str
    diff: float
    gap: float

    @property
    def key(self) -> str:
        return f"k{self.systems}-{self.design}-d{self.diff:.2f}-g{self.gap:.2f}"

    @property
    def pi(self) -> tuple[float, ...]:
        k = self.systems
        return tuple(round(PI_CENTRE + self.diff * (s - (k - 1) / 2), 10) for s in range(k))

    @property
    def sp(self) -> tuple[float, ...]:
        k = self.systems
        return tuple(round(SP_CENTRE + self.gap * (0.5 - s / (k - 1)), 10) for s in range(k))

    def seed(self, replicate: int) -> int:
        """A seed fixed by the cell and the replicate number (the same on every rerun)."""
        return 27_000_000 + (zlib.crc32(self.key.encode()) % 10_000) * 1_000 + replicate

    def pairs(self) -> list[tuple[int, int, float]]:
        """Every pair ``(a, b)`` with ``a < b`` and its true difference ``pi_b - pi_a``."""
        pi = self.pi
        return [
            (a, b, round(pi[b] - pi[a], 10))
            for a in range(self.systems)
            for b in range(a + 1, self.systems)
        ]


def grid(sizes: Sequence[int] = SIZES) -> list[Cell]:
    """The cells, those with fewer systems first (they are the cheaper fits)."""
    return [
        Cell(k, design, diff, gap)
        for k in sorted(sizes)
        for design in DESIGNS
        for diff in DIFFS
        for gap in GAPS
    ]


def schedule(
    cells: Sequence[Cell], replicates: int, done: Iterable[tuple[str, int]] = ()
) -> list[tuple[int, Cell]]:
    """Replicate-major order of ``(replicate, cell)``, skipping the pairs in ``done``."""
    finished = set(done)
    return [
        (r, cell)
        for r in range(1, replicates + 1)
        for cell in cells
        if (cell.key, r) not in finished
    ]


def declared_bayes(p_b_better: float) -> bool:
    return bool(p_b_better >= 0.975 or p_b_better <= 0.025)


def _bayes_row(delta: np.ndarray, truth: float) -> dict[str, Any]:
    low, high = np.quantile(delta, [0.025, 0.975])
    p = float(np.mean(delta > 0))
    return {
        "estimate": float(delta.mean()),
        "low": float(low),
        "high": float(high),
        "p_b_better": p,
        "declared": declared_bayes(p),
        "covers": bool(low <= truth <= high),
    }


def _freq_row(estimate: float, se: float, truth: float) -> dict[str, Any]:
    from scipy import stats

    z = float(stats.norm.ppf(0.975))
    low, high = estimate - z * se, estimate + z * se
    p = float(2 * stats.norm.sf(abs(estimate) / se)) if se > 0 else float(estimate == 0)
    return {
        "estimate": estimate,
        "low": low,
        "high": high,
        "p_value": p,
        "declared": bool(p < 0.05),
        "covers": bool(low <= truth <= high),
    }


def _ppi_py(data: Any, a: str, b: str, paired: bool) -> tuple[float, float]:
    """Estimate and standard error of pi_b - pi_a by ``ppi_py`` (power-tuned PPI++)."""
    import ppi_py
    from scipy import stats

    z = float(stats.norm.ppf(0.975))
    if paired:
        items = data.paired_items(a=a, b=b)
        parts = [
            (
                (items.label[:, 1] - items.label[:, 0]).astype(float),
                (items.verdict[:, 1] - items.verdict[:, 0]).astype(float),
                (items.unlabelled_verdict[:, 1] - items.unlabelled_verdict[:, 0]).astype(float),
            )
        ]
    else:
        parts = []
        for name in (a, b):
            mine = data.system_index == data.systems.index(name)
            gold = mine & ~np.isnan(data.label)
            parts.append(
                (
                    data.label[gold].astype(float),
                    data.verdict[gold].astype(float),
                    data.verdict[mine & np.isnan(data.label)].astype(float),
                )
            )
    estimates, variances = [], []
    for y, yhat, unl in parts:
        low, high = ppi_py.ppi_mean_ci(y, yhat, unl, alpha=0.05)
        estimates.append(float(np.ravel(ppi_py.ppi_mean_pointestimate(y, yhat, unl))[0]))
        variances.append((float(np.ravel(high)[0] - np.ravel(low)[0]) / (2 * z)) ** 2)
    estimate = estimates[0] if paired else estimates[1] - estimates[0]
    return estimate, math.sqrt(sum(variances))


def _mcnemar_gold(data: Any, a: str, b: str) -> float:
    """Two-sided mid-p of McNemar's test on the gold labels of the items labelled for both."""
    from bayesjudge.systems.baselines import mcnemar_mid_p

    items = data.paired_items(a=a, b=b)
    a_only = int(np.sum((items.label[:, 0] == 1) & (items.label[:, 1] == 0)))
    b_only = int(np.sum((items.label[:, 0] == 0) & (items.label[:, 1] == 1)))
    return float(mcnemar_mid_p(a_only, b_only))


def replicate(cell: Cell, seed: int, *, draws: int, tune: int) -> list[dict[str, Any]]:
    """Simulate one data set of ``cell``, fit it, and return one row per method and pair."""
    from bayesjudge.inference.fit import diagnostics_of
    from bayesjudge.systems.analysis import _averages, _misfits
    from bayesjudge.systems.average import NEGLIGIBLE, average_posteriors, judge_evidence
    from bayesjudge.systems.baselines import mcnemar_test, ppi_difference
    from bayesjudge.systems.data import SystemsData
    from bayesjudge.systems.fit import fit_systems
    from bayesjudge.systems.simulate import simulate_systems

    start = time.perf_counter()
    sim = simulate_systems(
        list(cell.pi),
        n_unlabelled=N_ITEMS - N_GOLD,
        n_labelled=N_GOLD,
        se=SE,
        sp=list(cell.sp),
        design=cell.design,  # type: ignore[arg-type]
        random_seed=seed,
    )
    data = SystemsData.from_frame(sim.frame)
    fits = {
        kind: fit_systems(
            data, judge=kind, draws=draws, tune=tune, random_seed=seed, progressbar=False
        )
        for kind in ("shared", "system")
    }
    diagnostics = {kind: diagnostics_of(tree) for kind, tree in fits.items()}
    passed = {kind: d.passed for kind, d in diagnostics.items()}
    posteriors = {kind: tree["posterior"].to_dataset() for kind, tree in fits.items()}
    weight = float("nan")
    if _averages(data, "auto", "auto"):  # the package's own rule (analysis._averaged_fit)
        counts = data.system_counts()
        weight = judge_evidence(
            data.systems, x1=counts.x1, m1=counts.m1, x0=counts.x0, m0=counts.m0
        ).weight_shared
        misfit = [kind for kind in ("shared", "system") if _misfits(diagnostics[kind])]
        if weight < NEGLIGIBLE:
            rests_on, default_passed = "system", passed["system"]
            posteriors["default"] = posteriors["system"]
        elif weight > 1 - NEGLIGIBLE:
            rests_on, default_passed = "shared", passed["shared"]
            posteriors["default"] = posteriors["shared"]
        elif len(misfit) == 1:
            rests_on = "system" if misfit[0] == "shared" else "shared"
            default_passed = passed[rests_on]
            posteriors["default"] = posteriors[rests_on]
        else:
            rests_on, default_passed = "average", passed["shared"] and passed["system"]
            posteriors["default"] = average_posteriors(
                posteriors["shared"], posteriors["system"], weight, random_seed=seed
            )
    else:
        rests_on, default_passed = "system", passed["system"]
        posteriors["default"] = posteriors["system"]
    passed["default"] = default_passed
    pi = {
        method: np.asarray(post["pi"].transpose("chain", "draw", "system").to_numpy()).reshape(
            -1, cell.systems
        )
        for method, post in posteriors.items()
    }
    seconds = time.perf_counter() - start
    rows: list[dict[str, Any]] = []
    base = {
        "cell": cell.key,
        "systems": cell.systems,
        "design": cell.design,
        "diff": cell.diff,
        "gap": cell.gap,
        "seed": seed,
        "weight_shared": weight,
        "default_rests_on": rests_on,
        "draws": draws,
        "seconds": round(seconds, 2),
    }
    paired = cell.design == "paired"
    for a, b, truth in cell.pairs():
        name_a, name_b = data.systems[a], data.systems[b]
        common = {**base, "a": name_a, "b": name_b, "true_diff": truth}
        for method in BAYES:
            delta = pi[method][:, b] - pi[method][:, a]
            rows.append(
                {**common, "method": method, "passed": passed[method], **_bayes_row(delta, truth)}
            )
        ppi = ppi_difference(data, a=name_a, b=name_b)
        assert ppi.estimate is not None
        assert ppi.se is not None
        rows.append({**common, "method": "ppi++", **_freq_row(ppi.estimate, ppi.se, truth)})
        estimate, se = _ppi_py(data, name_a, name_b, paired)
        rows.append({**common, "method": "ppi_py", **_freq_row(estimate, se, truth)})
        if paired:
            test = mcnemar_test(data, a=name_a, b=name_b)
            gold_p = _mcnemar_gold(data, name_a, name_b)
            for method, p in (("mcnemar", test.mid_p), ("mcnemar_gold", gold_p)):
                rows.append({**common, "method": method, "p_value": p, "declared": p < 0.05})
    return rows


# --------------------------------------------------------------------------- reading the rows
def read_rows(path: Path | None = None) -> list[dict[str, str]]:
    """The raw rows of ``path`` (default :data:`RAW`), as strings; none if it does not exist."""
    path = RAW if path is None else path
    if not path.exists():
        return []
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def done_pairs(rows: Iterable[dict[str, str]]) -> set[tuple[str, int]]:
    """The (cell, replicate) pairs the raw rows hold."""
    return {(r["cell"], int(r["replicate"])) for r in rows}


def binomial_interval(k: int, n: int) -> tuple[float, float]:
    """Clopper-Pearson 95% interval of a proportion ``k / n`` (SciPy's ``binomtest``)."""
    from scipy import stats

    if n == 0:
        return (float("nan"), float("nan"))
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    return (float(ci.low), float(ci.high))


def _truthy(value: str) -> bool:
    return value == "True"


@dataclass(frozen=True, slots=True)
class Tally:
    """Counts of one method in one cell: coverage, false winners, power, fits that passed."""

    replicates: int
    covered: int
    intervals: int
    false_winners: int
    null_pairs: int
    wins: int
    step_pairs: int
    passed: int
    fits: int

    @staticmethod
    def text(k: int, n: int) -> str:
        if n == 0:
            return "-"
        low, high = binomial_interval(k, n)
        return f"{k}/{n} = {k / n:.2f} [{low:.2f}, {high:.2f}]"


def tally(rows: Sequence[dict[str, str]], cell_key: str, method: str) -> Tally:
    """Count one method's results in one cell.

    Coverage counts every pair's interval; false winners count the pairs whose true difference
    is 0; power counts the pairs whose true difference is the cell's step (``diff`` > 0).
    """
    sel = [r for r in rows if r["cell"] == cell_key and r["method"] == method]
    with_interval = [r for r in sel if r["covers"] != ""]
    null = [r for r in sel if float(r["true_diff"]) == 0.0]
    step = [
        r
        for r in sel
        if float(r["diff"]) > 0
        and math.isclose(abs(float(r["true_diff"])), float(r["diff"]), abs_tol=1e-9)
    ]
    per_replicate = {(r["replicate"]): r["passed"] for r in sel if r["passed"] != ""}
    return Tally(
        replicates=len({r["replicate"] for r in sel}),
        covered=sum(_truthy(r["covers"]) for r in with_interval),
        intervals=len(with_interval),
        false_winners=sum(_truthy(r["declared"]) for r in null),
        null_pairs=len(null),
        wins=sum(_truthy(r["declared"]) for r in step),
        step_pairs=len(step),
        passed=sum(_truthy(v) for v in per_replicate.values()),
        fits=len(per_replicate),
    )


def power_gap(rows: Sequence[dict[str, str]], cell_key: str) -> tuple[int, int, int]:
    """Paired comparison of the default's and the shared model's declared winners at the step.

    Returns ``(both or neither, default only, shared only)`` over the step pairs of the cell
    (the same data sets, so the difference in power is (default only - shared only) / total).
    """
    declared: dict[str, dict[tuple[str, str, str], bool]] = defaultdict(dict)
    for r in rows:
        if r["cell"] != cell_key or r["method"] not in ("default", "shared"):
            continue
        if float(r["diff"]) > 0 and math.isclose(
            abs(float(r["true_diff"])), float(r["diff"]), abs_tol=1e-9
        ):
            declared[r["method"]][(r["replicate"], r["a"], r["b"])] = _truthy(r["declared"])
    keys = declared["default"].keys() & declared["shared"].keys()
    same = sum(declared["default"][k] == declared["shared"][k] for k in keys)
    only_default = sum(declared["default"][k] and not declared["shared"][k] for k in keys)
    only_shared = sum(declared["shared"][k] and not declared["default"][k] for k in keys)
    return same, only_default, only_shared


def table(rows: Sequence[dict[str, str]], cells: Sequence[Cell]) -> str:
    """The markdown table of every cell and method found in ``rows``."""
    lines = [
        "| systems | design | diff | Sp gap | method | replicates | coverage [95% CI] "
        "| false winners at diff 0 [95% CI] | power at the step [95% CI] | fits passed "
        "| default: mean weight of one judge; what it rested on |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for cell in cells:
        first = {
            r["replicate"]: r for r in rows if r["cell"] == cell.key and r["method"] == "default"
        }.values()  # one row per replicate
        weights = [float(r["weight_shared"]) for r in first if r["weight_shared"] != "nan"]
        rests = Counter(r["default_rests_on"] for r in first)
        for method in METHODS:
            t = tally(rows, cell.key, method)
            if t.replicates == 0:
                continue
            fits = f"{t.passed}/{t.fits}" if t.fits else "-"
            weight = ""
            if method == "default":
                mean = f"{np.mean(weights):.2f}; " if weights else ""
                weight = mean + ", ".join(f"{k} {n}" for k, n in sorted(rests.items()))
            lines.append(
                f"| {cell.systems} | {cell.design} | {cell.diff:.2f} | {cell.gap:.2f} | {method} "
                f"| {t.replicates} | {Tally.text(t.covered, t.intervals)} "
                f"| {Tally.text(t.false_winners, t.null_pairs)} "
                f"| {Tally.text(t.wins, t.step_pairs)} | {fits} | {weight} |"
            )
    return "\n".join(lines)


def gap_table(rows: Sequence[dict[str, str]], cells: Sequence[Cell]) -> str:
    """Default against shared at the step, same data sets: the issue's power target."""
    lines = [
        "| systems | design | diff | Sp gap | step pairs | both or neither | default only "
        "| shared only | power(default) - power(shared) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for cell in cells:
        if cell.diff == 0:
            continue
        same, only_default, only_shared = power_gap(rows, cell.key)
        total = same + only_default + only_shared
        if total == 0:
            continue
        lines.append(
            f"| {cell.systems} | {cell.design} | {cell.diff:.2f} | {cell.gap:.2f} | {total} "
            f"| {same} | {only_default} | {only_shared} "
            f"| {(only_default - only_shared) / total:+.2f} |"
        )
    return "\n".join(lines)


def balanced(rows: Sequence[dict[str, str]]) -> tuple[list[dict[str, str]], dict[int, int]]:
    """Keep, for each number of systems, replicates 1..R that every cell run has finished.

    Returns the kept rows and R for each number of systems; a cell that ran ahead of the others
    (processes stopped at different times) has its extra replicates left out, so that every
    cell of a size is summarized over the same replicate count.
    """
    held: dict[str, set[int]] = defaultdict(set)
    size: dict[str, int] = {}
    for r in rows:
        held[r["cell"]].add(int(r["replicate"]))
        size[r["cell"]] = int(r["systems"])
    complete: dict[int, int] = {}
    for cell, replicates in held.items():
        run = 0
        while run + 1 in replicates:
            run += 1
        k = size[cell]
        complete[k] = min(complete.get(k, run), run)
    kept = [r for r in rows if int(r["replicate"]) <= complete[int(r["systems"])]]
    return kept, complete


def summarize(command: str, reading: str = "") -> Path:
    every = read_rows()
    rows, complete = balanced(every)
    cells = [c for c in grid() if any(r["cell"] == c.key for r in rows)]
    left_out = {(r["cell"], r["replicate"]) for r in every} - {
        (r["cell"], r["replicate"]) for r in rows
    }
    per_replicate = {(r["cell"], r["replicate"]): float(r["seconds"]) for r in every}
    draws = sorted({r["draws"] for r in rows})
    median = float(np.median(list(per_replicate.values()))) if per_replicate else float("nan")
    total = sum(per_replicate.values())
    counts = "; ".join(
        f"{k} systems: {sum(c.systems == k for c in cells)} cells x {n} replicates"
        for k, n in sorted(complete.items())
    )
    body = (
        "Design (module docstring of `benchmarks/rank_power.py`): "
        f"{N_ITEMS:,} items per design unit, {N_GOLD} gold-labelled for every system, judge Se "
        f"{SE:.2f}, Sp centred on {SP_CENTRE:.2f} with the gap between the first and the last "
        f"system, true rates centred on {PI_CENTRE:.2f} with the step `diff` between adjacent "
        "systems. A Bayesian method declares a winner at P(B > A) >= 0.975 or <= 0.025, a "
        "frequentist one at a two-sided p < 0.05. Coverage is of the 95% interval of every "
        "pairwise difference; `mcnemar` (judge's verdicts) and `mcnemar_gold` (gold labels) "
        "are tests and have none. Intervals in brackets are Clopper-Pearson 95% intervals of "
        "the proportion, from the replicate count.\n\n"
        f"Summarized: {counts} (the replicates every cell finished; "
        f"{len(left_out)} replicates that some cells ran beyond that are in the raw rows but "
        f"left out here); raw rows: {len(every)} in `rank_power_raw.csv`. Fits: 4 chains x "
        f"{', '.join(draws)} draws after as many tuning steps; one replicate (two fits and "
        f"every baseline) took {median:.0f} s (median of all {len(per_replicate)} in the raw "
        f"rows; {total:.0f} s in all).\n\n"
        + table(rows, cells)
        + "\n\nThe default against the shared model on the same data sets, at the pairs whose "
        "true difference is the step (the issue's target: within 0.05 where the judge is "
        "shared):\n\n"
        + gap_table(rows, cells)
        + ("\n\n## Reading\n\n" + reading if reading else "")
    )
    return record("rank_power", "rank: power and coverage of the default judge", command, body)


def run(replicates: int, sizes: Sequence[int], draws: int, tune: int, shard: str = "0/1") -> None:
    """Run the missing replicates in replicate-major order, appending each one's rows to RAW.

    ``shard`` ``"i/n"`` takes every n-th entry of the schedule from the i-th, so that n
    processes started together keep the replicate-major order between them; each replicate's
    rows are appended in one write under an exclusive lock of the file.
    """
    index, count = (int(part) for part in shard.split("/"))
    if not 0 <= index < count:
        raise SystemExit(f"--shard must be i/n with 0 <= i < n; got {shard!r}")
    cells = grid(sizes)
    todo = schedule(cells, replicates, done_pairs(read_rows()))[index::count]
    RAW.parent.mkdir(parents=True, exist_ok=True)
    for number, (r, cell) in enumerate(todo, 1):
        seed = cell.seed(r)
        block = io.StringIO()
        writer = csv.DictWriter(block, fieldnames=FIELDS, restval="")
        for row in replicate(cell, seed, draws=draws, tune=tune):
            writer.writerow({**row, "replicate": r})
        with RAW.open("a", newline="", encoding="utf-8") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            if handle.tell() == 0:
                csv.DictWriter(handle, fieldnames=FIELDS).writeheader()
            handle.write(block.getvalue())
            handle.flush()
            fcntl.flock(handle, fcntl.LOCK_UN)
        print(f"[{number}/{len(todo)}] {cell.key} replicate {r} done", flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--replicates", type=int, default=20)
    parser.add_argument("--systems", type=int, nargs="+", default=[2], choices=SIZES)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--tune", type=int, default=1000)
    parser.add_argument("--shard", default="0/1", help="i/n: every n-th replicate from the i-th")
    parser.add_argument("--summarize", action="store_true", help="write results/rank_power.md")
    parser.add_argument("--reading", type=Path, help="markdown file appended as the reading")
    args = parser.parse_args(argv)
    if args.summarize:
        reading = args.reading.read_text(encoding="utf-8") if args.reading else ""
        command = "python benchmarks/rank_power.py " + " ".join(sys.argv[1:])
        print(summarize(command, reading))
        return
    run(args.replicates, args.systems, args.draws, args.tune, args.shard)


if __name__ == "__main__":
    main()
