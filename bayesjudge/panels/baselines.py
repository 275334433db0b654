r"""Baselines for a judge panel: each judge alone, the majority vote, and Dawid-Skene.

Shown beside the panel model's posterior of pi:

* **majority vote, naive**: the share of unlabelled items whose majority verdict is PASS, with
  a Wilson interval; it ignores the panel's errors;
* **each judge alone**: the judge's verdicts on the items it answered, corrected by
  Rogan-Gladen (delta-method interval) and by PPI++ (Rogan and Gladen, "Estimating prevalence
  from the results of a screening test", 1978; Angelopoulos, Duchi and Zrnic, "PPI++: Efficient
  prediction-powered inference", 2023);
* **majority vote then Rogan-Gladen**: the panel's majority verdict among the judges that
  answered (ties count as FAIL) treated as one judge, with its Se and Sp from the gold items;
* **Dawid-Skene**: the unsupervised latent-class estimate of Dawid and Skene ("Maximum likelihood
  estimation of observer error-rates using the EM algorithm", Applied Statistics, 1979) on the
  unlabelled items, gold labels unused. It assumes conditionally independent judges, so
  correlated judges bias it; it has no interval here.

Each estimator returns one :class:`~bayesjudge.results.Estimate`; :func:`panel_baselines`
stacks them into one table with a ``judge`` column.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from bayesjudge.errors import DataError, NotIdentifiableError
from bayesjudge.estimators import wilson_interval
from bayesjudge.panels.data import MISSING, UNLABELLED, PanelData, PanelPatterns
from bayesjudge.prevalence import JudgeCounts, JudgeData, ppi_plus_plus, rogan_gladen
from bayesjudge.results import ROW_COLUMNS, Estimate, Interval, estimates_frame

__all__ = [
    "PANEL_RULES",
    "RANDOM_SAMPLE_NOTE",
    "DawidSkene",
    "PanelEstimate",
    "dawid_skene",
    "dawid_skene_em",
    "judge_ppi_plus_plus",
    "judge_rogan_gladen",
    "majority_naive",
    "majority_rogan_gladen",
    "majority_verdicts",
    "panel_baselines",
    "panel_estimates",
]

#: The ``rule`` field of the panel-level baselines: the majority vote, the Dawid-Skene fit.
PANEL_RULES = ("majority", "dawid_skene")
#: The note of every row that assumes the gold items are a random sample (PPI++), as on the
#: difference rows of ``bayesjudge rank``.
RANDOM_SAMPLE_NOTE = "assumes the gold-labelled items are a random sample"

_EPS = 1e-10


def _check_data(data: object) -> PanelData:
    if not isinstance(data, PanelData):
        raise TypeError(f"data must be PanelData; got {type(data).__name__}")
    return data


def _counts(labels: NDArray[np.float64], verdicts: NDArray[np.float64]) -> JudgeCounts:
    """Return the six counts of one judge (labels NaN for unlabelled; no missing verdicts)."""
    gold_pass, gold_fail, test = labels == 1.0, labels == 0.0, np.isnan(labels)
    return JudgeCounts(
        m1=int(gold_pass.sum()),
        x1=int(verdicts[gold_pass].sum()),
        m0=int(gold_fail.sum()),
        x0=int(verdicts[gold_fail].sum()),
        n=int(test.sum()),
        k=int(verdicts[test].sum()),
    )


def _judge_data(labels: NDArray[np.float64], verdicts: NDArray[np.float64]) -> JudgeData:
    frame = pd.DataFrame(
        {"label": pd.array(labels, dtype="Float64").astype("Int64"), "verdict": verdicts}
    )
    return JudgeData.from_frame(frame)


def _answered_note(data: PanelData, judge: str, answered: int) -> str:
    return f"judge {judge!r} alone, on the {answered} of {data.n_items} items it answered"


def judge_rogan_gladen(data: PanelData, judge: str, *, prob: float = 0.95) -> Estimate:
    r"""Rogan-Gladen estimate of pi from one judge of the panel, with a delta-method interval.

    .. math:: \hat\pi = \mathrm{clip}\left(\frac{\hat p + \widehat{\mathrm{Sp}} - 1}
        {\widehat{\mathrm{Se}} + \widehat{\mathrm{Sp}} - 1}, 0, 1\right)

    on the items the judge answered (missing verdicts dropped, as missing at random allows).
    See :func:`bayesjudge.prevalence.rogan_gladen`.

    Raises
    ------
    DataError
        If the judge answered no gold item of a class or no unlabelled item.
    NotIdentifiableError
        If the judge's calibration :math:`\hat J \le 0`.

    Examples
    --------
    >>> data = PanelData.from_arrays([[1, 1], [0, 1], [1, 1], [0, 0], [1, 0]],
    ...                              labels=[1, 0, np.nan, np.nan, np.nan])
    >>> round(judge_rogan_gladen(data, "judge_0").estimate, 3)
    0.667
    """
    data = _check_data(data)
    labels, verdicts = data.judge(judge)
    estimate = rogan_gladen(_counts(labels, verdicts), prob=prob, interval="delta")
    return replace(estimate, notes=(_answered_note(data, judge, labels.size), *estimate.notes))


def judge_ppi_plus_plus(data: PanelData, judge: str, *, prob: float = 0.95) -> Estimate:
    r"""PPI++ estimate of pi from one judge of the panel (power-tuned lambda, CLT interval).

    .. math:: \hat\pi_\lambda = \frac{\lambda}{N}\sum_i \hat Y^u_i
        + \frac1n\sum_j (Y_j - \lambda \hat Y_j)

    on the items the judge answered; see :func:`bayesjudge.prevalence.ppi_plus_plus`. Assumes the
    gold items are a random sample of the same population, and says so in its notes (as the
    difference rows of ``bayesjudge rank`` do), whatever the gold set looks like.

    Examples
    --------
    >>> data = PanelData.from_arrays([[1, 1], [0, 1], [1, 1], [0, 0], [1, 0]],
    ...                              labels=[1, 0, np.nan, np.nan, np.nan])
    >>> estimate = judge_ppi_plus_plus(data, "judge_0")
    >>> estimate.method, estimate.notes[-1]
    ('ppi_plus_plus', 'assumes the gold-labelled items are a random sample')
    """
    data = _check_data(data)
    labels, verdicts = data.judge(judge)
    estimate = ppi_plus_plus(_judge_data(labels, verdicts), prob=prob)
    notes = (_answered_note(data, judge, labels.size), *estimate.notes, RANDOM_SAMPLE_NOTE)
    return replace(estimate, notes=notes)


def majority_verdicts(verdicts: NDArray[np.float64]) -> NDArray[np.float64]:
    """Return each item's majority verdict among the judges that answered it.

    PASS when more than half of the answering judges pass (ties are FAIL); NaN when no judge
    answered.

    Parameters
    ----------
    verdicts : ndarray, shape (items, judges)
        1.0, 0.0 or NaN.

    Examples
    --------
    >>> majority_verdicts(np.array([[1, 1, 0], [1, 0, np.nan], [np.nan, np.nan, np.nan]]))
    array([ 1.,  0., nan])
    """
    v = np.asarray(verdicts, dtype=float)
    answered = (~np.isnan(v)).sum(axis=1)
    passes = np.nansum(v, axis=1)
    out = (2.0 * passes > answered).astype(float)
    out[answered == 0] = np.nan
    return out


def majority_naive(data: PanelData, *, prob: float = 0.95) -> Estimate:
    """Naive majority-vote rate: the share of unlabelled items the panel's majority passes.

    The majority verdict among the answering judges (ties FAIL) of each unlabelled item, averaged,
    with a Wilson score interval; it ignores the judges' errors, like any naive rate. Method
    ``"naive"``.

    Examples
    --------
    >>> data = PanelData.from_arrays([[1, 1, 0], [0, 0, 1], [1, 1, 1], [0, 1, 0]],
    ...                              labels=[1, 0, np.nan, np.nan])
    >>> majority_naive(data).estimate
    0.5
    """
    data = _check_data(data)
    votes = majority_verdicts(data.verdicts)
    test = np.isnan(data.labels) & ~np.isnan(votes)
    if not test.any():
        return Estimate.not_identifiable("naive", "no unlabelled item has a verdict")
    n, k = int(test.sum()), int(votes[test].sum())
    low, high = wilson_interval(k, n, prob=prob)
    rate = k / n
    return Estimate(
        "naive",
        rate,
        Interval(float(low), float(high), prob, "wilson"),
        se=float(np.sqrt(rate * (1.0 - rate) / n)),
        notes=(f"majority of the answering judges (ties FAIL) on {n} unlabelled items",),
    )


def majority_rogan_gladen(data: PanelData, *, prob: float = 0.95) -> Estimate:
    """Majority vote, then Rogan-Gladen: the panel's majority verdict treated as one judge.

    The majority verdict's Se and Sp are estimated on the gold items like any judge's, so the
    tie rule (ties are FAIL) biases nothing; items no judge answered are left out. Method
    ``"majority_rogan_gladen"``.

    Examples
    --------
    >>> data = PanelData.from_arrays([[1, 1, 0], [0, 0, 1], [1, 1, 1], [0, 1, 0]],
    ...                              labels=[1, 0, np.nan, np.nan])
    >>> majority_rogan_gladen(data).estimate
    0.5
    """
    data = _check_data(data)
    votes = majority_verdicts(data.verdicts)
    answered = ~np.isnan(votes)
    estimate = rogan_gladen(
        _counts(data.labels[answered], votes[answered]), prob=prob, interval="delta"
    )
    notes = [f"majority of the answering judges (ties FAIL) on {int(answered.sum())} items"]
    return replace(estimate, method="majority_rogan_gladen", notes=(*notes, *estimate.notes))


@dataclass(frozen=True, slots=True, eq=False)
class DawidSkene:
    """The maximum-likelihood fit of the two-class Dawid-Skene model by EM.

    Attributes
    ----------
    pi : float
        Estimated share of PASS items.
    se, sp : ndarray, shape (J,)
        Each judge's estimated sensitivity and specificity.
    posterior : ndarray, shape (P,)
        P(PASS | pattern) of each pattern fitted.
    log_likelihood : float
        Log likelihood at the estimate.
    n_iter : int
        EM iterations run.
    converged : bool
        Whether no rate moved by more than ``tol`` in the last iteration, before ``max_iter``.
    flipped : bool
        Whether the classes were swapped at the end so that the judges' mean J is positive.
    """

    pi: float
    se: NDArray[np.float64]
    sp: NDArray[np.float64]
    posterior: NDArray[np.float64]
    log_likelihood: float
    n_iter: int
    converged: bool
    flipped: bool


def _log_likelihoods(
    passes: NDArray[np.float64],
    fails: NDArray[np.float64],
    pi: float,
    se: NDArray[np.float64],
    fpr: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    log1 = np.log(max(pi, _EPS)) + passes @ np.log(se) + fails @ np.log1p(-se)
    log0 = np.log(max(1.0 - pi, _EPS)) + passes @ np.log(fpr) + fails @ np.log1p(-fpr)
    return log1, log0


def dawid_skene_em(
    patterns: PanelPatterns, *, max_iter: int = 10_000, tol: float = 1e-10
) -> DawidSkene:
    r"""Fit the two-class Dawid-Skene model to verdict patterns by EM, ignoring gold labels.

    Judges are conditionally independent given the class:
    :math:`P(v) = \pi\prod_t \mathrm{Se}_t^{v_t}(1 - \mathrm{Se}_t)^{1 - v_t}
    + (1 - \pi)\prod_t (1 - \mathrm{Sp}_t)^{v_t}\mathrm{Sp}_t^{1 - v_t}`, missing verdicts
    dropping out. EM starts from the soft majority vote (each pattern's share of PASS votes),
    alternates the M-step (:math:`\pi` = mean posterior; :math:`\mathrm{Se}_t` = posterior-weighted
    share of PASS verdicts among the judge's answers) and the E-step, and stops when no rate
    moves by more than ``tol`` in an iteration (Dawid and Skene, 1979). Rates are kept
    inside [1e-10, 1 - 1e-10]. The EM runs on pattern counts, so its cost does not grow with the
    number of items. If the fit ends with the judges' mean J negative it is the mirror solution
    (same likelihood): the classes are swapped back.

    Parameters
    ----------
    patterns : PanelPatterns
        All rows are used as unlabelled, whatever their label; rows with no verdict are skipped.
    max_iter : int
        Most EM iterations.
    tol : float
        Convergence threshold on the largest change of pi, a sensitivity or a false-pass rate.

    Returns
    -------
    DawidSkene

    Examples
    --------
    >>> data = PanelData.from_arrays([[1, 1, 1], [1, 1, 0], [0, 0, 0], [0, 1, 0], [1, 1, 1]])
    >>> fit = dawid_skene_em(data.patterns())
    >>> round(fit.pi, 2), fit.converged
    (0.6, True)
    """
    if not isinstance(patterns, PanelPatterns):
        raise TypeError(f"patterns must be PanelPatterns; got {type(patterns).__name__}")
    answered = (patterns.verdict != MISSING).any(axis=1)
    passes = (patterns.verdict[answered] == 1).astype(float)
    fails = (patterns.verdict[answered] == 0).astype(float)
    weight = patterns.count[answered].astype(float)
    if weight.sum() == 0:
        raise DataError("Dawid-Skene needs items with at least one verdict; there are none")
    total = weight.sum()
    post = passes.sum(axis=1) / (passes + fails).sum(axis=1)
    pi, se, fpr = np.nan, np.full(patterns.n_judges, np.nan), np.full(patterns.n_judges, np.nan)
    log_lik = -np.inf
    converged = False
    n_iter = 0
    while n_iter < int(max_iter):
        n_iter += 1
        w1, w0 = weight * post, weight * (1.0 - post)
        new_pi = float(w1.sum() / total)
        new_se = np.clip((w1 @ passes) / np.maximum(w1 @ (passes + fails), _EPS), _EPS, 1 - _EPS)
        new_fpr = np.clip((w0 @ passes) / np.maximum(w0 @ (passes + fails), _EPS), _EPS, 1 - _EPS)
        change = max(abs(new_pi - pi), np.max(np.abs(new_se - se)), np.max(np.abs(new_fpr - fpr)))
        pi, se, fpr = new_pi, new_se, new_fpr
        log1, log0 = _log_likelihoods(passes, fails, pi, se, fpr)
        log_mix = np.logaddexp(log1, log0)
        post = np.exp(log1 - log_mix)
        log_lik = float(weight @ log_mix)
        if change < tol:
            converged = True
            break
    flipped = bool(np.mean(se - fpr) < 0.0)
    if flipped:
        pi, se, fpr, post = 1.0 - pi, fpr, se, 1.0 - post
    full = np.full(len(patterns), np.nan)
    full[answered] = post
    return DawidSkene(
        pi=pi,
        se=se,
        sp=1.0 - fpr,
        posterior=full,
        log_likelihood=log_lik,
        n_iter=n_iter,
        converged=converged,
        flipped=flipped,
    )


def dawid_skene(data: PanelData) -> Estimate:
    """Unsupervised Dawid-Skene estimate of pi on the panel's unlabelled items.

    Fits :func:`dawid_skene_em` to the unlabelled items only (the population whose pi is
    wanted; gold labels are not used) and reports its class share. Needs three or more judges
    (with two the model is not identified); it assumes conditionally independent judges and has
    no interval. Method ``"dawid_skene"``; ``j`` is the judges' mean fitted J.

    Examples
    --------
    >>> data = PanelData.from_arrays([[1, 1, 1], [1, 1, 0], [0, 0, 0], [0, 1, 0], [1, 1, 1]])
    >>> round(dawid_skene(data).estimate, 2)
    0.6
    """
    data = _check_data(data)
    method = "dawid_skene"
    if data.n_judges < 3:
        return Estimate.not_identifiable(
            method, f"Dawid-Skene needs at least three judges; the panel has {data.n_judges}"
        )
    patterns = data.patterns()
    unlabelled = patterns.label == UNLABELLED
    if not unlabelled.any():
        return Estimate.not_identifiable(method, "there are no unlabelled items")
    subset = PanelPatterns(
        judges=patterns.judges,
        label=patterns.label[unlabelled],
        verdict=patterns.verdict[unlabelled],
        count=patterns.count[unlabelled],
    )
    fit = dawid_skene_em(subset)
    notes = [
        "unsupervised (gold labels unused); assumes conditionally independent judges; no interval"
    ]
    if not fit.converged:
        notes.append(f"EM did not converge in {fit.n_iter} iterations")
    if fit.flipped:
        notes.append("EM ended on the mirror solution; classes swapped so that mean J > 0")
    skipped = int(subset.count[(subset.verdict == MISSING).all(axis=1)].sum())
    if skipped:
        notes.append(f"{skipped} unlabelled items with no verdict were left out")
    return Estimate(
        method=method,
        estimate=fit.pi,
        j=float(np.mean(fit.se + fit.sp - 1.0)),
        notes=tuple(notes),
    )


@dataclass(frozen=True, slots=True)
class PanelEstimate:
    """A baseline estimate of pi from one judge of the panel or from a panel-level rule.

    Attributes
    ----------
    estimate : Estimate
        The estimate.
    judge : str or None
        The judge, for a single-judge baseline.
    rule : str or None
        ``"majority"`` or ``"dawid_skene"`` (:data:`PANEL_RULES`), for a panel-level one.
    """

    estimate: Estimate
    judge: str | None = None
    rule: str | None = None

    def to_dict(self) -> dict[str, object]:
        """Return the JSON row: ``judge`` or ``rule`` first, then the estimate's fields."""
        owner = {"judge": self.judge} if self.judge is not None else {"rule": self.rule}
        return {**owner, **self.estimate.to_dict()}

    def to_row(self) -> dict[str, object]:
        """Return the table row: ``judge``, ``rule``, then the estimate's columns."""
        return {"judge": self.judge, "rule": self.rule, **self.estimate.to_row()}


def panel_estimates(data: PanelData, *, prob: float = 0.95) -> tuple[PanelEstimate, ...]:
    """Every panel baseline: each judge alone, then the majority vote and Dawid-Skene.

    For each judge ``rogan_gladen_delta`` and ``ppi_plus_plus`` (field ``judge``); then
    ``naive`` and ``majority_rogan_gladen`` of the majority vote (rule ``"majority"``) and
    ``dawid_skene`` (rule ``"dawid_skene"``). A method that cannot estimate (e.g. a judge whose
    calibration J <= 0) gives a row with no estimate and the reason in its note.

    Examples
    --------
    >>> data = PanelData.from_arrays([[1, 1, 0], [0, 0, 1], [1, 1, 1], [0, 1, 0]],
    ...                              labels=[1, 0, np.nan, np.nan], judges=["a", "b", "c"])
    >>> [(e.judge or e.rule, e.estimate.method) for e in panel_estimates(data)][-3:]
    [('majority', 'naive'), ('majority', 'majority_rogan_gladen'), ('dawid_skene', 'dawid_skene')]
    """
    data = _check_data(data)
    rows: list[PanelEstimate] = []

    def attempt(method: str, run: Callable[[], Estimate]) -> Estimate:
        try:
            return run()
        except (DataError, NotIdentifiableError) as exc:
            return Estimate.not_identifiable(method, str(exc))

    for judge in data.judges:
        for method, function in (
            ("rogan_gladen_delta", judge_rogan_gladen),
            ("ppi_plus_plus", judge_ppi_plus_plus),
        ):
            rows.append(
                PanelEstimate(attempt(method, partial(function, data, judge, prob=prob)), judge)
            )
    rows.append(
        PanelEstimate(attempt("naive", partial(majority_naive, data, prob=prob)), None, "majority")
    )
    rows.append(
        PanelEstimate(
            attempt("majority_rogan_gladen", partial(majority_rogan_gladen, data, prob=prob)),
            None,
            "majority",
        )
    )
    rows.append(
        PanelEstimate(attempt("dawid_skene", partial(dawid_skene, data)), None, "dawid_skene")
    )
    return tuple(rows)


def panel_baselines(data: PanelData, *, prob: float = 0.95) -> pd.DataFrame:
    """Every panel baseline in one table (:func:`panel_estimates`).

    Returns
    -------
    DataFrame
        Columns ``judge`` (None for the panel-level rows), ``rule`` (None for single judges),
        then :data:`bayesjudge.results.ROW_COLUMNS`.

    Examples
    --------
    >>> data = PanelData.from_arrays([[1, 1, 0], [0, 0, 1], [1, 1, 1], [0, 1, 0]],
    ...                              labels=[1, 0, np.nan, np.nan], judges=["a", "b", "c"])
    >>> panel_baselines(data)[["judge", "method"]].head(2).values.tolist()
    [['a', 'rogan_gladen_delta'], ['a', 'ppi_plus_plus']]
    """
    rows = panel_estimates(data, prob=prob)
    frame = estimates_frame([r.estimate for r in rows])
    frame.insert(0, "rule", [r.rule for r in rows])
    frame.insert(0, "judge", [r.judge for r in rows])
    return frame[["judge", "rule", *ROW_COLUMNS]]
