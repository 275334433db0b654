r"""Drift across batches: the state-space model of pi, Se and Sp fitted to per-batch counts.

A team re-runs its evaluation on every release and re-labels a few items each time. Each batch
:math:`t` gives the six counts of the prevalence model (a frame with the columns
:data:`BATCH_COLUMNS`, one row per batch in time order, as
``bayesjudge.batches`` tables reduce to). :func:`fit_drift` fits
:func:`bayesjudge.models.batches.batches_model`, in which the true success rate
:math:`\pi_t` and the judge's :math:`\mathrm{Se}_t`, :math:`\mathrm{Sp}_t` move as Gaussian
random walks on the logit scale with learned step sizes, so that

* each batch's pi is corrected with the judge of *that* batch, informed by its own gold labels
  and, through the walk, by its neighbours' (a batch with few labels borrows strength);
* the change since the previous batch, :math:`\pi_t - \pi_{t-1}`, has a posterior;
* the judge's drift between batches is read as
  :math:`P(|\mathrm{Se}_t - \mathrm{Se}_{t-1}| > d \text{ or } |\mathrm{Sp}_t -
  \mathrm{Sp}_{t-1}| > d \mid \text{data})` for a stated tolerance :math:`d` (``drift_size``,
  0.05 by default), and a batch is flagged when that probability reaches ``drift_prob``.

The naive per-batch pass rate :math:`k_t / n_t` (with its Wilson interval) is reported beside
the corrected rate, as every family reports its baselines. :func:`drift_figure` draws both over
time with the judge's Se and Sp and the flagged batches; :func:`simulate_drift` draws batches
from known paths, for recovery checks.

References: Rogan and Gladen (1978), "Estimating prevalence from the results of a screening
test"; Harvey (1989), "Forecasting, Structural Time Series Models and the Kalman Filter".
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import ArrayLike

from bayesjudge._docstring import SAMPLER_PARAMETERS, fill_doc
from bayesjudge.batches.predictive import drift_predictive_check
from bayesjudge.errors import DataError
from bayesjudge.estimators.intervals import wilson_interval
from bayesjudge.inference.cache import bucket_size
from bayesjudge.inference.defaults import BATCHES_TARGET_ACCEPT
from bayesjudge.inference.diagnostics import Diagnostics
from bayesjudge.inference.fit import Draws, ModelRun, NutsSettings, diagnostics_of, fit_model
from bayesjudge.inference.ppc import TablePredictiveCheck
from bayesjudge.inference.predictive import predictive_counts
from bayesjudge.inference.sampling import Sampler
from bayesjudge.io.problems import row_names
from bayesjudge.priors import PrevalencePriors
from bayesjudge.reporting.summary import Headline, ReportSummary, ReportWarning
from bayesjudge.validation import check_prob, check_unit, rng_from

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "BATCH_COLUMNS",
    "DEFINITIONS",
    "DRIFT",
    "MIN_PADDED_BATCHES",
    "STEP_SCALE",
    "TARGET_ACCEPT",
    "DriftFit",
    "DriftReference",
    "drift_figure",
    "fit_drift",
    "padded_batches",
    "simulate_drift",
]

#: Name of the state-space model, as recorded in the posterior attrs.
DRIFT = "batches_drift"
#: The columns of a per-batch counts frame, in order.
BATCH_COLUMNS = ("batch", "m1", "x1", "m0", "x0", "n", "k")
#: Half-normal scale of the learned step sizes (logit scale per batch); the model's default.
STEP_SCALE = 0.5
#: NUTS target acceptance of the state-space model.
TARGET_ACCEPT = BATCHES_TARGET_ACCEPT
#: Plain definitions shown in the report.
DEFINITIONS: dict[str, str] = {
    "pi of batch t": "the true success rate of batch t (the share of its answers that are correct)",
    "Se, Sp of batch t": "the judge's sensitivity (PASS on a correct answer) and specificity "
    "(FAIL on a wrong one) in batch t",
    "drift": "the judge's Se or Sp moving by more than the tolerance between two batches",
    "naive": "the judge's pass rate k / n of a batch's unlabelled answers",
}
#: The reference batch of a drift probability: the batch before, or the first batch.
DriftReference = Literal["previous", "first"]
#: Quantities reported per batch (their Monte Carlo error is checked).
REPORTED = ("pi", "se", "sp", "pi_change", "se_change", "sp_change")
_COUNTS = BATCH_COLUMNS[1:]
_STEPS = ("sigma_pi", "sigma_se", "sigma_sp")
#: Shortest padded length of the batch axis (:func:`padded_batches`).
MIN_PADDED_BATCHES = 8


def padded_batches(count: int) -> int:
    """Return the number of batches a fit pads ``count`` batches to: the next power of two.

    At least :data:`MIN_PADDED_BATCHES`. The state-space model is compiled once per padded
    length (:mod:`bayesjudge.models.batches`, "Sizes as data"): 2 to 8 batches share one
    compiled model, 9 to 16 the next.

    Examples
    --------
    >>> padded_batches(3), padded_batches(8), padded_batches(9)
    (8, 8, 16)
    """
    return bucket_size(count, minimum=MIN_PADDED_BATCHES)


_PAIRS = (("x1", "m1"), ("x0", "m0"), ("k", "n"))


def _batch_counts(counts: pd.DataFrame) -> tuple[tuple[str, ...], dict[str, np.ndarray]]:
    """Validate a per-batch counts frame; return the batch names and the counts as int arrays."""
    if not isinstance(counts, pd.DataFrame):
        raise TypeError(f"counts must be a pandas DataFrame; got {type(counts).__name__}")
    columns = [str(c) for c in counts.columns]
    missing = [c for c in BATCH_COLUMNS if c not in columns]
    if missing:
        raise DataError(
            f"the counts need the columns {list(BATCH_COLUMNS)}; missing {missing} "
            f"(the frame has {columns})"
        )
    extra = [c for c in columns if c not in BATCH_COLUMNS]
    if extra:
        raise DataError(
            f"the counts have columns the model does not read: {extra}; give exactly "
            f"{list(BATCH_COLUMNS)}"
        )
    if len(counts) < 2:
        raise DataError(f"the counts need at least two batches (rows); got {len(counts)}")
    names = counts["batch"].to_numpy(dtype=object)
    for position, name in enumerate(names):
        if name is None or (isinstance(name, float) and np.isnan(name)) or name is pd.NA:
            where = row_names(counts.index, [position])[0]
            raise DataError(f"column 'batch' is missing a value in {where}")
    batches = tuple(str(name) for name in names)
    seen: dict[str, int] = {}
    for position, name in enumerate(batches):
        if name in seen:
            first, again = row_names(counts.index, [seen[name], position])
            raise DataError(
                f"column 'batch' names each batch once; {name!r} is in {first} and {again}"
            )
        seen[name] = position
    out: dict[str, np.ndarray] = {}
    for column in _COUNTS:
        values = counts[column].to_numpy(dtype=object)
        ints = np.empty(values.size, dtype=np.int64)
        for position, value in enumerate(values):
            number = _whole(value)
            if number is None or number < 0:
                where = row_names(counts.index, [position])[0]
                raise DataError(
                    f"column {column!r} must hold non-negative whole numbers; {where} "
                    f"(batch {batches[position]!r}) has {value!r}"
                )
            ints[position] = number
        out[column] = ints
    for part, total in _PAIRS:
        over = np.flatnonzero(out[part] > out[total])
        if over.size:
            position = int(over[0])
            where = row_names(counts.index, [position])[0]
            raise DataError(
                f"column {part!r} counts passes among column {total!r}, so it cannot exceed it; "
                f"{where} (batch {batches[position]!r}) has {part}={out[part][position]} > "
                f"{total}={out[total][position]}"
            )
    for column, what in (("m1", "gold-PASS"), ("m0", "gold-FAIL")):
        if out[column].sum() == 0:
            raise DataError(
                f"column {column!r} is 0 in every batch: without {what} items in some batch the "
                "judge's accuracy is not identified; label a few items of that class"
            )
    return batches, out


def _whole(value: object) -> int | None:
    """Return a whole number as int, or None (missing, fractional, text, bool)."""
    if isinstance(value, bool | np.bool_) or value is None or value is pd.NA:
        return None
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating) and np.isfinite(value) and float(value).is_integer():
        return int(value)
    return None


@dataclass(frozen=True, slots=True)
class DriftFit:
    """The state-space fit across batches: posterior, per-batch summaries and drift flags.

    Made by :func:`fit_drift`.

    Attributes
    ----------
    tree : DataTree
        The checked posterior (groups ``posterior``, ``sample_stats``,
        ``posterior_predictive``, ``observed_data``, ``constant_data``; dims ``batch`` and
        ``step``).
    batches : tuple of str
        Batch names in time order.
    counts : DataFrame
        The validated counts (columns :data:`BATCH_COLUMNS`).
    prob : float
        Mass of every interval.
    drift_size : float
        The tolerance :math:`d` of the judge's drift.
    drift_prob : float
        The posterior probability of a drift beyond :math:`d` at which a batch is flagged.
    """

    tree: xr.DataTree
    batches: tuple[str, ...]
    counts: pd.DataFrame
    prob: float
    drift_size: float
    drift_prob: float

    @property
    def diagnostics(self) -> Diagnostics:
        """The diagnostics of the fit (R-hat, ESS, divergences, MCSE, predictive checks)."""
        return diagnostics_of(self.tree)

    @property
    def passed(self) -> bool:
        """Whether every diagnostic check passed."""
        return bool(self.diagnostics.passed)

    @property
    def predictive_check(self) -> dict[str, Any] | None:
        """The posterior predictive check of the counts, as plain values (None if not recorded).

        The ``to_dict()`` of :func:`bayesjudge.batches.predictive.drift_predictive_check`; its
        tests are among the diagnostics.
        """
        text = self.tree.attrs.get("predictive_check")
        return None if text is None else dict(json.loads(text))

    def _draws(self, name: str) -> np.ndarray:
        """Return the draws of ``name`` as an array (samples, then the batch or step axis)."""
        values = self.tree["posterior"][name]
        extra = [d for d in values.dims if d not in ("chain", "draw")]
        return np.asarray(values.stack(sample=("chain", "draw")).transpose("sample", *extra))

    def drift_probability(self, since: DriftReference = "previous") -> pd.Series:
        r"""Return the probability that the judge moved beyond the tolerance since a reference.

        :math:`P(|\mathrm{Se}_t - \mathrm{Se}_r| > d \text{ or } |\mathrm{Sp}_t -
        \mathrm{Sp}_r| > d \mid \text{data})` for every batch :math:`t` after the first.
        With ``since="previous"`` the reference :math:`r` is the batch before (:math:`r = t -
        1`): did the judge move at this batch? With ``since="first"`` it is the first batch
        (:math:`r = 1`, the batch the judge was validated on, say): has the judge moved since?
        A step change of the judge is spread by the random walk over the batches around it, so
        that no single step may carry enough of it to be flagged, while the change since the
        first batch carries all of it.

        Parameters
        ----------
        since : {"previous", "first"}, default "previous"
            The reference batch.

        Returns
        -------
        Series
            One posterior probability per batch after the first (index ``step``).
        """
        if since not in ("previous", "first"):
            raise ValueError(f"since must be 'previous' or 'first'; got {since!r}")
        if since == "previous":
            se = np.abs(self._draws("se_change")) > self.drift_size
            sp = np.abs(self._draws("sp_change")) > self.drift_size
        else:
            se_draws, sp_draws = self._draws("se"), self._draws("sp")
            se = np.abs(se_draws[:, 1:] - se_draws[:, :1]) > self.drift_size
            sp = np.abs(sp_draws[:, 1:] - sp_draws[:, :1]) > self.drift_size
        return pd.Series(
            (se | sp).mean(axis=0),
            index=pd.Index(self.batches[1:], name="step"),
            name="drift" if since == "previous" else "drift_since_first",
        )

    @property
    def drifted(self) -> tuple[str, ...]:
        """The batches whose judge drifted: drift probability at least ``drift_prob``."""
        flags = self.drift_probability()
        return tuple(str(b) for b in flags.index[flags.to_numpy() >= self.drift_prob])

    @property
    def drifted_since_first(self) -> tuple[str, ...]:
        """The batches whose judge differs from the first batch's: probability >= ``drift_prob``.

        The probability is that of :meth:`drift_probability` with ``since="first"``.
        """
        flags = self.drift_probability("first")
        return tuple(str(b) for b in flags.index[flags.to_numpy() >= self.drift_prob])

    def naive(self) -> pd.DataFrame:
        """Return the naive pass rate ``k / n`` of each batch with its Wilson interval.

        NaN for a batch without unlabelled items (Wilson 1927).
        """
        k = self.counts["k"].to_numpy(dtype=float)
        n = self.counts["n"].to_numpy(dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            rate = np.where(n > 0, k / n, np.nan)
            low, high = wilson_interval(k, np.where(n > 0, n, 1.0), prob=self.prob)
        return pd.DataFrame(
            {
                "naive": rate,
                "naive_low": np.where(n > 0, low, np.nan),
                "naive_high": np.where(n > 0, high, np.nan),
            },
            index=pd.Index(self.batches, name="batch"),
        )

    def _interval(self, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        draws = self._draws(name)
        tail = (1.0 - self.prob) / 2.0
        low, high = np.quantile(draws, [tail, 1.0 - tail], axis=0)
        return draws.mean(axis=0), low, high

    def to_frame(self) -> pd.DataFrame:
        r"""Return one row per batch: counts, naive rate, posterior of pi, Se, Sp and changes.

        Columns: the counts, ``naive``, ``naive_low``, ``naive_high``; for ``pi``, ``se``,
        ``sp`` and ``j`` the posterior mean and equal-tailed bounds (``pi``, ``pi_low``,
        ``pi_high``, ...); the change since the previous batch ``pi_change`` (with bounds,
        ``p_pi_down`` = :math:`P(\pi_t < \pi_{t-1})`), ``se_change``, ``sp_change``; ``drift``
        (the probability of :meth:`drift_probability`) and ``drifted`` (flagged);
        ``drift_since_first`` and ``drifted_since_first`` (the same against the first batch).
        The change and drift columns are NaN in the first batch.
        """
        frame = self.counts.set_index("batch").join(self.naive())
        frame.index = pd.Index(self.batches, name="batch")
        for name in ("pi", "se", "sp", "j"):
            mean, low, high = self._interval(name)
            frame[name], frame[f"{name}_low"], frame[f"{name}_high"] = mean, low, high
        for name in ("pi_change", "se_change", "sp_change"):
            mean, low, high = self._interval(name)
            for suffix, values in (("", mean), ("_low", low), ("_high", high)):
                frame[name + suffix] = np.concatenate([[np.nan], values])
        down = (self._draws("pi_change") < 0.0).mean(axis=0)
        frame["p_pi_down"] = np.concatenate([[np.nan], down])
        frame["drift"] = np.concatenate([[np.nan], self.drift_probability().to_numpy()])
        frame["drifted"] = frame.index.isin(self.drifted)
        since = self.drift_probability("first").to_numpy()
        frame["drift_since_first"] = np.concatenate([[np.nan], since])
        frame["drifted_since_first"] = frame.index.isin(self.drifted_since_first)
        return frame

    def steps(self) -> pd.DataFrame:
        """Return the posterior mean and equal-tailed bounds of the three step sizes."""
        rows = {}
        for name in _STEPS:
            draws = self._draws(name)
            tail = (1.0 - self.prob) / 2.0
            low, high = np.quantile(draws, [tail, 1.0 - tail])
            rows[name] = {"mean": float(draws.mean()), "low": float(low), "high": float(high)}
        return pd.DataFrame.from_dict(rows, orient="index")

    def summary(self) -> ReportSummary:
        r"""Return the one-screen summary: the last batch's pi beside its naive rate, and drift.

        The reading gives the change of pi since the previous batch with
        :math:`P(\pi_t < \pi_{t-1})`, and names the batches whose judge drifted.
        """
        frame = self.to_frame()
        last = frame.iloc[-1]
        name = str(frame.index[-1])
        naive = None if pd.isna(last["naive"]) else float(last["naive"])
        headline = Headline(
            f"true success rate pi in the last batch ({name})",
            float(last["pi"]),
            float(last["pi_low"]),
            float(last["pi_high"]),
            self.prob,
            naive=naive,
            naive_name="judged pass rate of that batch (naive)",
        )
        mass = f"{100 * self.prob:g}%"
        reading = (
            f"In batch {name} the corrected success rate is {100 * last['pi']:.1f}% "
            f"({mass} interval {100 * last['pi_low']:.1f}% to {100 * last['pi_high']:.1f}%)"
        )
        if len(frame) > 1:
            reading += (
                f"; since the batch before it pi moved by {100 * last['pi_change']:+.1f} points "
                f"({100 * last['pi_change_low']:+.1f} to {100 * last['pi_change_high']:+.1f}), "
                f"and P(pi went down) = {last['p_pi_down']:.2f}"
            )
        reading += "."
        warnings = []
        if self.drifted:
            warnings.append(
                ReportWarning(
                    "The judge drifted",
                    f"P(Se or Sp moved by more than {self.drift_size:g}) >= {self.drift_prob:g} "
                    f"at {', '.join(self.drifted)}",
                    "Re-check the judge on fresh gold labels before reading its naive rates.",
                )
            )
        if self.drifted_since_first:
            warnings.append(
                ReportWarning(
                    "The judge is not the one of the first batch",
                    f"P(Se or Sp differs from batch {self.batches[0]}'s by more than "
                    f"{self.drift_size:g}) >= {self.drift_prob:g} at "
                    f"{', '.join(self.drifted_since_first)}",
                    "Its validation on the first batch no longer holds there; the corrected "
                    "rates use each batch's own gold labels.",
                )
            )
        return ReportSummary(
            headline,
            diagnostics=self.diagnostics,
            definitions=DEFINITIONS.items(),
            warnings=warnings,
            trust=(
                "The state-space model: each batch's pi, Se and Sp take a random-walk step from "
                "the batch before, with step sizes learned from the data, so a batch with few "
                "gold labels borrows its judge from its neighbours; the naive rates ignore the "
                "judge's errors and its drift."
            ),
            reading=reading,
            quantities=("pi", "se", "sp"),
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the fit as plain values (JSON-ready): batches, steps, drift and diagnostics.

        ``diagnostics`` is the shared block with the posterior predictive check under
        ``predictive_check`` (:attr:`predictive_check`).
        """
        frame = self.to_frame().reset_index()
        rows = json.loads(frame.to_json(orient="records"))
        return {
            "model": DRIFT,
            "prob": self.prob,
            "drift_size": self.drift_size,
            "drift_prob": self.drift_prob,
            "batches": rows,
            "drifted": list(self.drifted),
            "drifted_since_first": list(self.drifted_since_first),
            "steps": self.steps().to_dict(orient="index"),
            "fixed_steps": self.tree.attrs.get("fixed_steps"),
            "passed": self.passed,
            "diagnostics": {
                **self.diagnostics.json_block(),
                "predictive_check": self.predictive_check,
            },
        }


