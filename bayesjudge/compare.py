"""Put a posterior beside the frequentist baselines in one table.

The Bayesian answer enters as two rows with the columns of every other estimate
(:data:`bayesjudge.results.ROW_COLUMNS`):

* ``bayes_eti``: the posterior median with the equal-tailed interval (both quantile-based, so
  both are unchanged by a monotone reparametrisation);
* ``bayes_hdi``: the posterior mean with the highest-density interval;

each with the posterior standard deviation in ``se`` and the posterior mean of Youden's J in
``j``. An exact (numerical-integration) posterior, when given, adds a ``bayes_exact`` row. All
intervals in the table have the same mass ``prob``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import xarray as xr

from bayesjudge.results import Estimate, Interval, estimates_frame

if TYPE_CHECKING:
    from bayesjudge.data import JudgeData
    from bayesjudge.exact import ExactPosterior

__all__ = ["PosteriorSummary", "compare", "comparison_estimates", "posterior_summary"]


@dataclass(frozen=True, slots=True)
class PosteriorSummary:
    """Summary of the posterior draws of one scalar quantity.

    Attributes
    ----------
    name : str
        The variable summarised.
    mean, sd, median : float
        Posterior mean, standard deviation and median.
    eti, hdi : Interval
        Equal-tailed and highest-density intervals of mass ``prob``.
    """

    name: str
    mean: float
    sd: float
    median: float
    eti: Interval
    hdi: Interval

    def to_dict(self) -> dict[str, float | str]:
        """Return ``{"mean", "sd", "low", "high", "prob"}`` with the equal-tailed bounds."""
        return {
            "mean": self.mean,
            "sd": self.sd,
            "low": self.eti.low,
            "high": self.eti.high,
            "prob": self.eti.prob,
        }


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
    extra = [d for d in draws.dims if d not in ("chain", "draw")]
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

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> draws = np.random.default_rng(0).beta(30, 70, size=(4, 1000))
    >>> post = xr.Dataset({"pi": (("chain", "draw"), draws)})
    >>> round(posterior_summary(post, "pi").mean, 2)
    0.3
    """
    if not 0.0 < prob < 1.0:
        raise ValueError(f"prob must lie in (0, 1); got {prob!r}")
    import arviz_stats as azs

    draws = _draws(posterior, name, coords)
    values = draws.values.reshape(-1)
    eti = azs.eti(draws, prob=prob).values
    hdi = azs.hdi(draws, prob=prob).values
    return PosteriorSummary(
        name=name,
        mean=float(values.mean()),
        sd=float(values.std(ddof=1)),
        median=float(np.median(values)),
        eti=Interval(float(eti[0]), float(eti[1]), prob, "eti"),
        hdi=Interval(float(hdi[0]), float(hdi[1]), prob, "hdi"),
    )


def comparison_estimates(
    posterior: xr.DataTree,
    data: JudgeData,
    *,
    prob: float = 0.95,
    random_seed: int | np.random.Generator | None = None,
    n_boot: int = 2000,
    exact: ExactPosterior | None = None,
) -> list[Estimate]:
    """Return the Bayesian and frequentist estimates of pi as a list, Bayesian rows first.

    See :func:`compare` for the parameters; this is the same content before it becomes a table.
    """
    from bayesjudge.baselines import baseline_estimates

    pi = posterior_summary(posterior, "pi", prob=prob)
    j_mean = float(posterior["posterior"]["j"].mean()) if "j" in posterior["posterior"] else None
    rows = [
        Estimate("bayes_eti", pi.median, pi.eti, se=pi.sd, j=j_mean, notes=("posterior median",)),
        Estimate("bayes_hdi", pi.mean, pi.hdi, se=pi.sd, j=j_mean, notes=("posterior mean",)),
    ]
    if exact is not None:
        rows.append(exact.to_estimate(prob=prob))
    rows.extend(baseline_estimates(data, prob=prob, random_seed=random_seed, n_boot=n_boot))
    return rows


def compare(
    posterior: xr.DataTree,
    data: JudgeData,
    *,
    prob: float = 0.95,
    random_seed: int | np.random.Generator | None = None,
    n_boot: int = 2000,
    exact: ExactPosterior | None = None,
) -> pd.DataFrame:
    """Return the posterior of pi beside every frequentist baseline, in one DataFrame.

    Parameters
    ----------
    posterior : DataTree
        A fit of the prevalence model (:func:`bayesjudge.fitting.fit_prevalence`).
    data : JudgeData
        The data it was fitted to; the baselines are computed from them.
    prob : float
        Mass of every interval in the table.
    random_seed : int, Generator or None
        Seed of the bootstrap baseline.
    n_boot : int
        Bootstrap resamples.
    exact : ExactPosterior, optional
        The numerical-integration posterior (:func:`bayesjudge.exact.exact_posterior`) for the
        same data and priors; adds a ``bayes_exact`` row.

    Returns
    -------
    DataFrame
        One row per method with the columns of :data:`bayesjudge.results.ROW_COLUMNS`: rows
        ``bayes_eti`` (posterior median, equal-tailed interval), ``bayes_hdi`` (posterior mean,
        highest-density interval), optionally ``bayes_exact``, then the baselines.
    """
    return estimates_frame(
        comparison_estimates(
            posterior, data, prob=prob, random_seed=random_seed, n_boot=n_boot, exact=exact
        )
    )
