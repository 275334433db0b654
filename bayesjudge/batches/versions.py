r"""Two versions of a judge on the same items: a paired comparison of their verdicts.

A team changes its judge (a new model, a new prompt) and re-grades the same items. Each item
then has two verdicts, one per judge version, and some items have a gold label. Because both
judges saw the *same* items, the comparison is paired: per gold class, the 2x2 table of
(old verdict, new verdict) holds every item once, and the change in sensitivity or specificity
is read from the discordant cells alone.

Data
----
:class:`~bayesjudge.batches.versions_data.JudgeVersions` is the validated
data: the items both judges gave a verdict on, each with its two verdicts and a gold label on
some; items only one judge answered are listed, never dropped silently.
:func:`~bayesjudge.batches.versions_data.load_judge_versions` reads one table with two verdict
columns, two tables joined by item id, one evaluation log with two scorers, or two logs, and
joins gold labels kept in a separate sheet by id.

Model
-----
Within gold class :math:`c` (PASS, FAIL) the cells :math:`\theta_c = (\theta_{c,00},
\theta_{c,01}, \theta_{c,10}, \theta_{c,11})` (old verdict, new verdict) are given a Dirichlet
prior with every concentration :math:`a` (Jeffreys :math:`a = 1/2`, or uniform :math:`a = 1`),
so their posterior is :math:`\mathrm{Dirichlet}(a + n_{c,00}, \dots, a + n_{c,11})`. Then

.. math::

    \Delta S_e = P(\text{new PASS} \mid \text{gold PASS}) - P(\text{old PASS} \mid
    \text{gold PASS}) = \theta_{1,01} - \theta_{1,10}, \qquad
    \Delta S_p = \theta_{0,10} - \theta_{0,01},

and with :math:`\alpha = a + n`, :math:`\alpha_0 = \sum \alpha`, the posterior mean and variance
of :math:`D = \theta_{01} - \theta_{10}` are exact,

.. math::

    E[D] = \frac{\alpha_{01} - \alpha_{10}}{\alpha_0}, \qquad
    \mathrm{Var}[D] = \frac{\alpha_{01}(\alpha_0 - \alpha_{01}) + \alpha_{10}(\alpha_0 -
    \alpha_{10}) + 2\alpha_{01}\alpha_{10}}{\alpha_0^2(\alpha_0 + 1)},

and so is :math:`P(D > 0) = P(B > 1/2)` with :math:`B = \theta_{01} / (\theta_{01} +
\theta_{10}) \sim \mathrm{Beta}(\alpha_{01}, \alpha_{10})`. Equal-tailed intervals come from
Monte-Carlo draws of the Dirichlet posteriors. Each judge's own :math:`S_e` is a sum of two
cells, :math:`\mathrm{Beta}(\alpha_{10} + \alpha_{11}, \alpha_{00} + \alpha_{01})` for the old
judge; so the Jeffreys Dirichlet puts a uniform Beta(1, 1) prior on each judge's Se and Sp.

McNemar's exact test (McNemar, 1947), the frequentist baseline, is the two-sided binomial test
of :math:`n_{01}` successes in :math:`n_{01} + n_{10}` discordant pairs with probability 1/2
(:func:`scipy.stats.binomtest`).

The success rate when only the judge changed
--------------------------------------------
On the unlabelled items each judge gives its own corrected success rate: the prevalence
family's exact posterior (:func:`bayesjudge.prevalence.exact_posterior`, Jeffreys priors,
:math:`J > 0`) of that judge alone, with the Rogan-Gladen estimate beside it. The items are the
same, so the true rate is the same; if the corrected rates differ, one judge's calibration does
not carry over to the unlabelled items (the gold items are not like them, or the judge's errors
depend on something the gold set lacks). The posterior of the difference
:math:`\pi_{new} - \pi_{old}` uses the pairing: the calibration cells :math:`\theta_1,
\theta_0` as above and the unlabelled (old, new) cells :math:`q \sim \mathrm{Dirichlet}(a +
u)` are drawn jointly, each judge's rate is inverted as

.. math::

    \pi_j = \frac{R_j + S_{p,j} - 1}{S_{e,j} + S_{p,j} - 1}, \qquad
    R_{old} = q_{10} + q_{11},\ R_{new} = q_{01} + q_{11},

and draws are kept only where both judges have :math:`J > 0` and both rates lie in [0, 1] (the
prior restricted to where the prevalence model holds for each judge). Assumed: the gold items
of each class are a sample of that class among the unlabelled items (each judge's
:math:`P(\text{verdict} \mid \text{gold})`, and the two judges' joint verdicts given gold,
carry over); the unlabelled items are exchangeable. Shared items enter the difference once,
through the joint cells, so the two rates' common sampling noise cancels instead of adding.

Which judge to keep
-------------------
The one with the higher Youden :math:`J = S_e + S_p - 1`, with the posterior probability that
it is higher; beside it, which judge gives the narrower interval of :math:`\pi` for the same
labels.

References
----------
McNemar, Q. (1947). Note on the sampling error of the difference between correlated proportions
or percentages. *Psychometrika* 12, 153-157.
Rogan, W. J. and Gladen, B. (1978). Estimating prevalence from the results of a screening test.
*American Journal of Epidemiology* 107, 71-76.
Youden, W. J. (1950). Index for rating diagnostic tests. *Cancer* 3, 32-35.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from bayesjudge.batches.versions_data import JudgeVersions
from bayesjudge.errors import DataError, NotIdentifiableError
from bayesjudge.inference.provenance import provenance_attrs, seed_label
from bayesjudge.results import Estimate, Interval, PosteriorSummary
from bayesjudge.validation import check_choice, check_int, check_prob, seed_stream

__all__ = [
    "CLASSES",
    "PRIORS",
    "ClassComparison",
    "Difference",
    "JudgeComparison",
    "compare_judges",
    "dirichlet_difference",
    "mcnemar_exact",
]

#: The Dirichlet priors of the paired cells, by name: every cell's concentration.
type PriorName = Literal["jeffreys", "uniform"]
PRIORS: dict[str, float] = {"jeffreys": 0.5, "uniform": 1.0}

#: The item classes of the paired tables, in order.
CLASSES: tuple[str, ...] = ("gold_pass", "gold_fail", "unlabelled")

#: Fewest kept draws of the paired difference of pi for the analysis to pass.
MIN_KEPT = 1000


def dirichlet_difference(
    counts: ArrayLike, *, prior: PriorName = "jeffreys"
) -> tuple[float, float, float]:
    r"""Return the exact posterior mean, sd and P(> 0) of :math:`\theta_{01} - \theta_{10}`.

    The cells of a paired 2x2 table (old verdict x new verdict) have the posterior
    :math:`\mathrm{Dirichlet}(\alpha)`, :math:`\alpha = a + n` (:data:`PRIORS`). For
    :math:`D = \theta_{01} - \theta_{10}`, the share of items the new judge passes minus the
    share the old judge passes,

    .. math::

        E[D] = \frac{\alpha_{01} - \alpha_{10}}{\alpha_0}, \quad
        \mathrm{Var}[D] = \frac{\alpha_{01}(\alpha_0 - \alpha_{01}) + \alpha_{10}(\alpha_0 -
        \alpha_{10}) + 2\alpha_{01}\alpha_{10}}{\alpha_0^2(\alpha_0 + 1)}, \quad
        P(D > 0) = 1 - I_{1/2}(\alpha_{01}, \alpha_{10}),

    the last because :math:`\theta_{01}/(\theta_{01} + \theta_{10}) \sim
    \mathrm{Beta}(\alpha_{01}, \alpha_{10})` (the aggregation property of the Dirichlet
    distribution; Frigyik, Kapila and Gupta, "Introduction to the Dirichlet distribution and
    related processes", 2010).

    Parameters
    ----------
    counts : array_like, shape (2, 2)
        ``counts[o, n]``: items with old verdict ``o`` and new verdict ``n``.
    prior : {"jeffreys", "uniform"}
        Every cell's prior concentration: 1/2 or 1.

    Returns
    -------
    mean, sd, prob_positive : float

    Examples
    --------
    >>> mean, sd, p = dirichlet_difference([[10, 6], [1, 40]])
    >>> round(mean, 4), round(sd, 4), round(p, 3)
    (0.0847, 0.0463, 0.975)
    """
    check_choice(prior, name="prior", allowed=PRIORS)
    table = np.asarray(counts, dtype=float)
    if table.shape != (2, 2) or (table < 0).any():
        raise ValueError(f"counts must be a 2x2 table of non-negative counts; got {counts!r}")
    alpha = table.ravel() + PRIORS[prior]
    total = alpha.sum()
    a01, a10 = alpha[1], alpha[2]
    mean = (a01 - a10) / total
    var = (a01 * (total - a01) + a10 * (total - a10) + 2.0 * a01 * a10) / (total**2 * (total + 1.0))
    return float(mean), float(np.sqrt(var)), float(stats.beta.sf(0.5, a01, a10))


def mcnemar_exact(counts: ArrayLike) -> float:
    r"""Return the two-sided p-value of McNemar's exact test on a paired 2x2 table.

    Under the null hypothesis that the two judges pass an item equally often, each of the
    :math:`b + c` discordant pairs (:math:`b = n_{01}`, :math:`c = n_{10}`) is old-PASS/new-FAIL
    or old-FAIL/new-PASS with probability 1/2, so :math:`b \sim \mathrm{Bin}(b + c, 1/2)`; the
    p-value is :func:`scipy.stats.binomtest`'s two-sided one (McNemar, 1947), and 1 when there is
    no discordant pair.

    Parameters
    ----------
    counts : array_like, shape (2, 2)
        ``counts[o, n]``: items with old verdict ``o`` and new verdict ``n``.

    Examples
    --------
    >>> round(mcnemar_exact([[10, 6], [1, 40]]), 4)
    0.125
    """
    table = np.asarray(counts, dtype=np.int64)
    if table.shape != (2, 2) or (table < 0).any():
        raise ValueError(f"counts must be a 2x2 table of non-negative counts; got {counts!r}")
    b, c = int(table[0, 1]), int(table[1, 0])
    if b + c == 0:
        return 1.0
    return float(stats.binomtest(b, b + c, 0.5).pvalue)


def _beta_summary(name: str, a: float, b: float, prob: float) -> PosteriorSummary:
    dist = stats.beta(a, b)
    tail = (1.0 - prob) / 2.0
    return PosteriorSummary(
        name=name,
        mean=float(dist.mean()),
        sd=float(dist.std()),
        median=float(dist.median()),
        eti=Interval(float(dist.ppf(tail)), float(dist.ppf(1.0 - tail)), prob, "eti"),
    )


def _draw_summary(
    name: str,
    draws: NDArray[np.float64],
    prob: float,
    *,
    mean: float | None = None,
    sd: float | None = None,
) -> PosteriorSummary:
    tail = (1.0 - prob) / 2.0
    low, median, high = np.quantile(draws, [tail, 0.5, 1.0 - tail])
    return PosteriorSummary(
        name=name,
        mean=float(np.mean(draws)) if mean is None else mean,
        sd=float(np.std(draws, ddof=1)) if sd is None else sd,
        median=float(median),
        eti=Interval(float(low), float(high), prob, "eti"),
    )


@dataclass(frozen=True, slots=True)
class ClassComparison:
    """The paired table of one item class and what it says about the change of judge.

    Attributes
    ----------
    klass : str
        ``"gold_pass"``, ``"gold_fail"`` or ``"unlabelled"``.
    table : ndarray of int, shape (2, 2)
        ``table[o, n]``: items with old verdict ``o`` and new verdict ``n``.
    flip_rate : PosteriorSummary
        The share of items whose verdict changed, Beta posterior under the same prior.
    mcnemar_p : float
        McNemar's exact two-sided p-value (:func:`mcnemar_exact`).
    """

    klass: str
    table: NDArray[np.int64]
    flip_rate: PosteriorSummary
    mcnemar_p: float

    @property
    def n(self) -> int:
        """Items in the class."""
        return int(self.table.sum())

    @property
    def pass_to_fail(self) -> int:
        """Items the old judge passed and the new one failed."""
        return int(self.table[1, 0])

    @property
    def fail_to_pass(self) -> int:
        """Items the old judge failed and the new one passed."""
        return int(self.table[0, 1])

    def to_dict(self) -> dict[str, Any]:
        """Return the class's block of the JSON output."""
        return {
            "n": self.n,
            "table": self.table.tolist(),
            "pass_to_fail": self.pass_to_fail,
            "fail_to_pass": self.fail_to_pass,
            "flip_rate": self.flip_rate.to_dict(),
            "mcnemar_p": self.mcnemar_p,
        }


@dataclass(frozen=True, slots=True)
class Difference:
    """The posterior of a change (new minus old) and the probability that it is positive.

    Attributes
    ----------
    summary : PosteriorSummary or None
        Mean, sd, median and equal-tailed interval; None when fewer than two draws were kept.
    prob_positive : float
        Posterior probability that the change is above 0.
    exact : bool
        Whether mean, sd and ``prob_positive`` are closed forms (the interval is from draws).
    kept : int or None
        Draws kept (the paired difference of pi keeps only draws where both judges' models
        hold); None where no draw was dropped.
    """

    summary: PosteriorSummary | None
    prob_positive: float
    exact: bool
    kept: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"mean", "sd", "low", "high", "prob", "prob_positive", ...}``."""
        empty = dict.fromkeys(("mean", "sd", "low", "high", "prob"))
        out: dict[str, Any] = {
            **(empty if self.summary is None else self.summary.to_dict()),
            "prob_positive": self.prob_positive,
            "exact": self.exact,
        }
        if self.kept is not None:
            out["kept_draws"] = self.kept
        return out


@dataclass(frozen=True, slots=True, eq=False)
class JudgeComparison:
    r"""Two judge versions compared on the same items (:func:`compare_judges`).

    Attributes
    ----------
    data : JudgeVersions
        The paired data.
    prob : float
        Mass of every interval.
    prior : str
        The Dirichlet prior of the paired cells (``"jeffreys"`` or ``"uniform"``).
    seed : int or str
        The seed of the Monte-Carlo draws (``"numpy Generator"`` when a Generator was passed).
    draws : int
        Monte-Carlo draws.
    classes : dict of str to ClassComparison
        By :data:`CLASSES` (the unlabelled class only when there are unlabelled items).
    se, sp, j : dict of str to PosteriorSummary
        ``{"old": ..., "new": ...}``: each judge's Se, Sp, J from the gold items.
    change : dict of str to Difference
        ``{"se": ..., "sp": ..., "j": ...}``: new minus old.
    pi : dict of str to PosteriorSummary, or None
        ``{"old": ..., "new": ...}``: each judge's corrected success rate on the unlabelled
        items (exact posterior of the prevalence model); None without unlabelled items.
    rogan_gladen : dict of str to Estimate, or None
        Each judge's Rogan-Gladen estimate on the unlabelled items (delta-method interval).
    pi_change : Difference or None
        The paired posterior of :math:`\pi_{new} - \pi_{old}` on the same unlabelled items.
    keep : str
        ``"old"`` or ``"new"``: the judge with the higher posterior mean J.
    narrower : str or None
        The judge whose interval of pi is narrower (None without unlabelled items).
    posterior : DataTree
        The Monte-Carlo draws (group ``posterior``, dims ``chain`` (one), ``draw``, ``judge``):
        ``se``, ``sp``, ``j`` per judge, ``se_change``, ``sp_change``, ``j_change`` and
        ``pi_change`` (NaN in the draws not kept); attrs with the provenance.
    notes : tuple of str
        What was left out, and why.
    """

    data: JudgeVersions
    prob: float
    prior: str
    seed: int | str
    draws: int
    classes: dict[str, ClassComparison]
    se: dict[str, PosteriorSummary]
    sp: dict[str, PosteriorSummary]
    j: dict[str, PosteriorSummary]
    change: dict[str, Difference]
    pi: dict[str, PosteriorSummary] | None
    rogan_gladen: dict[str, Estimate] | None
    pi_change: Difference | None
    keep: str
    narrower: str | None
    posterior: xr.DataTree
    notes: tuple[str, ...] = field(default=())

    @property
    def passed(self) -> bool:
        """Whether enough Monte-Carlo draws of the paired difference of pi were kept.

        The draws are kept where both judges have J > 0 and both rates lie in [0, 1]; fewer
        than :data:`MIN_KEPT` kept means the data put most posterior mass where one judge's
        model does not hold, and the difference is not reported as an answer.
        """
        return self.pi_change is None or (self.pi_change.kept or 0) >= MIN_KEPT

    @property
    def keep_name(self) -> str:
        """The name of the judge to keep."""
        return self.data.names[0 if self.keep == "old" else 1]

    def failures(self) -> list[str]:
        """Return why the analysis did not pass (empty when it did)."""
        if self.passed or self.pi_change is None:
            return []
        return [
            f"the paired difference of pi kept {self.pi_change.kept} of {self.draws} draws "
            f"(fewer than {MIN_KEPT}): most posterior mass has a judge with J <= 0 or a rate "
            "outside [0, 1]; label more items"
        ]

    def reason(self) -> str:
        """Say which judge to keep, and why, in one sentence."""
        p_new = self.change["j"].prob_positive
        p_keep = p_new if self.keep == "new" else 1.0 - p_new
        text = (
            f"keep {self.keep_name!r} ({self.keep}): higher Youden J, posterior probability "
            f"{p_keep:.3f}"
        )
        if self.narrower is not None:
            name = self.data.names[0 if self.narrower == "old" else 1]
            agree = "the same judge" if self.narrower == self.keep else "the other judge"
            text += f"; the narrower interval of pi comes from {name!r} ({agree})"
        return text

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON object of ``bayesjudge judges --json``.

        ``{"judges": {"old", "new"}, "prior", "prob", "seed", "draws", "classes": {CLASS:
        {"n", "table", "pass_to_fail", "fail_to_pass", "flip_rate": S, "mcnemar_p"}}, "se":
        {"old": S, "new": S, "change": D}, "sp": ..., "j": ..., "pi": {"old": S, "new": S,
        "change": D, "rogan_gladen": {"old": row, "new": row}} or null, "keep": {"judge",
        "name", "prob_higher_j", "narrower_pi", "reason"}, "passed", "failures", "notes",
        "input": {...}}`` with ``S = {"mean", "sd", "low", "high", "prob"}`` and ``D`` adding
        ``prob_positive``, ``exact`` and (for pi) ``kept_draws``.
        """
        pi: dict[str, Any] | None = None
        if self.pi is not None and self.rogan_gladen is not None:
            pi = {
                "old": self.pi["old"].to_dict(),
                "new": self.pi["new"].to_dict(),
                "change": None if self.pi_change is None else self.pi_change.to_dict(),
                "rogan_gladen": {k: e.to_dict() for k, e in self.rogan_gladen.items()},
            }
        p_new = self.change["j"].prob_positive
        return {
            "judges": {"old": self.data.names[0], "new": self.data.names[1]},
            "prior": self.prior,
            "prob": self.prob,
            "seed": self.seed,
            "draws": self.draws,
            "classes": {k: c.to_dict() for k, c in self.classes.items()},
            **{
                name: {
                    "old": getattr(self, name)["old"].to_dict(),
                    "new": getattr(self, name)["new"].to_dict(),
                    "change": self.change[name].to_dict(),
                }
                for name in ("se", "sp", "j")
            },
            "pi": pi,
            "keep": {
                "judge": self.keep,
                "name": self.keep_name,
                "prob_higher_j": p_new if self.keep == "new" else 1.0 - p_new,
                "narrower_pi": self.narrower,
                "reason": self.reason(),
            },
            "passed": self.passed,
            "failures": self.failures(),
            "notes": list(self.notes),
            "input": self.data.input_dict(),
        }

    def to_frame(self) -> pd.DataFrame:
        """Return every summary as one table.

        Columns ``quantity`` (``se``, ``sp``, ``j``, ``pi``, ``flip_rate``), ``subject``
        (``old``, ``new``, ``change``, or a class of :data:`CLASSES`), ``mean``, ``sd``,
        ``low``, ``high``, ``prob``, and for changes ``prob_positive``, ``exact`` and (pi)
        ``kept_draws``.
        """
        rows: list[dict[str, Any]] = []
        for name in ("se", "sp", "j"):
            for who in ("old", "new"):
                rows.append(
                    {"quantity": name, "subject": who, **getattr(self, name)[who].to_dict()}
                )
            change = self.change[name]
            rows.append({"quantity": name, "subject": "change", **change.to_dict()})
        if self.pi is not None:
            for who in ("old", "new"):
                rows.append({"quantity": "pi", "subject": who, **self.pi[who].to_dict()})
            if self.pi_change is not None and self.pi_change.summary is not None:
                rows.append({"quantity": "pi", "subject": "change", **self.pi_change.to_dict()})
        for klass, comparison in self.classes.items():
            rows.append(
                {"quantity": "flip_rate", "subject": klass, **comparison.flip_rate.to_dict()}
            )
        frame = pd.DataFrame(rows)
        if "kept_draws" in frame.columns:
            frame["kept_draws"] = frame["kept_draws"].astype("Int64")
        return frame

    def summary(self) -> Any:
        """Return the one-screen summary (a :class:`~bayesjudge.reporting.summary.ReportSummary`).

        Its headline is the change in Youden's J, new minus old, and the judge to keep.
        """
        from bayesjudge.reporting.summary import (
            DEFINITIONS,
            Headline,
            ReportSummary,
            ReportWarning,
        )

        j = self.change["j"].summary
        assert j is not None  # the changes of Se, Sp and J always have their draws
        headline = Headline(
            "change in Youden's J (new - old)",
            j.mean,
            j.eti.low,
            j.eti.high,
            self.prob,
            unit="points",
            answer=f"Keep {self.keep_name} ({self.keep})",
        )
        warnings: list[ReportWarning | None] = []
        unpaired = self.data.unpaired_note()
        if unpaired is not None:
            warnings.append(ReportWarning("Items not paired", unpaired))
        for failure in self.failures():
            warnings.append(ReportWarning("Difference of pi not supported", failure))
        if self.passed and self.pi_change is not None and self.pi_change.summary is not None:
            d = self.pi_change.summary
            if not d.eti.contains(0.0):
                warnings.append(
                    ReportWarning(
                        "Corrected success rate moves with the judge alone",
                        f"pi_new - pi_old has the {self.prob:g} interval "
                        f"[{d.eti.low:+.3f}, {d.eti.high:+.3f}] on the same items",
                        "One judge's calibration does not carry over to the unlabelled items: "
                        "check that the gold items are like them.",
                    )
                )
        reading = self.reason() + "."
        return ReportSummary(
            headline,
            diagnostics=None,
            definitions=DEFINITIONS.items(),
            trust="The paired posterior: the same items graded by both judges, so the change "
            "is read from the items whose verdict changed (McNemar's exact test beside it)",
            reading=reading[0].upper() + reading[1:],
            warnings=warnings,
            exact_note="closed-form Beta and Dirichlet posteriors, intervals from independent "
            "Monte-Carlo draws: no sampler, nothing to check",
            hedge_wide=False,  # the reading states the probability, which weighs the width
        )


