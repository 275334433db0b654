"""Synthetic posteriors for the analysis, command-line and report tests (no sampling)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from bayesjudge.inference.diagnostics import check_fit
from bayesjudge.systems.data import SystemsData


def answers_frame() -> pd.DataFrame:
    """Three systems on 40 paired items; the judge passes c's answers most often."""
    rows = []
    rng = np.random.default_rng(5)
    for item in range(40):
        for system, rate in (("a", 0.5), ("b", 0.6), ("c", 0.8)):
            label = (1 if item % 2 else 0) if item < 10 else None
            rows.append(
                {
                    "system": system,
                    "item": f"i{item}",
                    "label": label,
                    "verdict": int(rng.random() < rate),
                }
            )
    return pd.DataFrame(rows)


def synthetic_tree(
    data: SystemsData,
    *,
    centres: tuple[float, ...],
    judge: str = "shared",
    diverging: int = 0,
    seed: int = 0,
) -> xr.DataTree:
    """A posterior with pi ~ N(centres, 0.03^2) per system and a judge, checked by check_fit."""
    rng = np.random.default_rng(seed)
    chains, draws, size = 4, 500, len(data.systems)
    pi = np.clip(np.array(centres) + 0.03 * rng.standard_normal((chains, draws, size)), 0, 1)
    coords = {"system": list(data.systems)}
    variables: dict[str, tuple[tuple[str, ...], np.ndarray]] = {
        "pi": (("chain", "draw", "system"), pi)
    }
    if judge == "shared":
        variables["se"] = (("chain", "draw"), 0.9 + 0.01 * rng.standard_normal((chains, draws)))
        variables["sp"] = (("chain", "draw"), 0.8 + 0.01 * rng.standard_normal((chains, draws)))
    else:
        se = 0.9 + 0.01 * rng.standard_normal((chains, draws, size))
        sp = np.array([0.85] * (size - 1) + [0.6]) + 0.01 * rng.standard_normal(
            (chains, draws, size)
        )
        variables["se"] = (("chain", "draw", "system"), se)
        variables["sp"] = (("chain", "draw", "system"), sp)
        variables["se_shared"] = (("chain", "draw"), se.mean(axis=-1))
        variables["sp_shared"] = (
            ("chain", "draw"),
            0.85 + 0.001 * rng.standard_normal((chains, draws)),
        )
        variables["sigma_se"] = (("chain", "draw"), np.abs(rng.standard_normal((chains, draws))))
        variables["sigma_sp"] = (("chain", "draw"), np.abs(rng.standard_normal((chains, draws))))
        variables["judged_rate"] = (
            ("chain", "draw", "system"),
            pi * se + (1 - pi) * (1 - sp),
        )
    posterior = xr.Dataset(variables, coords=coords)
    stats = np.zeros((chains, draws), dtype=bool)
    stats.flat[:diverging] = True
    tree = xr.DataTree.from_dict(
        {
            "posterior": posterior,
            "sample_stats": xr.Dataset({"diverging": (("chain", "draw"), stats)}),
        }
    )
    diagnostics = check_fit(tree)
    tree.attrs.update(
        {
            "model": "systems_irt",
            "calibration": "by_class",
            "diagnostics": json.dumps(diagnostics.to_dict()),
        }
    )
    return tree


@pytest.fixture
def answers() -> SystemsData:
    return SystemsData.from_frame(answers_frame())


@pytest.fixture
def make_tree():
    """Return :func:`synthetic_tree` (importlib mode cannot import this module directly)."""
    return synthetic_tree
