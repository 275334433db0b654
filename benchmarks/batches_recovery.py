"""Recovery study of the state-space model across batches (bayesjudge.batches.statespace).

Two scenarios (``--scenario``), each of ten batches with ``--labelled`` gold items drawn from
each batch (100) and ``--unlabelled`` judged items (500); :func:`fit_drift` is fitted with its
defaults (learned step sizes with the half-normal(0.5) prior, 4 chains of 1,000 draws, one
retry when a sampler check fails).

``step`` (held out from the model's form): the true success rate falls linearly from 0.75 to
0.70 over the ten batches (the issue's "drop of pi by 0.05"), the judge's Se holds at 0.88,
and its Sp falls from 0.90 to 0.75 at batch 6 (the issue's "Sp falls by 0.15"). Se held
constant puts its true step size on the boundary (0) of the step prior.

``walk`` (the model's own form): pi, Se and Sp start at 0.75, 0.88 and 0.90 and move as
Gaussian random walks on the logit scale with the known step sizes :data:`WALK_STEPS` (0.10,
0.20, 0.30: inside the bulk of the half-normal(0.5) prior), the innovations drawn afresh in
each replicate (seed ``20_000 + replicate``).

Reported: coverage of the 95% equal-tailed intervals of pi_t, Se_t and Sp_t over all batches
and replicates, with its Monte Carlo error (the standard error of the replicate means, since
batches within a replicate are correlated); the same for the naive k/n Wilson interval as an
interval for pi_t; mean interval widths and absolute errors; the posterior medians of the
three step sizes; and the two judge-drift read-outs of :class:`DriftFit` (a batch flagged when
P(|change in Se or Sp| > 0.05) >= 0.9), the change since the previous batch and the change
since the first batch, each scored against the true change (beyond 0.05 or not): the share
of batches without such a true change that are flagged (false flags) and of batches with one
that are flagged (power); fits whose diagnostics failed; fit times.

The first 20 rows of ``results/batches_raw.csv`` were written before the step sizes and the
drift read-outs were recorded; rows 0 to 14 were rerun with them (their other columns came out
identical, the fits being seeded), rows 15 to 19 keep the first run's columns only, so the
step sizes and read-outs of the ``step`` scenario count the replicates that recorded them.

Each replicate's row is appended to ``results/batches_raw.csv`` (``step``) or
``results/batches_walk_raw.csv`` (``walk``) as it finishes (a rerun resumes after the
replicates already there); ``--summary-only`` rewrites the record from it. The records are
``results/batches.md`` and ``results/batches_walk.md``.

Usage::

    nice python benchmarks/batches_recovery.py --scenario step --replicates 40
    nice python benchmarks/batches_recovery.py --scenario walk --replicates 40
    python benchmarks/batches_recovery.py --scenario walk --replicates 40 --summary-only
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special

from bayesjudge.batches.statespace import fit_drift, simulate_drift

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _record import RESULTS, record

BATCHES = 10
DRIFT_SIZE = 0.05
#: The ``step`` scenario's paths.
STEP_PI = np.linspace(0.75, 0.70, BATCHES)
STEP_SE = np.full(BATCHES, 0.88)
STEP_SP = np.r_[np.full(5, 0.90), np.full(5, 0.75)]
#: The ``walk`` scenario's starting rates and known step sizes (logit scale, per batch).
WALK_START = {"pi": 0.75, "se": 0.88, "sp": 0.90}
WALK_STEPS = {"pi": 0.10, "se": 0.20, "sp": 0.30}
RAW = {"step": "batches_raw.csv", "walk": "batches_walk_raw.csv"}
RECORD = {"step": "batches", "walk": "batches_walk"}


def paths(scenario: str, index: int) -> dict[str, np.ndarray]:
    """Return the true paths of pi, Se and Sp of one replicate."""
    if scenario == "step":
        return {"pi": STEP_PI, "se": STEP_SE, "sp": STEP_SP}
    rng = np.random.default_rng(20_000 + index)
    out = {}
    for name in ("pi", "se", "sp"):
        steps = WALK_STEPS[name] * rng.standard_normal(BATCHES - 1)
        logits = special.logit(WALK_START[name]) + np.r_[0.0, np.cumsum(steps)]
        out[name] = special.expit(logits)
    return out


def _draws(fit: object, name: str) -> np.ndarray:
    """Return the posterior draws of ``name`` as (samples, batch)."""
    values = fit.tree["posterior"][name]  # type: ignore[attr-defined]
    return np.asarray(values.stack(sample=("chain", "draw")).transpose("sample", ...))


def replicate(scenario: str, index: int, labelled: int, unlabelled: int) -> dict[str, object]:
    """Fit one simulated dataset; return its coverage, widths, errors, flags and time."""
    truth = paths(scenario, index)
    frame = simulate_drift(
        truth["pi"],
        truth["se"],
        truth["sp"],
        labelled=labelled,
        unlabelled=unlabelled,
        random_seed=10_000 + index,
    )
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = fit_drift(frame, random_seed=index, progressbar=False)
    seconds = time.perf_counter() - start
    table = fit.to_frame()
    row: dict[str, object] = {"replicate": index, "seconds": seconds, "passed": fit.passed}
    for name in ("pi", "se", "sp"):
        low, high = table[f"{name}_low"].to_numpy(), table[f"{name}_high"].to_numpy()
        row[f"cover_{name}"] = float(np.mean((low <= truth[name]) & (truth[name] <= high)))
        row[f"width_{name}"] = float(np.mean(high - low))
        row[f"abs_error_{name}"] = float(np.mean(np.abs(table[name].to_numpy() - truth[name])))
        row[f"sigma_{name}"] = float(np.median(_draws(fit, f"sigma_{name}")))
    low, high = table["naive_low"].to_numpy(), table["naive_high"].to_numpy()
    row["cover_naive"] = float(np.mean((low <= truth["pi"]) & (high >= truth["pi"])))
    row["abs_error_naive"] = float(np.mean(np.abs(table["naive"].to_numpy() - truth["pi"])))
    se, sp = _draws(fit, "se"), _draws(fit, "sp")
    for since in ("previous", "first"):
        base = slice(0, -1) if since == "previous" else slice(0, 1)
        moved = (np.abs(se[:, 1:] - se[:, base]) > DRIFT_SIZE) | (
            np.abs(sp[:, 1:] - sp[:, base]) > DRIFT_SIZE
        )
        prob = moved.mean(axis=0)
        true_se = np.abs(truth["se"][1:] - truth["se"][base]) > DRIFT_SIZE
        true_sp = np.abs(truth["sp"][1:] - truth["sp"][base]) > DRIFT_SIZE
        row[f"prob_{since}"] = json.dumps(np.round(prob, 4).tolist())
        row[f"true_{since}"] = json.dumps((true_se | true_sp).tolist())
    row["attempts"] = len(json.loads(fit.tree.attrs["attempts"]))
    return row


def flag_rates(rows: pd.DataFrame, since: str, level: float = 0.9) -> dict[str, float]:
    """Return the flag counts of one drift read-out against the true changes.

    Only the replicates that recorded the read-out count (rows written before the columns
    existed have none).
    """
    rows = rows[rows[f"prob_{since}"].notna()]
    prob = np.array([json.loads(v) for v in rows[f"prob_{since}"]])
    true = np.array([json.loads(v) for v in rows[f"true_{since}"]], dtype=bool)
    flag = prob >= level
    return {
        "false": int((flag & ~true).sum()),
        "null": int((~true).sum()),
        "hit": int((flag & true).sum()),
        "drift": int(true.sum()),
        "replicates": len(rows),
        "any_false": int((flag & ~true).any(axis=1).sum()),
        "with_null": int((~true).any(axis=1).sum()),
    }


def summarise(rows: pd.DataFrame) -> str:
    """Return the markdown tables of the study."""
    count = len(rows)

    def mean_se(column: str) -> str:
        values = rows[column].astype(float)
        return f"{values.mean():.3f} ± {values.std(ddof=1) / np.sqrt(count):.3f}"

    lines = [
        "| quantity | coverage of 95% intervals (± MC s.e.) | mean width | mean abs. error | "
        "posterior median step size, mean over replicates |",
        "|---|---|---|---|---|",
    ]
    for name, label in (("pi", "pi_t (model)"), ("se", "Se_t"), ("sp", "Sp_t")):
        lines.append(
            f"| {label} | {mean_se(f'cover_{name}')} | {rows[f'width_{name}'].mean():.3f} | "
            f"{rows[f'abs_error_{name}'].mean():.3f} | {rows[f'sigma_{name}'].mean():.3f} "
            f"({rows[f'sigma_{name}'].notna().sum()} replicates) |"
        )
    lines.append(
        f"| pi_t (naive k/n, Wilson) | {mean_se('cover_naive')} | - | "
        f"{rows['abs_error_naive'].mean():.3f} | - |"
    )
    flags = [
        "",
        "| judge-drift read-out (flag: P(change > 0.05) >= 0.9) | replicates | false flags "
        "(batches without "
        "a true change > 0.05) | replicates with any false flag | power (batches with a true "
        "change > 0.05 flagged) |",
        "|---|---|---|---|---|",
    ]
    for since, label in (("previous", "since the previous batch"), ("first", "since batch 1")):
        r = flag_rates(rows, since)
        power = f"{r['hit']} of {r['drift']}" if r["drift"] else "- (no true change)"
        flags.append(
            f"| {label} | {r['replicates']} | {r['false']} of {r['null']} | "
            f"{r['any_false']} of {r['with_null']} | {power} |"
        )
    fits = [
        "",
        "| fits | value |",
        "|---|---|",
        f"| passing every diagnostic | {int(rows['passed'].sum())} of {count} |",
        f"| needing the retry | {int((rows['attempts'] > 1).sum())} of {count} |",
        f"| fit time, median (max) | {rows['seconds'].median():.1f} s "
        f"({rows['seconds'].max():.1f} s) |",
        f"| total fitting time | {rows['seconds'].sum():.0f} s |",
    ]
    return "\n".join(lines + flags + fits)


def describe(scenario: str, labelled: int, unlabelled: int) -> str:
    """Return the scenario's one-paragraph description."""
    if scenario == "step":
        truth = "pi 0.75 -> 0.70 linearly, Se 0.88, Sp 0.90 -> 0.75 at batch 6"
    else:
        truth = (
            "pi, Se, Sp random walks on the logit scale from 0.75, 0.88, 0.90 with step sizes "
            "0.10, 0.20, 0.30 (fresh innovations per replicate)"
        )
    return (
        f"{BATCHES} batches; {truth}; {labelled} gold items drawn from each batch, "
        f"{unlabelled} judged items; fit_drift defaults (learned steps, half-normal scale "
        "0.5, 4 x 1,000 draws). Coverage is pooled over batches; its Monte Carlo standard "
        "error is that of the replicate means (batches of one replicate are correlated)."
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", choices=sorted(RAW), default="step")
    parser.add_argument("--replicates", type=int, default=40)
    parser.add_argument("--labelled", type=int, default=100)
    parser.add_argument("--unlabelled", type=int, default=500)
    parser.add_argument("--no-record", action="store_true", help="print only")
    parser.add_argument("--summary-only", action="store_true", help="summarise the raw rows")
    args = parser.parse_args(argv)
    raw = RESULTS / RAW[args.scenario]
    done = pd.read_csv(raw) if raw.exists() else pd.DataFrame()
    if not args.summary_only:
        for index in range(len(done), args.replicates):
            row = replicate(args.scenario, index, args.labelled, args.unlabelled)
            pd.DataFrame([row]).to_csv(raw, mode="a", header=not raw.exists(), index=False)
            print(f"replicate {index}: {row}", flush=True)
        done = pd.read_csv(raw)
    rows = done.iloc[: args.replicates]
    body = (
        f"{len(rows)} replicates. "
        + describe(args.scenario, args.labelled, args.unlabelled)
        + "\n\n"
        + summarise(rows)
        + f"\n\nRaw rows (one per replicate): `results/{RAW[args.scenario]}`."
    )
    command = "python benchmarks/batches_recovery.py " + " ".join(argv or sys.argv[1:])
    if args.no_record:
        print(body)
    else:
        title = f"Recovery of the state-space model across batches ({args.scenario} scenario)"
        path = record(RECORD[args.scenario], title, command, body)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
