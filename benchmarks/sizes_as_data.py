"""Sizes as data: does a padded model draw what the unpadded one drew? (issue 25, item 9)

The repeated-samples fit pads its item, cluster and pattern axes to a few lengths and computes
pass@k from the draws, so that one compiled model serves many data sizes
(:mod:`bayesjudge.models.repeated`, "Sizes as data"). Run this script once with the code before
the change and once with the code after (``BJ_ROOT`` and ``PYTHONPATH`` pointing at each
checkout), each writing its posteriors to a folder, then compare the two folders::

    python benchmarks/sizes_as_data.py fit OLD_DIR      # in the old checkout
    python benchmarks/sizes_as_data.py fit NEW_DIR      # in the new checkout
    python benchmarks/sizes_as_data.py compare OLD_DIR NEW_DIR

(``fit DIR repeated`` or ``fit DIR drift`` fits one family's cases only.)

Cases: ``exact_items`` (64 items in 16 tasks: the padded lengths equal the data's, so the
free variables are the same and the draws must agree to floating-point noise),
``no_spread_calls`` (40 items, 3 judge calls per answer, no spread between items: padding
adds data only, no free variable, so again floating-point noise), and ``padded_items`` (40
items padded to 64: 24 prior-only scores join the sampler, so the draws differ and must agree
to Monte Carlo error). The drift cases (:data:`DRIFT_CASES`) do the same for ``fit_drift``.
The comparison prints, per case and variable, the largest absolute
difference of the draws and, for the means, the difference in units of its Monte Carlo error.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import xarray as xr

CASES = {
    "exact_items": {
        "sim": {"n_items": 64, "epochs": 3, "n_clusters": 16, "tau": 0.8, "random_seed": 3},
        "fit": {"draws": 500, "tune": 500, "chains": 2, "pass_k": (1, 3)},
    },
    "no_spread_calls": {
        "sim": {"n_items": 40, "epochs": 2, "sigma": 0.0, "calls": 3, "random_seed": 4},
        "fit": {"draws": 500, "tune": 500, "chains": 2, "spread": False},
    },
    "padded_items": {
        "sim": {"n_items": 40, "epochs": 4, "sigma": 1.5, "random_seed": 8},
        "fit": {"draws": 2000, "tune": 1000, "chains": 4, "pass_k": (1, 3)},
    },
}
#: The state-space model across batches (``fit_drift``), padded to 8 batches: 8 batches with
#: learned and with fixed steps (no padding: floating-point noise), 4 with learned steps (4
#: padded batches: Monte Carlo error).
DRIFT_CASES = {
    "drift_exact": {"batches": 8, "fit": {}},
    "drift_fixed_exact": {"batches": 8, "fit": {"fixed_steps": 100.0}},
    "drift_padded": {"batches": 4, "fit": {}},
}
DRIFT_COMPARED = ("pi", "se", "sp", "pi_change", "sigma_pi")
COMPARED = ("mean_rate", "population_rate", "pass_at_k", "pass_all_k", "se", "sp", "item_rate")


def fit(folder: Path, which: str = "all") -> None:
    from bayesjudge.repeated import RepeatedData, fit_repeated, simulate_repeated

    folder.mkdir(parents=True, exist_ok=True)
    for name, case in CASES.items() if which in ("all", "repeated") else ():
        sim = simulate_repeated(gold_answers=40, **case["sim"])  # type: ignore[arg-type]
        columns = {"call": "call"} if case["sim"].get("calls", 1) > 1 else None
        data = RepeatedData.from_frame(sim.frame.drop(columns="truth"), columns=columns)
        tree = fit_repeated(data, random_seed=1, progressbar=False, escalate=False, **case["fit"])
        tree["posterior"].to_dataset().to_netcdf(folder / f"{name}.nc")
        print(name, "diagnostics passed:", tree.attrs["diagnostics_passed"])
    from bayesjudge.batches.simulate import batch_counts, batch_counts_frame
    from bayesjudge.batches.statespace import fit_drift

    for name, case in DRIFT_CASES.items() if which in ("all", "drift") else ():
        t = case["batches"]
        sp = np.r_[np.full(t // 2, 0.92), np.full(t - t // 2, 0.75)]
        counts = batch_counts(pi=0.6, se=0.9, sp=sp, n=800, m=200, batches=t, random_seed=3)
        frame = batch_counts_frame(counts[0])
        drift = fit_drift(frame, random_seed=1, progressbar=False, escalate=False, **case["fit"])
        drift.tree["posterior"].to_dataset().to_netcdf(folder / f"{name}.nc")
        print(name, "diagnostics passed:", drift.tree.attrs["diagnostics_passed"])


def compare(old: Path, new: Path) -> None:
    from arviz_stats.base import array_stats

    pairs = [(name, var) for name in CASES for var in COMPARED]
    pairs += [(name, var) for name in DRIFT_CASES for var in DRIFT_COMPARED]
    for name, var in pairs:
        if not ((old / f"{name}.nc").is_file() and (new / f"{name}.nc").is_file()):
            continue
        a = xr.open_dataset(old / f"{name}.nc")
        b = xr.open_dataset(new / f"{name}.nc")
        x, y = a[var].to_numpy(), b[var].to_numpy()
        diff = float(np.max(np.abs(x - y)))
        x = x.reshape(x.shape[0], x.shape[1], -1)
        y = y.reshape(y.shape[0], y.shape[1], -1)
        worst = 0.0  # the largest gap of the means in units of their joint Monte Carlo error
        for j in range(x.shape[-1]):
            se_x = float(array_stats.mcse(x[..., j], method="mean"))
            se_y = float(array_stats.mcse(y[..., j], method="mean"))
            gap = abs(float(x[..., j].mean() - y[..., j].mean()))
            worst = max(worst, gap / max(np.hypot(se_x, se_y), 1e-300))
        print(f"{name} {var}: max|old - new| {diff:.3g}, mean gap / MCSE {worst:.2f}")


if __name__ == "__main__":
    if sys.argv[1] == "fit":
        fit(Path(sys.argv[2]), *sys.argv[3:4])
    else:
        compare(Path(sys.argv[2]), Path(sys.argv[3]))
