r"""Seeded simulators of judge panels with known accuracy and correlated errors.

Items are drawn from the panel model itself (:mod:`bayesjudge.models.panel`): a true class
:math:`c` (PASS with probability :math:`\pi`), a latent difficulty :math:`z \sim N(0, 1)`, and
judge :math:`t` passes the item when
:math:`\mu_{tc} + \lambda_{tc} z + \sqrt{1 - \lambda_{tc}^2}\,\varepsilon_t > 0`, with
:math:`\mu_{t1} = \Phi^{-1}(\mathrm{Se}_t)`, :math:`\mu_{t0} = \Phi^{-1}(1 - \mathrm{Sp}_t)`, so
each judge's marginal Se and Sp are exactly the ones given. A verdict is then removed with a
judge-specific probability, completely at random.

:func:`simulate_copy_panel` draws panels from outside that family, in the ways real judges
depend on each other: a judge that repeats another's verdict on a share of the items (a "copy"),
or that equals another on one class and adds noise on the other; :func:`dependence_scenario`
gives the seeded scenarios of the dependence study (``benchmarks/panel_dependence.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bayesjudge.panels.data import PanelData
from bayesjudge.panels.dependence import (
    LOADING_MAX,
    class_probits,
    effective_judges,
    mean_error_correlation,
    verdict_correlation,
)
from bayesjudge.validation import rng_from

__all__ = [
    "DEPENDENCE_FORMS",
    "GOLD",
    "CopyTruth",
    "PanelTruth",
    "SimulatedPanel",
    "dependence_scenario",
    "panel_scenario",
    "simulate_copy_panel",
    "simulate_panel",
]

Gold = Literal["random", "balanced"]
#: How the gold-labelled items are drawn (see :func:`simulate_panel`).
GOLD: tuple[str, ...] = get_args(Gold)

# the recovery scenario: judge_a and its near-copy, then four judges of varied accuracy
_SCENARIO_SE = (0.85, 0.85, 0.80, 0.90, 0.75, 0.82)
_SCENARIO_SP = (0.80, 0.80, 0.86, 0.70, 0.88, 0.78)
_SCENARIO_LOADING_PASS = (0.95, 0.95, 0.40, 0.30, 0.50, 0.35)
_SCENARIO_LOADING_FAIL = (0.95, 0.95, 0.50, 0.40, 0.30, 0.45)
_SCENARIO_JUDGES = ("a", "a_copy", "b", "c", "d", "e")


@dataclass(frozen=True, slots=True, eq=False)
class PanelTruth:
    """The true parameters of a simulated panel and the quantities derived from them.

    Attributes
    ----------
    judges : tuple of str
    pi : float
        True success rate of the population.
    se, sp : ndarray, shape (J,)
        Each judge's marginal sensitivity and specificity.
    loading : ndarray, shape (2, J)
        Loadings on the latent difficulty, class 0 FAIL then class 1 PASS.

    Examples
    --------
    >>> truth = PanelTruth(("a", "b"), 0.5, np.array([0.9, 0.9]), np.array([0.8, 0.8]),
    ...                    np.zeros((2, 2)))
    >>> truth.effective_judges.round(6).tolist()
    2.0
    """

    judges: tuple[str, ...]
    pi: float
    se: NDArray[np.float64]
    sp: NDArray[np.float64]
    loading: NDArray[np.float64]

    @property
    def j(self) -> NDArray[np.float64]:
        """Youden's J of each judge."""
        return np.asarray(self.se + self.sp - 1.0, dtype=float)

    @property
    def error_correlation(self) -> NDArray[np.float64]:
        """Verdict correlations given the class, shape (2, J, J)."""
        return verdict_correlation(self.se, self.sp, self.loading)

    @property
    def effective_judges_by_class(self) -> NDArray[np.float64]:
        """Kish effective number of judges within each class, shape (2,)."""
        rho = mean_error_correlation(self.error_correlation)
        return effective_judges(rho, len(self.judges))

    @property
    def effective_judges(self) -> NDArray[np.float64]:
        """Kish effective number of judges at the pi-weighted mean error correlation."""
        rho = mean_error_correlation(self.error_correlation)
        return effective_judges(self.pi * rho[1] + (1.0 - self.pi) * rho[0], len(self.judges))


