r"""Fit the panel model: verdicts -> patterns -> posterior mode -> cached model -> NUTS -> checks.

:func:`fit_panel` takes validated :class:`~bayesjudge.panels.data.PanelData` to a checked
posterior (an :class:`xarray.DataTree`) through the one fitting path of
:func:`bayesjudge.inference.fit.fit_model`: the items are reduced to distinct (label, verdict
pattern) rows with counts, padded to a bucket length (the next power of two, at least 32) so
that refits reuse the compiled model (:func:`bayesjudge.models.panel.panel_model`); the chains
start at the posterior mode found from several starting points
(:func:`bayesjudge.panels.start.posterior_mode`), and sample in coordinates whitened there
(:func:`bayesjudge.inference.affine.affine_model`, with the Hessian of
:func:`bayesjudge.panels.start.mode_precision`), so that the thin directions the unlabelled
items pin cost no more leapfrog steps at :math:`10^6` items than at :math:`10^3`. The posterior
gets the derived quantities of :func:`bayesjudge.panels.quantities.panel_quantities` (error
correlations, effective number of judges, the vote rules' Se, Sp and J), and posterior
predictive counts of unanimous verdicts, which check the dependence structure: a model that
treats correlated judges as independent predicts too few items on which every judge agrees;
and the check of every verdict pattern and each judge's gold rates of
:func:`bayesjudge.panels.predictive.panel_predictive_check`, among the diagnostics. Judges
that agree on every item are merged first (:func:`distinct_judges`).
"""

from __future__ import annotations

import itertools
import json
import warnings
from collections.abc import Sequence
from typing import Any, Literal, get_args

import numpy as np
import xarray as xr
from numpy.typing import NDArray

from bayesjudge._docstring import SAMPLER_PARAMETERS, fill_doc
from bayesjudge.errors import DataError
from bayesjudge.estimators.design import LEVEL, RandomCalibrationCheck, random_calibration_test
from bayesjudge.inference import defaults
from bayesjudge.inference.affine import (
    AFFINE_FACTOR,
    AFFINE_SHIFT,
    AFFINE_VARIABLE,
    affine_model,
    laplace_factor,
)
from bayesjudge.inference.cache import bucket_size
from bayesjudge.inference.fit import Draws, ModelRun, NutsSettings, fit_model
from bayesjudge.inference.sampling import Sampler
from bayesjudge.panels.data import MISSING, UNLABELLED, PanelData, PanelPatterns
from bayesjudge.panels.dependence import (
    DEPENDENCE_STATES,
    INDEPENDENCE,
    MAX_SPIKE_JUDGES,
    SPIKES,
    check_pairs,
    flat_draws,
    log_pattern_probabilities,
    spike_states,
)
from bayesjudge.panels.predictive import (
    MAX_PATTERN_JUDGES,
    PanelPredictiveCheck,
    panel_predictive_check,
)
from bayesjudge.panels.quantities import panel_quantities
from bayesjudge.panels.start import mode_precision, posterior_mode, sampling_order
from bayesjudge.priors import PanelPriors
from bayesjudge.validation import check_choice

__all__ = [
    "CALIBRATION",
    "DEPENDENCE",
    "GROUPS",
    "MAX_JUDGES",
    "REPORTED",
    "TARGET_ACCEPT",
    "check_identified",
    "check_pairs_identified",
    "dependent_pairs",
    "distinct_judges",
    "draw_dependence_states",
    "fit_panel",
    "panel_calibration_check",
    "unanimity_counts",
]

Calibration = Literal["by_class", "random"]
Dependence = Literal["random_effect", "none"]
Spike = Literal["class", "judge"]
#: How the gold-labelled items were chosen.
CALIBRATION: tuple[str, ...] = get_args(Calibration)
#: The dependence structures.
DEPENDENCE: tuple[str, ...] = get_args(Dependence)
#: Quantities reported by the panel family (their Monte Carlo error is checked).
REPORTED = ("pi", "se", "sp", "j", "effective_judges")
#: Groups of the posterior predictive counts, in the order of their label codes 0, 1, -1.
GROUPS = ("fail", "pass", "unlabelled")
#: Default NUTS target acceptance of the panel model (its analysis and command use it too).
TARGET_ACCEPT = defaults.PANEL_TARGET_ACCEPT
_CODES = (0, 1, UNLABELLED)
_MIN_BUCKET = 32
#: The most judges the panel model is fitted to. Its start (:mod:`bayesjudge.panels.start`) has
#: D = 4J + 1 coordinates, and the curvature at the mode takes 2 D (D - 1) density evaluations
#: held as one (2 D (D - 1), D) array of points: about 16 D^3 bytes, 130 MB at 50 judges,
#: 1 GB at 100 and 10^13 bytes at 10^4 (which also asked for a D x D step matrix of 12 GiB).
MAX_JUDGES = 50
_CHUNK = 1000


