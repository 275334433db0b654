r"""Derived quantities of a fitted panel model, computed on every posterior draw.

From the posterior draws of ``pi``, ``se``, ``sp`` and ``loading`` this module computes, draw by
draw, the conditional error correlations, the effective number of independent judges
(:mod:`bayesjudge.panels.dependence`) and the Se, Sp, J and pi-precision of every vote rule
(:mod:`bayesjudge.panels.rules`): :func:`panel_draws` is the numpy core (leading batch axes),
:func:`panel_quantities` its xarray wrapper on a posterior Dataset.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike, NDArray

from bayesjudge.panels.data import PanelPatterns
from bayesjudge.panels.dependence import (
    QUADRATURE_SIZE,
    effective_judges,
    flat_draws,
    latent_correlation,
    mean_error_correlation,
    pattern_probabilities,
    verdict_correlation,
)
from bayesjudge.panels.rules import (
    LIKELIHOOD_RATIO,
    at_least_rules,
    complete_patterns,
    likelihood_ratio_rule,
    rule_pi_sd,
    rule_rates,
)

__all__ = ["PanelDraws", "panel_draws", "panel_quantities"]

_CHUNK = 256


@dataclass(frozen=True, slots=True, eq=False)
class PanelDraws:
    r"""Derived quantities on each draw; every array has the draws' leading batch axes.

    Attributes
    ----------
    error_correlation : ndarray, shape (..., 2, J, J)
        Verdict correlations given the class (class 0 FAIL, 1 PASS).
    latent_correlation : ndarray, shape (..., 2, J, J)
        Latent-propensity correlations :math:`\lambda_s\lambda_t`.
    mean_error_correlation : ndarray, shape (..., 2)
        Mean pairwise error correlation per class.
    effective_judges_by_class : ndarray, shape (..., 2)
    effective_judges : ndarray, shape (...)
        At the pi-weighted mean error correlation.
    rules : tuple of str
        ``at_least_1_of_J`` ... ``at_least_J_of_J`` and ``likelihood_ratio``.
    rule_passes : ndarray of bool, shape (R, 2**J)
        Which complete patterns each rule passes.
    rule_se, rule_sp, rule_j, rule_pi_sd : ndarray, shape (..., R)
        Each rule's Se, Sp, J and the Rogan-Gladen sd of pi it would give.
    """

    error_correlation: NDArray[np.float64]
    latent_correlation: NDArray[np.float64]
    mean_error_correlation: NDArray[np.float64]
    effective_judges_by_class: NDArray[np.float64]
    effective_judges: NDArray[np.float64]
    rules: tuple[str, ...]
    rule_passes: NDArray[np.bool_]
    rule_se: NDArray[np.float64]
    rule_sp: NDArray[np.float64]
    rule_j: NDArray[np.float64]
    rule_pi_sd: NDArray[np.float64]


def panel_draws(
    pi: ArrayLike,
    se: ArrayLike,
    sp: ArrayLike,
    loading: ArrayLike,
    *,
    n: int,
    m1: int,
    m0: int,
    likelihood_ratio: ArrayLike | None = None,
    size: int = QUADRATURE_SIZE,
    pairs: ArrayLike | None = None,
    pair_covariance: ArrayLike | None = None,
) -> PanelDraws:
    r"""Compute the panel's derived quantities on each draw (numpy core, leading batch axes).

    The likelihood-ratio rule is one fixed rule, by default the one of the draws' *mean*
    pattern probabilities (:func:`~bayesjudge.panels.rules.likelihood_ratio_rule`), evaluated
    on every draw, so its Se and Sp are those of a rule one could use and not an optimistic
    per-draw choice.

    Parameters
    ----------
    pi : array_like, shape (...)
    se, sp : array_like, shape (..., J)
    loading : array_like, shape (..., 2, J)
    n, m1, m0 : int
        Unlabelled, gold-PASS and gold-FAIL items (for
        :func:`~bayesjudge.panels.rules.rule_pi_sd`).
    likelihood_ratio : array_like of bool, shape (2**J,), optional
        The patterns the likelihood-ratio rule passes, when fixed elsewhere (e.g. from all the
        draws when they come in chunks).
    size : int
        Quadrature points.
    pairs, pair_covariance : array_like, optional
        The pair form (:func:`~bayesjudge.panels.dependence.log_pattern_probabilities`):
        pairs (K, 2) and their covariances (..., 2, K).

    Returns
    -------
    PanelDraws

    Examples
    --------
    >>> out = panel_draws([0.6, 0.7], [[0.9, 0.8, 0.85]] * 2, [[0.8, 0.9, 0.7]] * 2,
    ...                   np.zeros((2, 2, 3)), n=1000, m1=100, m0=100)
    >>> out.rules[-1], out.effective_judges.round(6).tolist()
    ('likelihood_ratio', [3.0, 3.0])
    """
    pi_arr = np.asarray(pi, dtype=float)
    se_arr = np.asarray(se, dtype=float)
    sp_arr = np.asarray(sp, dtype=float)
    lam = np.asarray(loading, dtype=float)
    n_judges = se_arr.shape[-1]
    form = {"pairs": pairs, "pair_covariance": pair_covariance}
    corr = verdict_correlation(se_arr, sp_arr, lam, size=size, **form)
    rho = mean_error_correlation(corr)
    panel_rho = pi_arr * rho[..., 1] + (1.0 - pi_arr) * rho[..., 0]
    probs = pattern_probabilities(
        se_arr, sp_arr, lam, complete_patterns(n_judges), size=size, **form
    )
    if likelihood_ratio is None:
        best = likelihood_ratio_rule(probs.reshape(-1, *probs.shape[-2:]).mean(axis=0))
    else:
        best = np.asarray(likelihood_ratio, dtype=bool)
    names, passes = at_least_rules(n_judges)
    passes = np.vstack([passes, best[None, :]])
    rule_se, rule_sp = rule_rates(probs, passes)
    return PanelDraws(
        error_correlation=corr,
        latent_correlation=latent_correlation(lam),
        mean_error_correlation=rho,
        effective_judges_by_class=effective_judges(rho, n_judges),
        effective_judges=effective_judges(panel_rho, n_judges),
        rules=(*names, LIKELIHOOD_RATIO),
        rule_passes=passes,
        rule_se=rule_se,
        rule_sp=rule_sp,
        rule_j=rule_se + rule_sp - 1.0,
        rule_pi_sd=rule_pi_sd(rule_se, rule_sp, pi_arr, n=n, m1=m1, m0=m0),
    )


def panel_quantities(
    posterior: xr.Dataset,
    patterns: PanelPatterns,
    *,
    size: int = QUADRATURE_SIZE,
    pairs: ArrayLike | None = None,
) -> xr.Dataset:
    """Return the derived quantities of a panel posterior as an xarray Dataset.

    Parameters
    ----------
    posterior : Dataset
        Draws of ``pi`` (chain, draw), ``se``, ``sp`` (chain, draw, judge) and ``loading``
        (chain, draw, class, judge), as the panel model stores them.
    patterns : PanelPatterns
        The fitted data (for the counts n, m1, m0 of the rules' pi precision).
    size : int
        Quadrature points.
    pairs : array_like of int, shape (K, 2), optional
        The pairs of the pair form; their covariances are read from
        ``pair_covariance`` (chain, draw, class, pair).

    Returns
    -------
    Dataset
        ``error_correlation``, ``latent_correlation`` (chain, draw, class, judge,
        other_judge); ``mean_error_correlation``, ``effective_judges_by_class`` (chain, draw,
        class); ``effective_judges`` (chain, draw); ``rule_se``, ``rule_sp``, ``rule_j``,
        ``rule_pi_sd`` (chain, draw, rule); ``rule_passes`` (rule, vote_pattern) with the
        complete patterns as the ``vote_pattern`` coordinate. Attribute ``best_rule``: the rule
        with the smallest posterior mean ``rule_pi_sd``.

    Examples
    --------
    >>> from bayesjudge.panels.data import PanelData
    >>> data = PanelData.from_arrays([[1, 1], [0, 1], [1, 0]], labels=[1, 0, np.nan])
    >>> post = xr.Dataset({
    ...     "pi": (("chain", "draw"), [[0.5, 0.6]]),
    ...     "se": (("chain", "draw", "judge"), [[[0.9, 0.8], [0.85, 0.8]]]),
    ...     "sp": (("chain", "draw", "judge"), [[[0.8, 0.9], [0.8, 0.85]]]),
    ...     "loading": (("chain", "draw", "class", "judge"), np.full((1, 2, 2, 2), 0.5))},
    ...     coords={"judge": ["a", "b"], "class": ["fail", "pass"]})
    >>> out = panel_quantities(post, data.patterns())
    >>> out["rule_j"].dims, out.attrs["best_rule"]
    (('chain', 'draw', 'rule'), 'at_least_1_of_2')
    """
    chains, draws = posterior["pi"].transpose("chain", "draw").shape
    pi, se, sp, lam, gamma = flat_draws(posterior, pairs)
    flat = pi.size
    n_judges = se.shape[-1]

    def form(c: slice) -> dict[str, Any]:
        return {} if gamma is None else {"pairs": pairs, "pair_covariance": gamma[c]}

    chunks = [slice(start, min(start + _CHUNK, flat)) for start in range(0, flat, _CHUNK)]
    complete = complete_patterns(n_judges)
    mean_probs = (
        sum(
            pattern_probabilities(se[c], sp[c], lam[c], complete, size=size, **form(c)).sum(axis=0)
            for c in chunks
        )
        / flat
    )
    best = likelihood_ratio_rule(np.asarray(mean_probs))
    n_fail, n_pass = patterns.n_labelled
    parts = [
        panel_draws(
            pi[c],
            se[c],
            sp[c],
            lam[c],
            n=patterns.n_unlabelled,
            m1=n_pass,
            m0=n_fail,
            likelihood_ratio=best,
            size=size,
            **form(c),
        )
        for c in chunks
    ]

    def stacked(field: str) -> NDArray[np.float64]:
        joined = np.concatenate([getattr(p, field) for p in parts], axis=0)
        return joined.reshape(chains, draws, *joined.shape[1:])

    judges = posterior["judge"].to_numpy().tolist() if "judge" in posterior.coords else None
    rules = parts[0].rules
    pair = ("chain", "draw", "class", "judge", "other_judge")
    out = xr.Dataset(
        {
            "error_correlation": (pair, stacked("error_correlation")),
            "latent_correlation": (pair, stacked("latent_correlation")),
            "mean_error_correlation": (
                ("chain", "draw", "class"),
                stacked("mean_error_correlation"),
            ),
            "effective_judges_by_class": (
                ("chain", "draw", "class"),
                stacked("effective_judges_by_class"),
            ),
            "effective_judges": (("chain", "draw"), stacked("effective_judges")),
            "rule_se": (("chain", "draw", "rule"), stacked("rule_se")),
            "rule_sp": (("chain", "draw", "rule"), stacked("rule_sp")),
            "rule_j": (("chain", "draw", "rule"), stacked("rule_j")),
            "rule_pi_sd": (("chain", "draw", "rule"), stacked("rule_pi_sd")),
            "rule_passes": (("rule", "vote_pattern"), parts[0].rule_passes),
        },
        coords={
            "chain": posterior["chain"].to_numpy(),
            "draw": posterior["draw"].to_numpy(),
            "class": ["fail", "pass"],
            "rule": list(rules),
            "vote_pattern": ["".join(str(int(v)) for v in row) for row in complete],
        },
    )
    if judges is not None:
        out = out.assign_coords(judge=judges, other_judge=judges)
    mean_sd = out["rule_pi_sd"].mean(("chain", "draw")).to_numpy()
    out.attrs["best_rule"] = str(rules[int(np.nanargmin(mean_sd))])
    return out
