"""Half-chain means of a panel fit: does R-hat or the ESS estimate tell the truth?

Fits the panel of ``bench_fit_scale.py`` (four judges, a near-copy pair among them, pi 0.7,
200 random gold items) at N unlabelled items with ``analyze_panel``'s defaults, and prints the
runs, the failed checks and, per quantity, the means of the split halves of each chain (the
eight means R-hat compares) with the posterior sd. The spread of those eight means implies an
effective sample size, ``sd^2 / var(half means) * 8``, to set beside the ESS estimate.

Run: ``python benchmarks/panel_chain_means.py N SEED`` (about 5 minutes at N = 10^6 on two
cores; ``N = 1000000 SEED = 2`` is the refit that failed in ``results/fit_scale_panel.md``).
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np


def main(argv: list[str]) -> int:
    from bayesjudge.panels.analysis import analyze_panel
    from bayesjudge.panels.simulate import panel_scenario, simulate_panel

    n, seed = int(argv[0]), int(argv[1])
    data = simulate_panel(
        pi=0.7, **panel_scenario(4), n_unlabelled=n, n_gold=200, random_seed=seed
    ).data
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        analysis = analyze_panel(data, random_seed=seed, progressbar=False)
    runs = [a.settings.draws for a in analysis.attempts]
    print(
        f"{time.perf_counter() - start:.0f} s; draws per chain by run {runs}; "
        f"passed {analysis.diagnostics.passed}"
    )
    print("failed:", ", ".join(c.describe() for c in analysis.diagnostics.failures) or "none")
    posterior = analysis.posterior["posterior"]
    for name in ("pi", "se", "sp"):
        values = posterior[name]
        extra = [d for d in values.dims if d not in ("chain", "draw")]
        labels = values[extra[0]].to_numpy() if extra else [None]
        for label in labels:
            x = (values.sel({extra[0]: label}) if extra else values).to_numpy()
            halves = x[:, : x.shape[1] // 2 * 2].reshape(x.shape[0], 2, -1).mean(axis=2).ravel()
            implied = x.var() / halves.var(ddof=1) * halves.size
            shown = name if label is None else f"{name}[{label}]"
            print(
                f"{shown:10s} half-chain means {np.round(halves, 4).tolist()} "
                f"sd {x.std():.4f} implied ESS {implied:.0f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