def _bucket(n: int) -> int:
    return bucket_size(n, minimum=_MIN_BUCKET)


def check_identified(patterns: PanelPatterns, *, dependence: Dependence) -> None:
    """Raise a :class:`DataError` when the data cannot identify the chosen panel model.

    ``"random_effect"`` needs gold-labelled items of both classes; ``"none"`` needs them or at
    least three judges; both need unlabelled items (see :mod:`bayesjudge.models.panel`) and at
    most :data:`MAX_JUDGES` judges (a larger panel is refused before anything is allocated).

    Examples
    --------
    >>> data = PanelData.from_arrays([[1, 0], [0, 0]])
    >>> check_identified(data.patterns(), dependence="none")
    Traceback (most recent call last):
    ...
    bayesjudge.errors.DataError: without gold labels of both classes ...
    """
    check_choice(dependence, name="dependence", allowed=DEPENDENCE)
    if patterns.n_judges > MAX_JUDGES:
        raise DataError(
            f"the panel model is fitted to at most {MAX_JUDGES} judges (its curvature at the mode "
            f"grows as the cube of 4J + 1 coordinates); the data have {patterns.n_judges} judges: "
            f"choose at most {MAX_JUDGES} of them (judges=, on the command line --judges)"
        )
    n_fail, n_pass = patterns.n_labelled
    both = n_fail > 0 and n_pass > 0
    if dependence == "random_effect" and not both:
        raise DataError(
            "the panel's error correlations need gold-labelled items of both classes; the data "
            f"have {n_pass} gold-PASS and {n_fail} gold-FAIL items (label some of each, or fit "
            "conditionally independent judges with dependence='none', which three or more "
            "judges identify without gold labels)"
        )
    if dependence == "none" and not both and patterns.n_judges < 3:
        raise DataError(
            "without gold labels of both classes a panel needs at least three judges; the data "
            f"have {patterns.n_judges} judges, {n_pass} gold-PASS and {n_fail} gold-FAIL items"
        )
    if patterns.n_unlabelled == 0:
        raise DataError("the panel has no unlabelled items, so there is no pi to estimate")


def check_pairs_identified(patterns: PanelPatterns) -> None:
    """Raise a :class:`DataError` when the pair form cannot be fitted to the data.

    The pairs' covariances need gold-labelled items of both classes, and the pair form is
    fitted to panels of at most :data:`~bayesjudge.panels.predictive.MAX_PATTERN_JUDGES`
    judges (its predictive check enumerates their verdict patterns).

    Examples
    --------
    >>> data = PanelData.from_arrays([[1, 0, 1], [0, 0, 1]], labels=[1, None])
    >>> check_pairs_identified(data.patterns())
    Traceback (most recent call last):
    ...
    bayesjudge.errors.DataError: the pairs' error covariances need ...
    """
    n_fail, n_pass = patterns.n_labelled
    if not (n_fail > 0 and n_pass > 0):
        raise DataError(
            "the pairs' error covariances need gold-labelled items of both classes; the data "
            f"have {n_pass} gold-PASS and {n_fail} gold-FAIL items"
        )
    if patterns.n_judges > MAX_PATTERN_JUDGES:
        raise DataError(
            f"the pair form is fitted to panels of at most {MAX_PATTERN_JUDGES} judges (its "
            "predictive check enumerates their verdict patterns); the data have "
            f"{patterns.n_judges}"
        )


