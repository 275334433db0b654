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
* ``all_data``: the same average with the weight of one judge from *all* the data, the
  posterior model probability from each fit's marginal likelihood of the gold labels, their
  verdicts and the unlabelled verdicts by bridge sampling
  (:func:`bayesjudge.systems.average.log_marginal_of_fit`; prior probability 1/2), the same
  rules for a negligible weight and a set-aside misfit. Old (gold labels only) and new weight
  come from the same two fits.
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
``results/rank_power_weight_raw.csv`` as each replicate finishes, and a rerun skips the (cell,
replicate) pairs already there. Each replicate's seed is a function of its cell and number.

Run: ``nice -n 19 python benchmarks/rank_power.py --replicates R [--systems 2 4] [--draws D
--tune T] [--shard i/n] [--cells KEY ...]`` (n processes with shards 0/n to n-1/n share the
work; ``--cells`` runs only the named cells, e.g. ``k2-paired-d0.00-g0.10``), then
``python benchmarks/rank_power.py --summarize`` to write ``results/rank_power_weight.md``.
The raw rows are in ``results/rank_power_weight_raw.csv``; ``results/rank_power_raw.csv`` and
``results/rank_power.md`` hold the earlier run without the ``all_data`` rows (other columns).
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

RAW = RESULTS / "rank_power_weight_raw.csv"
N_ITEMS = 1500
N_GOLD = 150
SE = 0.90
SP_CENTRE = 0.80
PI_CENTRE = 0.65
DIFFS = (0.0, 0.05, 0.10)
GAPS = (0.0, 0.10, 0.25)
SIZES = (2, 4)
DESIGNS = ("paired", "unpaired")
BAYES = ("default", "all_data", "shared", "system")
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
    "weight_all_data",
    "log_bf_all_data",
    "bridge_relative_mse",
    "all_data_rests_on",
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


def _mixed(
    weight: float,
    diagnostics: dict[str, Any],
    passed: dict[str, bool],
    posteriors: dict[str, Any],
    seed: int,
) -> tuple[str, bool, Any]:
    """The average at ``weight`` as ``bayesjudge.systems.analysis`` forms it.

    Returns what it rests on, whether those fits passed, and its posterior: one model alone at
    a negligible weight or when the other converged but failed only its predictive check,
    else the mixture of the draws.
    """
    from bayesjudge.systems.analysis import _misfits
    from bayesjudge.systems.average import NEGLIGIBLE, average_posteriors

    misfit = [kind for kind in ("shared", "system") if _misfits(diagnostics[kind])]
    if weight < NEGLIGIBLE:
        return "system", passed["system"], posteriors["system"]
    if weight > 1 - NEGLIGIBLE:
        return "shared", passed["shared"], posteriors["shared"]
    if len(misfit) == 1:
        kept = "system" if misfit[0] == "shared" else "shared"
        return kept, passed[kept], posteriors[kept]
    mixed = average_posteriors(posteriors["shared"], posteriors["system"], weight, random_seed=seed)
    return "average", passed["shared"] and passed["system"], mixed


def replicate(cell: Cell, seed: int, *, draws: int, tune: int) -> list[dict[str, Any]]:
    """Simulate one data set of ``cell``, fit it, and return one row per method and pair."""
    from scipy import special

    from bayesjudge.inference.fit import diagnostics_of
    from bayesjudge.systems.analysis import _averages
    from bayesjudge.systems.average import judge_evidence, log_marginal_of_fit
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
    weight = weight_all = log_bf_all = rmse = float("nan")
    if _averages(data, "auto", "auto"):  # the package's own rule (analysis._averaged_fit)
        counts = data.system_counts()
        weight = judge_evidence(
            data.systems, x1=counts.x1, m1=counts.m1, x0=counts.x0, m0=counts.m0
        ).weight_shared
        marginal = {
            kind: log_marginal_of_fit(data, fits[kind], random_seed=seed)
            for kind in ("shared", "system")
        }
        log_bf_all = marginal["shared"].log_marginal - marginal["system"].log_marginal
        weight_all = float(special.expit(log_bf_all))
        rmse = max(m.relative_mse for m in marginal.values())
        rests_on, default_passed, posteriors["default"] = _mixed(
            weight, diagnostics, passed, posteriors, seed
        )
        rests_all, all_passed, posteriors["all_data"] = _mixed(
            weight_all, diagnostics, passed, posteriors, seed
        )
    else:
        rests_on, default_passed = "system", passed["system"]
        rests_all, all_passed = rests_on, default_passed
        posteriors["default"] = posteriors["all_data"] = posteriors["system"]
    passed["default"] = default_passed
    passed["all_data"] = all_passed
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
        "weight_all_data": weight_all,
        "log_bf_all_data": log_bf_all,
        "bridge_relative_mse": rmse,
        "all_data_rests_on": rests_all,
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