def compare_judges(
    data: JudgeVersions,
    *,
    prob: float = 0.95,
    prior: PriorName = "jeffreys",
    draws: int = 40_000,
    random_seed: int | np.random.Generator | None = None,
) -> JudgeComparison:
    r"""Compare two judge versions on the same items (see the module docstring for the model).

    Per gold class: the paired 2x2 table, the flip rate (Beta posterior of the share of changed
    verdicts) and McNemar's exact p-value. From the gold items: each judge's Se, Sp and J and
    the posterior of their changes, paired through the Dirichlet posterior of each class's
    cells (exact mean, sd and :math:`P(\Delta > 0)` for Se and Sp by
    :func:`dirichlet_difference`; exact mean and sd for J; intervals and :math:`P(\Delta J >
    0)` from ``draws`` Monte-Carlo draws). On the unlabelled items: each judge's corrected
    success rate (exact posterior of the prevalence model, Jeffreys priors, J > 0; Rogan-Gladen
    beside it) and the paired posterior of their difference. Which judge to keep: the one with
    the higher posterior mean J.

    Parameters
    ----------
    data : JudgeVersions
        The paired verdicts; both gold classes must have at least one paired item.
    prob : float
        Mass of every interval.
    prior : {"jeffreys", "uniform"}
        Dirichlet prior of the paired cells: every cell 1/2 (Jeffreys) or 1 (uniform).
    draws : int
        Monte-Carlo draws of the Dirichlet posteriors (at least 1000).
    random_seed : int, Generator or None
        Seed of the draws (``None``: the default seed).

    Returns
    -------
    JudgeComparison

    Raises
    ------
    DataError
        If a gold class has no paired item (its Se or Sp cannot be compared).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> gold = np.r_[np.ones(60), np.zeros(60), np.full(200, np.nan)]
    >>> truth = np.where(np.isnan(gold), rng.random(320) < 0.7, gold == 1)
    >>> old = np.where(truth, rng.random(320) < 0.8, rng.random(320) < 0.2).astype(float)
    >>> new = np.where(truth, rng.random(320) < 0.9, rng.random(320) < 0.1).astype(float)
    >>> frame = pd.DataFrame({"item": range(320), "v1": old, "v2": new, "label": gold})
    >>> result = compare_judges(JudgeVersions.from_frame(frame, old="v1", new="v2"))
    >>> result.keep, result.change["j"].prob_positive > 0.9
    ('new', True)
    """
    prob = check_prob(prob)
    check_choice(prior, name="prior", allowed=PRIORS)
    draws = check_int(draws, name="draws", minimum=1000)
    if not isinstance(data, JudgeVersions):
        raise TypeError(f"data must be JudgeVersions; got {type(data).__name__}")
    tables = data.tables()
    n_fail, n_pass = data.n_labelled
    empty = [name for name, n in (("gold-PASS", n_pass), ("gold-FAIL", n_fail)) if n == 0]
    if empty:
        raise DataError(
            f"no paired {' or '.join(empty)} item: the change in "
            f"{'Se' if 'gold-PASS' in empty else 'Sp'} cannot be measured; give gold labels "
            "of both classes (--labels)"
        )
    a = PRIORS[prior]
    rng = seed_stream(random_seed, "draws")
    seed = seed_label(random_seed)

    classes: dict[str, ClassComparison] = {}
    for position, klass in enumerate(CLASSES):
        table = tables[position]
        if table.sum() == 0:
            continue
        flips = int(table[0, 1] + table[1, 0])
        classes[klass] = ClassComparison(
            klass=klass,
            table=table,
            flip_rate=_beta_summary(
                f"flip_rate[{klass}]", a + flips, a + int(table.sum()) - flips, prob
            ),
            mcnemar_p=mcnemar_exact(table),
        )

    # each class's cells: Dirichlet posterior draws, columns 00, 01, 10, 11
    cells = [rng.dirichlet(tables[k].ravel() + a, size=draws) for k in range(3)]
    pos, neg = cells[0], cells[1]
    se_draws = {"old": pos[:, 2] + pos[:, 3], "new": pos[:, 1] + pos[:, 3]}
    sp_draws = {"old": neg[:, 0] + neg[:, 1], "new": neg[:, 0] + neg[:, 2]}
    alpha = [tables[k].ravel() + a for k in range(2)]
    se = {
        "old": _beta_summary("se[old]", alpha[0][2] + alpha[0][3], alpha[0][0] + alpha[0][1], prob),
        "new": _beta_summary("se[new]", alpha[0][1] + alpha[0][3], alpha[0][0] + alpha[0][2], prob),
    }
    sp = {
        "old": _beta_summary("sp[old]", alpha[1][0] + alpha[1][1], alpha[1][2] + alpha[1][3], prob),
        "new": _beta_summary("sp[new]", alpha[1][0] + alpha[1][2], alpha[1][1] + alpha[1][3], prob),
    }
    j = {
        who: _draw_summary(
            f"j[{who}]",
            se_draws[who] + sp_draws[who] - 1.0,
            prob,
            mean=se[who].mean + sp[who].mean - 1.0,
            sd=float(np.hypot(se[who].sd, sp[who].sd)),
        )
        for who in ("old", "new")
    }
    d_se = dirichlet_difference(tables[0], prior=prior)
    # Sp_new - Sp_old = theta_10 - theta_01: the transposed table's difference
    d_sp = dirichlet_difference(tables[1].T, prior=prior)
    se_change = se_draws["new"] - se_draws["old"]
    sp_change = sp_draws["new"] - sp_draws["old"]
    j_change = se_change + sp_change
    change = {
        "se": Difference(
            _draw_summary("change[se]", se_change, prob, mean=d_se[0], sd=d_se[1]), d_se[2], True
        ),
        "sp": Difference(
            _draw_summary("change[sp]", sp_change, prob, mean=d_sp[0], sd=d_sp[1]), d_sp[2], True
        ),
        "j": Difference(
            _draw_summary(
                "change[j]",
                j_change,
                prob,
                mean=d_se[0] + d_sp[0],
                sd=float(np.hypot(d_se[1], d_sp[1])),
            ),
            float(np.mean(j_change > 0.0)),
            False,
        ),
    }
    keep = (
        "new" if d_se[0] + d_sp[0] > 0.0 else "old"
    )  # the exact posterior mean of the change in J

    notes: list[str] = []
    unpaired = data.unpaired_note()
    if unpaired is not None:
        notes.append(unpaired)
    pi = rogan = pi_change = None
    narrower = None
    pi_draws = None
    if data.n_unlabelled:
        pi, rogan = _each_judge_pi(tables, prob)
        pi_change, pi_draws = _paired_pi_change(cells, se_draws, sp_draws, prob)
        widths = {who: pi[who].eti.width for who in ("old", "new")}
        narrower = "new" if widths["new"] < widths["old"] else "old"
    else:
        notes.append("no unlabelled paired items: the corrected success rates are not compared")
    return JudgeComparison(
        data=data,
        prob=prob,
        prior=prior,
        seed=seed,
        draws=draws,
        classes=classes,
        se=se,
        sp=sp,
        j=j,
        change=change,
        pi=pi,
        rogan_gladen=rogan,
        pi_change=pi_change,
        keep=keep,
        narrower=narrower,
        posterior=_posterior_tree(
            data,
            {"se": se_draws, "sp": sp_draws},
            {"se_change": se_change, "sp_change": sp_change, "j_change": j_change},
            pi_draws,
            prior=prior,
            random_seed=random_seed,
        ),
        notes=tuple(notes),
    )