def dependent_pairs(patterns: PanelPatterns, *, level: float = 0.05) -> tuple[tuple[int, int], ...]:
    r"""Disjoint pairs of judges whose gold-item agreement exceeds independence.

    For each pair of judges and each gold class, the items of that class both answered form a
    2 x 2 table of their verdicts; Fisher's exact test of positive association (one-sided;
    :func:`scipy.stats.fisher_exact`) gives a p-value per class and the pair's p-value is the
    smaller one times two (Bonferroni over the classes). Pairs are taken in order of their
    p-value, each judge in one pair at most (a greedy matching), while the p-value is below
    ``level``; when no pair is, the single pair with the smallest p-value is returned, so the
    pair form (``pairs="auto"`` in :func:`fit_panel`) always has a pair whose covariance it
    estimates (it may be near 0).

    Parameters
    ----------
    patterns : PanelPatterns
    level : float, default 0.05

    Returns
    -------
    tuple of (int, int)
        Judge indices, the first of each pair the lower.

    Raises
    ------
    ValueError
        With fewer than two judges or a level outside (0, 1).

    Examples
    --------
    >>> from bayesjudge.panels.simulate import dependence_scenario
    >>> dependent_pairs(dependence_scenario("copy", random_seed=1).data.patterns())
    ((0, 1),)
    """
    from scipy.stats import fisher_exact

    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1); got {level!r}")
    n_judges = patterns.n_judges
    if n_judges < 2:
        raise ValueError(f"pairs need at least two judges; got {n_judges}")
    scored = []
    for s, t in itertools.combinations(range(n_judges), 2):
        p_values = []
        for code in (0, 1):
            rows = patterns.label == code
            a, b, n = patterns.verdict[rows, s], patterns.verdict[rows, t], patterns.count[rows]
            keep = (a >= 0) & (b >= 0)
            table = [[n[keep & (a == x) & (b == y)].sum() for y in (1, 0)] for x in (1, 0)]
            p_values.append(float(fisher_exact(table, alternative="greater").pvalue))
        scored.append((min(1.0, 2.0 * min(p_values)), s, t))
    scored.sort()
    chosen: list[tuple[int, int]] = []
    used: set[int] = set()
    for p_value, s, t in scored:
        if p_value >= level:
            break
        if s not in used and t not in used:
            chosen.append((s, t))
            used.update((s, t))
    if not chosen:
        chosen = [(scored[0][1], scored[0][2])]
    return tuple(chosen)


def distinct_judges(data: PanelData, *, merge: bool = True) -> PanelData:
    """Merge judges whose verdicts agree on every item, with a warning naming them.

    Judges that always agree (a judge listed twice, a deterministic judge run twice) are one
    judge: the panel model cannot represent them (its loadings stay below 1) and would read
    their agreement as accuracy, giving a Se, Sp and pi narrower than one judge's data allow.
    :meth:`PanelData.merge_duplicates` keeps the first of each group.

    Parameters
    ----------
    data : PanelData
    merge : bool, default True
        False keeps the duplicates (the fit's predictive check then flags them).

    Raises
    ------
    DataError
        When fewer than two different judges remain (the error says how to fit the one
        judge alone).

    Warns
    -----
    UserWarning
        Naming each group merged (or kept, with ``merge=False``).

    Examples
    --------
    >>> import warnings
    >>> data = PanelData.from_arrays([[1, 1, 0], [0, 0, 0], [1, 1, 1]], judges=["a", "a2", "b"])
    >>> with warnings.catch_warnings(record=True):
    ...     distinct_judges(data).judges
    ('a', 'b')
    """
    groups = data.duplicate_judges()
    if not groups:
        return data
    named = "; ".join(" = ".join(repr(j) for j in group) for group in groups)
    if not merge:
        warnings.warn(
            f"judges {named} gave the same verdict on every one of the {data.n_items} items and "
            "are fitted as different judges (merge_duplicates=False): the panel model reads "
            "their agreement as accuracy",
            UserWarning,
            stacklevel=3,
        )
        return data
    merged = data.merge_duplicates()
    warnings.warn(
        f"judges {named} gave the same verdict on every one of the {data.n_items} items: each "
        "group is one judge listed more than once (the panel model would read their agreement "
        f"as accuracy), so it is fitted once, as its first judge; the judges fitted: "
        f"{list(merged.judges)}",
        UserWarning,
        stacklevel=3,
    )
    return merged


def panel_calibration_check(data: PanelData) -> RandomCalibrationCheck:
    """Check whether labelled and unlabelled items get PASS verdicts at the same rate.

    Each item's score is its share of PASS among the verdicts it received; if the gold items
    were a random sample of all items their mean score would match the unlabelled items'
    (:func:`bayesjudge.estimators.design.random_calibration_test`). Without gold items (or
    without unlabelled ones) there is nothing to compare: the check is consistent, with NaN
    rates.

    Examples
    --------
    >>> data = PanelData.from_arrays([[1, 1], [0, 0], [1, 0], [1, 1]], labels=[1, 0, None, None])
    >>> panel_calibration_check(data).consistent
    True
    """
    answered = ~np.isnan(data.verdicts)
    seen = answered.any(axis=1)
    labelled = ~np.isnan(data.labels) & seen
    unlabelled = np.isnan(data.labels) & seen
    if not labelled.any() or not unlabelled.any():  # nothing to compare
        return RandomCalibrationCheck(
            labelled_rate=float("nan"),
            unlabelled_rate=float("nan"),
            n_labelled=int(labelled.sum()),
            n_unlabelled=int(unlabelled.sum()),
            p_value=1.0,
            consistent=True,
            level=LEVEL,
        )
    score = np.where(seen, np.nansum(data.verdicts, axis=1) / np.maximum(answered.sum(1), 1), 0)
    return random_calibration_test(
        passed_labelled=float(score[labelled].sum()),
        n_labelled=int(labelled.sum()),
        passed_unlabelled=float(score[unlabelled].sum()),
        n_unlabelled=int(unlabelled.sum()),
    )


