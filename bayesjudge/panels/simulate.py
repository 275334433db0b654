r"""Seeded simulators of judge panels with known accuracy and correlated errors.

Items are drawn from the panel model itself (:mod:`bayesjudge.models.panel`): a true class
:math:`c` (PASS with probability :math:`\pi`), a latent difficulty :math:`z \sim N(0, 1)`, and
judge :math:`t` passes the item when
:math:`\mu_{tc} + \lambda_{tc} z + \sqrt{1 - \lambda_{tc}^2}\,\varepsilon_t > 0`, with
:math:`\mu_{t1} = \Phi^{-1}(\mathrm{Se}_t)`, :math:`\mu_{t0} = \Phi^{-1}(1 - \mathrm{Sp}_t)`, so
each judge's marginal Se and Sp are exactly the ones given. A verdict is then removed with a
judge-specific probability, completely at random.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

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

__all__ = ["GOLD", "PanelTruth", "SimulatedPanel", "panel_scenario", "simulate_panel"]

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
    truth: PanelTruth
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
    se_arr = np.asarray(se, dtype=float)
    if se_arr.ndim != 1 or se_arr.size < 2:
        raise ValueError(f"se must give one value per judge for at least two judges; got {se!r}")
    n_judges = se_arr.size
    sp_arr = _per_judge("sp", sp, n_judges)
    for name, arr in (("se", se_arr), ("sp", sp_arr)):
        if np.any((arr <= 0.0) | (arr >= 1.0)):
            raise ValueError(f"{name} must lie in (0, 1); got {arr.tolist()}")
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
    rng = rng_from(random_seed)
    if gold == "random":
        gold_class = (rng.random(n_gold) < pi).astype(np.int64)
    else:
        gold_class = np.repeat([1, 0], [n_gold - n_gold // 2, n_gold // 2]).astype(np.int64)
    classes = np.concatenate([gold_class, (rng.random(n_unlabelled) < pi).astype(np.int64)])
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
