r"""A panel of judges with correlated errors: the random-effects latent-class model.

Model family 5 of bayesjudge (DESIGN.md). ``J`` judges give binary verdicts on the same items; some
items carry a gold label. Each item has a true class :math:`c \in \{0, 1\}` (FAIL, PASS; PASS
with probability :math:`\pi` on the unlabelled items) and a latent difficulty
:math:`z \sim N(0, 1)` shared by all judges; given both, the verdicts are independent with

.. math::

    P(V_t = 1 \mid c, z) = \Phi\!\left(\frac{\mu_{tc} + \lambda_{tc} z}
        {\sqrt{1 - \lambda_{tc}^2}}\right),\qquad
    \mathrm{Se}_t = \Phi(\mu_{t1}),\quad 1 - \mathrm{Sp}_t = \Phi(\mu_{t0}),

the probit random-effects latent-class model of Qu, Tan and Kutner ("Random effects models in
latent class analysis for evaluating accuracy of diagnostic tests", Biometrics, 1996), written so
that :math:`\mathrm{Se}_t` and :math:`\mathrm{Sp}_t` stay the judge's *marginal* accuracy. The
loading :math:`\lambda_{tc} \in [0, 0.99]` is how strongly judge :math:`t` follows the shared
difficulty in class :math:`c`; judges :math:`s, t` have latent correlation
:math:`\lambda_{sc}\lambda_{tc}` given the class. ``dependence="none"`` fixes every loading at 0
(conditionally independent judges: the latent-class model of Hui and Walter, "Estimating the
error rates of diagnostic tests", Biometrics, 1980, and of Dawid and Skene, 1979).
:mod:`bayesjudge.panels.dependence` has the closed forms and the derived quantities (error
correlations, effective number of judges); :mod:`bayesjudge.panels.rules` the vote rules.

**Likelihood on patterns.** :math:`z` is integrated out by quadrature
(:func:`bayesjudge.panels.dependence.latent_grid`), so an item enters only through its gold label
(or its absence) and its verdict pattern, missing verdicts dropping out of the product (missing
at random). Gold-labelled items contribute :math:`\log P(v \mid c)`; unlabelled items the
mixture :math:`\log[\pi P(v \mid 1) + (1 - \pi) P(v \mid 0)]`. Each distinct (label, pattern)
row enters once, times its count; the rows are ``pm.Data`` padded with count-0 rows to a fixed
length, so a refit on new data of the same padded length needs no rebuild.

**Label switching.** Relabelling the classes (:math:`\pi \to 1 - \pi`,
:math:`\mathrm{Se}_t \to 1 - \mathrm{Sp}_t`, :math:`\mathrm{Sp}_t \to 1 - \mathrm{Se}_t`, the two
classes' loadings swapped) leaves the unlabelled likelihood unchanged and flips the sign of every
judge's :math:`J_t` at once. The prior removes the mirror for the *panel*, not per judge: with
:math:`d_t = \Phi^{-1}(\mathrm{Se}_t) + \Phi^{-1}(\mathrm{Sp}_t)` (judge :math:`t`'s
:math:`d'`, positive exactly when :math:`J_t > 0`), it is the stated prior conditioned on the
mean :math:`\bar d > 0`. Every point with :math:`\bar d > 0` has its mirror at
:math:`\bar d < 0`, so this is the smallest restriction that removes the mirror mode, and one
judge worse than chance inside a good panel is still allowed (a per-judge restriction would
forbid it and bias such a judge's estimate). With one judge it is the prevalence model's
:math:`J > 0` restriction.

Built exactly and without a wall: the prior makes :math:`\Phi^{-1}(\mathrm{Se}_t)` and
:math:`\Phi^{-1}(\mathrm{Sp}_t)` independent :math:`N(m, s^2)` (uniform Se and Sp for the default
:math:`m = 0, s = 1`). Then :math:`d_t \sim N(2m, 2s^2)` and the criterion
:math:`k_t = (\Phi^{-1}(\mathrm{Sp}_t) - \Phi^{-1}(\mathrm{Se}_t))/2 \sim N(0, s^2/2)` are
independent, and for iid normal :math:`d_t` the mean :math:`\bar d \sim N(2m, 2s^2/J)` is
independent of the deviations :math:`d_t - \bar d` (a zero-sum normal with scale
:math:`\sqrt 2 s`). Conditioning on :math:`\bar d > 0` truncates only the mean, so the model
samples ``dprime_mean`` from the truncated normal and ``dprime_offset`` from
``pm.ZeroSumNormal``; :math:`d_t` = ``dprime_mean + dprime_offset``,
:math:`\mathrm{Se}_t = \Phi(d_t/2 - k_t)`, :math:`\mathrm{Sp}_t = \Phi(d_t/2 + k_t)`.

**Identifiability.** With gold labels of both classes each class's pattern law is observed
directly; it has :math:`2^J - 1` free cells (with no missing verdicts) against :math:`2J`
parameters (:math:`\mu_{tc}, \lambda_{tc}`). With two judges only the product
:math:`\lambda_{1c}\lambda_{2c}` (the pair's correlation) is identified and the loadings are
spread along a ridge by their prior; from three judges on, each loading is identified when the
latent correlations are not zero (:math:`\lambda_1^2 = \rho_{12}\rho_{13}/\rho_{23}`). Without
gold labels the random-effects model has :math:`4J + 1` parameters against :math:`2^J - 1`
cells, so it needs at least five judges by that count (and in practice far more data), while the
conditionally independent model needs three (:math:`2J + 1 \le 2^J - 1`); hence
``dependence="random_effect"`` requires gold labels of both classes here. pi is identified from
the unlabelled items once the two classes' pattern laws differ (some judge has :math:`J_t \ne 0`).
The one-factor form cannot represent two separate groups of copies (A with A', B with B', A and B
independent): their cross-correlation is the product of loadings.

Variables (dims in brackets; ``class`` is (fail, pass)):

* free: ``pi``, ``dprime_mean``, ``dprime_offset`` [judge] (two or more judges), ``criterion``
  [judge], ``loading_share`` [class, judge] (``dependence="random_effect"``);
* derived: ``dprime``, ``se``, ``sp``, ``j`` [judge]; ``loading`` [class, judge]
  (:math:`0.99 \times` ``loading_share``, or zeros);
* data: ``pattern_label`` [pattern], ``pattern_verdict`` [pattern, judge], ``pattern_count``
  [pattern];
* potentials: ``loglik`` and, with ``calibration="random"``, ``calibration_labels``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from bayesjudge.panels.data import MISSING, UNLABELLED, PanelData, PanelPatterns
from bayesjudge.panels.dependence import LOADING_MAX, QUADRATURE_SIZE, latent_grid
from bayesjudge.priors import JEFFREYS, Beta

__all__ = [
    "CALIBRATION",
    "CLASSES",
    "DEPENDENCE",
    "PANEL",
    "PanelPriors",
    "pad_patterns",
    "panel_model",
]

#: Name of the model, as recorded in posterior attrs.
PANEL = "panel"
#: The class coordinate: index 0 FAIL, 1 PASS.
CLASSES = ("fail", "pass")
Calibration = Literal["by_class", "random"]
Dependence = Literal["random_effect", "none"]
#: How the gold-labelled items were chosen (see :func:`panel_model`).
CALIBRATION: tuple[str, ...] = get_args(Calibration)
#: The dependence structures (see :func:`panel_model`).
DEPENDENCE: tuple[str, ...] = get_args(Dependence)


@dataclass(frozen=True, slots=True)
class PanelPriors:
    r"""Priors of the panel model, as plain values.

    Attributes
    ----------
    pi : Beta
        Prior of the true success rate of the unlabelled items (Jeffreys by default).
    probit_mean, probit_sd : float
        :math:`\Phi^{-1}(\mathrm{Se}_t)` and :math:`\Phi^{-1}(\mathrm{Sp}_t)` are independent
        :math:`N(\text{probit\_mean}, \text{probit\_sd}^2)` before the panel's mirror image is
        removed; the default N(0, 1) makes each Se and Sp uniform on (0, 1).
    loading : Beta
        Prior of each loading divided by its maximum 0.99 (uniform by default).

    Examples
    --------
    >>> PanelPriors().as_dict()["probit"]
    'Normal(0, 1)'
    """

    pi: Beta = field(default=JEFFREYS)
    probit_mean: float = 0.0
    probit_sd: float = 1.0
    loading: Beta = field(default=Beta(1.0, 1.0))

    def __post_init__(self) -> None:
        if not np.isfinite(self.probit_mean):
            raise ValueError(f"probit_mean must be finite; got {self.probit_mean!r}")
        if not self.probit_sd > 0:
            raise ValueError(f"probit_sd must be positive; got {self.probit_sd!r}")

    def as_dict(self) -> dict[str, str]:
        """Return the priors as text, e.g. for DataTree attrs."""
        return {
            "pi": str(self.pi),
            "probit": f"Normal({self.probit_mean:g}, {self.probit_sd:g})",
            "loading": f"{LOADING_MAX:g} * {self.loading}",
        }


def pad_patterns(patterns: PanelPatterns, size: int) -> dict[str, np.ndarray]:
    """Return the pattern arrays padded with count-0 rows to length ``size``.

    Padding rows are unlabelled with every verdict missing and count 0, so they add exactly 0 to
    the log likelihood.

    Raises
    ------
    ValueError
        If ``size`` is smaller than the number of patterns.

    Examples
    --------
    >>> data = PanelData.from_arrays([[1, 0], [1, 1]], labels=[1, np.nan])
    >>> padded = pad_patterns(data.patterns(), 4)
    >>> padded["pattern_count"].tolist(), padded["pattern_verdict"][-1].tolist()
    ([1.0, 1.0, 0.0, 0.0], [-1, -1])
    """
    n = len(patterns)
    if isinstance(size, bool) or int(size) != size or size < n:
        raise ValueError(
            f"size must be a whole number >= the number of patterns ({n}); got {size!r}"
        )
    extra = int(size) - n
    return {
        "pattern_label": np.concatenate([patterns.label, np.full(extra, UNLABELLED)]).astype(
            np.int64
        ),
        "pattern_verdict": np.concatenate(
            [patterns.verdict, np.full((extra, patterns.n_judges), MISSING)]
        ).astype(np.int8),
        "pattern_count": np.concatenate([patterns.count, np.zeros(extra)]).astype(np.float64),
    }


def _std_normal_logcdf(x: pt.TensorVariable) -> pt.TensorVariable:
    return pm.logcdf(pm.Normal.dist(0.0, 1.0), x)


def panel_model(
    data: PanelPatterns | PanelData,
    *,
    priors: PanelPriors | None = None,
    dependence: Dependence = "random_effect",
    calibration: Calibration = "by_class",
    n_patterns: int | None = None,
    quadrature_size: int = QUADRATURE_SIZE,
) -> pm.Model:
    r"""Build the latent-class model of a judge panel from its (label, pattern) counts.

    See the module docstring for the model, the panel-level :math:`\bar d > 0` restriction and
    the identifiability conditions (Qu, Tan and Kutner, 1996; DESIGN.md family 5).

    Parameters
    ----------
    data : PanelPatterns or PanelData
        Distinct (label, verdict pattern) rows with counts; panel data are reduced to them.
    priors : PanelPriors, optional
        Priors as plain values.
    dependence : {"random_effect", "none"}, default "random_effect"
        ``"random_effect"``: an item-level random effect per class makes judges' errors
        correlated (needs gold labels of both classes). ``"none"``: conditionally independent
        judges (needs gold labels of both classes, or at least three judges).
    calibration : {"by_class", "random"}, default "by_class"
        How the gold-labelled items were chosen. ``"by_class"``: possibly by class (label shift
        allowed), so only the class-conditional law of the verdicts transfers and the gold
        class counts say nothing about pi (the Rogan-Gladen assumption). ``"random"``: a random
        sample of the same population, so each gold label is also a Bernoulli(pi) draw and
        enters as the potential ``calibration_labels``.
    n_patterns : int, optional
        Pad the pattern data to this length (default: no padding).
    quadrature_size : int
        Points of the latent-variable quadrature (``dependence="random_effect"``).

    Returns
    -------
    pymc.Model
        Coordinates ``class`` (fail, pass), ``judge``, ``pattern``.

    Raises
    ------
    ValueError
        If an option is not one of its allowed values, there are no unlabelled items, or the
        data cannot identify the chosen model (see ``dependence``).

    Examples
    --------
    >>> data = PanelData.from_arrays([[1, 1, 0], [0, 0, 0], [1, 1, 1], [1, 0, 1]],
    ...                              labels=[1, 0, np.nan, np.nan], judges=["a", "b", "c"])
    >>> model = panel_model(data, n_patterns=8)
    >>> model.coords["judge"], model.named_vars_to_dims["loading"]
    (('a', 'b', 'c'), ('class', 'judge'))
    """
    if dependence not in DEPENDENCE:
        raise ValueError(f"dependence must be one of {list(DEPENDENCE)}; got {dependence!r}")
    if calibration not in CALIBRATION:
        raise ValueError(f"calibration must be one of {list(CALIBRATION)}; got {calibration!r}")
    priors = PanelPriors() if priors is None else priors
    if not isinstance(priors, PanelPriors):
        raise TypeError(f"priors must be a PanelPriors; got {type(priors).__name__}")
    if isinstance(data, PanelData):
        patterns = data.patterns()
    elif isinstance(data, PanelPatterns):
        patterns = data
    else:
        raise TypeError(f"data must be PanelPatterns or PanelData; got {type(data).__name__}")
    n_fail, n_pass = patterns.n_labelled
    gold_both = n_fail > 0 and n_pass > 0
    if dependence == "random_effect" and not gold_both:
        raise ValueError(
            "dependence='random_effect' needs gold-labelled items of both classes to identify "
            f"the judges' error correlations; got {n_pass} gold-PASS and {n_fail} gold-FAIL"
        )
    if dependence == "none" and not gold_both and patterns.n_judges < 3:
        raise ValueError(
            "without gold labels of both classes the panel model needs at least three judges; "
            f"got {patterns.n_judges} judges, {n_pass} gold-PASS and {n_fail} gold-FAIL"
        )
    if patterns.n_unlabelled == 0:
        raise ValueError("the panel model needs unlabelled items to estimate pi; there are none")

    arrays = pad_patterns(patterns, len(patterns) if n_patterns is None else int(n_patterns))
    n_judges = patterns.n_judges
    coords = {
        "class": CLASSES,
        "judge": patterns.judges,
        "pattern": tuple(range(arrays["pattern_label"].size)),
    }
    with pm.Model(coords=coords) as model:
        label = pm.Data("pattern_label", arrays["pattern_label"], dims="pattern")
        verdict = pm.Data("pattern_verdict", arrays["pattern_verdict"], dims=("pattern", "judge"))
        count = pm.Data("pattern_count", arrays["pattern_count"], dims="pattern")

        pi = pm.Beta("pi", alpha=priors.pi.alpha, beta=priors.pi.beta)
        m, s = priors.probit_mean, priors.probit_sd
        dprime_mean = pm.TruncatedNormal(
            "dprime_mean", mu=2.0 * m, sigma=np.sqrt(2.0 / n_judges) * s, lower=0.0
        )
        if n_judges > 1:
            offset = pm.ZeroSumNormal("dprime_offset", sigma=np.sqrt(2.0) * s, dims="judge")
            dprime = pm.Deterministic("dprime", dprime_mean + offset, dims="judge")
        else:
            dprime = pm.Deterministic("dprime", pt.stack([dprime_mean]), dims="judge")
        criterion = pm.Normal("criterion", mu=0.0, sigma=s / np.sqrt(2.0), dims="judge")
        probit_se = dprime / 2.0 - criterion
        probit_sp = dprime / 2.0 + criterion
        se = pm.Deterministic("se", pm.math.invprobit(probit_se), dims="judge")
        sp = pm.Deterministic("sp", pm.math.invprobit(probit_sp), dims="judge")
        pm.Deterministic("j", se + sp - 1.0, dims="judge")
        mu = pt.stack([-probit_sp, probit_se])  # (class, judge)

        if dependence == "random_effect":
            share = pm.Beta(
                "loading_share",
                alpha=priors.loading.alpha,
                beta=priors.loading.beta,
                dims=("class", "judge"),
            )
            lam = pm.Deterministic("loading", LOADING_MAX * share, dims=("class", "judge"))
            z, log_w = latent_grid(quadrature_size)
            eta = (mu[:, :, None] + lam[:, :, None] * z) / pt.sqrt(1.0 - lam**2)[:, :, None]
        else:
            pm.Deterministic("loading", pt.zeros((2, n_judges)), dims=("class", "judge"))
            log_w = np.zeros(1)
            eta = mu[:, :, None]

        # log P(pattern | class, z_q) = passes . log Phi(eta) + fails . log Phi(-eta)
        passes = pt.cast(pt.eq(verdict, 1), "float64")
        fails = pt.cast(pt.eq(verdict, 0), "float64")
        log_joint = pt.tensordot(passes, _std_normal_logcdf(eta), axes=[[1], [1]]) + pt.tensordot(
            fails, _std_normal_logcdf(-eta), axes=[[1], [1]]
        )  # (pattern, class, node)
        log_pattern = pm.math.logsumexp(log_joint + log_w, axis=2, keepdims=False)
        labelled = pt.switch(pt.eq(label, 1), log_pattern[:, 1], log_pattern[:, 0])
        unlabelled = pt.logaddexp(pt.log(pi) + log_pattern[:, 1], pt.log1p(-pi) + log_pattern[:, 0])
        per_pattern = pt.switch(pt.lt(label, 0), unlabelled, labelled)
        pm.Potential("loglik", pt.sum(count * per_pattern))
        if calibration == "random":
            n1 = pt.sum(count * pt.eq(label, 1))
            n0 = pt.sum(count * pt.eq(label, 0))
            pm.Potential("calibration_labels", n1 * pt.log(pi) + n0 * pt.log1p(-pi))
    return model