def _masks(patterns: PanelPatterns, code: int) -> tuple[NDArray[np.bool_], NDArray[np.int64]]:
    """Distinct answered-judge masks of one group (at least one verdict) and their items."""
    rows = patterns.label == code
    answered = patterns.verdict[rows] != MISSING
    keep = answered.any(axis=1)
    if not keep.any():
        return np.zeros((0, patterns.n_judges), dtype=bool), np.zeros(0, dtype=np.int64)
    masks, inverse = np.unique(answered[keep], axis=0, return_inverse=True)
    items = np.bincount(inverse.ravel(), weights=patterns.count[rows][keep], minlength=len(masks))
    return masks, items.astype(np.int64)


def unanimity_counts(patterns: PanelPatterns) -> dict[str, NDArray[np.int64]]:
    """Items on which every answering judge passed (``all_pass``) or failed (``all_fail``).

    Counted per group (gold-FAIL, gold-PASS, unlabelled: :data:`GROUPS`), over the items with
    at least one verdict.

    Examples
    --------
    >>> data = PanelData.from_arrays([[1, 1], [0, np.nan], [1, 0]], labels=[1, 0, None])
    >>> {k: v.tolist() for k, v in unanimity_counts(data.patterns()).items()}
    {'all_pass': [0, 1, 0], 'all_fail': [1, 0, 0]}
    """
    out = {"all_pass": np.zeros(3, dtype=np.int64), "all_fail": np.zeros(3, dtype=np.int64)}
    for g, code in enumerate(_CODES):
        rows = patterns.label == code
        verdict, count = patterns.verdict[rows], patterns.count[rows]
        answered = (verdict != MISSING).any(axis=1)
        out["all_pass"][g] = count[answered & np.all(verdict != 0, axis=1)].sum()
        out["all_fail"][g] = count[answered & np.all(verdict != 1, axis=1)].sum()
    return out


def _unanimity_predictive(
    posterior: xr.Dataset,
    patterns: PanelPatterns,
    rng: np.random.Generator,
    pairs: NDArray[np.int64] | None = None,
) -> dict[str, NDArray[np.int64]]:
    """Replicate :func:`unanimity_counts` at every posterior draw."""
    shape = posterior["pi"].transpose("chain", "draw").shape
    pi, se, sp, lam, gamma = flat_draws(posterior, pairs)
    flat = pi.size
    out = {name: np.zeros((flat, 3), dtype=np.int64) for name in ("all_pass", "all_fail")}
    for g, code in enumerate(_CODES):
        masks, items = _masks(patterns, code)
        if not len(masks):
            continue
        # for each mask: the pattern of PASS on the answered judges, then of FAIL
        rows = np.concatenate([np.where(masks, 1, MISSING), np.where(masks, 0, MISSING)])
        for start in range(0, flat, _CHUNK):
            part = slice(start, min(start + _CHUNK, flat))
            form: dict[str, Any] = (
                {} if gamma is None else {"pairs": pairs, "pair_covariance": gamma[part]}
            )
            prob = np.exp(log_pattern_probabilities(se[part], sp[part], lam[part], rows, **form))
            if code == UNLABELLED:
                p = pi[part, None] * prob[:, 1] + (1.0 - pi[part, None]) * prob[:, 0]
            else:
                p = prob[:, code]
            p_pass, p_fail = p[:, : len(masks)], p[:, len(masks) :]
            rest = np.clip(1.0 - p_pass - p_fail, 0.0, 1.0)
            pvals = np.stack([p_pass, p_fail, rest], axis=-1)
            pvals = pvals / pvals.sum(axis=-1, keepdims=True)
            draws = rng.multinomial(items, pvals)  # (draws, masks, 3)
            out["all_pass"][part, g] = draws[..., 0].sum(axis=1)
            out["all_fail"][part, g] = draws[..., 1].sum(axis=1)
    return {name: value.reshape(*shape, 3) for name, value in out.items()}