@dataclass(frozen=True, slots=True, eq=False)
class SimulatedPanel:
    """A simulated panel: the data, the truth, and each item's true class.

    Attributes
    ----------
    data : PanelData
    truth : PanelTruth
    classes : ndarray of int, shape (items,)
        True class of every item (gold-labelled or not).
    """

    data: PanelData
    truth: PanelTruth | CopyTruth
    classes: NDArray[np.int64]

    @property
    def sample_pi(self) -> float:
        """Share of PASS items among the unlabelled items (the finite-sample target)."""
        unlabelled = np.isnan(self.data.labels)
        return float(self.classes[unlabelled].mean())


def _per_judge(name: str, value: ArrayLike, n_judges: int) -> NDArray[np.float64]:
    arr = np.asarray(value, dtype=float)
    if arr.ndim == 0:
        arr = np.full(n_judges, float(arr))
    if arr.shape != (n_judges,):
        raise ValueError(f"{name} must be a number or have one value per judge ({n_judges})")
    return arr


def simulate_panel(
    *,
    pi: float,
    se: ArrayLike,
    sp: ArrayLike,
    loading: ArrayLike = 0.0,
    n_unlabelled: int,
    n_gold: int,
    gold: Gold = "random",
    missing: ArrayLike = 0.0,
    judges: Sequence[str] | None = None,
    random_seed: int | np.random.Generator | None = None,
) -> SimulatedPanel:
    r"""Simulate a judge panel with correlated errors, gold labels and missing verdicts.

    Parameters
    ----------
    pi : float
        True success rate of the population.
    se, sp : array_like, shape (J,)
        Marginal sensitivity and specificity of each judge (``J >= 2``).
    loading : float or array_like, shape (J,) or (2, J)
        Loadings :math:`\lambda_{tc}` in [0, 0.99] on the latent difficulty (class 0 FAIL, 1
        PASS); one row is used for both classes. Judges :math:`s, t` have latent correlation
        :math:`\lambda_s\lambda_t` given the class; 0 gives conditionally independent judges.
    n_unlabelled : int
        Number of unlabelled items, drawn from the population.
    n_gold : int
        Number of gold-labelled items.
    gold : {"random", "balanced"}
        ``"random"``: gold items are a random sample of the population; ``"balanced"``: half
        PASS and half FAIL (by-class labelling).
    missing : float or array_like, shape (J,)
        Probability that a judge leaves an item without a verdict, independently of everything
        (missing completely at random).
    judges : sequence of str, optional
        Judge names (default ``"judge_0"``, ...).
    random_seed : int, Generator or None
        Seed for reproducibility; None uses :data:`bayesjudge.validation.DEFAULT_SEED`.

    Returns
    -------
    SimulatedPanel
        Gold items first, then unlabelled items.

    Examples
    --------
    >>> sim = simulate_panel(pi=0.7, se=[0.9, 0.8, 0.85], sp=[0.8, 0.9, 0.75], loading=0.5,
    ...                      n_unlabelled=200, n_gold=50, random_seed=1)
    >>> sim.data.n_items, sim.data.n_unlabelled
    (250, 200)
    """
    se_arr, sp_arr = _judge_rates(se, sp)
    n_judges = se_arr.size
    lam = np.asarray(loading, dtype=float)
    if lam.ndim <= 1:
        lam = np.broadcast_to(_per_judge("loading", lam, n_judges), (2, n_judges))
    if lam.shape != (2, n_judges):
        raise ValueError(f"loading must be a number or have shape ({n_judges},) or (2, {n_judges})")
    if np.any((lam < 0.0) | (lam > LOADING_MAX)):
        raise ValueError(f"loading must lie in [0, {LOADING_MAX}]; got {lam.tolist()}")
    drop = _per_judge("missing", missing, n_judges)
    if np.any((drop < 0.0) | (drop > 1.0)):
        raise ValueError(f"missing must lie in [0, 1]; got {drop.tolist()}")
    names = _design(pi, gold, n_unlabelled, n_gold, judges, n_judges)
    rng = rng_from(random_seed)
    gold_class, classes = _draw_classes(rng, pi, gold, n_gold, n_unlabelled)
    n_items = classes.size
    mu = class_probits(se_arr, sp_arr)  # (2, J)
    z = rng.standard_normal(n_items)
    noise = rng.standard_normal((n_items, n_judges))
    mu_i, lam_i = mu[classes], lam[classes]  # (items, J)
    verdicts = (mu_i + lam_i * z[:, None] + np.sqrt(1.0 - lam_i**2) * noise > 0.0).astype(float)
    verdicts[rng.random((n_items, n_judges)) < drop] = np.nan
    labels = np.concatenate([gold_class.astype(float), np.full(int(n_unlabelled), np.nan)])
    data = PanelData.from_arrays(verdicts, labels=labels, judges=names)
    truth = PanelTruth(names, float(pi), se_arr, sp_arr, np.array(lam, dtype=float))
    return SimulatedPanel(data=data, truth=truth, classes=classes)