@fill_doc(sampler_parameters=SAMPLER_PARAMETERS)
def fit_drift(
    counts: pd.DataFrame,
    *,
    priors: PrevalencePriors | None = None,
    step_scale: float = STEP_SCALE,
    fixed_steps: float | None = None,
    drift_size: float = 0.05,
    drift_prob: float = 0.9,
    draws: Draws = 1000,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float | None = None,
    random_seed: int | np.random.Generator | None = None,
    progressbar: bool | None = None,
    sampler: Sampler = "auto",
    escalate: bool = True,
    prob: float = 0.95,
) -> DriftFit:
    r"""Fit pi, Se and Sp across batches as random walks on the logit scale.

    .. math::

        \mathrm{logit}\,\theta_t = \mathrm{logit}\,\theta_{t-1} + \sigma_\theta z_{\theta t},
        \quad x_{1t} \sim \mathrm{Bin}(m_{1t}, \mathrm{Se}_t), \;
        x_{0t} \sim \mathrm{Bin}(m_{0t}, 1 - \mathrm{Sp}_t), \;
        k_t \sim \mathrm{Bin}(n_t, \pi_t\mathrm{Se}_t + (1 - \pi_t)(1 - \mathrm{Sp}_t)),

    for :math:`\theta \in \{\pi, \mathrm{Se}, \mathrm{Sp}\}`
    (:func:`bayesjudge.models.batches.batches_model`; Rogan and Gladen 1978; Harvey 1989),
    sampled with NUTS through the shared fitting path and checked
    (:func:`bayesjudge.check_fit`: R-hat, ESS, divergences, Monte Carlo error of the reported
    quantities, and the posterior predictive check of the gold and judged counts across the
    batches, one family per kind of count at the family-wise level 0.05:
    :func:`bayesjudge.batches.predictive.drift_predictive_check`, recorded under the root attr
    ``predictive_check``; a failed family fails the diagnostics).

    Parameters
    ----------
    counts : DataFrame
        One row per batch in time order with the columns ``batch, m1, x1, m0, x0, n, k``
        (:data:`BATCH_COLUMNS`; the six counts of :class:`bayesjudge.JudgeCounts`).
    priors : PrevalencePriors, optional
        Beta priors of the first batch's pi, Se and Sp; Jeffreys Beta(1/2, 1/2) by default.
    step_scale : float, default 0.5
        Half-normal scale of the learned step sizes (logit scale per batch).
    fixed_steps : float, optional
        Fix the three step sizes at this value instead of learning them; a large value (e.g.
        100) makes every batch an independent prevalence fit.
    drift_size : float, default 0.05
        Tolerance :math:`d` of the judge's drift on the probability scale.
    drift_prob : float, default 0.9
        Posterior probability of a drift beyond ``drift_size`` at which a batch is flagged.
    %(sampler_parameters)s

    Returns
    -------
    DriftFit

    Raises
    ------
    DataError
        Naming the column and row of bad counts (missing columns, a missing or repeated batch
        name, negative or fractional counts, passes above their total, no gold items of a
        class in any batch).
    ValueError
        On a step scale, fixed step, tolerance or probability out of range.

    Warns
    -----
    FitWarning
        When a diagnostic check still fails after the retry.

    Examples
    --------
    >>> import pandas as pd
    >>> counts = pd.DataFrame({"batch": ["r1", "r2", "r3"], "m1": [30, 30, 30],
    ...     "x1": [27, 27, 28], "m0": [30, 30, 30], "x0": [3, 4, 9],
    ...     "n": [400, 400, 400], "k": [280, 290, 320]})
    >>> fit = fit_drift(counts, draws=500, random_seed=1, progressbar=False)
    >>> list(fit.to_frame().index)
    ['r1', 'r2', 'r3']
    >>> bool(fit.to_frame()["pi"].between(0.6, 0.9).all())
    True
    """
    batches, arrays = _batch_counts(counts)
    if priors is None:
        priors = PrevalencePriors()
    if not isinstance(priors, PrevalencePriors):
        raise TypeError(f"priors must be a PrevalencePriors; got {type(priors).__name__}")
    prob = check_prob(prob)
    drift_prob = check_prob(drift_prob, name="drift_prob")
    drift_size = check_unit(drift_size, name="drift_size", open_interval=True)
    if not step_scale > 0 or not np.isfinite(step_scale):
        raise ValueError(f"step_scale must be a positive number; got {step_scale!r}")
    if fixed_steps is not None and (not fixed_steps > 0 or not np.isfinite(fixed_steps)):
        raise ValueError(f"fixed_steps must be a positive number or None; got {fixed_steps!r}")
    settings = NutsSettings.of(draws, tune, chains, target_accept, TARGET_ACCEPT)
    step = None if fixed_steps is None else float(fixed_steps)
    scale = float(step_scale)

    # the number of batches is data: the batch axis padded to a few lengths (the model's
    # "Sizes as data"), so that one compiled model serves any number of batches up to it
    size = padded_batches(len(batches))
    from bayesjudge.models.batches import model_data

    data = model_data(arrays, pad_to=size, fixed_steps=step is not None)

    def build() -> Any:
        from bayesjudge.models.batches import batches_model

        return batches_model(
            batches, arrays, priors=priors, step_scale=scale, fixed_steps=step, pad_to=size
        )

    run = ModelRun(DRIFT, (DRIFT, size, priors, scale, step), build, data, priors)
    # the posterior predictive counts and the family check of the latest attempt: the counts
    # join the tree after the fit, so that the per-count checks of check_fit (each at its own
    # level) give way to the family check at a stated family-wise level
    latest: list[tuple[xr.Dataset, TablePredictiveCheck]] = []

    def complete(trace: xr.DataTree, rng: np.random.Generator) -> xr.DataTree:
        posterior = trace["posterior"].to_dataset()
        # the observed batches only (the padded ones hold prior draws)
        posterior = posterior.isel(batch=slice(0, len(batches)), step=slice(0, len(batches) - 1))
        posterior = posterior.assign_coords(batch=list(batches), step=list(batches[1:]))
        fpr = 1.0 - posterior["sp"]
        predictive = predictive_counts(
            {
                "x1": (arrays["m1"], posterior["se"]),
                "x0": (arrays["m0"], fpr),
                "k": (arrays["n"], posterior["judged_rate"]),
            },
            rng,
        )
        check = drift_predictive_check(posterior, arrays, batches, random_seed=rng)
        latest[:] = [(predictive, check)]
        coords = {"batch": list(batches)}
        tree = xr.DataTree.from_dict(
            {
                "posterior": posterior,
                "sample_stats": trace["sample_stats"].to_dataset(),
                "observed_data": xr.Dataset(
                    {name: ("batch", arrays[name]) for name in ("x1", "x0", "k")}, coords=coords
                ),
                "constant_data": xr.Dataset(
                    {name: ("batch", arrays[name]) for name in ("m1", "m0", "n")}, coords=coords
                ),
            }
        )
        tree.attrs["predictive_check"] = json.dumps(check.to_dict())
        return tree

    tree = fit_model(
        run,
        settings=settings,
        complete=complete,
        random_seed=random_seed,
        sampler=sampler,
        progressbar=progressbar,
        escalate=escalate,
        prob=prob,
        check_vars=[*REPORTED, "j", "judged_rate", *(_STEPS if step is None else ())],
        mcse_vars=list(REPORTED),
        family_checks=lambda _: latest[0][1].checks(),
        attrs={
            "batches": list(batches),
            "counts": json.dumps({k: v.tolist() for k, v in arrays.items()}),
            "step_scale": scale,
            "fixed_steps": step,
        },
    )
    tree["posterior_predictive"] = xr.DataTree(latest[0][0])
    frame = pd.DataFrame({"batch": list(batches), **arrays}, columns=list(BATCH_COLUMNS))
    return DriftFit(tree, batches, frame, prob, drift_size, drift_prob)