def draw_dependence_states(
    posterior: xr.Dataset, rng: np.random.Generator, masks: NDArray[np.bool_] | None = None
) -> xr.Dataset:
    r"""Draw each posterior draw's dependence state and zero the loadings of independent classes.

    The spike-and-slab panel model (``independence > 0`` in
    :func:`bayesjudge.models.panel.panel_model`) sums the states out of its likelihood and
    stores ``state_logp``, the log probability of each state (none, fail, pass, both: the
    classes whose judges share the item effect) given the draw's other parameters. Drawing the
    state from it on each draw gives draws of the joint posterior of the parameters and the
    state (the parameters' marginal posterior times the state's conditional one).

    Parameters
    ----------
    posterior : Dataset
        With ``loading`` (chain, draw, class, judge) and ``state_logp`` (chain, draw, state).
    rng : numpy.random.Generator
    masks : ndarray of bool, shape (state, class, judge), optional
        The loadings each state keeps, for ``spike="judge"``
        (:func:`bayesjudge.panels.dependence.spike_states`); default the four per-class states.

    Returns
    -------
    Dataset
        ``loading`` with the spike's zeros, ``loading_slab`` (the slab's values),
        ``dependent`` (chain, draw, class: 1 where the class's loadings are in use) and
        ``dependence_probability`` (chain, draw, class: its conditional probability, whose mean
        is a Rao-Blackwellised estimate of the posterior probability of dependence); with
        ``masks``, ``dependent`` and ``dependence_probability`` are per judge (chain, draw,
        judge: the judge's loadings in use).

    Examples
    --------
    >>> post = xr.Dataset({
    ...     "loading": (("chain", "draw", "class", "judge"), np.full((1, 2, 2, 3), 0.5)),
    ...     "state_logp": (("chain", "draw", "state"), np.where(
    ...         [[[1, 0, 0, 0], [0, 0, 1, 0]]], 0.0, -np.inf))},
    ...     coords={"class": ["fail", "pass"], "state": ["none", "fail", "pass", "both"]})
    >>> out = draw_dependence_states(post, np.random.default_rng(0))
    >>> out["loading"].isel(judge=0).to_numpy().tolist()
    [[[0.0, 0.0], [0.0, 0.5]]]
    """
    logp = posterior["state_logp"].transpose("chain", "draw", "state").to_numpy()
    probs = np.exp(logp - logp.max(axis=-1, keepdims=True))
    probs /= probs.sum(axis=-1, keepdims=True)
    chosen = (rng.random(probs.shape[:-1])[..., None] > np.cumsum(probs, axis=-1)).sum(axis=-1)
    chosen = np.minimum(chosen, probs.shape[-1] - 1)
    slab = posterior["loading"].transpose("chain", "draw", "class", "judge")
    if masks is not None:
        kept = np.asarray(masks, dtype=float)  # (state, class, judge)
        in_judge = kept[:, 0, :]  # (state, judge): the same in both classes
        return posterior.assign(
            loading=(slab * xr.DataArray(kept[chosen], dims=slab.dims)).transpose(*slab.dims),
            loading_slab=slab,
            dependent=xr.DataArray(in_judge[chosen], dims=("chain", "draw", "judge")).astype(
                np.int8
            ),
            dependence_probability=xr.DataArray(probs @ in_judge, dims=("chain", "draw", "judge")),
        )
    in_use = np.array(DEPENDENCE_STATES, dtype=float)  # (state, class)
    dependent = in_use[chosen]  # (chain, draw, class)
    mask = xr.DataArray(dependent, dims=("chain", "draw", "class"))
    return posterior.assign(
        loading=(slab * mask).transpose(*slab.dims),
        loading_slab=slab,
        dependent=mask.astype(np.int8),
        dependence_probability=xr.DataArray(probs @ in_use, dims=("chain", "draw", "class")),
    )


