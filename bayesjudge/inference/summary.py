"""Summaries of posterior draws: mean, sd, median and intervals of one scalar quantity."""

from __future__ import annotations

import numpy as np
import xarray as xr

from bayesjudge.results import Interval, PosteriorSummary
from bayesjudge.validation import check_prob

__all__ = ["group", "posterior_summary", "summary_of_draws"]

_SAMPLE_DIMS = ("chain", "draw")


def group(tree: xr.DataTree, name: str) -> xr.Dataset:
    """Return group ``name`` of a fit (e.g. ``"posterior"``) as a Dataset, with a clear error."""
    if name not in tree.children:
        raise KeyError(f"the fit has no {name!r} group; it has {sorted(tree.children)}")
    return tree.children[name].to_dataset()


def _draws(posterior: xr.DataTree | xr.Dataset, name: str, coords: dict | None) -> xr.DataArray:
    dataset = group(posterior, "posterior") if isinstance(posterior, xr.DataTree) else posterior
    if name not in dataset:
        raise KeyError(
            f"the posterior has no variable {name!r}; it has {sorted(map(str, dataset.data_vars))}"
        )
    draws = dataset[name]
    if coords:
        draws = draws.sel(coords)
    extra = [d for d in draws.dims if d not in _SAMPLE_DIMS]
    if extra:
        raise ValueError(
            f"{name!r} has dimensions {extra} besides chain and draw; select one value with coords"
        )
    return draws


def posterior_summary(
    posterior: xr.DataTree | xr.Dataset,
    name: str = "pi",
    *,
    prob: float = 0.95,
    coords: dict | None = None,
) -> PosteriorSummary:
    """Summarise the posterior draws of a scalar variable.

    Parameters
    ----------
    posterior : DataTree or Dataset
        A fit (with a ``posterior`` group) or the posterior Dataset itself.
    name : str
        The variable, e.g. ``"pi"``, ``"se"``, ``"sp"``, ``"j"``.
    prob : float
        Mass of the equal-tailed and highest-density intervals.
    coords : dict, optional
        Selection for a variable with more dimensions than chain and draw, e.g.
        ``{"stratum": "short"}``.

    Returns
    -------
    PosteriorSummary
        With the equal-tailed interval (ArviZ ``eti``) and the highest-density interval
        (ArviZ ``hdi``).

    Examples
    --------
    >>> draws = np.random.default_rng(0).beta(30, 70, size=(4, 1000))
    >>> post = xr.Dataset({"pi": (("chain", "draw"), draws)})
    >>> round(posterior_summary(post, "pi").mean, 2)
    0.3
    """
    prob = check_prob(prob)
    import arviz_stats as azs

    draws = _draws(posterior, name, coords)
    values = draws.values.reshape(-1)
    eti = azs.eti(draws, prob=prob).values
    hdi = azs.hdi(draws, prob=prob).values
    label = name if not coords else f"{name}[{','.join(str(v) for v in coords.values())}]"
    return PosteriorSummary(
        name=label,
        mean=float(values.mean()),
        sd=float(values.std(ddof=1)),
        median=float(np.median(values)),
        eti=Interval(float(eti[0]), float(eti[1]), prob, "eti"),
        hdi=Interval(float(hdi[0]), float(hdi[1]), prob, "hdi"),
    )


def summary_of_draws(name: str, draws: np.ndarray, *, prob: float = 0.95) -> PosteriorSummary:
    """Summarise independent draws of a scalar (e.g. exact conjugate draws): mean, sd, ETI.

    Examples
    --------
    >>> s = summary_of_draws("c", np.linspace(0, 1, 101))
    >>> round(s.eti.low, 12), round(s.eti.high, 12)
    (0.025, 0.975)
    """
    prob = check_prob(prob)
    values = np.asarray(draws, dtype=float).reshape(-1)
    tail = (1.0 - prob) / 2.0
    low, high = np.quantile(values, [tail, 1.0 - tail])
    return PosteriorSummary(
        name=name,
        mean=float(values.mean()),
        sd=float(values.std(ddof=1)),
        median=float(np.median(values)),
        eti=Interval(float(low), float(high), prob, "eti"),
    )