def simulate_drift(
    pi: ArrayLike,
    se: ArrayLike,
    sp: ArrayLike,
    *,
    labelled: ArrayLike = 100,
    unlabelled: ArrayLike = 500,
    random_seed: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    r"""Draw per-batch counts from known paths of pi, Se and Sp.

    In batch :math:`t`, ``labelled`` items are drawn from the batch and gold-labelled
    (:math:`m_{1t} \sim \mathrm{Bin}(m_t, \pi_t)`, :math:`m_{0t} = m_t - m_{1t}`), the judge
    passes :math:`x_{1t} \sim \mathrm{Bin}(m_{1t}, \mathrm{Se}_t)` and
    :math:`x_{0t} \sim \mathrm{Bin}(m_{0t}, 1 - \mathrm{Sp}_t)` of them, and
    :math:`k_t \sim \mathrm{Bin}(n_t, \pi_t\mathrm{Se}_t + (1 - \pi_t)(1 - \mathrm{Sp}_t))` of
    the ``unlabelled`` items.

    Parameters
    ----------
    pi, se, sp : array_like
        True paths, one value in [0, 1] per batch (equal lengths, at least two).
    labelled, unlabelled : int or array_like
        Gold-labelled and unlabelled items per batch (scalars or one per batch).
    random_seed : int, Generator or None
        Seed of the draws (the ``simulate`` stream).

    Returns
    -------
    DataFrame
        Columns :data:`BATCH_COLUMNS`, batches named ``b1``, ``b2``, ...

    Examples
    --------
    >>> frame = simulate_drift([0.7, 0.7, 0.6], [0.9] * 3, [0.9, 0.9, 0.75], random_seed=0)
    >>> list(frame.columns)
    ['batch', 'm1', 'x1', 'm0', 'x0', 'n', 'k']
    >>> int(frame["m1"].iloc[0] + frame["m0"].iloc[0])
    100
    """
    paths = {}
    for name, values in (("pi", pi), ("se", se), ("sp", sp)):
        array = np.asarray(values, dtype=float)
        if array.ndim != 1 or array.size < 2:
            raise ValueError(f"{name} must be a 1-d sequence of at least two rates; got {values!r}")
        if not np.all((array >= 0.0) & (array <= 1.0)):
            raise ValueError(f"{name} must hold rates in [0, 1]; got {array.tolist()}")
        paths[name] = array
    size = paths["pi"].size
    if paths["se"].size != size or paths["sp"].size != size:
        raise ValueError(
            f"pi, se and sp need one value per batch each; got lengths {size}, "
            f"{paths['se'].size}, {paths['sp'].size}"
        )
    sizes = {}
    for name, values in (("labelled", labelled), ("unlabelled", unlabelled)):
        array = np.broadcast_to(np.asarray(values), (size,))
        if not np.issubdtype(array.dtype, np.integer) or np.any(array < 0):
            raise ValueError(f"{name} must be non-negative whole numbers; got {values!r}")
        sizes[name] = array.astype(np.int64)
    rng = rng_from(random_seed)
    m1 = rng.binomial(sizes["labelled"], paths["pi"])
    m0 = sizes["labelled"] - m1
    x1 = rng.binomial(m1, paths["se"])
    x0 = rng.binomial(m0, 1.0 - paths["sp"])
    rate = paths["pi"] * paths["se"] + (1.0 - paths["pi"]) * (1.0 - paths["sp"])
    k = rng.binomial(sizes["unlabelled"], rate)
    return pd.DataFrame(
        {
            "batch": [f"b{t + 1}" for t in range(size)],
            "m1": m1,
            "x1": x1,
            "m0": m0,
            "x0": x0,
            "n": sizes["unlabelled"],
            "k": k,
        }
    )


def drift_figure(fit: DriftFit, *, title: str | None = None) -> Figure:
    """Draw the corrected and naive rates over the batches, the judge's Se and Sp, and drift.

    Top: the posterior mean of pi per batch with its equal-tailed band (blue) and the naive
    pass rate ``k / n`` with its Wilson interval (black); bottom: the judge's Se and Sp with
    their bands. Batches whose judge drifted (:attr:`DriftFit.drifted`) are shaded in both.

    Parameters
    ----------
    fit : DriftFit
        A fit from :func:`fit_drift`.
    title : str, optional
        Title above the top panel.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> counts = pd.DataFrame({"batch": ["r1", "r2", "r3"], "m1": [30, 30, 30],
    ...     "x1": [27, 27, 28], "m0": [30, 30, 30], "x0": [3, 4, 9],
    ...     "n": [400, 400, 400], "k": [280, 290, 320]})
    >>> fit = fit_drift(counts, draws=500, random_seed=1, progressbar=False)
    >>> drift_figure(fit).axes[1].get_xlabel()
    'batch'
    """
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    blue, orange, green, shade = "#4c72b0", "#dd8452", "#55a868", "#c44e52"
    frame = fit.to_frame()
    x = np.arange(len(frame))
    fig = Figure(figsize=(max(6.0, 0.6 * len(frame) + 3.0), 6.0))
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[1.3, 1.0])
    percent = f"{100 * fit.prob:g}%"
    for ax in (top, bottom):
        for position, drifted in enumerate(frame["drifted"].to_numpy()):
            if drifted:
                ax.axvspan(position - 0.5, position + 0.5, color=shade, alpha=0.15, lw=0)
    top.fill_between(x, frame["pi_low"], frame["pi_high"], color=blue, alpha=0.25, lw=0)
    top.plot(x, frame["pi"], color=blue, marker="o", label=f"corrected pi ({percent} band)")
    naive = frame["naive"].to_numpy()
    top.errorbar(
        x,
        naive,
        yerr=np.vstack([naive - frame["naive_low"], frame["naive_high"] - naive]),
        color="black",
        fmt="s",
        ms=4,
        capsize=3,
        lw=1,
        label=f"naive pass rate k/n (Wilson {percent})",
    )
    top.set_ylabel("success rate")
    if title:
        top.set_title(title, fontsize=11)
    for name, colour, label in (("se", orange, "Se"), ("sp", green, "Sp")):
        bottom.fill_between(
            x, frame[f"{name}_low"], frame[f"{name}_high"], color=colour, alpha=0.25, lw=0
        )
        bottom.plot(x, frame[name], color=colour, marker="o", label=f"judge {label}")
    bottom.set_ylabel("judge accuracy")
    bottom.set_xlabel("batch")
    bottom.set_xticks(x, list(frame.index), rotation=45 if len(frame) > 12 else 0, fontsize=8)
    handles, labels = bottom.get_legend_handles_labels()
    if frame["drifted"].any():
        handles.append(Patch(color=shade, alpha=0.15, label="judge drifted"))
        labels.append(
            f"judge drifted (P(|change in Se or Sp| > {fit.drift_size:g}) >= {fit.drift_prob:g})"
        )
    top.legend(fontsize=8, loc="best", framealpha=0.9)
    bottom.legend(handles, labels, fontsize=8, loc="best", framealpha=0.9)
    fig.tight_layout()
    return fig
