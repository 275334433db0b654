"""Fit time of the many-system item-response model: quadrature on cells vs item-level latents.

Run from the repository root:

    python benchmarks/systems_irt_timing.py            # 10^3 and 10^4 items, both forms
    python benchmarks/systems_irt_timing.py --quick    # 10^3 items only

Two forms of the same posterior (4 systems, shared judge, J > 0, by-class calibration):

* ``cells``: :func:`bayesjudge.models.systems.irt_model`, the item difficulty integrated out by
  32-node Gauss-Hermite quadrature, so the likelihood is a sum over distinct rows of states
  weighted by their counts;
* ``items``: the difficulty of every item sampled as a latent ``z[item] ~ N(0, 1)``, one
  likelihood term per (item, system), built here only for comparison.

Each form is compiled once (nutpie, numba backend) and sampled with 2 chains x 1000 draws
after 1000 tuning steps. Compilation and sampling are timed separately, and the posterior of
``pi`` is summarised so the two forms can be seen to agree.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from bayesjudge.models.systems import irt_model
from bayesjudge.priors import SystemsPriors
from bayesjudge.systems.data import SystemsData
from bayesjudge.systems.irt import normal_quadrature
from bayesjudge.systems.simulate import simulate_systems

PI = [0.55, 0.7, 0.62, 0.8]


def item_level_model(data: SystemsData) -> pm.Model:
    """The same model with one latent difficulty per item (no quadrature, no cells)."""
    priors = SystemsPriors()
    states = data.states().astype(np.int64)
    item, system = np.nonzero(states)
    code = states[item, system]
    labelled = code >= 3
    label = np.where(labelled, (code - 3) // 2, 0)
    verdict = np.where(labelled, (code - 3) % 2, code - 1)
    coords = {"system": data.systems, "item": np.arange(states.shape[0])}
    with pm.Model(coords=coords) as model:
        ability = pm.Normal("ability", priors.ability.mu, priors.ability.sigma, dims="system")
        sd = pm.HalfNormal("difficulty_sd", sigma=priors.difficulty_sd.sigma)
        z = pm.Normal("z", 0.0, 1.0, dims="item")
        logit_se = pm.Flat("logit_se")
        logit_r = pm.Flat("logit_fpr_ratio")
        log_se, log_fn = -pt.softplus(-logit_se), -pt.softplus(logit_se)
        log_fp = log_se - pt.softplus(-logit_r)
        log_tn = pt.log1mexp(log_fp)
        pm.Potential(
            "judge_prior",
            0.5 * log_se + 0.5 * log_fn - 0.5 * log_tn + 0.5 * log_fp - pt.softplus(logit_r),
        )
        eta = ability[system] - sd * z[item]
        log_p, log_q = -pt.softplus(-eta), -pt.softplus(eta)
        v = pt.as_tensor_variable(verdict)
        emit1 = pt.switch(pt.eq(v, 1), log_se, log_fn)
        emit0 = pt.switch(pt.eq(v, 1), log_fp, log_tn)
        unlabelled = pt.logaddexp(log_p + emit1, log_q + emit0)
        gold = pt.switch(pt.eq(pt.as_tensor_variable(label), 1), emit1, emit0)
        # by-class calibration: a gold answer contributes P(verdict | label) only
        pm.Potential("loglik", pt.sum(pt.switch(pt.as_tensor_variable(labelled), gold, unlabelled)))
        nodes, log_w = normal_quadrature(32)
        weights = pt.as_tensor_variable(np.exp(log_w))[:, None]
        eta_nodes = ability[None, :] - sd * pt.as_tensor_variable(nodes)[:, None]
        pm.Deterministic("pi", pt.sum(weights * pt.sigmoid(eta_nodes), axis=0), dims="system")
    return model


def run(form: str, n_items: int, seed: int) -> dict[str, object]:
    import nutpie

    sim = simulate_systems(
        PI,
        n_unlabelled=n_items - 200,
        n_labelled=200,
        se=0.88,
        sp=0.8,
        difficulty_sd=1.5,
        labelled_systems=["A", "B"],
        random_seed=seed,
    )
    data = SystemsData.from_frame(sim.frame)
    cells = data.patterns()
    model = irt_model(cells) if form == "cells" else item_level_model(data)
    start = time.perf_counter()
    compiled = nutpie.compile_pymc_model(model)
    compile_s = time.perf_counter() - start
    start = time.perf_counter()
    trace = nutpie.sample(
        compiled, draws=1000, tune=1000, chains=2, cores=2, seed=seed, progress_bar=False
    )
    sample_s = time.perf_counter() - start
    pi = trace.posterior["pi"].values.reshape(-1, len(PI))
    return {
        "form": form,
        "items": n_items,
        "cells": int(cells.count.size),
        "compile s": round(compile_s, 1),
        "sample s": round(sample_s, 1),
        "divergences": int(trace.sample_stats["diverging"].sum()),
        "mean steps": round(float(trace.sample_stats["n_steps"].mean()), 1),
        "pi mean": np.round(pi.mean(axis=0), 3).tolist(),
        "pi sd": np.round(pi.std(axis=0), 3).tolist(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^3 items only")
    args = parser.parse_args(argv)
    sizes = (1000,) if args.quick else (1000, 10_000)
    print(f"truth pi = {PI}", flush=True)
    for n_items in sizes:
        for form in ("cells", "items"):
            print(run(form, n_items, seed=7), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
