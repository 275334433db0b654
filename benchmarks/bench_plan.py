"""Check and time the label planner (bayesjudge.prevalence.plan) against direct simulation.

Run: ``nice -n 10 python benchmarks/bench_plan.py`` (writes ``benchmarks/results/plan.md``;
316 s of CPU in the recorded run). Every number it records is measured
in the run:

1. **Time** of ``plan_labels`` and of ``bayesjudge plan --target-width 0.07`` on the bundled
   example (wall and CPU time; the machine is shared, CPU time is the fairer figure).
2. **The reduced exact grid.** The refits use ``exact_posterior(grid_size=129, nodes=24)``;
   the interval widths of the replicate datasets are compared with the defaults (513, 48).
3. **Direct simulation, fixed data.** On the bundled example, the predicted width after 500
   more labels against a plain Monte Carlo average (no control variate) of full-precision
   exact widths, with posterior draws from NUTS (``fit_prevalence``): an independent sampler.
4. **Direct simulation over data sets (the tower property).** With the true parameters drawn
   from an informative prior, current data and extra labels simulated from them, the average
   predicted width must equal the average width actually obtained, over data sets: the
   preposterior expectation is exact on average whatever the truth, as long as the truth is
   drawn from the prior used in the analysis.
5. **Direct simulation, fixed truth.** One true parameter, current data at their expected
   counts, labels simulated from the truth: the prediction averages over what the data say
   now (the posterior) rather than the truth, so the two differ by more than Monte Carlo
   error; the same simulation from posterior draws agrees.
6. **Allocation.** The expected width after 500 more labels on the bundled example at several
   splits, beside the split of Lee et al. (2025)'s allocation rule.
7. **Large samples.** With n = 100,000 and an informative judge, the predicted width against
   the eq. 9 delta-method width of Lee et al. (2025) at the planned totals.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time

import numpy as np
from _record import command_line, record

from bayesjudge.estimators.rogan_gladen import rogan_gladen_variance
from bayesjudge.examples import load_example
from bayesjudge.prevalence.data import JudgeCounts, JudgeData
from bayesjudge.prevalence.exact import exact_posterior
from bayesjudge.prevalence.plan import (
    _GRID,
    _NODES,
    _allocation_ratio,
    _floor_labels,
    _lr_width,
    _simulator,
    _split,
    plan_labels,
    posterior_draws,
)
from bayesjudge.priors import Beta, PrevalencePriors
from bayesjudge.validation import z_value

EXAMPLE = JudgeData.from_frame(load_example("judge")).counts
LOW = JudgeCounts(122, 103, 401, 2, 3330, 50)
SMALL = JudgeCounts(40, 36, 40, 6, 5000, 3400)


def width(counts: JudgeCounts, *, priors: PrevalencePriors | None = None, **kw: int) -> float:
    return exact_posterior(counts, priors=priors, **kw).eti(0.95).width


def augmented(c: JudgeCounts, m1: int, x1: int, m0: int, x0: int) -> JudgeCounts:
    return JudgeCounts(c.m1 + m1, c.x1 + x1, c.m0 + m0, c.x0 + x0, c.n, c.k)


def split_for(counts: JudgeCounts, m: int) -> tuple[int, int]:
    ratio = _allocation_ratio(counts)[0]
    return _split(m, m1_now=counts.m1, m0_now=counts.m0, ratio=ratio)


# --------------------------------------------------------------------------- 1. time
def section_time() -> list[str]:
    data = JudgeData.from_frame(load_example("judge"))
    plan_labels(data, m_grid=[10], max_labels=10, draws=2)  # warm caches
    rows = []
    for _ in range(3):
        wall, cpu = time.perf_counter(), time.process_time()
        plan = plan_labels(data, target_width=0.07)
        rows.append((time.perf_counter() - wall, time.process_time() - cpu))
    wall_cli = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [sys.executable, "-m", "bayesjudge", "plan", "--target-width", "0.07", "--json"],
        check=True,
        capture_output=True,
    )
    wall_cli = time.perf_counter() - wall_cli
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_cli = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    best_wall = min(r[0] for r in rows)
    best_cpu = min(r[1] for r in rows)
    answer = plan.answer
    assert answer is not None
    refits = len(plan.curve)  # the points but m = 0 (computed once, exactly), and the floor
    return [
        "## 1. Time on the bundled example",
        "",
        f"`plan_labels(example, target_width=0.07)` (defaults: {plan.draws} refits per point, "
        f"{len(plan.curve)} points incl. m = 0 and the search, the floor): best of 3 "
        f"{best_wall:.1f} s wall, {best_cpu:.1f} s CPU ({refits * plan.draws} exact refits). "
        f"`bayesjudge plan --target-width 0.07 --json` in a fresh process: {wall_cli:.1f} s "
        f"wall, {cpu_cli:.1f} s CPU (imports included).",
        "",
        f"Answer: {answer.m1} gold-PASS + {answer.m0} gold-FAIL ({answer.m} labels), expected "
        f"width {answer.width:.4f} (MC error {answer.mcse:.1e}); now {plan.current_width:.4f}; "
        f"floor {plan.floor:.4f} (MC error {plan.floor_mcse:.1e}).",
        "",
    ]


# --------------------------------------------------------------------------- 2. reduced grid
def section_grid() -> list[str]:
    lines = [
        "## 2. Reduced exact grid of the refits",
        "",
        f"Replicate datasets of the planner (20 per row) refitted with grid_size={_GRID}, "
        f"nodes={_NODES} and with the defaults (513, 48): largest absolute difference of the "
        "95% interval width.",
        "",
        "| data | m | m1 | m0 | mean width | largest difference |",
        "|---|---|---|---|---|---|",
    ]
    worst = 0.0
    for name, counts in (("bundled example", EXAMPLE), ("low prevalence", LOW), ("small", SMALL)):
        sim = _simulator(
            counts,
            priors=PrevalencePriors(),
            prob=0.95,
            draws=20,
            rng=np.random.default_rng(1),
        )
        rng = np.random.default_rng(2)
        big = _floor_labels(counts.n)
        for m in (100, 1000, big):
            m1, m0 = (m, m) if m == big else split_for(counts, m)
            x1 = rng.binomial(m1, sim.refit_se)
            x0 = rng.binomial(m0, 1.0 - sim.refit_sp)
            diffs, widths = [], []
            for a, b in zip(x1, x0, strict=True):
                c = augmented(counts, m1, int(a), m0, int(b))
                fast = width(c, grid_size=_GRID, nodes=_NODES)
                full = width(c)
                diffs.append(abs(fast - full))
                widths.append(full)
            worst = max(worst, max(diffs))
            label = f"{m:.0e} per class (floor)" if m == big else str(m)
            lines.append(
                f"| {name} | {label} | {m1} | {m0} | {np.mean(widths):.4f} | {max(diffs):.1e} |"
            )
    lines += ["", f"Largest difference over all rows: {worst:.1e}.", ""]
    return lines


# --------------------------------------------------------------------------- 3. fixed data
def section_fixed_data() -> list[str]:
    from bayesjudge.prevalence.fit import fit_prevalence

    m = 500
    plan = plan_labels(EXAMPLE, m_grid=[m], max_labels=m, random_seed=3)
    point = plan.curve[1]
    tree = fit_prevalence(EXAMPLE, random_seed=4, progressbar=False)
    post = tree["posterior"]
    se = np.asarray(post["se"]).reshape(-1)
    sp = np.asarray(post["sp"]).reshape(-1)
    rng = np.random.default_rng(5)
    replicates = 200
    pick = rng.choice(se.size, size=replicates, replace=False)
    widths, controls = [], []
    for s_e, s_p in zip(se[pick], sp[pick], strict=True):
        x1 = int(rng.binomial(point.m1, s_e))
        x0 = int(rng.binomial(point.m0, 1.0 - s_p))
        c = augmented(EXAMPLE, point.m1, x1, point.m0, x0)
        widths.append(width(c))
        controls.append(
            float(_lr_width(x1=c.x1, m1=c.m1, x0=c.x0, m0=c.m0, n=c.n, k=c.k, prob=0.95))
        )
    corr = float(np.corrcoef(widths, controls)[0, 1])
    sd_ratio = float(np.std(np.subtract(widths, controls)) / np.std(widths))
    direct, direct_se = float(np.mean(widths)), float(np.std(widths, ddof=1) / np.sqrt(replicates))
    diff = point.width - direct
    combined = float(np.hypot(point.mcse, direct_se))
    return [
        "## 3. Direct simulation on fixed data (the bundled example, 500 more labels)",
        "",
        f"Split {point.m1} gold-PASS + {point.m0} gold-FAIL. Planner (16 refits, control "
        f"variate): {point.width:.5f} (MC error {point.mcse:.1e}). Plain average of "
        f"{replicates} full-precision exact widths, (Se, Sp) from NUTS draws of "
        f"`fit_prevalence`: {direct:.5f} (MC error {direct_se:.1e}). Difference "
        f"{diff:+.1e} = {diff / combined:+.2f} combined standard errors.",
        "",
        f"Over these replicates the exact width W and the Lang-Reiczigel width V (the control "
        f"variate) have correlation {corr:.6f}; sd(W - V) / sd(W) = {sd_ratio:.3f}.",
        "",
    ]


# --------------------------------------------------------------------------- 4. tower property
TOWER_PRIORS = PrevalencePriors(pi=Beta(14.0, 6.0), se=Beta(18.0, 2.0), sp=Beta(17.0, 3.0))


def section_tower(replicates: int = 400) -> list[str]:
    rng = np.random.default_rng(6)
    m, n, m_cal = 200, 1000, 60
    diffs, predicted, obtained, errors = [], [], [], []
    for s in range(replicates):
        while True:
            pi = rng.beta(TOWER_PRIORS.pi.alpha, TOWER_PRIORS.pi.beta)
            se = rng.beta(TOWER_PRIORS.se.alpha, TOWER_PRIORS.se.beta)
            sp = rng.beta(TOWER_PRIORS.sp.alpha, TOWER_PRIORS.sp.beta)
            if se + sp > 1.0:
                break
        rate = pi * se + (1.0 - pi) * (1.0 - sp)
        counts = JudgeCounts(
            m_cal,
            int(rng.binomial(m_cal, se)),
            m_cal,
            int(rng.binomial(m_cal, 1.0 - sp)),
            n,
            int(rng.binomial(n, rate)),
        )
        m1, m0 = split_for(counts, m)
        sim = _simulator(
            counts, priors=TOWER_PRIORS, prob=0.95, draws=8, rng=np.random.default_rng([7, s])
        )
        pred, mcse, _ = sim.expected(m1, m0, tag=0)
        x1, x0 = int(rng.binomial(m1, se)), int(rng.binomial(m0, 1.0 - sp))
        got = width(augmented(counts, m1, x1, m0, x0), priors=TOWER_PRIORS)
        diffs.append(got - pred)
        predicted.append(pred)
        obtained.append(got)
        errors.append(mcse)
    d = np.array(diffs)
    se_d = float(np.std(d, ddof=1) / np.sqrt(d.size))
    return [
        "## 4. Direct simulation over data sets (tower property)",
        "",
        f"{replicates} data sets: true (pi, Se, Sp) from the prior {TOWER_PRIORS.describe()} "
        f"(J > 0), current data n = {n}, m1 = m0 = {m_cal}, then {m} more labels split by the "
        "allocation rule, simulated from the true parameters, and the exact interval refitted "
        "(full precision) on the augmented data. The analysis uses the same prior.",
        "",
        f"Mean predicted width {np.mean(predicted):.5f}; mean width obtained "
        f"{np.mean(obtained):.5f}; mean difference {d.mean():+.1e} (standard error "
        f"{se_d:.1e}, {d.mean() / se_d:+.2f} standard errors). Median MC error of a "
        f"prediction {np.median(errors):.1e}.",
        "",
    ]


# --------------------------------------------------------------------------- 5. fixed truth
def section_fixed_truth(replicates: int = 200) -> list[str]:
    pi, se, sp, n, m_cal, m = 0.7, 0.9, 0.84, 2000, 150, 500
    rate = pi * se + (1.0 - pi) * (1.0 - sp)
    # whole expected counts: x1 = 135, x0 = 24, k = 1356
    counts = JudgeCounts(
        m_cal, round(se * m_cal), m_cal, round((1.0 - sp) * m_cal), n, round(rate * n)
    )
    plan = plan_labels(counts, m_grid=[m], max_labels=m, random_seed=8)
    point = plan.curve[1]
    rng = np.random.default_rng(9)
    posterior = posterior_draws(counts, size=replicates, random_seed=12)

    def direct(se_values: np.ndarray, sp_values: np.ndarray) -> tuple[float, float]:
        widths = [
            width(
                augmented(
                    counts,
                    point.m1,
                    int(rng.binomial(point.m1, s_e)),
                    point.m0,
                    int(rng.binomial(point.m0, 1.0 - s_p)),
                )
            )
            for s_e, s_p in zip(se_values, sp_values, strict=True)
        ]
        return float(np.mean(widths)), float(np.std(widths, ddof=1) / np.sqrt(len(widths)))

    truth, truth_se = direct(np.full(replicates, se), np.full(replicates, sp))
    drawn, drawn_se = direct(posterior["se"].to_numpy(), posterior["sp"].to_numpy())
    summary = exact_posterior(counts).summary()
    return [
        "## 5. Direct simulation with a fixed truth",
        "",
        f"Truth pi = {pi}, Se = {se}, Sp = {sp}; current data at their expected counts "
        f"{counts.as_dict()}; {m} more labels ({point.m1} gold-PASS, {point.m0} gold-FAIL), "
        f"{replicates} full-precision refits per direct simulation.",
        "",
        "| | expected width | MC error |",
        "|---|---|---|",
        f"| planner | {point.width:.5f} | {point.mcse:.1e} |",
        f"| direct, labels simulated from the true (Se, Sp) | {truth:.5f} | {truth_se:.1e} |",
        f"| direct, labels simulated from posterior draws of (Se, Sp) | {drawn:.5f} | "
        f"{drawn_se:.1e} |",
        "",
        f"The planner answers from what the data say now: posterior means Se "
        f"{summary.loc['se', 'mean']:.4f}, Sp {summary.loc['sp', 'mean']:.4f}, J "
        f"{summary.loc['j', 'mean']:.4f} (truth {se + sp - 1:.2f}), with their spread. Given "
        f"the truth, which the planner cannot know, the width differs by "
        f"{point.width - truth:+.1e} ({100 * (point.width - truth) / truth:+.2f}%); given the "
        f"posterior, by {point.width - drawn:+.1e} "
        f"({(point.width - drawn) / np.hypot(point.mcse, drawn_se):+.2f} combined standard "
        "errors).",
        "",
    ]


# --------------------------------------------------------------------------- 6. allocation
def section_allocation() -> list[str]:
    m = 500
    sim = _simulator(
        EXAMPLE, priors=PrevalencePriors(), prob=0.95, draws=16, rng=np.random.default_rng(10)
    )
    planned = split_for(EXAMPLE, m)
    rows = sorted({planned[0], 0, 100, 200, 300, 400, 500})
    lines = [
        "## 6. Allocation: expected width after 500 more labels by split (bundled example)",
        "",
        "| gold-PASS | gold-FAIL | expected width | MC error | |",
        "|---|---|---|---|---|",
    ]
    best = (np.inf, -1)
    for m1 in rows:
        value, mcse, _ = sim.expected(m1, m - m1, tag=0)
        best = min(best, (value, m1))
        mark = "allocation rule" if m1 == planned[0] else ""
        lines.append(f"| {m1} | {m - m1} | {value:.5f} | {mcse:.1e} | {mark} |")
    lines += ["", f"Smallest at {best[1]} gold-PASS.", ""]
    return lines


# --------------------------------------------------------------------------- 7. large samples
def section_large() -> list[str]:
    pi, se, sp, n, m_cal, m = 0.7, 0.95, 0.9, 100_000, 400, 800
    rate = pi * se + (1.0 - pi) * (1.0 - sp)
    counts = JudgeCounts(
        m_cal, round(se * m_cal), m_cal, round((1.0 - sp) * m_cal), n, round(rate * n)
    )
    plan = plan_labels(counts, m_grid=[m], max_labels=m, random_seed=11)
    point = plan.curve[1]
    z = z_value(0.95)
    closed = (
        2.0
        * z
        * float(
            np.sqrt(
                rogan_gladen_variance(
                    rate=counts.p_hat,
                    se=counts.q1,
                    sp=counts.q0,
                    n=n,
                    m1=counts.m1 + point.m1,
                    m0=counts.m0 + point.m0,
                )
            )
        )
    )
    return [
        "## 7. Large samples against Lee et al. (2025), eq. 9",
        "",
        f"Counts {counts.as_dict()} (expected counts of pi = {pi}, Se = {se}, Sp = {sp}); "
        f"{m} more labels split {point.m1} gold-PASS + {point.m0} gold-FAIL. Planner: "
        f"{point.width:.5f} (MC error {point.mcse:.1e}); expected Lang-Reiczigel width "
        f"{point.lang_reiczigel_width:.5f}; eq. 9 delta-method width 2 z sd at the current "
        f"estimates and the planned totals: {closed:.5f} (planner / eq. 9 = "
        f"{point.width / closed:.4f}).",
        "",
    ]


def main() -> None:
    start = time.process_time()
    body: list[str] = []
    for section in (
        section_time,
        section_grid,
        section_fixed_data,
        section_tower,
        section_fixed_truth,
        section_allocation,
        section_large,
    ):
        lines = section()
        print("\n".join(lines), flush=True)
        body += lines
    body.append(f"Total CPU time of the run: {time.process_time() - start:.0f} s.")
    path = record(
        "plan",
        "Label planner (bayesjudge.prevalence.plan): checks and timings",
        command_line(),
        "\n".join(body),
    )
    print(f"written {path}")


if __name__ == "__main__":
    main()
