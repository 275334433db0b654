"""Why ``rank`` is slow on the bundled three-system example: the sampler's geometry, measured.

``rank`` on the bundled example (three systems on paired items, each with 40 to 90 gold labels
of each class) fits the many-system Rasch model with the default judge: system-specific and
partially pooled, :math:`\\mathrm{logit}\\,\\mathrm{Se}_s \\sim N(\\mu_{Se}, \\sigma_{Se}^2)` (and
the same for Sp), non-centred (:mod:`bayesjudge.models.systems`). Its cost is (leapfrog steps
per draw) x (draws) x (cost of one gradient, ``systems_gradient_cost.py``). This script fits
the example once per variant of the sampler's settings, each in the same process and with the
model compiled once, and records for each:

- CPU seconds of the fit (``time.process_time``: every thread of the process) and wall seconds;
- leapfrog steps per kept draw (``sample_stats.n_steps``), divergent transitions, the adapted
  step size;
- the posterior of the spreads :math:`\\sigma_{Se}, \\sigma_{Sp}` (2.5 %, 50 %, 97.5 %): a
  spread whose posterior runs over orders of magnitude is a funnel for either parametrisation;
- the posterior mean of every system's success rate with its Monte Carlo standard error
  (ArviZ), so that variants can be compared within Monte Carlo error;
- whether the fit passed its diagnostics (and the attempts, a retry included).

Variants (``--variants``): ``diag`` (the default: nutpie's diagonal mass matrix) and
``low_rank`` (nutpie's diagonal plus low-rank update, :class:`~bayesjudge.inference.fit.ModelRun`
``adaptation``).

Usage::

    python benchmarks/rank_geometry.py [--variants diag low_rank] [--seed 0]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
import warnings

import arviz as az
import numpy as np
from _record import command_line, record

import bayesjudge.systems.fit as systems_fit
from bayesjudge.examples import load_example
from bayesjudge.inference.fit import diagnostics_of
from bayesjudge.systems.data import SystemsData

VARIANTS = ("diag", "low_rank")


def fit(data: SystemsData, variant: str, seed: int) -> dict[str, object]:
    """Fit the example with one variant; return the measurements."""
    original = systems_fit._run

    def with_variant(*args, **kwargs):  # type: ignore[no-untyped-def]
        run, counts = original(*args, **kwargs)
        return dataclasses.replace(run, adaptation=variant), counts

    systems_fit._run = with_variant
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        tree = systems_fit.fit_systems(data, random_seed=seed, progressbar=False)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        systems_fit._run = original
    stats = tree["sample_stats"]
    posterior = tree["posterior"]
    spread = {
        name: np.quantile(posterior[name].values, [0.025, 0.5, 0.975])
        for name in ("sigma_se", "sigma_sp")
        if name in posterior
    }
    pi = posterior["pi"]
    mcse = az.mcse(pi.to_dataset(name="pi"))["pi"].values
    return {
        "variant": variant,
        "wall": wall,
        "cpu": cpu,
        "steps": float(stats["n_steps"].mean()),
        "divergences": int(stats["diverging"].sum()),
        "step_size": float(stats["step_size"].mean()),
        "spread": spread,
        "pi_mean": pi.mean(("chain", "draw")).values,
        "pi_mcse": mcse,
        "passed": diagnostics_of(tree).passed,
        "attempts": json.loads(tree.attrs.get("attempts", "[]")),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=VARIANTS)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    data = SystemsData.read(load_example("systems"))
    counts = data.system_counts()
    # compile once before timing (the first variant would otherwise pay for it)
    with warnings.catch_warnings():  # ten draws fail the checks, as expected
        warnings.simplefilter("ignore")
        systems_fit.fit_systems(
            data, draws=10, tune=10, chains=1, escalate=False, progressbar=False
        )
    rows = [fit(data, variant, args.seed) for variant in args.variants]

    systems = ", ".join(
        f"{s} ({int(m1)} gold PASS, {int(m0)} gold FAIL)"
        for s, m1, m0 in zip(data.systems, counts.m1, counts.m0, strict=True)
    )
    lines = [
        f"Bundled systems example: {systems}; default judge (system-specific, partially "
        f"pooled, non-centred), default draws (4 chains x 2,000, 1,000 tuning steps), seed "
        f"{args.seed}. Each variant fitted in one process after one untimed compile.",
        "",
        "| variant | passed | attempts | CPU s | wall s | steps per draw | divergences "
        "| step size | sigma_se 2.5/50/97.5 % | sigma_sp 2.5/50/97.5 % |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        spread = r["spread"]
        assert isinstance(spread, dict)
        q = {k: "/".join(f"{v:.3f}" for v in spread[k]) for k in spread}
        lines.append(
            f"| {r['variant']} | {r['passed']} | {len(r['attempts'])} | {r['cpu']:.1f} "  # type: ignore[arg-type]
            f"| {r['wall']:.1f} | {r['steps']:.1f} | {r['divergences']} "
            f"| {r['step_size']:.3f} | {q.get('sigma_se', '')} | {q.get('sigma_sp', '')} |"
        )
    lines += ["", "Posterior mean of each success rate (Monte Carlo standard error):", ""]
    lines.append("| variant | " + " | ".join(data.systems) + " |")
    lines.append("|---|" + "---|" * len(data.systems))
    for r in rows:
        cells = [
            f"{m:.4f} ({e:.4f})"
            for m, e in zip(r["pi_mean"], r["pi_mcse"], strict=True)  # type: ignore[call-overload]
        ]
        lines.append(f"| {r['variant']} | " + " | ".join(cells) + " |")
    record(
        "rank_geometry",
        "The sampler's geometry on the bundled systems example",
        command_line(),
        "\n".join(lines),
    )


if __name__ == "__main__":
    main()
