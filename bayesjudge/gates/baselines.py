r"""Frequentist estimates of pi behind a retry gate, at each cap K.

Each item's score at cap K is the unbiased estimate of its ship probability from its own
rulings (:func:`bayesjudge.gates.cells.cap_scores`); the naive reported rate, Rogan-Gladen with
the per-cap Se and Sp, and PPI / PPI++ with the score as prediction are computed from the
scores with the shared estimators of :mod:`bayesjudge.estimators` (Below the Reliability Floor,
anonymous, under review 2026, section 4 and Table 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from bayesjudge.errors import DataError
from bayesjudge.estimators import (
    clt_estimate,
    ppi_lambda,
    ppi_mean,
    rogan_gladen_pi,
    rogan_gladen_variance,
)
from bayesjudge.gates.cells import cap_scores
from bayesjudge.gates.data import Rulings
from bayesjudge.results import Estimate, Interval
from bayesjudge.validation import check_prob, z_value

__all__ = ["GATE_BASELINES", "RANDOM_SAMPLE_METHODS", "CapEstimate", "gate_baselines"]

#: Methods of :func:`gate_baselines`, in row order at each cap.
GATE_BASELINES = ("naive", "rogan_gladen_delta", "ppi", "ppi_plus_plus")
#: Baselines that assume the gold items are a random sample of the population.
RANDOM_SAMPLE_METHODS = ("ppi", "ppi_plus_plus")


@dataclass(frozen=True, slots=True)
class CapEstimate:
    """A baseline estimate of pi computed at cap K.

    Attributes
    ----------
    cap : int
        The cap K.
    estimate : Estimate
        The estimate (its ``j`` is the calibration J(K) where the method uses one).
    """

    cap: int
    estimate: Estimate

    def to_row(self) -> dict[str, Any]:
        """Return the estimate's row with a leading ``cap`` field."""
        return {"cap": self.cap, **self.estimate.to_row()}


def gate_baselines(rulings: Rulings, *, caps: ArrayLike, prob: float = 0.95) -> list[CapEstimate]:
    r"""Frequentist estimates of pi at each cap K, from per-item continuous scores.

    Each item's score at cap K is the unbiased estimate :math:`\hat s_i(K)` of its ship
    probability from its own rulings (:func:`bayesjudge.gates.cells.cap_scores`; the fraction of
    rulings passed at K = 1). At each cap:

    * ``naive``: the reported rate :math:`\hat R(K)`, the mean score of the unlabelled items,
      with a CLT interval;
    * ``rogan_gladen_delta``: :math:`(\hat R - 1 + \widehat{\mathrm{Sp}})/\hat J` with
      :math:`\widehat{\mathrm{Se}}(K)` and :math:`1 - \widehat{\mathrm{Sp}}(K)` the class means
      of the labelled scores (Below the Reliability Floor, eq. 6) and the delta-method variance of
      :func:`bayesjudge.estimators.rogan_gladen_variance` (Below the Reliability Floor, eq. B.1
      at the plug-in estimates), clipped to [0, 1];
    * ``ppi`` and ``ppi_plus_plus``: prediction-powered means with the score as prediction
      (:func:`bayesjudge.estimators.ppi_mean`, :func:`~bayesjudge.estimators.ppi_lambda`;
      Angelopoulos et al. 2023). These assume the labelled items are a random sample of the
      population.

    Caps larger than some item's number of rulings would need extrapolation: those rows have
    no estimate and say why.

    Examples
    --------
    >>> from bayesjudge.gates.simulate import rejudgment_gate, skewed_gate
    >>> gate = rejudgment_gate(*skewed_gate(0.4), pi=0.6, n_items=400, labelled_fraction=0.3,
    ...                        random_seed=1)
    >>> rows = gate_baselines(Rulings.from_frame(gate.table), caps=[1, 2])
    >>> [(row.cap, row.estimate.method) for row in rows][:4]
    [(1, 'naive'), (1, 'rogan_gladen_delta'), (1, 'ppi'), (1, 'ppi_plus_plus')]
    """
    prob = check_prob(prob)
    labelled = rulings.labelled
    y = rulings.label[labelled]
    comp, viol = y == 1.0, y == 0.0
    if not comp.any() or not viol.any():
        raise DataError(
            "the baselines need gold-labelled items of both classes; got "
            f"{int(comp.sum())} compliant and {int(viol.sum())} violation items"
        )
    if labelled.all():
        raise DataError("the rulings have no unlabelled items, so there is no pi to estimate")
    caps_arr = np.atleast_1d(np.asarray(caps, dtype=np.int64))
    scores = cap_scores(rulings.r, rulings.k, caps_arr)
    min_r = int(rulings.r.min())
    rows: list[CapEstimate] = []
    for j, cap in enumerate(caps_arr):
        cap = int(cap)
        if cap > min_r:
            reason = (
                f"K={cap} exceeds the fewest rulings of an item ({min_r}); the score would be "
                "an extrapolation"
            )
            rows.extend(
                CapEstimate(cap, Estimate(method, None, notes=(reason,)))
                for method in GATE_BASELINES
            )
            continue
        s = scores[:, j]
        s_lab, s_unl = s[labelled], s[~labelled]
        n, m1, m0 = s_unl.size, int(comp.sum()), int(viol.sum())
        reported = float(s_unl.mean())
        rows.append(
            CapEstimate(
                cap, clt_estimate("naive", reported, float(np.std(s_unl) / np.sqrt(n)), prob=prob)
            )
        )
        se_hat = float(s_lab[comp].mean())
        sp_hat = 1.0 - float(s_lab[viol].mean())
        j_hat = se_hat + sp_hat - 1.0
        if j_hat > 0:
            unclipped = float(rogan_gladen_pi(rate=reported, se=se_hat, sp=sp_hat))
            se = float(
                np.sqrt(
                    rogan_gladen_variance(rate=reported, se=se_hat, sp=sp_hat, n=n, m1=m1, m0=m0)
                )
            )
            z = z_value(prob)
            value = min(max(unclipped, 0.0), 1.0)
            low = min(max(unclipped - z * se, 0.0), 1.0)
            high = min(max(unclipped + z * se, 0.0), 1.0)
            notes = () if value == unclipped else (f"clipped to [0, 1] from {unclipped:.4g}",)
            rows.append(
                CapEstimate(
                    cap,
                    Estimate(
                        "rogan_gladen_delta",
                        value,
                        Interval(low, high, prob, "delta"),
                        se=se,
                        j=j_hat,
                        unclipped=unclipped,
                        notes=notes,
                    ),
                )
            )
        else:
            rows.append(
                CapEstimate(
                    cap,
                    Estimate.not_identifiable(
                        "rogan_gladen_delta", f"the gate's J({cap}) = {j_hat:.4g} <= 0", j=j_hat
                    ),
                )
            )
        est, se = ppi_mean(y, s_lab, s_unl, lam=1.0)
        rows.append(CapEstimate(cap, clt_estimate("ppi", est, se, prob=prob)))
        lam = ppi_lambda(y, s_lab, s_unl)
        est, se = ppi_mean(y, s_lab, s_unl, lam=lam)
        rows.append(
            CapEstimate(
                cap, clt_estimate("ppi_plus_plus", est, se, prob=prob, notes=(f"lambda={lam:.4g}",))
            )
        )
    return rows