def panel_scenario(n_judges: int) -> dict[str, object]:
    """Parameters of the recovery scenario with ``n_judges`` (3 to 6) judges.

    Judge ``a`` and its near-copy ``a_copy`` share accuracy (Se 0.85, Sp 0.80) and load 0.95 on
    the latent difficulty in both classes (latent correlation 0.90 with each other); judges
    ``b`` to ``e`` have varied accuracy and loadings 0.3 to 0.5.

    Returns
    -------
    dict
        ``se``, ``sp`` (arrays of shape (J,)), ``loading`` (shape (2, J)) and ``judges``,
        ready to pass to :func:`simulate_panel`.

    Examples
    --------
    >>> panel_scenario(3)["judges"]
    ('a', 'a_copy', 'b')
    """
    if isinstance(n_judges, bool) or int(n_judges) != n_judges or not 3 <= n_judges <= 6:
        raise ValueError(f"n_judges must be a whole number from 3 to 6; got {n_judges!r}")
    k = int(n_judges)
    return {
        "se": np.array(_SCENARIO_SE[:k]),
        "sp": np.array(_SCENARIO_SP[:k]),
        "loading": np.array([_SCENARIO_LOADING_FAIL[:k], _SCENARIO_LOADING_PASS[:k]]),
        "judges": _SCENARIO_JUDGES[:k],
    }


#: The dependence forms of :func:`dependence_scenario`.
DEPENDENCE_FORMS = ("independent", "copy", "one_class_noise", "shared_base")
# the dependence scenarios: the near-copy panel (judge 1 and its copy, a third judge)
_DEPENDENCE_PI = 0.39
_DEPENDENCE_SE = (0.85, 0.85, 0.75)
_DEPENDENCE_SP = (0.80, 0.80, 0.90)
_COPY = 0.8
_NOISY_COPY = (0.6, 1.0)  # equal on PASS items, judging alone on 40 % of the FAIL items
_SHARED_LOADING = 0.8