def _posterior_tree(
    data: JudgeVersions,
    each: dict[str, dict[str, NDArray[np.float64]]],
    changes: dict[str, NDArray[np.float64]],
    pi_change: NDArray[np.float64] | None,
    *,
    prior: str,
    random_seed: int | np.random.Generator | None,
) -> xr.DataTree:
    """Return the draws as an ArviZ-style DataTree with the provenance in its attrs."""
    import json

    judge = {name: np.stack([draws["old"], draws["new"]], axis=-1) for name, draws in each.items()}
    judge["j"] = judge["se"] + judge["sp"] - 1.0
    variables: dict[str, Any] = {
        name: (("chain", "draw", "judge"), values[None]) for name, values in judge.items()
    }
    variables.update({name: (("chain", "draw"), values[None]) for name, values in changes.items()})
    if pi_change is not None:
        variables["pi_change"] = (("chain", "draw"), pi_change[None])
    size = next(iter(changes.values())).size
    dataset = xr.Dataset(
        variables, coords={"chain": [0], "draw": np.arange(size), "judge": ["old", "new"]}
    )
    tree = xr.DataTree.from_dict({"posterior": dataset})
    tree.attrs.update(provenance_attrs(random_seed))
    tree.attrs.update(
        {
            "model": "judge_versions",
            "method": "closed-form Dirichlet posteriors of the paired cells, Monte-Carlo draws",
            "prior": f"Dirichlet, every cell {PRIORS[prior]:g} ({prior})",
            "judges": json.dumps({"old": data.names[0], "new": data.names[1]}),
        }
    )
    return tree


