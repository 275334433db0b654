"""Fit time, diagnostics and peak memory of the gate, channel and panel fits against item count.

Run: python benchmarks/bench_fit_scale.py [--sizes 1000 10000 100000 1000000]
[--families gate channel panel] [--draws N|auto] [--name fit_scale]

Each (family, size) runs in a fresh process (peak RSS from ``resource.getrusage``): data are
simulated in memory, reduced to the model's cells, and fitted with the defaults through the
command's analysis function (``analyze_gate`` with caps 1, 2, 5; ``analyze_channel`` with the
slice hierarchy of the first step; ``analyze_panel`` on four judges). The first size also pays
the model's compile, which is reported separately by fitting twice in the same process (the
second fit is a refit on new data of the same padded shape). Results:
``benchmarks/results/NAME.md``.

The gate's likelihood depends on an item only through its (label, r, k) cell, the channel's only
through its slice's counts and the panel's only through its verdict pattern, so item count
should cost data generation and reduction, not sampling time.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _record import record  # noqa: E402

CHILD = r"""
import json, resource, sys, time, warnings
import numpy as np
family, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
choice = sys.argv[4]
draws = {} if choice == "default" else {"draws": choice if choice == "auto" else int(choice)}
out = {}
if family == "gate":
    from bayesjudge.gates import Rulings, TABLE4, rejudgment_gate, table4_gate
    from bayesjudge.gates.analysis import analyze_gate
    se1, leak, _ = TABLE4["HaluEval / Gemini-Flash"]
    comp, viol = table4_gate(se1, leak)
    def data(seed):
        gate = rejudgment_gate(comp, viol, pi=0.6, n_items=n, rulings=6,
                               labelled_by_class=(150, 150), random_seed=seed)
        return Rulings.from_frame(gate.table)
    def fit(rulings, seed):
        return analyze_gate(rulings, caps=[1, 2, 5], random_seed=seed, progressbar=False, **draws)
elif family == "panel":
    from bayesjudge.panels.analysis import analyze_panel
    from bayesjudge.panels.simulate import panel_scenario, simulate_panel
    def data(seed):
        return simulate_panel(pi=0.7, **panel_scenario(4), n_unlabelled=n, n_gold=200,
                              random_seed=seed).data
    def fit(panel, seed):
        return analyze_panel(panel, random_seed=seed, progressbar=False, **draws)
else:
    from bayesjudge.channels import PairedOutcomes
    from bayesjudge.channels.analysis import analyze_channel
    from bayesjudge.channels.simulate import simulate_stack
    import pandas as pd
    def data(seed):
        rng = np.random.default_rng(seed)
        parts = []
        for name, share, p0, c, g in (("easy", 0.45, 0.85, [0.45, 0.3], [0.03, 0.02]),
                                     ("medium", 0.35, 0.65, [0.35, 0.2], [0.06, 0.06]),
                                     ("hard", 0.20, 0.40, [0.25, 0.1], [0.10, 0.15])):
            frame = simulate_stack(max(int(share * n), 1), p0=p0, c=c, gamma=g, random_seed=rng)
            frame["slice"] = name
            parts.append(frame)
        table = pd.concat(parts, ignore_index=True)
        table["item"] = np.arange(len(table)).astype(str)
        return PairedOutcomes.from_frame(table)
    def fit(outcomes, seed):
        return analyze_channel(outcomes, by_slice=True, random_seed=seed, **draws)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    t0 = time.perf_counter(); first = data(seed); out["data_s"] = time.perf_counter() - t0
    t0, c0 = time.perf_counter(), time.process_time(); a = fit(first, seed)
    out["first_fit_s"], out["first_fit_cpu_s"] = time.perf_counter() - t0, time.process_time() - c0
    second = data(seed + 1)
    t0, c0 = time.perf_counter(), time.process_time(); b = fit(second, seed + 1)
    out["refit_s"], out["refit_cpu_s"] = time.perf_counter() - t0, time.process_time() - c0
