r"""Repeated samples: each item's own success probability, several judged answers per item.

Model family 6 of bayesjudge (DESIGN.md). Item :math:`i` has its own success probability

.. math::

    p_i = \mathrm{logit}^{-1}\big(\mu + \sigma z_i + \tau u_{c(i)}\big), \qquad
    z_i, u_c \sim N(0, 1),

non-centred (the cluster term only when the items are grouped in clusters :math:`c`: tasks,
conversations). Each answer's true label is :math:`y \sim \mathrm{Bernoulli}(p_i)`, independent
given :math:`p_i`, and the judge's verdict on it has :math:`P(\hat y = 1 \mid y = 1) =
\mathrm{Se}`, :math:`P(\hat y = 1 \mid y = 0) = 1 - \mathrm{Sp}`, the same for every answer.
The true labels of unlabelled answers are summed out analytically: each verdict is
:math:`\mathrm{Bernoulli}(q_i)` with :math:`q_i = p_i\,\mathrm{Se} + (1 - p_i)(1 - \mathrm{Sp})`,
so the :math:`k_i` PASS verdicts among item :math:`i`'s :math:`n_i` unlabelled answers are
:math:`\mathrm{Bin}(n_i, q_i)`. A gold-labelled answer's verdict informs Se (gold PASS) or Sp
(gold FAIL): :math:`x_{1i} \sim \mathrm{Bin}(m_{1i}, \mathrm{Se})`,
:math:`x_{0i} \sim \mathrm{Bin}(m_{0i}, 1 - \mathrm{Sp})`. Whether its gold label also informs
:math:`p_i`, :math:`m_{1i} \sim \mathrm{Bin}(m_{1i} + m_{0i}, p_i)`, depends on how the gold
answers were chosen (``gold_informs_items``): only when they are a random sample of the answers;
a calibration set drawn by class (so many PASS and so many FAIL answers) says nothing about the
items' rates, and then, as in the prevalence family, only :math:`P(\hat y \mid y)` is learnt
from it (the default). The likelihood depends on an item only through its six counts
:math:`(n_i, k_i, m_{1i}, x_{1i}, m_{0i}, x_{0i})`, so its cost does not grow with the epochs.

**Repeated judge calls.** When the judge was called :math:`c_a` times on answer :math:`a`
(``patterns``), its calls are not :math:`c_a` independent pieces of evidence: each answer has
its own pass probability :math:`q_a \mid y_a \sim \mathrm{Beta}` with mean Se (a correct
answer) or :math:`1 - \mathrm{Sp}` (a wrong one) and intra-answer correlation :math:`\rho`
(shape parameters :math:`m(1 - \rho)/\rho` and :math:`(1 - m)(1 - \rho)/\rho`), so the
:math:`j_a` passes among its calls are beta-binomial,

.. math::

    P(j_a \mid p_i) = p_i\,\mathrm{BB}(j_a; c_a, \mathrm{Se}, \rho)
        + (1 - p_i)\,\mathrm{BB}(j_a; c_a, 1 - \mathrm{Sp}, \rho),

with a gold-labelled answer's term the one of its label. :math:`\rho = 0` makes the calls
independent given the label, :math:`\rho \to 1` one verdict repeated; Se and Sp stay the
probabilities that one call passes a correct answer and fails a wrong one. With one call per
answer :math:`\mathrm{BB}(j; 1, m, \rho) = m^j(1 - m)^{1 - j}` for every :math:`\rho`, and
the likelihood is that of the counts above. The likelihood depends on an item through its
patterns (answers with :math:`c` calls, :math:`j` passes and a gold label or none, and how
many), :meth:`bayesjudge.repeated.RepeatedData.call_patterns`.

**Priors.** :math:`\mathrm{logit}^{-1}(\mu)`, the median item's success rate, has the Beta prior
of pi (Jeffreys by default), :math:`\sigma` and :math:`\tau` half-normal priors, and Se, Sp the
prevalence family's Beta priors conditioned on :math:`J = \mathrm{Se} + \mathrm{Sp} - 1 > 0`
(the label-switching restriction of :mod:`bayesjudge.models.prevalence`). The restriction is
exact and has no wall: with :math:`f = 1 - \mathrm{Sp}`, :math:`J > 0` is :math:`f < \mathrm{Se}`,
and the model samples :math:`\mathrm{Se} = \Phi(z_{Se})` and :math:`f = \mathrm{Se}\,b`,
:math:`b = \Phi(z_b)`; :math:`(\mathrm{Se}, b) \to (\mathrm{Se}, f)` has Jacobian
:math:`\mathrm{Se}`, so the target :math:`p_{Se}(\mathrm{Se})\,p_{Sp}(1 - f)\,\mathbf 1\{f <
\mathrm{Se}\}` is, in :math:`(\mathrm{Se}, b)`, :math:`p_{Se}(\mathrm{Se})\,p_{Sp}(\mathrm{Sp})
\,\mathrm{Se}`, entered as a ``pm.Potential`` (the standard normal densities of the scores are
the Jacobians of :math:`\Phi`). Likewise :math:`\mathrm{logit}^{-1}(\mu) = \Phi(z_\mu)`. Every
logarithm is formed without cancellation: :math:`\log \mathrm{Sp} = \log((1 - \mathrm{Se}) +
\mathrm{Se}(1 - b))`.

**Reduction.** With one answer per item and no spread (``spread=False``: :math:`\sigma = 0`, no
clusters) every :math:`p_i = \pi`, the unlabelled verdicts are :math:`\mathrm{Bin}(n, \pi
\mathrm{Se} + (1 - \pi)(1 - \mathrm{Sp}))` and the gold answers a calibration set: the model is
the prevalence model (:func:`bayesjudge.models.prevalence.prevalence_model`) with the same
priors, so the same posterior of pi (checked in ``tests/repeated/test_reduction.py``).

**Estimands** (deterministics):

* ``mean_rate``: the mean success rate over the observed items, :math:`\bar p = \frac1N\sum_i
  p_i`, what "accuracy" means in evaluation tools that average per-item scores over epochs;
* ``population_rate``: the mean over the population the items come from,
  :math:`E[\mathrm{logit}^{-1}(\mu + s x)]`, :math:`x \sim N(0, 1)`,
  :math:`s = \sqrt{\sigma^2 + \tau^2}`, by Gauss-Hermite quadrature;
* ``pass_at_k`` and ``pass_all_k`` (dim ``pass_k``): :math:`\frac1N\sum_i 1 - (1 - p_i)^k` (at least
  one of :math:`k` fresh answers succeeds) and :math:`\frac1N\sum_i p_i^k` (all :math:`k`
  succeed), the pass@k and pass^k of Chen et al., "Evaluating large language models trained
  on code" (2021) and Yao et al., "tau-bench" (2024), taken on true success rather than on the
  judge's verdicts;
* ``band_share`` (dim ``band``): the share of items never (:math:`p_i < 0.1`), sometimes, and
  always (:math:`p_i > 0.9`) solved;
* ``item_rate`` (dim ``item``), ``median_rate`` (:math:`\mathrm{logit}^{-1}\mu`), ``sigma``,
  ``tau``, ``se``, ``sp``, ``j``.

**Sizes as data** (``pad_to``). A compiled model has fixed array lengths, so each number of
items, clusters or judge-call patterns would be compiled anew. With ``pad_to`` the item,
cluster and pattern axes are padded to given lengths: a padded item has no answers (its counts
are 0, its patterns none), a padded cluster no items, a padded pattern no answers, so none of
them enters the likelihood. Their scores :math:`z_i`, :math:`u_c` are left with their standard
normal prior, independent of everything else, and the posterior of every other variable is
unchanged; the averages over items (``mean_rate``, ``pass_at_k``, ``pass_all_k``,
``band_share``) weigh each item by ``item_weight`` (1 for an observed item, 0 for a padded
one), and a fit keeps the observed items' draws only. One compiled model then serves every
dataset that fits in its lengths, its data swapped in (:func:`model_data`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pymc as pm
import pytensor.tensor as pt
from numpy.polynomial.hermite_e import hermegauss
from scipy import special

from bayesjudge.priors import Beta
from bayesjudge.repeated.priors import RepeatedPriors

__all__ = [
    "BANDS",
    "BAND_EDGES",
    "PATTERNS",
    "QUADRATURE_NODES",
    "model_data",
    "repeated_model",
]

#: The per-item bands of ``band_share``: never, sometimes and always solved.
BANDS: tuple[str, ...] = ("never", "sometimes", "always")
#: Their edges: :math:`p < 0.1`, :math:`0.1 \le p \le 0.9`, :math:`p > 0.9`.
BAND_EDGES: tuple[float, float] = (0.1, 0.9)
#: Gauss-Hermite nodes of ``population_rate``: the logistic-normal mean is smooth in the node,
#: and 40 nodes agree with 200 to below 1e-9 for spreads up to 10 on the logit scale.
QUADRATURE_NODES = 40
_COUNTS = ("n", "k", "m1", "x1", "m0", "x0")
#: The arrays of ``patterns`` (:meth:`bayesjudge.repeated.RepeatedData.call_patterns`).
PATTERNS = ("item", "calls", "passes", "label", "answers")
#: The ``pm.Data`` container of each count.
_CONTAINERS = {"n": "n", "k": "k_obs", "m1": "m1", "x1": "x1_obs", "m0": "m0", "x0": "x0_obs"}
#: What a padded pattern holds: no calls, no passes, no label, no answers.
_PATTERN_FILL = {"item": 0, "calls": 0, "passes": 0, "label": -1, "answers": 0}
#: The axes ``pad_to`` may pad.
_PADDED_AXES = ("item", "cluster", "pattern")


def _padded(values: np.ndarray, size: int, fill: int = 0) -> np.ndarray:
    """Return ``values`` as int64, with ``fill`` appended up to ``size`` entries."""
    values = np.asarray(values, dtype=np.int64)
    return np.concatenate([values, np.full(size - values.size, fill, dtype=np.int64)])


def _lengths(
    n_items: int, n_clusters: int, n_patterns: int, pad_to: Mapping[str, int] | None
) -> dict[str, int]:
    """Return the padded length of each axis, checking ``pad_to`` against the data."""
    actual = {"item": n_items, "cluster": n_clusters, "pattern": n_patterns}
    if pad_to is None:
        return actual
    unknown = sorted(set(pad_to) - set(_PADDED_AXES))
    if unknown:
        raise ValueError(f"pad_to names unknown axes {unknown}; it may pad {list(_PADDED_AXES)}")
    out = {}
    for axis, count in actual.items():
        size = pad_to.get(axis, count)
        if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < count:
            raise ValueError(
                f"pad_to[{axis!r}] must be a whole number of at least {count} (the data's "
                f"{axis}s); got {size!r}"
            )
        out[axis] = int(size)
    return out


def model_data(
    counts: Mapping[str, np.ndarray],
    *,
    cluster_index: np.ndarray | None = None,
    patterns: Mapping[str, np.ndarray] | None = None,
    pad_to: Mapping[str, int] | None = None,
    n_clusters: int = 0,
) -> dict[str, np.ndarray]:
    """Return the values of the ``pm.Data`` containers of :func:`repeated_model`.

    What a fit swaps into a compiled model (a model built with the same ``pad_to``, clusters
    and patterns or none): the counts (or, with ``patterns``, the patterns instead), each
    item's cluster, and with ``pad_to`` each item's weight, every array padded as the module
    docstring says.

    Parameters
    ----------
    counts : mapping of str to ndarray
        ``n``, ``k``, ``m1``, ``x1``, ``m0``, ``x0``, one entry per item.
    cluster_index : ndarray of int, optional
        Each item's cluster, when the model has the cluster level.
    patterns : mapping of str to ndarray, optional
        The judge-call patterns (:data:`PATTERNS`), when the model reads them.
    pad_to : mapping of str to int, optional
        Lengths of the ``item``, ``cluster`` and ``pattern`` axes (each at least the data's).
    n_clusters : int, default 0
        The data's clusters (checked against ``pad_to["cluster"]``).

    Returns
    -------
    dict of str to ndarray
        int64 arrays by container name: ``n``, ``k_obs``, ``m1``, ``x1_obs``, ``m0``,
        ``x0_obs`` (without ``patterns``) or ``pattern_item``, ``pattern_calls``,
        ``pattern_passes``, ``pattern_label``, ``pattern_answers`` (with them);
        ``cluster_index``; ``item_weight`` (with ``pad_to``).

    Examples
    --------
    >>> counts = {name: np.array([2, 1]) for name in ("n", "k", "m1", "x1", "m0", "x0")}
    >>> data = model_data(counts, pad_to={"item": 4})
    >>> data["n"], data["item_weight"]
    (array([2, 1, 0, 0]), array([1, 1, 0, 0]))
    """
    missing = [name for name in _COUNTS if name not in counts]
    if missing:
        raise ValueError(f"counts lacks {missing}; it needs {list(_COUNTS)}")
    n_items = int(np.size(counts["n"]))
    if patterns is not None:
        missing = [name for name in PATTERNS if name not in patterns]
        if missing:
            raise ValueError(f"patterns lacks {missing}; it needs {list(PATTERNS)}")
    n_patterns = 0 if patterns is None else int(np.size(patterns["item"]))
    sizes = _lengths(n_items, n_clusters, n_patterns, pad_to)
    out: dict[str, np.ndarray] = {}
    if patterns is None:
        for name, key in _CONTAINERS.items():
            out[key] = _padded(counts[name], sizes["item"])
    else:
        for name in PATTERNS:
            out[f"pattern_{name}"] = _padded(patterns[name], sizes["pattern"], _PATTERN_FILL[name])
    if cluster_index is not None:
        out["cluster_index"] = _padded(cluster_index, sizes["item"])
    if pad_to is not None:
        out["item_weight"] = _padded(np.ones(n_items, dtype=np.int64), sizes["item"])
    return out


def _padding_names(names: Sequence[str], size: int) -> tuple[str, ...]:
    """Return ``names`` followed by distinct names for the padded entries, up to ``size``."""
    taken = set(names)
    extra: list[str] = []
    j = 0
    while len(names) + len(extra) < size:
        name = f"(padding {j})"
        if name not in taken:
            extra.append(name)
        j += 1
    return (*names, *extra)


def _log_phi(z: pt.TensorVariable) -> tuple[pt.TensorVariable, pt.TensorVariable]:
    r"""Return :math:`\log\Phi(z)` and :math:`\log(1 - \Phi(z))`, both without cancellation."""
    standard = pm.Normal.dist(0.0, 1.0)
    return pm.logcdf(standard, z), pm.logcdf(standard, -z)


def _beta_binomial_logp(
    calls: pt.TensorVariable,
    passes: pt.TensorVariable,
    log_m: pt.TensorVariable,
    log_1mm: pt.TensorVariable,
    log_precision: pt.TensorVariable,
    max_calls: int,
) -> pt.TensorVariable:
    r"""Beta-binomial log mass of ``passes`` among ``calls``, mean m, precision :math:`\phi`.

    With shapes :math:`a = m\phi`, :math:`b = (1 - m)\phi`,

    .. math::

        \log \mathrm{BB}(j; c) = \log\binom{c}{j} + \sum_{t < j} \log(a + t)
            + \sum_{t < c - j} \log(b + t) - \sum_{t < c} \log(\phi + t),

    each term formed as :math:`\log a + \log(1 + t/a)` from :math:`\log a = \log m + \log
    \phi`: exact for every precision, where differences of log-gamma functions would lose
    digits as :math:`\phi` grows (calls nearly independent). ``max_calls`` bounds the sums.
    """
    t = pt.as_tensor_variable(np.arange(max_calls, dtype=np.float64)[:, None])

    def rising(log_a: pt.TensorVariable, count: pt.TensorVariable) -> pt.TensorVariable:
        terms = log_a + pt.log1p(t * pt.exp(-log_a))
        return pt.sum(pt.switch(pt.lt(t, count[None, :]), terms, 0.0), axis=0)

    choose = pt.gammaln(calls + 1.0) - pt.gammaln(passes + 1.0) - pt.gammaln(calls - passes + 1.0)
    return (
        choose
        + rising(log_m + log_precision, passes)
        + rising(log_1mm + log_precision, calls - passes)
        - rising(log_precision, calls)
    )


def _beta_logp(
    prior: Beta, log_x: pt.TensorVariable, log_1mx: pt.TensorVariable
) -> pt.TensorVariable:
    """Beta log density at x from log x and log(1 - x)."""
    constant = float(special.betaln(prior.alpha, prior.beta))
    return (prior.alpha - 1.0) * log_x + (prior.beta - 1.0) * log_1mx - constant


def repeated_model(
    items: Sequence[str],
    counts: Mapping[str, np.ndarray],
    *,
    clusters: Sequence[str] | None = None,
    cluster_index: np.ndarray | None = None,
    priors: RepeatedPriors | None = None,
    spread: bool = True,
    gold_informs_items: bool = False,
    restrict_j: bool = True,
    ks: Sequence[int] | None = (1, 5),
    patterns: Mapping[str, np.ndarray] | None = None,
    pad_to: Mapping[str, int] | None = None,
) -> pm.Model:
    r"""Build the repeated-samples model: a logit-normal item hierarchy under one judge.

    .. math::

        p_i = \mathrm{logit}^{-1}(\mu + \sigma z_i + \tau u_{c(i)}), \quad
        k_i \sim \mathrm{Bin}\big(n_i, p_i \mathrm{Se} + (1 - p_i)(1 - \mathrm{Sp})\big),

        x_{1i} \sim \mathrm{Bin}(m_{1i}, \mathrm{Se}), \quad
        x_{0i} \sim \mathrm{Bin}(m_{0i}, 1 - \mathrm{Sp})
        \quad [\,m_{1i} \sim \mathrm{Bin}(m_{1i} + m_{0i}, p_i)\,].

    See the module docstring for the priors, the exact J > 0 restriction, the reduction to the
    prevalence model and the estimands.

    Parameters
    ----------
    items : sequence of str
        Item ids (coordinate ``item``).
    counts : mapping of str to ndarray
        Integer arrays along ``items``: ``n``, ``k`` (unlabelled answers, judge passes),
        ``m1``, ``x1`` (gold-PASS answers, judge passes), ``m0``, ``x0`` (gold-FAIL answers,
        judge passes); :meth:`bayesjudge.repeated.RepeatedData.counts`.
    clusters : sequence of str, optional
        Cluster names (coordinate ``cluster``); with ``cluster_index``, adds the cluster level.
    cluster_index : ndarray of int, optional
        Each item's cluster (position in ``clusters``).
    priors : RepeatedPriors, optional
        The model's priors (module docstring); defaults by default.
    spread : bool, default True
        Let the items' success probabilities differ (:math:`\sigma`, and :math:`\tau` with
        clusters); ``False`` gives every item the same rate.
    gold_informs_items : bool, default False
        Whether the gold labels also inform their items' success probabilities: only valid
        when the gold-labelled answers are a random sample of the answers.
    restrict_j : bool, default True
        Restrict the prior of Se and Sp to J > 0 (exactly: conditioned on that event).
    ks : sequence of int or None, default (1, 5)
        The k of ``pass_at_k`` and ``pass_all_k`` (coordinate ``pass_k``); None leaves both
        out (a fit computes them from the draws of ``item_rate``, with the same formulas, so
        that the compiled model does not depend on the k asked for).
    patterns : mapping of str to ndarray, optional
        Repeated judge calls on each answer, as patterns (:data:`PATTERNS`:
        :meth:`bayesjudge.repeated.RepeatedData.call_patterns`); the likelihood is then the
        beta-binomial one of the module docstring, with the calls' correlation ``rho``, and
        ``counts`` is checked but not used.
    pad_to : mapping of str to int, optional
        Lengths to pad the ``item``, ``cluster`` and ``pattern`` axes to (module docstring,
        "Sizes as data"): the padded entries carry no data, and adds the data
        ``item_weight``. A fit pads to a few lengths so that one compiled model serves data
        of many sizes.

    Returns
    -------
    pymc.Model
        Coordinates ``item``, ``pass_k``, ``band`` (and ``cluster``); data ``n``, ``k_obs``, ``m1``,
        ``x1_obs``, ``m0``, ``x0_obs`` (and ``cluster_index``); observed ``k``, ``x1``, ``x0``
        (and ``gold``). With ``patterns``, instead of the counts: coordinate ``pattern``, data
        ``pattern_item``, ``pattern_calls``, ``pattern_passes``, ``pattern_label``,
        ``pattern_answers``, the free ``rho`` and the likelihood as the potential ``calls``.

    Examples
    --------
    >>> import numpy as np
    >>> counts = {"n": np.array([5, 5]), "k": np.array([4, 1]), "m1": np.array([1, 0]),
    ...           "x1": np.array([1, 0]), "m0": np.array([0, 1]), "x0": np.array([0, 0])}
    >>> model = repeated_model(("a", "b"), counts)
    >>> sorted(v.name for v in model.free_RVs)
    ['fpr_share_z', 'item_z', 'median_z', 'se_z', 'sigma']
    """
    priors = RepeatedPriors() if priors is None else priors
    if not isinstance(priors, RepeatedPriors):
        raise TypeError(f"priors must be a RepeatedPriors; got {type(priors).__name__}")
    missing = [name for name in _COUNTS if name not in counts]
    if missing:
        raise ValueError(f"counts lacks {missing}; it needs {list(_COUNTS)}")
    if ks is not None:
        ks = tuple(int(k) for k in ks)
        if not ks or min(ks) < 1:
            raise ValueError(f"ks must be whole numbers of at least 1; got {ks!r}")
    clustered = clusters is not None and spread
    if clustered and cluster_index is None:
        raise ValueError("clusters needs cluster_index, each item's cluster")
    n_clusters = len(clusters) if clustered and clusters is not None else 0
    values = model_data(
        counts,
        cluster_index=cluster_index if clustered else None,
        patterns=patterns,
        pad_to=pad_to,
        n_clusters=n_clusters,
    )
    sizes = _lengths(
        len(items), n_clusters, 0 if patterns is None else np.size(patterns["item"]), pad_to
    )
    coords: dict[str, Sequence[object]] = {
        "item": _padding_names(tuple(items), sizes["item"]),
        **({"pass_k": ks} if ks is not None else {}),
        "band": BANDS,
    }
    if clustered:
        coords["cluster"] = _padding_names(tuple(clusters), sizes["cluster"])  # type: ignore[arg-type]
    dims = "item"
    nodes, weights = hermegauss(QUADRATURE_NODES)
    weights = weights / weights.sum()
    with pm.Model(coords=coords) as model:
        # the judge: Se = Phi(z_se), false-pass rate f = Se * b (b = Phi(z_b)) so J > 0
        log_se, log_1mse = _log_phi(pm.Normal("se_z", 0.0, 1.0))
        if restrict_j:
            log_b, log_1mb = _log_phi(pm.Normal("fpr_share_z", 0.0, 1.0))
            log_fpr = log_se + log_b
            log_sp = pt.logaddexp(log_1mse, log_se + log_1mb)  # Sp = (1 - Se) + Se (1 - b)
            jacobian = log_se
        else:
            log_sp, log_fpr = _log_phi(pm.Normal("sp_z", 0.0, 1.0))
            jacobian = pt.as_tensor_variable(0.0)
        se = pm.Deterministic("se", pt.exp(log_se))
        sp = pm.Deterministic("sp", pt.exp(log_sp))
        fpr = pt.exp(log_fpr)
        pm.Deterministic("j", se + sp - 1.0)

        # the items: logit p_i = mu + sigma z_i (+ tau u_c), the median rate Phi(z_mu)
        log_mid, log_1mmid = _log_phi(pm.Normal("median_z", 0.0, 1.0))
        mu = log_mid - log_1mmid
        pm.Deterministic("median_rate", pt.exp(log_mid))
        pm.Potential(
            "prior",
            _beta_logp(priors.pi, log_mid, log_1mmid)
            + _beta_logp(priors.se, log_se, log_1mse)
            + _beta_logp(priors.sp, log_sp, log_fpr)
            + jacobian,
        )
        if pad_to is None:

            def average(x: pt.TensorVariable) -> pt.TensorVariable:
                return pt.mean(x, axis=0)

        else:  # over the observed items only
            weight = pm.Data("item_weight", values["item_weight"], dims=dims)

            def average(x: pt.TensorVariable) -> pt.TensorVariable:
                w = weight if x.ndim == 1 else weight[:, None]
                return pt.sum(w * x, axis=0) / pt.sum(weight)

        logit_p = mu * pt.ones(sizes["item"])
        scale = pt.as_tensor_variable(0.0)
        if spread:
            sigma = pm.HalfNormal("sigma", sigma=priors.sigma.sigma)
            item_z = pm.Normal("item_z", 0.0, 1.0, dims=dims)
            logit_p = logit_p + sigma * item_z
            scale = sigma**2
        if clustered:
            index = pm.Data("cluster_index", values["cluster_index"], dims=dims)
            tau = pm.HalfNormal("tau", sigma=priors.tau.sigma)
            cluster_z = pm.Normal("cluster_z", 0.0, 1.0, dims="cluster")
            logit_p = logit_p + tau * cluster_z[index]
            scale = scale + tau**2
        p = pm.Deterministic("item_rate", pt.sigmoid(logit_p), dims=dims)

        pm.Deterministic("mean_rate", average(p))
        pm.Deterministic(
            "population_rate",
            pt.sum(weights * pt.sigmoid(mu + pt.sqrt(scale) * nodes)),
        )
        if ks is not None:
            k_values = pt.as_tensor_variable(np.asarray(ks, dtype=np.float64))
            log_p = -pt.softplus(-logit_p)[:, None]  # log p without cancellation
            log_1mp = -pt.softplus(logit_p)[:, None]  # log(1 - p)
            pm.Deterministic("pass_at_k", average(-pt.expm1(k_values * log_1mp)), dims="pass_k")
            pm.Deterministic("pass_all_k", average(pt.exp(k_values * log_p)), dims="pass_k")
        low, high = BAND_EDGES
        never = average(pt.lt(p, low))
        always = average(pt.gt(p, high))
        pm.Deterministic("band_share", pt.stack([never, 1.0 - never - always, always]), dims="band")

        if patterns is not None:
            _calls_likelihood(
                patterns,
                values,
                priors=priors,
                logit_p=logit_p,
                judge=(log_se, log_1mse, log_fpr, log_sp),
                gold_informs_items=gold_informs_items,
            )
            return model
        n, k_obs, m1, x1_obs, m0, x0_obs = (
            pm.Data(key, values[key], dims=dims) for key in _CONTAINERS.values()
        )
        rate = p * se + (1.0 - p) * fpr  # P(verdict PASS) of an unlabelled answer
        pm.Binomial("k", n=n, p=rate, observed=k_obs, dims=dims)
        pm.Binomial("x1", n=m1, p=se, observed=x1_obs, dims=dims)
        pm.Binomial("x0", n=m0, p=fpr, observed=x0_obs, dims=dims)
        if gold_informs_items:
            pm.Binomial("gold", n=m1 + m0, p=p, observed=m1, dims=dims)
    return model


def _calls_likelihood(
    patterns: Mapping[str, np.ndarray],
    values: Mapping[str, np.ndarray],
    *,
    priors: RepeatedPriors,
    logit_p: pt.TensorVariable,
    judge: tuple[pt.TensorVariable, ...],
    gold_informs_items: bool,
) -> None:
    """Add ``rho`` and the beta-binomial likelihood of the judge calls (module docstring).

    ``values`` holds the (padded) pattern arrays of :func:`model_data`; ``patterns`` the
    data's own, which bound the calls.
    """
    model = pm.modelcontext(None)
    model.add_coord("pattern", np.arange(values["pattern_item"].size))
    data = {
        name: pm.Data(f"pattern_{name}", values[f"pattern_{name}"], dims="pattern")
        for name in PATTERNS
    }
    log_se, log_1mse, log_fpr, log_sp = judge
    rho = pm.Beta("rho", alpha=priors.rho.alpha, beta=priors.rho.beta)
    log_precision = pt.log1p(-rho) - pt.log(rho)  # phi = (1 - rho) / rho
    calls = pt.cast(data["calls"], "float64")
    passes = pt.cast(data["passes"], "float64")
    most = max(1, int(np.max(patterns["calls"], initial=1)))
    correct = _beta_binomial_logp(calls, passes, log_se, log_1mse, log_precision, most)
    wrong = _beta_binomial_logp(calls, passes, log_fpr, log_sp, log_precision, most)
    item_logit = logit_p[data["item"]]
    log_p = -pt.softplus(-item_logit)
    log_1mp = -pt.softplus(item_logit)
    label = data["label"]
    per_answer = pt.switch(
        pt.eq(label, 1),
        correct + (log_p if gold_informs_items else 0.0),
        pt.switch(
            pt.eq(label, 0),
            wrong + (log_1mp if gold_informs_items else 0.0),
            pt.logaddexp(log_p + correct, log_1mp + wrong),
        ),
    )
    pm.Potential("calls", pt.sum(data["answers"] * per_answer))