@dataclass(frozen=True, slots=True, eq=False)
class CopyTruth:
    """The truth of a panel drawn outside the random-effect family, by its error correlations.

    Attributes
    ----------
    judges : tuple of str
    pi : float
    se, sp : ndarray, shape (J,)
        Each judge's marginal sensitivity and specificity.
    error_correlation : ndarray, shape (2, J, J)
        Verdict correlations given the class (FAIL, then PASS); diagonal 1.
    copy : ndarray, shape (2,)
        Probability, in each class, that the copying judge repeats its source.
    source, target : int
        The judge copied and the judge that copies.

    Examples
    --------
    >>> sim = simulate_copy_panel(pi=0.4, se=[0.85, 0.85, 0.75], sp=[0.8, 0.8, 0.9], copy=0.8,
    ...                           n_unlabelled=10, n_gold=0, random_seed=1)
    >>> sim.truth.error_correlation[:, 0, 1].round(6).tolist(), round(sim.truth.effective_judges, 3)
    ([0.8, 0.8], 1.957)
    """

    judges: tuple[str, ...]
    pi: float
    se: NDArray[np.float64]
    sp: NDArray[np.float64]
    error_correlation: NDArray[np.float64]
    copy: NDArray[np.float64]
    source: int
    target: int

    @property
    def j(self) -> NDArray[np.float64]:
        """Youden's J of each judge."""
        return np.asarray(self.se + self.sp - 1.0, dtype=float)

    @property
    def effective_judges_by_class(self) -> NDArray[np.float64]:
        """Kish effective number of judges within each class, shape (2,)."""
        rho = mean_error_correlation(self.error_correlation)
        return effective_judges(rho, len(self.judges))

    @property
    def effective_judges(self) -> float:
        """Kish effective number of judges at the pi-weighted mean error correlation."""
        rho = mean_error_correlation(self.error_correlation)
        mixed = self.pi * rho[1] + (1.0 - self.pi) * rho[0]
        return float(effective_judges(mixed, len(self.judges)))


