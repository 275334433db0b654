"""The DataTree built from nutpie's raw trace equals nutpie's own conversion of the same run.

Each family's fit is run once with a spy on the sampler call; the same call (same compiled
model, data, seed and settings) is then repeated through ``nutpie.sample``'s own conversion
(``as_tree=False``) and the two ``posterior`` and ``sample_stats`` groups are compared with
:func:`xarray.testing.assert_identical` (values, dtypes, dims, coordinates, attrs) and for the
order of their variables (``check_fit`` reports in that order). Only the ``created_at`` time
stamps differ, as they do between any two conversions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest
import xarray as xr

import bayesjudge.inference.sampling as sampling
from bayesjudge.channels.data import PairedOutcomes
from bayesjudge.channels.fit import fit_slices
from bayesjudge.channels.simulate import simulate_slices
from bayesjudge.gates.data import Rulings
from bayesjudge.gates.fit import fit_gate
from bayesjudge.gates.simulate import TABLE4, rejudgment_gate, table4_gate
from bayesjudge.inference._nutpie_tree import skipped_stats, tree_from_raw
from bayesjudge.prevalence.data import JudgeData
from bayesjudge.prevalence.fit import fit_prevalence
from bayesjudge.prevalence.simulate import judge_table

pytest.importorskip("nutpie")

SMALL = {"draws": 60, "tune": 60, "progressbar": False, "escalate": False}


def _prevalence() -> None:
    fit_prevalence(JudgeData.from_counts(60, 50, 60, 12, 400, 250), random_seed=1, **SMALL)


def _stratified_prevalence() -> None:
    frames = []
    for i, name in enumerate(("a", "b")):
        frame = judge_table(pi=0.3 + 0.3 * i, se=0.9, sp=0.85, n=200, m1=40, m0=40, random_seed=i)
        frame["stratum"] = name
        frames.append(frame)
    data = JudgeData.from_frame(pd.concat(frames, ignore_index=True))
    fit_prevalence(data, stratified=True, random_seed=2, **SMALL)


def _gate() -> None:
    compliant, violation = table4_gate(*TABLE4["HaluEval / Gemini-Flash"][:2])
    gate = rejudgment_gate(
        compliant, violation, pi=0.5, n_items=200, rulings=4, labelled_fraction=0.2, random_seed=3
    )
    fit_gate(Rulings.from_frame(gate.table), caps=[1, 3], random_seed=3, **SMALL)


def _channel() -> None:
    data = PairedOutcomes.from_frame(simulate_slices([60, 60, 60, 40, 20], random_seed=4))
    fit_slices(data, draws=60, tune=60, random_seed=4, progressbar=False)


# building and compiling a model takes seconds: the prevalence and gate models are compiled by
# their families' default tests too; the stratified and channel-slice models only in slow ones
@pytest.mark.filterwarnings("ignore::bayesjudge.errors.FitWarning")
@pytest.mark.parametrize(
    "fit",
    [
        _prevalence,
        _gate,
        pytest.param(_stratified_prevalence, marks=pytest.mark.slow),
        pytest.param(_channel, marks=pytest.mark.slow),
    ],
    ids=["prevalence", "gate", "stratified prevalence", "channel slices"],
)
def test_tree_equals_nutpie_conversion(fit: Callable[[], None], monkeypatch):
    calls: list[tuple[tuple[Any, ...], dict[str, Any], xr.DataTree]] = []
    original = sampling._nutpie_sample

    def spy(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        if kwargs.get("as_tree"):
            calls.append((args, kwargs, result))
        return result

    monkeypatch.setattr(sampling, "_nutpie_sample", spy)
    fit()
    assert calls, "the fit did not sample through the raw-trace path"
    args, kwargs, ours = calls[0]
    theirs = original(*args, **{**kwargs, "as_tree": False})
    assert set(ours.children) == {"posterior", "sample_stats"}
    for group in ("posterior", "sample_stats"):
        mine = ours[group].to_dataset()
        reference = theirs[group].to_dataset()
        assert list(mine.data_vars) == list(reference.data_vars)
        assert mine.attrs.pop("created_at")
        assert reference.attrs.pop("created_at")
        xr.testing.assert_identical(mine, reference)
        for name in mine.variables:
            assert mine[name].dtype == reference[name].dtype, name


def test_skipped_stats_follow_the_settings():
    everything = {
        "gradient",
        "unconstrained_draw",
        "mass_matrix_inv",
        "mass_matrix_eigvals",
        "mass_matrix_stds",
        "divergence_start",
        "divergence_end",
        "divergence_momentum",
        "divergence_start_gradient",
        "transformed_position",
        "transformed_gradient",
        "transformation_mu",
    }
    assert skipped_stats({"settings": {}}) == everything
    kept = skipped_stats(
        {
            "settings": {
                "store_gradient": True,
                "adapt_options": {"mass_matrix_options": {"store_mass_matrix": True}},
            }
        }
    )
    assert kept == everything - {
        "gradient",
        "mass_matrix_inv",
        "mass_matrix_eigvals",
        "mass_matrix_stds",
    }


def test_tree_from_raw_needs_arrow_storage():
    class ZarrTrace:
        def is_arrow(self) -> bool:
            return False

    with pytest.raises(ValueError, match="reads nutpie's arrow storage"):
        tree_from_raw(ZarrTrace(), coords={}, settings={}, nutpie_version="0")
