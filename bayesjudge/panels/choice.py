r"""Choose the panel's dependence form by its fit: PSIS-LOO on the items, then the diagnostics.

The random-effect form (:mod:`bayesjudge.models.panel`, Qu, Tan and Kutner 1996) and the pair
form (``pairs`` with ``dependence="none"``: class-specific covariances of disjoint pairs of
judges; Vacek 1985, Dendukuri and Joseph 2001) describe different dependence: a difficulty that
every judge follows to some degree, or a judge that repeats another's verdict on some items.
Neither nests the other. :func:`choose_dependence` compares their fits to the same items by the
expected log predictive density of leave-one-item-out cross-validation, estimated by
Pareto-smoothed importance sampling (Vehtari, Gelman and Gabry, "Practical Bayesian model
evaluation using leave-one-out cross-validation and WAIC", Statistics and Computing, 2017;
computed by :func:`arviz_stats.loo`).

**Items as patterns.** An item enters the panel likelihood only through its gold label (or its
absence) and its verdict pattern, so every item of one (label, pattern) row has the same
pointwise log likelihood :math:`\log p(y_p \mid \theta)` (:math:`\log P(v \mid c)` for a gold
item, :math:`\log[\pi P(v \mid 1) + (1 - \pi) P(v \mid 0)]` for an unlabelled one) and the same
leave-one-out density :math:`\widehat{\mathrm{elpd}}_p`. PSIS is run once per distinct row and
the item sums weight each row by its count :math:`n_p`:

.. math::

    \widehat{\mathrm{elpd}} = \sum_p n_p\,\widehat{\mathrm{elpd}}_p,\qquad
    \mathrm{se}(\Delta) = \sqrt{\textstyle\sum_p n_p (d_p - \bar d)^2},

with :math:`d_p` the difference of the two forms' :math:`\widehat{\mathrm{elpd}}_p` and
:math:`\bar d` its item mean (the standard error of a sum of :math:`N` item differences).

**The rule.** A form whose fit fails its diagnostics (convergence or the posterior predictive
check) loses to one whose fit passes them. Otherwise the pair form is chosen when its elpd
exceeds the random-effect form's by more than :data:`MARGIN` standard errors of the difference,
and the random-effect form (the default of the panel command) is kept otherwise, so that on
data where the two fit alike the answer is the one the random-effect model gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr
from numpy.typing import NDArray

from bayesjudge.panels.data import UNLABELLED, PanelPatterns
from bayesjudge.panels.dependence import flat_draws, log_pattern_probabilities

__all__ = [
    "MARGIN",
    "DependenceChoice",
    "FormFit",
    "choose_dependence",
    "pattern_log_likelihood",
    "pattern_loo",
]

#: Standard errors of the elpd difference by which the pair form must beat the random effect.
MARGIN = 2.0
_CHUNK = 500


@dataclass(frozen=True, slots=True)
class FormFit:
    r"""One dependence form's fit, as the choice saw it.

    Attributes
    ----------
    form : str
        ``"random_effect"`` or ``"pairs"``.
    elpd, se : float
        Item-summed PSIS-LOO expected log predictive density and its standard error.
    p_loo : float
        Effective number of parameters (the in-sample log density minus ``elpd``).
    pareto_k_max : float
        Largest Pareto :math:`\hat k` over the distinct rows (above 0.7 PSIS is unreliable).
    passed : bool
        Whether the fit passed its diagnostics (convergence and predictive check).
    """

    form: str
    elpd: float
    se: float
    p_loo: float
    pareto_k_max: float
    passed: bool

    def to_dict(self) -> dict[str, Any]:
        """Return the fields as plain values."""
        return {
            "form": self.form,
            "elpd_loo": self.elpd,
            "se": self.se,
            "p_loo": self.p_loo,
            "pareto_k_max": self.pareto_k_max,
            "diagnostics_passed": self.passed,
        }


@dataclass(frozen=True, slots=True)
class DependenceChoice:
    """Which dependence form the panel's answer uses, and why.

    Attributes
    ----------
    chosen : str
    reason : str
        One sentence, with the numbers it rests on.
    forms : tuple of FormFit
        The forms compared (one when only one could be fitted).
    difference, difference_se : float
        elpd of the pair form minus the random-effect form's, and its standard error (NaN
        with one form).
    """

    chosen: str
    reason: str
    forms: tuple[FormFit, ...]
    difference: float
    difference_se: float

    def to_dict(self) -> dict[str, Any]:
        """Return the choice as the ``dependence_choice`` block of ``bayesjudge panel --json``."""
        return {
            "chosen": self.chosen,
            "reason": self.reason,
            "rule": (
                "a form failing its diagnostics loses to one passing them; otherwise pairs "
                f"when its PSIS-LOO elpd exceeds random_effect's by more than {MARGIN:g} "
                "standard errors of the difference, else random_effect"
            ),
            "elpd_difference": _plain(self.difference),
            "elpd_difference_se": _plain(self.difference_se),
            "forms": [f.to_dict() for f in self.forms],
        }


def _plain(x: float) -> float | None:
    return None if not np.isfinite(x) else float(x)


def pattern_log_likelihood(
    posterior: xr.Dataset, patterns: PanelPatterns, *, pairs: NDArray[np.int64] | None = None
) -> NDArray[np.float64]:
    """Pointwise log likelihood of each distinct (label, pattern) row on each draw.

    Parameters
    ----------
    posterior : Dataset
        ``pi`` (chain, draw), ``se``, ``sp`` (chain, draw, judge), ``loading`` (chain, draw,
        class, judge) and, with ``pairs``, ``pair_covariance`` (chain, draw, class, pair).
    patterns : PanelPatterns
    pairs : ndarray of int, shape (K, 2), optional
        The pairs of the pair form.

    Returns
    -------
    ndarray, shape (chain, draw, P)

    Examples
    --------
    >>> from bayesjudge.panels.data import PanelData
    >>> data = PanelData.from_arrays([[1, 1], [0, 0], [1, 0]], labels=[1, 0, np.nan])
    >>> post = xr.Dataset({
    ...     "pi": (("chain", "draw"), [[0.5]]),
    ...     "se": (("chain", "draw", "judge"), [[[0.9, 0.8]]]),
    ...     "sp": (("chain", "draw", "judge"), [[[0.7, 0.6]]]),
    ...     "loading": (("chain", "draw", "class", "judge"), np.zeros((1, 1, 2, 2)))})
    >>> np.exp(pattern_log_likelihood(post, data.patterns())).round(4).tolist()
    [[[0.72, 0.42, 0.18]]]
    """
    shape = posterior["pi"].transpose("chain", "draw").shape
    pi, se, sp, lam, gamma = flat_draws(posterior, pairs)
    flat = pi.size
    label = patterns.label
    out = np.empty((flat, len(label)))
    for start in range(0, flat, _CHUNK):
        part = slice(start, min(start + _CHUNK, flat))
        form: dict[str, Any] = (
            {} if gamma is None else {"pairs": pairs, "pair_covariance": gamma[part]}
        )
        logp = log_pattern_probabilities(se[part], sp[part], lam[part], patterns.verdict, **form)
        mixed = np.logaddexp(
            np.log(pi[part, None]) + logp[:, 1], np.log1p(-pi[part, None]) + logp[:, 0]
        )
        gold = np.where(label == 1, logp[:, 1], logp[:, 0])
        out[part] = np.where(label == UNLABELLED, mixed, gold)
    return out.reshape(*shape, len(label))


def pattern_loo(
    log_lik: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """PSIS-LOO of each distinct row: its elpd, its in-sample lppd and its Pareto k.

    Parameters
    ----------
    log_lik : ndarray, shape (chain, draw, P)
        :func:`pattern_log_likelihood`.

    Returns
    -------
    elpd, lppd, pareto_k : ndarray, shape (P,)

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> elpd, lppd, k = pattern_loo(rng.normal(-1.0, 0.01, size=(2, 200, 3)))
    >>> bool(np.all(elpd <= lppd)), elpd.shape
    (True, (3,))
    """
    import arviz_stats

    ll = np.asarray(log_lik, dtype=float)
    chains, draws = ll.shape[:2]
    tree = xr.DataTree.from_dict(
        {
            "posterior": xr.Dataset({"_": (("chain", "draw"), np.zeros((chains, draws)))}),
            "log_likelihood": xr.Dataset({"y": (("chain", "draw", "pattern"), ll)}),
        }
    )
    result = arviz_stats.loo(tree, pointwise=True, var_name="y")
    flat = ll.reshape(chains * draws, -1)
    top = flat.max(axis=0)
    lppd = np.log(np.exp(flat - top).mean(axis=0)) + top
    return (
        np.asarray(result.elpd_i, dtype=float),
        np.asarray(lppd, dtype=float),
        np.asarray(result.pareto_k, dtype=float),
    )


def _form_fit(
    form: str, tree: xr.DataTree, patterns: PanelPatterns, pairs: NDArray[np.int64] | None
) -> tuple[FormFit, NDArray[np.float64]]:
    from bayesjudge.inference.fit import diagnostics_of

    posterior = tree["posterior"].to_dataset()
    elpd_p, lppd_p, k = pattern_loo(pattern_log_likelihood(posterior, patterns, pairs=pairs))
    n = patterns.count.astype(float)
    total = float(n @ elpd_p)
    mean = total / n.sum()
    se = float(np.sqrt(n @ (elpd_p - mean) ** 2))
    fit = FormFit(
        form=form,
        elpd=total,
        se=se,
        p_loo=float(n @ (lppd_p - elpd_p)),
        pareto_k_max=float(np.max(k)),
        passed=bool(diagnostics_of(tree).passed),
    )
    return fit, elpd_p


def choose_dependence(
    random_effect: xr.DataTree,
    pairs_fit: xr.DataTree | None,
    patterns: PanelPatterns,
    *,
    pairs: NDArray[np.int64] | None = None,
    margin: float = MARGIN,
) -> DependenceChoice:
    """Choose between the random-effect fit and the pair-form fit of one panel.

    See the module docstring for the estimate and the rule.

    Parameters
    ----------
    random_effect : DataTree
        :func:`~bayesjudge.panels.fit.fit_panel` with ``dependence="random_effect"``.
    pairs_fit : DataTree or None
        The same data with the pair form; None when it could not be fitted (the
        random-effect form is then chosen, and the reason says so).
    patterns : PanelPatterns
        The data both were fitted to.
    pairs : ndarray of int, shape (K, 2), optional
        The pairs of ``pairs_fit``.
    margin : float
        :data:`MARGIN`.

    Returns
    -------
    DependenceChoice
    """
    re_fit, re_p = _form_fit("random_effect", random_effect, patterns, None)
    if pairs_fit is None:
        return DependenceChoice(
            "random_effect",
            "the pair form was not fitted (it needs gold items of both classes and at most 8 "
            "judges)",
            (re_fit,),
            float("nan"),
            float("nan"),
        )
    pair_fit, pair_p = _form_fit("pairs", pairs_fit, patterns, pairs)
    n = patterns.count.astype(float)
    d = pair_p - re_p
    diff = float(n @ d)
    diff_se = float(np.sqrt(n @ (d - diff / n.sum()) ** 2))
    numbers = f"elpd_loo pairs - random_effect = {diff:.1f} (se {diff_se:.1f})"
    if re_fit.passed != pair_fit.passed:
        chosen = "random_effect" if re_fit.passed else "pairs"
        other = "pairs" if re_fit.passed else "random_effect"
        reason = f"the {other} fit failed its diagnostics and the {chosen} fit passed ({numbers})"
    elif diff > margin * diff_se:
        chosen = "pairs"
        reason = f"the pair form fits the items better: {numbers}, above {margin:g} se"
    else:
        chosen = "random_effect"
        reason = f"the pair form does not fit the items clearly better: {numbers}"
    return DependenceChoice(chosen, reason, (re_fit, pair_fit), diff, diff_se)