def power_gap(
    rows: Sequence[dict[str, str]], cell_key: str, method: str = "default"
) -> tuple[int, int, int]:
    """Paired comparison of ``method``'s and the shared model's declared winners at the step.

    Returns ``(both or neither, method only, shared only)`` over the step pairs of the cell
    (the same data sets, so the difference in power is (method only - shared only) / total).
    """
    declared: dict[str, dict[tuple[str, str, str], bool]] = defaultdict(dict)
    for r in rows:
        if r["cell"] != cell_key or r["method"] not in (method, "shared"):
            continue
        if float(r["diff"]) > 0 and math.isclose(
            abs(float(r["true_diff"])), float(r["diff"]), abs_tol=1e-9
        ):
            declared[r["method"]][(r["replicate"], r["a"], r["b"])] = _truthy(r["declared"])
    keys = declared[method].keys() & declared["shared"].keys()
    same = sum(declared[method][k] == declared["shared"][k] for k in keys)
    only_default = sum(declared[method][k] and not declared["shared"][k] for k in keys)
    only_shared = sum(declared["shared"][k] and not declared[method][k] for k in keys)
    return same, only_default, only_shared


def table(rows: Sequence[dict[str, str]], cells: Sequence[Cell]) -> str:
    """The markdown table of every cell and method found in ``rows``."""
    lines = [
        "| systems | design | diff | Sp gap | method | replicates | coverage [95% CI] "
        "| false winners at diff 0 [95% CI] | power at the step [95% CI] | fits passed "
        "| default, all_data: mean weight of one judge; what it rested on |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for cell in cells:
        first = {
            r["replicate"]: r for r in rows if r["cell"] == cell.key and r["method"] == "default"
        }.values()  # one row per replicate
        weights = {
            method: [float(r[column]) for r in first if r[column] not in ("nan", "")]
            for method, column in (("default", "weight_shared"), ("all_data", "weight_all_data"))
        }
        rests = {
            method: Counter(r[column] for r in first)
            for method, column in (
                ("default", "default_rests_on"),
                ("all_data", "all_data_rests_on"),
            )
        }
        for method in METHODS:
            t = tally(rows, cell.key, method)
            if t.replicates == 0:
                continue
            fits = f"{t.passed}/{t.fits}" if t.fits else "-"
            weight = ""
            if method in weights:
                mean = f"{np.mean(weights[method]):.2f}; " if weights[method] else ""
                weight = mean + ", ".join(f"{k} {n}" for k, n in sorted(rests[method].items()))
            lines.append(
                f"| {cell.systems} | {cell.design} | {cell.diff:.2f} | {cell.gap:.2f} | {method} "
                f"| {t.replicates} | {Tally.text(t.covered, t.intervals)} "
                f"| {Tally.text(t.false_winners, t.null_pairs)} "
                f"| {Tally.text(t.wins, t.step_pairs)} | {fits} | {weight} |"
            )
    return "\n".join(lines)


def gap_table(
    rows: Sequence[dict[str, str]], cells: Sequence[Cell], method: str = "default"
) -> str:
    """``method`` against shared at the step, same data sets: the issue's power target."""
    lines = [
        f"| systems | design | diff | Sp gap | step pairs | both or neither | {method} only "
        f"| shared only | power({method}) - power(shared) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for cell in cells:
        if cell.diff == 0:
            continue
        same, only_default, only_shared = power_gap(rows, cell.key, method)
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


def weight_table(rows: Sequence[dict[str, str]], cells: Sequence[Cell]) -> str:
    """Per cell: the two weights of one judge, their difference, and the bridge's error."""
    lines = [
        "| systems | design | diff | Sp gap | replicates | gold-only weight: mean [min, max] "
        "| all-data weight: mean [min, max] | log BF all-data - gold-only: mean [min, max] "
        "| bridge relative MSE: max |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for cell in cells:
        first = [
            r
            for r in {
                r["replicate"]: r
                for r in rows
                if r["cell"] == cell.key and r["method"] == "default"
            }.values()
            if r["weight_all_data"] not in ("", "nan")
        ]
        if not first:
            continue
        gold = np.array([float(r["weight_shared"]) for r in first])
        full = np.array([float(r["weight_all_data"]) for r in first])
        gap = np.array([float(r["log_bf_all_data"]) for r in first]) - special_logit(gold)
        rmse = max(float(r["bridge_relative_mse"]) for r in first)

        def spread(x: np.ndarray, digits: int = 2) -> str:
            return f"{x.mean():.{digits}f} [{x.min():.{digits}f}, {x.max():.{digits}f}]"

        lines.append(
            f"| {cell.systems} | {cell.design} | {cell.diff:.2f} | {cell.gap:.2f} | {len(first)} "
            f"| {spread(gold)} | {spread(full)} | {spread(gap)} | {rmse:.1e} |"
        )
    return "\n".join(lines)


def special_logit(p: np.ndarray) -> np.ndarray:
    """log(p / (1 - p)): the gold-only log Bayes factor at prior weight 1/2."""
    return np.log(p) - np.log1p(-p)


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
        f"left out here); raw rows: {len(every)} in `{RAW.name}`. Fits: 4 chains x "
        f"{', '.join(draws)} draws after as many tuning steps; one replicate (two fits and "
        f"every baseline) took {median:.0f} s (median of all {len(per_replicate)} in the raw "
        f"rows; {total:.0f} s in all).\n\n"
        + table(rows, cells)
        + "\n\nThe default against the shared model on the same data sets, at the pairs whose "
        "true difference is the step (the issue's target: within 0.05 where the judge is "
        "shared):\n\n"
        + gap_table(rows, cells)
        + "\n\nThe same for the average with the all-data weight:\n\n"
        + gap_table(rows, cells, "all_data")
        + "\n\nThe weight of one judge from the gold labels only (today's default) and from all "
        "the data (bridge sampling), on the same data sets; the log Bayes factors' difference is "
        "what the unlabelled verdicts add:\n\n"
        + weight_table(rows, cells)
        + ("\n\n## Reading\n\n" + reading if reading else "")
    )
    return record(
        "rank_power_weight",
        "rank: power and coverage of the default judge, gold-only and all-data weights",
        command,
        body,
    )


def run(
    replicates: int,
    sizes: Sequence[int],
    draws: int,
    tune: int,
    shard: str = "0/1",
    only: Sequence[str] = (),
) -> None:
    """Run the missing replicates in replicate-major order, appending each one's rows to RAW.

    ``shard`` ``"i/n"`` takes every n-th entry of the schedule from the i-th, so that n
    processes started together keep the replicate-major order between them; each replicate's
    rows are appended in one write under an exclusive lock of the file.
    """
    index, count = (int(part) for part in shard.split("/"))
    if not 0 <= index < count:
        raise SystemExit(f"--shard must be i/n with 0 <= i < n; got {shard!r}")
    cells = grid(sizes)
    if only:
        unknown = sorted(set(only) - {c.key for c in cells})
        if unknown:
            raise SystemExit(f"--cells: no such cells {unknown}; known: {[c.key for c in cells]}")
        cells = [c for key in only for c in cells if c.key == key]
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
    parser.add_argument("--cells", nargs="+", default=[], help="run only these cells, in order")
    parser.add_argument(
        "--summarize", action="store_true", help="write results/rank_power_weight.md"
    )
    parser.add_argument("--reading", type=Path, help="markdown file appended as the reading")
    args = parser.parse_args(argv)
    if args.summarize:
        reading = args.reading.read_text(encoding="utf-8") if args.reading else ""
        command = "python benchmarks/rank_power.py " + " ".join(sys.argv[1:])
        print(summarize(command, reading))
        return
    run(args.replicates, args.systems, args.draws, args.tune, args.shard, args.cells)


if __name__ == "__main__":
    main()