def _own_rates(
    source: NDArray[np.float64], target: NDArray[np.float64], copy: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Return the copying judge's pass rate when it judges alone, per class."""
    own = np.empty(2)
    for c in range(2):
        if copy[c] == 1.0:
            if not np.isclose(source[c], target[c], rtol=0.0, atol=1e-12):
                raise ValueError(
                    f"a judge that always copies in class {c} has its source's pass rate there "
                    f"({source[c]:.6g}); got {target[c]:.6g}"
                )
            own[c] = target[c]
        else:
            own[c] = (target[c] - copy[c] * source[c]) / (1.0 - copy[c])
    if np.any((own < 0.0) | (own > 1.0)):
        raise ValueError(
            "the copying judge's Se and Sp cannot be reached with this copy probability: its "
            f"own pass rates would be {own.round(6).tolist()} (FAIL, PASS class)"
        )
    return own


def simulate_copy_panel(
    *,
    pi: float,
    se: ArrayLike,
    sp: ArrayLike,
    copy: float | Sequence[float],
    source: int = 0,
    target: int = 1,
    n_unlabelled: int,
    n_gold: int,
    gold: Gold = "random",
    judges: Sequence[str] | None = None,
    random_seed: int | np.random.Generator | None = None,
) -> SimulatedPanel:
    r"""Simulate a panel in which one judge copies another's verdict on a share of the items.

    Given the true class :math:`c`, every judge but ``target`` judges independently (judge
    :math:`t` passes with probability :math:`p_{tc}`: :math:`\mathrm{Se}_t` or
    :math:`1 - \mathrm{Sp}_t`); judge ``target`` repeats judge ``source``'s verdict with
    probability :math:`\kappa_c` (``copy``) and otherwise judges alone with pass rate
    :math:`q_c = (p_{kc} - \kappa_c p_{jc})/(1 - \kappa_c)`, so that its marginal rate is the
    :math:`p_{kc}` given. The pair's covariance given the class is then
    :math:`\kappa_c\,p_{jc}(1 - p_{jc})`: the class-specific pairwise covariance of Vacek
    ("The effect of conditional dependence on the evaluation of diagnostic tests", Biometrics,
    1985) and of Dendukuri and Joseph (2001), outside the random-effect family of
    :func:`simulate_panel`. ``copy = (kappa_fail, 1.0)`` is a judge equal to its source on the
    PASS items and noisy on the FAIL items only.

    Parameters
    ----------
    pi : float
        True success rate of the population.
    se, sp : array_like, shape (J,)
        Marginal Se and Sp of each judge (``J >= 2``).
    copy : float or (float, float)
        :math:`\kappa`, the probability of copying, for both classes or (FAIL, PASS), in
        [0, 1]. In a class where it is 1 the target's rate must equal the source's.
    source, target : int
        Indices of the judge copied and of the judge that copies (different).
    n_unlabelled, n_gold : int
        Unlabelled and gold-labelled items.
    gold : {"random", "balanced"}
        How the gold items are drawn (see :func:`simulate_panel`).
    judges : sequence of str, optional
        Judge names (default ``"judge_0"``, ...).
    random_seed : int, Generator or None
        Seed; None uses :data:`bayesjudge.validation.DEFAULT_SEED`.

    Returns
    -------
    SimulatedPanel
        Gold items first; ``truth`` is a :class:`CopyTruth`.

    Raises
    ------
    ValueError
        On rates outside (0, 1), a copy probability outside [0, 1], a target rate the copy
        probability cannot reach, or bad sizes or indices.

    Examples
    --------
    >>> sim = simulate_copy_panel(pi=0.39, se=[0.85, 0.85, 0.75], sp=[0.8, 0.8, 0.9], copy=0.8,
    ...                           n_unlabelled=1800, n_gold=200, random_seed=3)
    >>> v = sim.data.verdicts
    >>> bool((v[:, 0] == v[:, 1]).mean() > 0.85), sim.data.n_items
    (True, 2000)
    """
    se_arr, sp_arr = _judge_rates(se, sp)
    n_judges = se_arr.size
    kappa = np.broadcast_to(np.asarray(copy, dtype=float), (2,)).copy()
    if np.any((kappa < 0.0) | (kappa > 1.0)):
        raise ValueError(f"copy must lie in [0, 1]; got {np.asarray(copy).tolist()}")
    for name, index in (("source", source), ("target", target)):
        if isinstance(index, bool) or int(index) != index or not 0 <= index < n_judges:
            raise ValueError(f"{name} must be a judge index in [0, {n_judges}); got {index!r}")
    if source == target:
        raise ValueError(f"source and target must be different judges; both are {source}")
    names = _design(pi, gold, n_unlabelled, n_gold, judges, n_judges)
    rate = np.stack([1.0 - sp_arr, se_arr])  # (class, judge)
    own = rate.copy()
    own[:, target] = _own_rates(rate[:, source], rate[:, target], kappa)
    rng = rng_from(random_seed)
    gold_class, classes = _draw_classes(rng, pi, gold, n_gold, n_unlabelled)
    verdicts = (rng.random((classes.size, n_judges)) < own[classes]).astype(float)
    copied = rng.random(classes.size) < kappa[classes]
    verdicts[copied, target] = verdicts[copied, source]
    labels = np.concatenate([gold_class.astype(float), np.full(int(n_unlabelled), np.nan)])
    data = PanelData.from_arrays(verdicts, labels=labels, judges=names)
    corr = np.broadcast_to(np.eye(n_judges), (2, n_judges, n_judges)).copy()
    p_s, p_t = rate[:, source], rate[:, target]
    pair = kappa * p_s * (1.0 - p_s) / np.sqrt(p_s * (1.0 - p_s) * p_t * (1.0 - p_t))
    corr[:, source, target] = corr[:, target, source] = pair
    truth = CopyTruth(names, float(pi), se_arr, sp_arr, corr, kappa, int(source), int(target))
    return SimulatedPanel(data=data, truth=truth, classes=classes)


def dependence_scenario(
    form: str,
    *,
    n_unlabelled: int = 1800,
    n_gold: int = 200,
    random_seed: int | np.random.Generator | None = None,
) -> SimulatedPanel:
    """One seeded panel of the dependence study, drawn with the dependence ``form``.

    Three judges, pi = 0.39, Se (0.85, 0.85, 0.75), Sp (0.80, 0.80, 0.90), random gold items
    (the near-copy panel of issue 27, with 2,000 items of which 200 gold by default):

    * ``"independent"``: conditionally independent judges;
    * ``"copy"``: judge 1 repeats judge 0's verdict with probability 0.8, otherwise judges
      alone with the same Se and Sp (:func:`simulate_copy_panel`);
    * ``"one_class_noise"``: judge 1 equals judge 0 on every PASS item, and on the FAIL items
      repeats it with probability 0.6, otherwise judges alone (noise on one class only);
    * ``"shared_base"``: judges 0 and 1 share a base model, an item effect with loading 0.8 in
      both classes (:func:`simulate_panel`); judge 2 independent.

    Examples
    --------
    >>> sim = dependence_scenario("copy", random_seed=1)
    >>> sim.data.judges, round(sim.truth.effective_judges, 3)
    (('judge_0', 'judge_1', 'judge_2'), 1.957)
    """
    kwargs: dict[str, Any] = {
        "pi": _DEPENDENCE_PI,
        "se": _DEPENDENCE_SE,
        "sp": _DEPENDENCE_SP,
        "n_unlabelled": n_unlabelled,
        "n_gold": n_gold,
        "random_seed": random_seed,
    }
    if form == "independent":
        return simulate_panel(**kwargs, loading=0.0)
    if form == "shared_base":
        return simulate_panel(**kwargs, loading=[_SHARED_LOADING, _SHARED_LOADING, 0.0])
    if form == "copy":
        return simulate_copy_panel(**kwargs, copy=_COPY)
    if form == "one_class_noise":
        return simulate_copy_panel(**kwargs, copy=_NOISY_COPY)
    raise ValueError(f"form must be one of {list(DEPENDENCE_FORMS)}; got {form!r}")


def _judge_rates(se: ArrayLike, sp: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Return the judges' Se and Sp as arrays, checked (at least two judges, rates in (0, 1))."""
    se_arr = np.asarray(se, dtype=float)
    if se_arr.ndim != 1 or se_arr.size < 2:
        raise ValueError(f"se must give one value per judge for at least two judges; got {se!r}")
    sp_arr = _per_judge("sp", sp, se_arr.size)
    for name, arr in (("se", se_arr), ("sp", sp_arr)):
        if np.any((arr <= 0.0) | (arr >= 1.0)):
            raise ValueError(f"{name} must lie in (0, 1); got {arr.tolist()}")
    return se_arr, sp_arr


def _design(
    pi: float,
    gold: str,
    n_unlabelled: int,
    n_gold: int,
    judges: Sequence[str] | None,
    n_judges: int,
) -> tuple[str, ...]:
    """Check the panel's design (pi, gold sampling, item counts) and return the judges' names."""
    if not 0.0 < pi < 1.0:
        raise ValueError(f"pi must lie in (0, 1); got {pi!r}")
    if gold not in GOLD:
        raise ValueError(f"gold must be one of {list(GOLD)}; got {gold!r}")
    for name, size in (("n_unlabelled", n_unlabelled), ("n_gold", n_gold)):
        if isinstance(size, bool) or int(size) != size or size < 0:
            raise ValueError(f"{name} must be a non-negative whole number; got {size!r}")
    names = (
        tuple(f"judge_{k}" for k in range(n_judges))
        if judges is None
        else tuple(str(j) for j in judges)
    )
    return names


def _draw_classes(
    rng: np.random.Generator, pi: float, gold: str, n_gold: int, n_unlabelled: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Draw the gold items' classes (random or balanced), then the unlabelled items'."""
    if gold == "random":
        gold_class = (rng.random(n_gold) < pi).astype(np.int64)
    else:
        gold_class = np.repeat([1, 0], [n_gold - n_gold // 2, n_gold // 2]).astype(np.int64)
    classes = np.concatenate([gold_class, (rng.random(n_unlabelled) < pi).astype(np.int64)])
    return gold_class, classes
