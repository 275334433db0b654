"""Sample the panel model's prior with NUTS and compare it with the calibration study's prior draws.

Run from the repository root:

    python benchmarks/panel_prior_check.py

The calibration study (``panel_calibration.py``) draws its parameters with its own code
(:func:`panel_calibration.prior_draw`: pi ~ Beta(1/2, 1/2), Se and Sp ~ U(0, 1), loadings
0.99 x U(0, 1), the mirror half rejected). Here the plain three-judge model
(:func:`bayesjudge.models.panel.panel_model`, ``calibration="random"``) gets data whose pattern
counts are all 0, so its posterior is its prior in the sampled coordinates (judged rates,
accuracy coordinates, the prior potential with its Jacobian, the mirror restriction), and nutpie
samples it. If the model's prior, its coordinates or the sampler's treatment of them differed
from the simulation's prior, the quantiles printed side by side would differ by more than the
Monte Carlo error (about 0.01 at these sizes).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from panel_calibration import prior_draw

QUANTILES = (0.025, 0.1, 0.25, 0.5, 0.75, 0.9, 0.975)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=5000, help="NUTS draws per chain (4 chains)")
    parser.add_argument("--reference", type=int, default=20_000, help="direct prior draws")
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)

    import nutpie
    import pymc as pm

    from bayesjudge.models.panel import panel_model
    from bayesjudge.panels.data import PanelData
    from bayesjudge.panels.quantities import panel_quantities
    from bayesjudge.panels.simulate import PanelTruth

    rng = np.random.default_rng(args.seed)
    judges = ("j0", "j1", "j2")
    labels = np.concatenate([np.ones(5), np.zeros(5), np.full(30, np.nan)])
    data = PanelData.from_arrays(rng.integers(0, 2, (40, 3)), labels=labels, judges=judges)
    patterns = data.patterns()
    model = panel_model(patterns, calibration="random")
    with model:  # no data: the posterior is the prior
        pm.set_data({"pattern_count": np.zeros(len(patterns))})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trace = nutpie.sample(
            nutpie.compile_pymc_model(model),
            draws=args.draws,
            tune=2000,
            chains=4,
            cores=2,
            seed=args.seed,
            progress_bar=False,
        )
    post = trace.posterior
    sampled = {name: post[name].to_numpy().ravel() for name in ("pi", "se", "sp", "loading")}
    sampled["effective_judges"] = (
        panel_quantities(post, patterns)["effective_judges"].to_numpy().ravel()
    )

    draws = [prior_draw(rng, len(judges)) for _ in range(args.reference)]
    direct = {
        "pi": np.array([d[0] for d in draws]),
        "se": np.concatenate([d[1] for d in draws]),
        "sp": np.concatenate([d[2] for d in draws]),
        "loading": np.concatenate([d[3].ravel() for d in draws]),
        "effective_judges": np.array(
            [float(PanelTruth(judges, *d).effective_judges) for d in draws]
        ),
    }
    divergences = int(trace.sample_stats["diverging"].sum())
    print(f"NUTS: 4 chains x {args.draws} draws, {divergences} divergent transitions")
    print(f"quantiles {list(QUANTILES)}")
    for name, values in direct.items():
        print(f"{name:17s} model + NUTS {np.round(np.quantile(sampled[name], QUANTILES), 3)}")
        print(f"{'':17s} prior_draw   {np.round(np.quantile(values, QUANTILES), 3)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