def _each_judge_pi(
    tables: NDArray[np.int64], prob: float
) -> tuple[dict[str, PosteriorSummary], dict[str, Estimate]]:
    """Each judge alone: the prevalence family's exact posterior of pi and Rogan-Gladen."""
    from bayesjudge.prevalence import JudgeCounts, exact_posterior, rogan_gladen

    pos, neg, unl = tables
    # old passes: row 1 of each table; new passes: column 1
    passes = {
        "old": (pos[1].sum(), neg[1].sum(), unl[1].sum()),
        "new": (pos[:, 1].sum(), neg[:, 1].sum(), unl[:, 1].sum()),
    }
    pi: dict[str, PosteriorSummary] = {}
    rogan: dict[str, Estimate] = {}
    for who, (x1, x0, k) in passes.items():
        counts = JudgeCounts(
            m1=int(pos.sum()), x1=int(x1), m0=int(neg.sum()), x0=int(x0), n=int(unl.sum()), k=int(k)
        )
        post = exact_posterior(counts)
        pi[who] = PosteriorSummary(
            name=f"pi[{who}]",
            mean=post.mean,
            sd=post.sd,
            median=float(post.quantile(0.5)),
            eti=post.eti(prob),
        )
        try:
            rogan[who] = rogan_gladen(counts, prob=prob)
        except NotIdentifiableError as exc:
            rogan[who] = Estimate.not_identifiable(
                "rogan_gladen_delta", f"J = {exc.j:.3g} <= 0 on the gold items", j=exc.j
            )
    return pi, rogan


def _paired_pi_change(
    cells: list[NDArray[np.float64]],
    se: dict[str, NDArray[np.float64]],
    sp: dict[str, NDArray[np.float64]],
    prob: float,
) -> tuple[Difference, NDArray[np.float64]]:
    """Return the paired posterior of pi_new - pi_old (joint cells, kept where both models hold)."""
    q = cells[2]
    rate = {"old": q[:, 2] + q[:, 3], "new": q[:, 1] + q[:, 3]}
    pi = {}
    ok = np.ones(q.shape[0], dtype=bool)
    for who in ("old", "new"):
        j = se[who] + sp[who] - 1.0
        with np.errstate(divide="ignore", invalid="ignore"):
            pi[who] = (rate[who] + sp[who] - 1.0) / j
        ok &= (j > 0.0) & (pi[who] >= 0.0) & (pi[who] <= 1.0)
    kept = int(ok.sum())
    every = np.where(ok, pi["new"] - pi["old"], np.nan)
    if kept < 2:
        return Difference(None, float("nan"), False, kept), every
    diff = every[ok]
    summary = _draw_summary("change[pi]", diff, prob)
    return Difference(summary, float(np.mean(diff > 0.0)), False, kept), every
