"""Prior predictive of the judge's change per batch under the state-space model's step prior.

The state-space model across batches (:mod:`bayesjudge.models.batches`) moves logit Se and
logit Sp by :math:`\\sigma z` per batch, :math:`z \\sim N(0, 1)`, with the step size
:math:`\\sigma \\sim \\mathrm{HalfNormal}(s)`. This script draws :math:`\\sigma` and the steps
from that prior (400,000 draws, seeded) and reports, for the default scale :math:`s = 0.5` and
for :math:`s = 0.25`, starting from a rate of 0.88 (the studies' Se) and 0.90 (their Sp): the
median absolute change of the rate in one batch, the prior probability that one batch's
change exceeds the drift tolerance 0.05, the 95th percentile of the one-batch change, and the
probability that the rate moves by more than 0.05 and by more than 0.15 over nine batches (the
studies' ten batches).

Usage::

    python benchmarks/batches_step_prior.py    # writes results/batches_step_prior.md
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from scipy import special

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _record import record

DRAWS = 400_000


def main() -> None:
    rng = np.random.default_rng(20_261_129)
    lines = [
        "| step prior | start | median one-batch change | P(one-batch change > 0.05) | "
        "95th pct one-batch change | P(change over 9 batches > 0.05) | "
        "P(change over 9 batches > 0.15) |",
        "|---|---|---|---|---|---|---|",
    ]
    for scale in (0.5, 0.25):
        sigma = np.abs(rng.normal(0.0, scale, DRAWS))
        one = sigma * rng.standard_normal(DRAWS)
        nine = sigma * rng.standard_normal((DRAWS, 9)).sum(axis=1)
        for start in (0.88, 0.90):
            logit = special.logit(start)
            d1 = np.abs(special.expit(logit + one) - start)
            d9 = np.abs(special.expit(logit + nine) - start)
            lines.append(
                f"| HalfNormal({scale:g}) | {start:.2f} | {np.median(d1):.3f} | "
                f"{(d1 > 0.05).mean():.3f} | {np.quantile(d1, 0.95):.3f} | "
                f"{(d9 > 0.05).mean():.3f} | {(d9 > 0.15).mean():.3f} |"
            )
    body = (
        f"{DRAWS:,} prior draws of the step size and the steps per row (seeded).\n\n"
        + "\n".join(lines)
    )
    path = record(
        "batches_step_prior",
        "Prior predictive of the judge's change per batch (state-space step prior)",
        "python benchmarks/batches_step_prior.py",
        body,
    )
    print(path.read_text())


if __name__ == "__main__":
    main()
