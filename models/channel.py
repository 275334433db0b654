r"""Channel kernels of protocol steps: per-step rates, a slice hierarchy and stack composition.

Model family 3 of bayesjudge (DESIGN.md; *Correction and Corruption*). Items are scored
correct or not before and after each step of a stack, :math:`E_0, E_1, \dots, E_S`.

* :func:`step_model`: correction :math:`c_t` and corruption :math:`\gamma_t` of every step with
  Beta(1/2, 1/2) priors, :math:`n^{(t)}_{01} \sim \mathrm{Bin}(n^{(t)}_0, c_t)`,
  :math:`n^{(t)}_{10} \sim \mathrm{Bin}(n^{(t)}_1, \gamma_t)`, and the stage-0 accuracy
  :math:`p_0`; the accuracies of later stages propagate through the kernels
  (:math:`\pi_{t+1} = \pi_t T_t`, exact for marginals whatever the stack) and give the gain of each
  step. The posteriors of :math:`c_t, \gamma_t` are the conjugate Betas of
  :func:`bayesjudge.channels.rates.channel_posterior`; the model exists to compose with the rest.
* :func:`slice_model`: one step seen in slices :math:`s` (e.g. depths), with
  :math:`\mathrm{logit}\,c_s = \mu_c + \sigma_c z^c_s` and
  :math:`\mathrm{logit}\,\gamma_s = \mu_\gamma + \sigma_\gamma z^\gamma_s` (non-centred,
  :math:`z \sim N(0, 1)`, :math:`\mu \sim N(0, 1.5^2)`, :math:`\sigma \sim \mathrm{HalfNormal}(1)`),
  per-slice baselines :math:`p_{0,s} \sim \mathrm{Beta}(1/2, 1/2)`, and the accuracy under a
  target mixture :math:`w` (``pm.Data``): :math:`p_1^w = \sum_s w_s [p_{0,s} + (1 - p_{0,s})c_s
  - p_{0,s}\gamma_s]`. Thin slices borrow strength; well-supported ones keep their own rates.
* :func:`stack_model`: the saturated model of a stack, each stage given its whole history,
  :math:`P(E_t = 1 \mid E_0, \dots, E_{t-1}) = q_t(h) \sim \mathrm{Beta}(1/2, 1/2)`; every kernel,
  the composed :math:`T_{01} T_{12} \cdots` and the direct :math:`T_{0S}` follow from the joint, so
  the composition gaps :math:`\Delta^{max}, \Delta^{mean}` (Correction and Corruption eqs. 12-13)
  get a posterior. With this factorisation the first step's :math:`(c, \gamma)` posterior is exactly
  Jeffreys.
* :func:`markov_model`: the Markov null of a stack, :math:`P(E_{t+1} = 1 \mid E_{t-1}, E_t) =
  q_t(E_t)`; its posterior predictive draws of the counts split by :math:`E_{t-1}` feed the
  Markov check in :func:`bayesjudge.channels.posterior.markov_check`.

Every model takes plain count arrays, has named ``coords``/``dims``, and puts observed data in
``pm.Data``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from bayesjudge.channels.counts import history_counts, markov_counts
from bayesjudge.priors import Beta, ChannelPriors

__all__ = [
    "MAX_STAGES",
    "MU_SD",
    "SIGMA_SCALE",
    "markov_model",
    "slice_model",
    "stack_model",
    "step_model",
]

#: Prior standard deviation of the population logit rates of the slice hierarchy.
MU_SD = 1.5
#: Half-normal scale of the between-slice standard deviations.
SIGMA_SCALE = 1.0
#: Largest number of stages of the saturated stack model (the last stage has 2**(S) histories).
MAX_STAGES = 7


def _stack_counts(counts: np.ndarray | Sequence) -> np.ndarray:
    array = np.asarray(counts)
    if array.ndim != 3 or array.shape[1:] != (2, 2) or (array < 0).any():
        raise ValueError(f"counts must be non-negative with shape (S, 2, 2); got {array.shape}")
    return array.astype(np.int64)


def _rate(priors: ChannelPriors | None) -> Beta:
    """Return the Beta prior of every rate (Jeffreys unless given)."""
    return (ChannelPriors() if priors is None else priors).rate


def _stages(n_steps: int) -> list[str]:
    return [f"e{t}->e{t + 1}" for t in range(n_steps)]


def step_model(counts: np.ndarray | Sequence, *, priors: ChannelPriors | None = None) -> pm.Model:
    r"""Build the per-step channel model of a stack (conjugate; see the module docstring).

    Parameters
    ----------
    counts : array_like of int, shape (S, 2, 2)
        Adjacent-step paired counts (:func:`bayesjudge.channels.counts.stack_counts`).
    priors : ChannelPriors, optional
        Prior of every rate and of the stage-0 accuracy (Jeffreys by default). (``priors.rate``)

    Returns
    -------
    pm.Model
        Free ``p0``, ``c`` [step], ``gamma`` [step]; derived ``p_before`` [step] (accuracy
        entering each step), ``p_after`` [step], ``gain`` [step]; data ``n0``, ``n1``,
        ``corrected``, ``corrupted``, ``n_items``, ``correct0``.

    Examples
    --------
    >>> m = step_model([[[40, 10], [5, 45]]])
    >>> sorted(m.named_vars)[:4]
    ['c', 'correct0', 'correct0_obs', 'corrected']
    """
    n = _stack_counts(counts)
    coords = {"step": _stages(n.shape[0])}
    with pm.Model(coords=coords) as model:
        n0 = pm.Data("n0", n[:, 0, :].sum(axis=1), dims="step")
        n1 = pm.Data("n1", n[:, 1, :].sum(axis=1), dims="step")
        corrected_obs = pm.Data("corrected_obs", n[:, 0, 1], dims="step")
        corrupted_obs = pm.Data("corrupted_obs", n[:, 1, 0], dims="step")
        n_items = pm.Data("n_items", int(n[0].sum()))
        correct0_obs = pm.Data("correct0_obs", int(n[0, 1].sum()))
        p0 = pm.Beta("p0", alpha=_rate(priors).alpha, beta=_rate(priors).beta)
        c = pm.Beta("c", alpha=_rate(priors).alpha, beta=_rate(priors).beta, dims="step")
        gamma = pm.Beta("gamma", alpha=_rate(priors).alpha, beta=_rate(priors).beta, dims="step")
        pm.Binomial("correct0", n=n_items, p=p0, observed=correct0_obs)
        pm.Binomial("corrected", n=n0, p=c, observed=corrected_obs, dims="step")
        pm.Binomial("corrupted", n=n1, p=gamma, observed=corrupted_obs, dims="step")
        before = []
        p = p0
        for t in range(n.shape[0]):
            before.append(p)
            p = p + (1 - p) * c[t] - p * gamma[t]
        p_before = pm.Deterministic("p_before", pt.stack(before), dims="step")
        pm.Deterministic("p_after", p_before + (1 - p_before) * c - p_before * gamma, dims="step")
        pm.Deterministic("gain", (1 - p_before) * c - p_before * gamma, dims="step")
    return model


def slice_model(
    counts: np.ndarray | Sequence,
    slices: Sequence[str],
    *,
    weights: np.ndarray | Sequence[float] | None = None,
    priors: ChannelPriors | None = None,
) -> pm.Model:
    r"""Build the slice hierarchy of one step with a mixture-shift prediction.

    Parameters
    ----------
    counts : array_like of int, shape (K, 2, 2)
        Paired counts of each slice (:func:`bayesjudge.channels.counts.slice_counts`).
    slices : sequence of str
        The K slice labels.
    weights : array_like, shape (K,), optional
        Target mixture of ``p1_mixture`` (``pm.Data``, so it can be changed with
        ``pm.set_data`` without a rebuild); by default the observed slice shares.
    priors : ChannelPriors, optional
        Prior of each slice's baseline accuracy ``p0``. (``priors.rate``)

    Returns
    -------
    pm.Model
        Free ``mu_c``, ``mu_gamma``, ``sigma_c``, ``sigma_gamma``, ``z_c`` [slice],
        ``z_gamma`` [slice], ``p0`` [slice]; derived ``c``, ``gamma``, ``p1``, ``gain`` [slice],
        ``p0_mixture``, ``p1_mixture``, ``gain_mixture``.

    Examples
    --------
    >>> m = slice_model([[[10, 5], [2, 20]], [[20, 2], [5, 8]]], ["a", "b"])
    >>> m.named_vars["c"].eval().shape
    (2,)
    """
    n = _stack_counts(counts)
    labels = [str(s) for s in slices]
    if len(labels) != n.shape[0] or len(set(labels)) != len(labels):
        raise ValueError(f"slices must be {n.shape[0]} distinct labels; got {labels}")
    totals = n.sum(axis=(1, 2)).astype(float)
    if weights is None:
        w = totals / totals.sum()
    else:
        w = np.asarray(weights, dtype=float)
        if w.shape != (n.shape[0],) or (w < 0).any() or w.sum() <= 0:
            raise ValueError(f"weights must be {n.shape[0]} non-negative numbers, not all zero")
        w = w / w.sum()
    with pm.Model(coords={"slice": labels}) as model:
        n0 = pm.Data("n0", n[:, 0, :].sum(axis=1), dims="slice")
        n1 = pm.Data("n1", n[:, 1, :].sum(axis=1), dims="slice")
        n_items = pm.Data("n_items", n.sum(axis=(1, 2)), dims="slice")
        weight = pm.Data("weights", w, dims="slice")
        mu_c = pm.Normal("mu_c", 0.0, MU_SD)
        mu_g = pm.Normal("mu_gamma", 0.0, MU_SD)
        sigma_c = pm.HalfNormal("sigma_c", SIGMA_SCALE)
        sigma_g = pm.HalfNormal("sigma_gamma", SIGMA_SCALE)
        z_c = pm.Normal("z_c", 0.0, 1.0, dims="slice")
        z_g = pm.Normal("z_gamma", 0.0, 1.0, dims="slice")
        c = pm.Deterministic("c", pm.math.invlogit(mu_c + sigma_c * z_c), dims="slice")
        gamma = pm.Deterministic("gamma", pm.math.invlogit(mu_g + sigma_g * z_g), dims="slice")
        p0 = pm.Beta("p0", alpha=_rate(priors).alpha, beta=_rate(priors).beta, dims="slice")
        correct0_obs = pm.Data("correct0_obs", n[:, 1, :].sum(axis=1), dims="slice")
        corrected_obs = pm.Data("corrected_obs", n[:, 0, 1], dims="slice")
        corrupted_obs = pm.Data("corrupted_obs", n[:, 1, 0], dims="slice")
        pm.Binomial("correct0", n=n_items, p=p0, observed=correct0_obs, dims="slice")
        pm.Binomial("corrected", n=n0, p=c, observed=corrected_obs, dims="slice")
        pm.Binomial("corrupted", n=n1, p=gamma, observed=corrupted_obs, dims="slice")
        gain = pm.Deterministic("gain", (1 - p0) * c - p0 * gamma, dims="slice")
        p1 = pm.Deterministic("p1", p0 + gain, dims="slice")
        pm.Deterministic("p0_mixture", pt.sum(weight * p0))
        pm.Deterministic("p1_mixture", pt.sum(weight * p1))
        pm.Deterministic("gain_mixture", pt.sum(weight * gain))
    return model


def _joint_from(p0: pt.TensorVariable, q: list[pt.TensorVariable]) -> pt.TensorVariable:
    joint = pt.stack([1 - p0, p0])
    for t, q_t in enumerate(q, start=1):
        q_shaped = q_t.reshape((2,) * t)
        joint = pt.stack([joint * (1 - q_shaped), joint * q_shaped], axis=-1)
    return joint


def _pair_kernel(joint: pt.TensorVariable, a: int, b: int, k: int) -> pt.TensorVariable:
    other = [x for x in range(k) if x not in (a, b)]
    marginal = joint.sum(axis=other) if other else joint
    return marginal / marginal.sum(axis=1, keepdims=True)


def stack_model(outcomes: np.ndarray, *, priors: ChannelPriors | None = None) -> pm.Model:
    r"""Build the saturated stack model with the posterior of the composition gap.

    Parameters
    ----------
    outcomes : ndarray of {0, 1}, shape (N, S + 1)
        A stack of at least two steps (3 to :data:`MAX_STAGES` stages).
    priors : ChannelPriors, optional
        Prior of every conditional probability (Jeffreys by default). (``priors.rate``)

    Returns
    -------
    pm.Model
        Free ``p0`` and ``q1``, ``q2``, ... (dims ``history1``, ...); derived ``kernel``
        [step, row, col], ``composed`` [row, col], ``direct`` [row, col], ``gap_max``,
        ``gap_mean``; observed ``correct0``, ``y1``, ``y2``, ...

    Examples
    --------
    >>> e = np.array([[0, 0, 1], [1, 1, 1], [0, 1, 1], [1, 0, 0]])
    >>> m = stack_model(e)
    >>> m.named_vars["composed"].eval().shape
    (2, 2)
    """
    e = np.asarray(outcomes, dtype=np.int64)
    if e.ndim != 2 or not 3 <= e.shape[1] <= MAX_STAGES:
        raise ValueError(
            f"outcomes must have shape (N, S + 1) with 3 to {MAX_STAGES} stages; got {e.shape}"
        )
    k = e.shape[1]
    coords: dict[str, list] = {"step": _stages(k - 1), "row": [0, 1], "col": [0, 1]}
    for t in range(1, k):
        coords[f"history{t}"] = [format(h, f"0{t}b") for h in range(2**t)]
    with pm.Model(coords=coords) as model:
        p0 = pm.Beta("p0", alpha=_rate(priors).alpha, beta=_rate(priors).beta)
        n_items = pm.Data("n_items", e.shape[0])
        pm.Binomial("correct0", n=n_items, p=p0, observed=pm.Data("correct0_obs", e[:, 0].sum()))
        q = []
        for t, (n_h, y_h) in enumerate(history_counts(e), start=1):
            dim = f"history{t}"
            q_t = pm.Beta(f"q{t}", alpha=_rate(priors).alpha, beta=_rate(priors).beta, dims=dim)
            n_data = pm.Data(f"n{t}", n_h, dims=dim)
            pm.Binomial(
                f"y{t}", n=n_data, p=q_t, observed=pm.Data(f"y{t}_obs", y_h, dims=dim), dims=dim
            )
            q.append(q_t)
        joint = _joint_from(p0, q)
        kernels = pm.Deterministic(
            "kernel",
            pt.stack([_pair_kernel(joint, t, t + 1, k) for t in range(k - 1)]),
            dims=("step", "row", "col"),
        )
        composed = kernels[0]
        for t in range(1, k - 1):
            composed = pt.dot(composed, kernels[t])
        composed = pm.Deterministic("composed", composed, dims=("row", "col"))
        direct = pm.Deterministic("direct", _pair_kernel(joint, 0, k - 1, k), dims=("row", "col"))
        diff = pt.abs(direct - composed)
        pm.Deterministic("gap_max", pt.max(diff))
        pm.Deterministic("gap_mean", 0.5 * pt.sum(diff))
    return model


def markov_model(outcomes: np.ndarray, *, priors: ChannelPriors | None = None) -> pm.Model:
    r"""Build the Markov (null) model of a stack for the posterior predictive Markov check.

    :math:`P(E_{t+1} = 1 \mid E_{t-1} = a, E_t = b) = q_t(b)` with :math:`q_t(0) = c_t` and
    :math:`q_t(1) = 1 - \gamma_t`, whatever :math:`a`; the counts of steps after the first are
    kept split by :math:`a` so that replicated tables can be compared with the observed one.

    Parameters
    ----------
    outcomes : ndarray of {0, 1}, shape (N, S + 1)
        A stack of at least two steps.
    priors : ChannelPriors, optional
        Prior of every rate. (``priors.rate``)

    Returns
    -------
    pm.Model
        Free ``c``, ``gamma`` [step]; observed ``first`` [current] and ``later``
        [later_step, previous, current].

    Examples
    --------
    >>> m = markov_model(np.array([[0, 1, 1], [1, 1, 0], [1, 0, 0]]))
    >>> m.named_vars["later"].eval().shape
    (1, 2, 2)
    """
    e = np.asarray(outcomes, dtype=np.int64)
    if e.ndim != 2 or e.shape[1] < 3:
        raise ValueError(f"outcomes must have shape (N, S + 1) with S >= 2; got {e.shape}")
    first_n, first_y, later_n, later_y = markov_counts(e)
    steps = _stages(e.shape[1] - 1)
    coords = {"step": steps, "later_step": steps[1:], "previous": [0, 1], "current": [0, 1]}
    with pm.Model(coords=coords) as model:
        c = pm.Beta("c", alpha=_rate(priors).alpha, beta=_rate(priors).beta, dims="step")
        gamma = pm.Beta("gamma", alpha=_rate(priors).alpha, beta=_rate(priors).beta, dims="step")
        q = pt.stack([c, 1 - gamma], axis=-1)  # (step, current)
        pm.Binomial(
            "first",
            n=pm.Data("first_n", first_n, dims="current"),
            p=q[0],
            observed=pm.Data("first_y", first_y, dims="current"),
            dims="current",
        )
        pm.Binomial(
            "later",
            n=pm.Data("later_n", later_n, dims=("later_step", "previous", "current")),
            p=q[1:, None, :],
            observed=pm.Data("later_y", later_y, dims=("later_step", "previous", "current")),
            dims=("later_step", "previous", "current"),
        )
    return model