d = b.diagnostics
out.update(passed=bool(d.passed), divergences=int(d.divergences),
           ess_bulk_min=float(d.ess_bulk_min), ess_tail_min=float(d.ess_tail_min),
           r_hat_max=float(d.r_hat_max),
           attempts=[[x.settings.draws, x.settings.target_accept] for x in b.attempts],
           refit_draws_kept=int(b.posterior["posterior"].sizes["draw"]),
           refit_steps_per_draw=float(b.posterior["sample_stats"]["n_steps"].mean()),
           first_passed=bool(a.diagnostics.passed),
           first_attempts=[[x.settings.draws, x.settings.target_accept] for x in a.attempts],
           first_run_failures=[list(x.failures)[:6] for x in (a.attempts[0], b.attempts[0])],
           last_run_failures=[list(x.failures)[:6] for x in (a.attempts[-1], b.attempts[-1])],
           failures=[c.label for c in d.failures][:5],
           peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
print(json.dumps(out))
"""


def run(family: str, size: int, seed: int = 1, draws: str = "default") -> dict[str, object]:
    """Run one (family, size) in a fresh process and return its measurements.

    The first fit is on data simulated with ``seed`` (and fitted with it), the refit on data
    from ``seed + 1``; ``draws`` is the analysis function's ``draws`` (``"default"``: its own).
    """
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-c", CHILD, family, str(size), str(seed), draws],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"{family} at {size} failed:\n{result.stderr[-2000:]}")
    out: dict[str, object] = json.loads(result.stdout.strip().splitlines()[-1])
    out["process_s"] = time.perf_counter() - start
    return out


def _yes(passed: object) -> str:
    return "yes" if passed else "NO"


def _runs(attempts: object) -> str:
    """``2000 @ 0.95, 5334 @ 0.95`` from the child's [[draws, target_accept], ...]."""
    return ", ".join(f"{draws} @ {accept:g}" for draws, accept in attempts)  # type: ignore[attr-defined]


def main() -> None:
    """Measure every family and size and record the table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", nargs="+", type=int, default=[1000, 10_000, 100_000, 1_000_000])
    parser.add_argument("--families", nargs="+", default=["gate", "channel", "panel"])
    parser.add_argument(
        "--name", default="fit_scale", help="results file benchmarks/results/NAME.md"
    )
    parser.add_argument(
        "--seeds",
        nargs="+",
        type=int,
        default=[1],
        help="one process per seed S and size: first fit on data S, refit on data S + 1",
    )
    parser.add_argument(
        "--draws",
        default="default",
        help="draws per chain of every fit: a number, 'auto' (stop where the checks pass) or "
        "'default' (the analysis function's own)",
    )
    args = parser.parse_args()
    rows = [
        "| family | items | seeds | simulate + reduce (s) | first fit incl. compile (s) "
        "| refit (s) | refit CPU (s) | refit: draws kept, steps per draw "
        "| passed (first / refit) | runs: draws per chain @ target_accept "
        "(first fit; refit) | divergences | min bulk / tail ESS | max R-hat | peak MB |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for family in args.families:
        for size in args.sizes:
            for seed in args.seeds:
                m = run(family, size, seed, args.draws)
                print(family, size, seed, m, flush=True)
                rows.append(
                    f"| {family} | {size:,} | {seed}, {seed + 1} | {m['data_s']:.1f} | "
                    f"{m['first_fit_s']:.1f} | {m['refit_s']:.1f} | {m['refit_cpu_s']:.1f} | "
                    f"{m['refit_draws_kept']}, {m['refit_steps_per_draw']:.1f} | "
                    f"{_yes(m['first_passed'])} / {_yes(m['passed'])} | "
                    f"{_runs(m['first_attempts'])}; {_runs(m['attempts'])} | {m['divergences']} | "
                    f"{m['ess_bulk_min']:.0f} / {m['ess_tail_min']:.0f} | "
                    f"{m['r_hat_max']:.3f} | {m['peak_mb']:.0f} |"
                )
    body = "\n".join(rows) + (
        "\n\nThe refit is the second fit in the same process, on new data of the same size: "
        "it reuses the compiled model. CPU is the process's (every thread: the chains run "
        "in parallel, so on idle cores the wall time is about the CPU time over the number of "
        "cores in use). 'passed' is the verdict of `check_fit` after the fit's "
        "own retry (`bayesjudge.inference.fit.retry_settings`: smaller steps after divergences "
        "or an ESS shortfall beyond five times the draws, more draws at the same step size "
        "otherwise); the divergences, ESS and R-hat are the refit's last run. Gate: "
        "`analyze_gate` with caps 1, 2, 5 on a Table 4-shaped gate (6 rulings per item, "
        "pi 0.6, 150 + 150 gold items by class). Channel: `analyze_channel` with the slice "
        "hierarchy of the first step (three slices) and exact conjugate draws elsewhere. "
        "Panel: `analyze_panel` (random-effects dependence) on four judges "
        "(`panel_scenario(4)`, a near-copy pair among them), pi 0.7, 200 random gold items."
    )
    command = "python benchmarks/bench_fit_scale.py " + " ".join(sys.argv[1:])
    title = "Gate, channel and panel fits against item count"
    print(record(args.name, title, command.strip(), body))


if __name__ == "__main__":
    main()
