"""Do the recommended threshold and the label plan keep their promises on held-out data?

Seeded replicates of judge scores drawn in six ways, 50 gold-PASS and 50 gold-FAIL calibration
items and 1,000 test items at a true pi of 0.6:

- ``model``: :func:`bayesjudge.prevalence.simulate.judge_scores_table` (the package's own
  generator: two grids of 5 score levels, 10% of items on the other class's grid);
- ``skewed``: gold-PASS scores Beta(6, 1) (heavy mass near 1), gold-FAIL Beta(1.2, 3), rounded
  to 2 decimals as a judge prints them;
- ``bimodal``: gold-PASS 0.75 Beta(12, 2) + 0.25 Beta(2, 8), gold-FAIL 0.7 Beta(2, 12) +
  0.3 Beta(7, 3), rounded to 2 decimals;
- ``se_shift_mild`` / ``se_shift_strong``: calibration as ``skewed``, but the test set's PASS
  items score Beta(3, 1) / Beta(1.5, 1) (the judge's Se at 0.5 falls from 0.984 to 0.875 /
  0.646 between calibration and test);
- ``se_shift_mixture``: as ``skewed``, but 15% of the test set's PASS items score like FAIL
  items (Beta(1.2, 3)): a change of Se that the test scores cannot show (it is the same, in
  them, as a lower pi).

The promises measured, per replicate:

1. the recommended threshold (``threshold_analysis``, 6 candidates): its 95% interval of pi
   covers the true pi (and the interval at the candidate nearest 0.5, a threshold fixed in
   advance, for comparison: the choice of the narrowest interval is optimistic);
2. the label plan (``plan_labels`` at the chosen threshold, 100 more labels, 8 refits): the
   predicted (expected) width after them against the width realised by drawing those labels
   from the calibration population and refitting the exact posterior, and whether that
   interval covers;
3. the score mixture check (:func:`bayesjudge.prevalence.thresholds.mixture_check`, level 0.01)
   run on each replicate: its rate of alarms (false alarms where Se and Sp do not change).
   A second, larger set of replicates runs the check alone (it costs milliseconds).

Run: ``nice python benchmarks/heldout_thresholds_plans.py [REPLICATES] [CHECK_REPLICATES]
[WORKERS]`` (defaults 25, 300, 2); writes ``results/heldout.md``, the raw rows to
``results/heldout_raw.csv`` (as they come, replicate by replicate across the scenarios) and
``results/heldout_checks_raw.csv``. A run cut short is summarised from its raw rows by
``python benchmarks/heldout_thresholds_plans.py --summarize "ELAPSED" WORKERS [RUN ARGUMENTS]``.
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from multiprocessing import Pool
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _record import RESULTS, record

from bayesjudge.prevalence.data import JudgeCounts, JudgeData
from bayesjudge.prevalence.exact import exact_posterior
from bayesjudge.prevalence.plan import plan_labels
from bayesjudge.prevalence.simulate import judge_scores_table
from bayesjudge.prevalence.thresholds import mixture_check, threshold_analysis

PI, N, M1, M0, EXTRA, PROB = 0.6, 1000, 50, 50, 100, 0.95
SCENARIOS = (
    "model",
    "skewed",
    "bimodal",
    "se_shift_mild",
    "se_shift_strong",
    "se_shift_mixture",
)
SKEW_POS, SKEW_NEG = (6.0, 1.0), (1.2, 3.0)
RAW = RESULTS / "heldout_raw.csv"
RAW_CHECKS = RESULTS / "heldout_checks_raw.csv"


def _beta_mix(rng: np.random.Generator, size: int, parts: list[tuple[float, float, float]]):
    which = rng.choice(len(parts), size=size, p=[w for w, _, _ in parts])
    a = np.array([p[1] for p in parts])[which]
    b = np.array([p[2] for p in parts])[which]
    return np.round(rng.beta(a, b), 2)


def _sampler(scenario: str, *, test: bool):
    """Return draw(rng, label_array) -> scores for the calibration or the test population."""
    if scenario == "bimodal":
        pos = [(0.75, 12.0, 2.0), (0.25, 2.0, 8.0)]
        neg = [(0.7, 2.0, 12.0), (0.3, 7.0, 3.0)]
    else:
        pos = [(1.0, *SKEW_POS)]
        neg = [(1.0, *SKEW_NEG)]
        if test and scenario == "se_shift_mild":
            pos = [(1.0, 3.0, 1.0)]
        elif test and scenario == "se_shift_strong":
            pos = [(1.0, 1.5, 1.0)]
        elif test and scenario == "se_shift_mixture":
            pos = [(0.85, *SKEW_POS), (0.15, *SKEW_NEG)]

    def draw(rng: np.random.Generator, label: np.ndarray) -> np.ndarray:
        out = np.empty(label.size)
        out[label == 1] = _beta_mix(rng, int(np.sum(label == 1)), pos)
        out[label == 0] = _beta_mix(rng, int(np.sum(label == 0)), neg)
        return out

    return draw


def dataset(scenario: str, rng: np.random.Generator) -> JudgeData:
    if scenario == "model":
        frame = judge_scores_table(pi=PI, n=N, m1=M1, m0=M0, overlap=0.1, random_seed=rng)
        return JudgeData.from_frame(frame)
    truth = (rng.random(N) < PI).astype(int)
    cal_label = np.repeat([1, 0], [M1, M0])
    cal = _sampler(scenario, test=False)(rng, cal_label)
    test = _sampler(scenario, test=True)(rng, truth)
    frame = pd.DataFrame(
        {
            "label": pd.array([*cal_label, *([None] * N)], dtype="Int64"),
            "score": np.concatenate([cal, test]),
        }
    )
    return JudgeData.from_frame(frame)


def extra_verdicts(scenario: str, rng: np.random.Generator, m1: int, m0: int, t: float):
    """Draw m1 gold-PASS and m0 gold-FAIL items from the calibration population, at t."""
    if scenario == "model":
        frame = judge_scores_table(pi=PI, n=0, m1=m1, m0=m0, overlap=0.1, random_seed=rng)
        label = frame["label"].to_numpy(dtype=int)
        score = frame["score"].to_numpy(dtype=float)
    else:
        label = np.repeat([1, 0], [m1, m0])
        score = _sampler(scenario, test=False)(rng, label)
    passed = score >= t
    return int(np.sum(passed & (label == 1))), int(np.sum(passed & (label == 0)))


def replicate(job: tuple[str, int]) -> dict[str, object]:
    scenario, rep = job
    rng = np.random.default_rng([27, 7, SCENARIOS.index(scenario), rep])
    data = dataset(scenario, rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        analysis = threshold_analysis(data, max_candidates=6, prob=PROB)
    best = analysis.best
    fixed = min(analysis.points, key=lambda p: (abs(p.threshold - 0.5), p.threshold))
    plan = plan_labels(
        best.counts, m_grid=[EXTRA], max_labels=EXTRA, draws=8, prob=PROB, random_seed=rep
    )
    point = next(p for p in plan.curve if p.m == EXTRA)
    x1, x0 = extra_verdicts(scenario, rng, point.m1, point.m0, best.threshold)
    c = best.counts
    after = JudgeCounts(
        m1=c.m1 + point.m1, x1=c.x1 + x1, m0=c.m0 + point.m0, x0=c.x0 + x0, n=c.n, k=c.k
    )
    eti = exact_posterior(after).eti(PROB)
    check = analysis.mixture
    return {
        "scenario": scenario,
        "rep": rep,
        "threshold": best.threshold,
        "width": best.width,
        "cover": best.pi.eti.low <= PI <= best.pi.eti.high,
        "fixed_threshold": fixed.threshold,
        "fixed_cover": fixed.pi.eti.low <= PI <= fixed.pi.eti.high,
        "plan_width": point.width,
        "plan_mcse": point.mcse,
        "realised_width": eti.width,
        "plan_cover": eti.low <= PI <= eti.high,
        "check_p": math.nan if check is None else check.p_value,
        "alarm": False if check is None else not check.passed,
    }


def check_only(job: tuple[str, int]) -> tuple[str, bool]:
    scenario, rep = job
    rng = np.random.default_rng([27, 8, SCENARIOS.index(scenario), rep])
    check = mixture_check(dataset(scenario, rng))
    return scenario, False if check is None else not check.passed


def _rate(flags: pd.Series) -> str:
    k, n = int(flags.sum()), int(flags.size)
    low, high = stats.binomtest(k, n).proportion_ci(0.95, method="wilson")
    return f"{k}/{n} = {k / n:.3f} [{low:.3f}, {high:.3f}]"


def _summarize(elapsed: str, workers: str, command: str | None = None) -> None:
    frame = pd.read_csv(RAW)
    alarms = pd.read_csv(RAW_CHECKS)
    reps = frame.groupby("scenario").size()
    lines = [
        f"{reps.min()} to {reps.max()} replicates per scenario for the threshold and the plan "
        f"(rows in `{RAW.name}`), {len(alarms) // len(SCENARIOS)} more for the mixture check "
        f"alone (`{RAW_CHECKS.name}`); true pi {PI}, {M1} + {M0} calibration items, {N} test "
        f"items, {EXTRA} more labels planned; {elapsed} wall with {workers} workers. Brackets: "
        "95% Wilson intervals of the rates.",
        "",
        "## The recommended threshold: does its 95% interval of pi cover?",
        "",
        "| scenario | coverage at the chosen threshold | coverage at the candidate nearest 0.5 "
        "| mean width | chosen thresholds (median) |",
        "|---|---|---|---|---|",
    ]
    for s in SCENARIOS:
        f = frame[frame.scenario == s]
        lines.append(
            f"| {s} | {_rate(f.cover)} | {_rate(f.fixed_cover)} | {f.width.mean():.4f} "
            f"| {f.threshold.median():.3g} |"
        )
    lines += [
        "",
        f"## The plan: predicted against realised width after {EXTRA} more labels",
        "",
        "| scenario | mean predicted width | mean realised width | realised - predicted "
        "(sd of the mean) | coverage after the labels |",
        "|---|---|---|---|---|",
    ]
    for s in SCENARIOS:
        f = frame[frame.scenario == s]
        gap = f.realised_width - f.plan_width
        lines.append(
            f"| {s} | {f.plan_width.mean():.4f} | {f.realised_width.mean():.4f} "
            f"| {gap.mean():+.4f} ({gap.std(ddof=1) / math.sqrt(len(gap)):.4f}) "
            f"| {_rate(f.plan_cover)} |"
        )
    lines += [
        "",
        "## The score mixture check (level 0.01): how often it raises an alarm",
        "",
        "| scenario | alarms, replicates above | alarms, check-only replicates |",
        "|---|---|---|",
    ]
    for s in SCENARIOS:
        lines.append(
            f"| {s} | {_rate(frame[frame.scenario == s].alarm)} "
            f"| {_rate(alarms[alarms.scenario == s].alarm)} |"
        )
    record(
        "heldout",
        "Thresholds and label plans on held-out data",
        command or " ".join(["nice python benchmarks/heldout_thresholds_plans.py", *sys.argv[1:]]),
        "\n".join(lines),
    )


def main() -> None:
    if sys.argv[1:2] == ["--summarize"]:
        run = " ".join(["nice python benchmarks/heldout_thresholds_plans.py", *sys.argv[4:]])
        _summarize(
            *sys.argv[2:4],
            command=f"{run}, stopped by hand after the rows in results/{RAW.name}; tables by "
            f"python benchmarks/heldout_thresholds_plans.py {' '.join(sys.argv[1:])}",
        )
        return
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 25
    check_reps = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    workers = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    start = time.perf_counter()
    with Pool(workers) as pool:
        checks = pool.map(
            check_only, [(s, r) for s in SCENARIOS for r in range(check_reps)], chunksize=20
        )
        pd.DataFrame(checks, columns=["scenario", "alarm"]).to_csv(RAW_CHECKS, index=False)
        jobs = [(s, r) for r in range(reps) for s in SCENARIOS]  # rep-major: balanced if cut
        for i, row in enumerate(pool.imap(replicate, jobs)):
            pd.DataFrame([row]).to_csv(RAW, mode="w" if i == 0 else "a", header=i == 0, index=False)
    _summarize(f"{time.perf_counter() - start:.0f} s", str(workers))


if __name__ == "__main__":
    main()