@fill_doc(sampler_parameters=SAMPLER_PARAMETERS)
def fit_panel(
    data: PanelData,
    *,
    priors: PanelPriors | None = None,
    dependence: Dependence = "random_effect",
    calibration: Calibration = "by_class",
    draws: Draws = 2000,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float | None = None,
    random_seed: int | np.random.Generator | None = None,
    progressbar: bool | None = None,
    sampler: Sampler = "auto",
    escalate: bool = True,
    prob: float = 0.95,
    merge_duplicates: bool = True,
    independence: float | None = None,
    pairs: Sequence[tuple[str, str]] | Literal["auto"] | None = None,
    spike: Spike = "class",
) -> xr.DataTree:
    r"""Sample the latent-class model of a judge panel with correlated errors.

    Fits :func:`bayesjudge.models.panel.panel_model` (Qu, Tan and Kutner, "Random effects
    models in latent class analysis for evaluating accuracy of diagnostic tests", 1996): each
    item has a true class and a latent difficulty :math:`z`, judge :math:`t` passes it with
    probability :math:`\Phi((\mu_{tc} + \lambda_{tc} z)/\sqrt{1 - \lambda_{tc}^2})`, so that
    :math:`\mathrm{Se}_t = \Phi(\mu_{t1})`, :math:`1 - \mathrm{Sp}_t = \Phi(\mu_{t0})`; gold
    items enter through their class, unlabelled items as a two-class mixture with weight
    :math:`\pi`, and each distinct (label, verdict pattern) row once, times its count.

    Parameters
    ----------
    data : PanelData
        Validated verdicts of two or more judges, with gold labels on some items.
    priors : PanelPriors, optional
        :class:`bayesjudge.priors.PanelPriors`; the defaults otherwise.
    dependence : {"random_effect", "none"}, default "random_effect"
        ``"random_effect"``: judges' errors correlated through the item difficulty (needs gold
        items of both classes); ``"none"``: conditionally independent judges, except the
        ``pairs``.
    calibration : {"by_class", "random"}, default "by_class"
        ``"by_class"``: the gold items may have been chosen by class, so only the
        class-conditional law of the verdicts transfers. ``"random"``: they are a random sample
        of all items, so their labels inform pi too; a check then warns when the gold items'
        PASS-verdict rate says otherwise.
    %(sampler_parameters)s
    merge_duplicates : bool, default True
        Fit judges whose verdicts agree on every item once (:func:`distinct_judges`); False
        fits them as different judges (only to see what the model makes of them).
    independence : float, optional
        With ``dependence="random_effect"``: the prior probability, for each class, that the
        judges' errors in that class are conditionally independent (every loading exactly 0;
        the spike of a spike-and-slab prior whose slab is ``priors.loading``). Default
        :data:`~bayesjudge.panels.dependence.INDEPENDENCE` (0.5); 0 gives the plain
        random-effect model, whose loadings are never 0. The states are summed out of the
        likelihood while sampling, and each draw's state is drawn afterwards from its
        conditional probability, so ``loading`` holds 0 for a class on the draws where its
        judges are independent (the slab's values are kept as ``loading_slab``), and
        ``dependent`` (chain, draw, class) says which.
    spike : {"class", "judge"}, default "class"
        What one indicator of the spike switches (with ``independence`` above 0): every
        loading of a class (``dependent`` per class), or ``"judge"``: one judge's loadings in
        both classes, so that in a panel with one dependent pair the other judges' loadings can
        be exactly 0 (:func:`bayesjudge.panels.dependence.spike_states`; at most
        :data:`~bayesjudge.panels.dependence.MAX_SPIKE_JUDGES` judges); ``dependent`` and
        ``dependence_probability`` are then per judge (chain, draw, judge).
    pairs : sequence of (str, str) or "auto", optional
        With ``dependence="none"``: the pair form, a class-specific covariance for each of
        these disjoint pairs of judges (names), the others independent (Dendukuri and Joseph,
        2001; exact for a judge that copies another's verdict on a share of the items; needs
        gold items of both classes and at most 8 judges). ``"auto"``: the pairs whose
        gold-item agreement exceeds independence (:func:`dependent_pairs`). The pairs fitted
        are recorded in the root attribute ``pairs``.

    Returns
    -------
    DataTree
        ``posterior`` (the model's variables and the derived quantities of
        :func:`~bayesjudge.panels.quantities.panel_quantities`), ``sample_stats``,
        ``posterior_predictive`` and ``observed_data`` (``all_pass`` and ``all_fail`` items per
        group fail / pass / unlabelled), ``constant_data`` (the patterns). Root attrs as
        recorded by :func:`~bayesjudge.inference.fit.fit_model`, plus ``calibration``,
        ``dependence``, ``judges``, ``n_items``, ``n_labelled``, ``n_unlabelled``,
        ``n_patterns``, ``best_rule`` and ``start`` (the posterior mode the chains started
        from, and the optima reached).

    Raises
    ------
    DataError
        If the data cannot identify the model (:func:`check_identified`).
    ValueError
        On an unknown option or settings out of range.

    Warns
    -----
    UserWarning
        With ``calibration="random"`` when the gold items do not look like a random sample.
    FitWarning
        When a diagnostic check still fails after the retry.

    Examples
    --------
    >>> from bayesjudge.panels.simulate import panel_scenario, simulate_panel
    >>> sim = simulate_panel(pi=0.7, **panel_scenario(3), n_unlabelled=2000, n_gold=200,
    ...                      random_seed=1)
    >>> tree = fit_panel(sim.data, random_seed=1, progressbar=False)  # doctest: +SKIP
    >>> tree.posterior["effective_judges"].mean().item()  # doctest: +SKIP
    1.8...
    """
    from bayesjudge.models.panel import PANEL, pad_patterns, panel_model

    if not isinstance(data, PanelData):
        raise TypeError(f"data must be PanelData; got {type(data).__name__}")
    check_choice(calibration, name="calibration", allowed=CALIBRATION)
    check_choice(dependence, name="dependence", allowed=DEPENDENCE)
    if pairs is not None and dependence != "none":
        raise ValueError(f"pairs go with dependence='none'; got dependence={dependence!r}")
    if independence is None:
        independence = INDEPENDENCE if dependence == "random_effect" else 0.0
    if isinstance(independence, bool) or not 0.0 <= float(independence) < 1.0:
        raise ValueError(f"independence must be a probability in [0, 1); got {independence!r}")
    independence = float(independence)
    if independence > 0.0 and dependence != "random_effect":
        raise ValueError(
            "independence is the prior probability that the random effect is absent; it needs "
            f"dependence='random_effect', got dependence={dependence!r}"
        )
    check_choice(spike, name="spike", allowed=SPIKES)
    if spike == "judge" and independence == 0.0:
        raise ValueError("spike='judge' needs independence above 0 (the spike's probability)")
    priors = PanelPriors() if priors is None else priors
    if not isinstance(priors, PanelPriors):
        raise TypeError(f"priors must be a PanelPriors; got {type(priors).__name__}")
    settings = NutsSettings.of(draws, tune, chains, target_accept, TARGET_ACCEPT)
    duplicates = data.duplicate_judges()
    data = distinct_judges(data, merge=merge_duplicates)
    patterns = data.patterns()
    check_identified(patterns, dependence=dependence)
    if spike == "judge" and patterns.n_judges > MAX_SPIKE_JUDGES:
        raise DataError(
            f"spike='judge' is fitted to at most {MAX_SPIKE_JUDGES} judges (its "
            f"{2**patterns.n_judges - patterns.n_judges} states each need their own quadrature); "
            f"got {patterns.n_judges}: use spike='class'"
        )
    index = None
    if pairs is not None:
        check_pairs_identified(patterns)
        index = check_pairs(
            dependent_pairs(patterns)
            if isinstance(pairs, str) and pairs == "auto"
            else _pair_indices(pairs, data.judges),
            patterns.n_judges,
        )
    attrs: dict[str, Any] = {
        "calibration": calibration,
        "dependence": dependence,
        "independence": independence,
        "spike": spike,
        "merged_judges": json.dumps([list(g) for g in duplicates] if merge_duplicates else []),
    }
    if index is not None:
        attrs["pairs"] = json.dumps([[data.judges[s], data.judges[t]] for s, t in index.tolist()])
    if calibration == "random":
        check = panel_calibration_check(data)
        attrs["calibration_check"] = json.dumps(check.to_dict())
        if not check.consistent:
            warnings.warn(
                "calibration='random' assumes the gold items are a random sample of all items, "
                f"but their mean PASS-verdict share is {check.labelled_rate:.3f} against "
                f"{check.unlabelled_rate:.3f} for the unlabelled items (p = {check.p_value:.2g}); "
                "the posterior of pi is biased under this design: use calibration='by_class'",
                UserWarning,
                stacklevel=2,
            )
    start = posterior_mode(
        patterns,
        priors=priors,
        dependence=dependence,
        calibration=calibration,
        independence=independence,
        spike=spike,
        pairs=index,
    )
    order = sampling_order(
        patterns.n_judges,
        dependent=dependence == "random_effect",
        n_pairs=0 if index is None else len(index),
    )
    shift = np.concatenate([np.ravel(start.values[name]) for name, _ in order])
    precision = mode_precision(
        shift,
        patterns,
        priors=priors,
        dependence=dependence,
        calibration=calibration,
        independence=independence,
        spike=spike,
        pairs=index,
    )
    size = _bucket(len(patterns))
    pair_key = None if index is None else tuple(map(tuple, index.tolist()))
    padded = pad_patterns(patterns, size)
    run = ModelRun(
        PANEL,
        (
            PANEL,
            "affine",
            size,
            patterns.n_judges,
            priors,
            dependence,
            calibration,
            independence,
            pair_key,
            spike,
        ),
        lambda: affine_model(
            panel_model(
                patterns,
                priors=priors,
                dependence=dependence,
                calibration=calibration,
                independence=independence,
                spike=spike,
                n_patterns=size,
                pairs=None if index is None else index.tolist(),
            )
        ),
        {**padded, AFFINE_SHIFT: shift, AFFINE_FACTOR: laplace_factor(precision)},
        priors,
        start={AFFINE_VARIABLE: np.zeros(shift.size)},
    )
    judges = list(data.judges)
    latest: list[PanelPredictiveCheck] = []

    def complete(trace: xr.DataTree, rng: np.random.Generator) -> xr.DataTree:
        posterior = (
            trace["posterior"]
            .to_dataset()
            .drop_vars([AFFINE_VARIABLE, "whitened_coordinate"], errors="ignore")
            .assign_coords(judge=judges)
        )
        if "state_logp" in posterior:
            masks = (
                None
                if spike == "class"
                else spike_states(spike, len(judges), independence, tuple(judges)).masks
            )
            posterior = draw_dependence_states(posterior, rng, masks)
        derived = panel_quantities(posterior, patterns, pairs=index)
        best_rule = derived.attrs.pop("best_rule")
        posterior = xr.merge([posterior, derived], combine_attrs="drop_conflicts")
        posterior.attrs["best_rule"] = best_rule
        groups = {"group": list(GROUPS)}
        observed = xr.Dataset(
            {name: (("group",), v) for name, v in unanimity_counts(patterns).items()},
            coords=groups,
        )
        predictive = xr.Dataset(
            {
                name: (("chain", "draw", "group"), v)
                for name, v in _unanimity_predictive(posterior, patterns, rng, index).items()
            },
            coords={"chain": posterior["chain"], "draw": posterior["draw"], **groups},
        )
        constant = xr.Dataset(
            {
                "pattern_label": ("pattern", patterns.label),
                "pattern_verdict": (("pattern", "judge"), patterns.verdict),
                "pattern_count": ("pattern", patterns.count),
            },
            coords={"judge": judges},
        )
        tree = xr.DataTree.from_dict(
            {
                "posterior": posterior,
                "posterior_predictive": predictive,
                "sample_stats": trace["sample_stats"].to_dataset(),
                "observed_data": observed,
                "constant_data": constant,
            }
        )
        latest[:] = [panel_predictive_check(posterior, patterns, random_seed=rng, pairs=index)]
        tree.attrs["predictive_check"] = json.dumps(latest[0].to_dict())
        return tree

    checked = ["pi", "judged_rate", "se", "sp", "j"]
    reported = ["pi", "se", "sp", "j"]
    if dependence == "random_effect":
        checked += ["loading", "effective_judges"]
        reported.append("effective_judges")
    if index is not None:
        checked += ["pair_covariance", "effective_judges"]
        reported.append("effective_judges")
    n_fail, n_pass = patterns.n_labelled
    attrs.update(
        {
            "judges": json.dumps(judges),
            "n_items": data.n_items,
            "n_labelled": n_fail + n_pass,
            "n_unlabelled": patterns.n_unlabelled,
            "n_patterns": len(patterns),
            "start": json.dumps(start.to_dict()),
        }
    )
    tree = fit_model(
        run,
        settings=settings,
        complete=complete,
        random_seed=random_seed,
        sampler=sampler,
        progressbar=progressbar,
        escalate=escalate,
        prob=prob,
        check_vars=checked,
        mcse_vars=reported,
        family_checks=lambda _: latest[0].checks(),
        attrs=attrs,
    )
    tree.attrs["best_rule"] = tree["posterior"].attrs.get("best_rule", "")
    return tree


def _pair_indices(
    pairs: Sequence[tuple[str, str]], judges: tuple[str, ...]
) -> list[tuple[int, int]]:
    """Map pairs of judge names to indices; a name not among the judges is a DataError."""
    out = []
    for pair in pairs:
        if len(pair) != 2:
            raise DataError(f"each pair names two judges; got {pair!r}")
        missing = [name for name in pair if name not in judges]
        if missing:
            raise DataError(
                f"pairs: judge {missing[0]!r} is not in the panel (judges fitted: {list(judges)})"
            )
        out.append((judges.index(pair[0]), judges.index(pair[1])))
    return out
