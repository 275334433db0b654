"""The ``bayesjudge gate`` subcommand: retry-until-PASS gates and revise-then-rejudge loops.

``bayesjudge gate RULINGS.csv [--k 1 2 5] [--prob 0.95] [--random-seed N] [--json] [--out DIR]``
fits the per-item pass-rate hierarchy (:func:`bayesjudge.gate_fit.fit_gate`) to long-format
rulings (``item``, ``verdict``[, ``label``][, ``ruling``][, ``slice``]), checks it, and puts the
posterior of pi, J(inf) and J, Se, Sp, R at each cap beside the baselines at each cap
(:func:`bayesjudge.gate_fit.gate_baselines`) and the lag-1 independence check. ``--loop
LOGS.csv`` adds (or, without rulings, gives alone) the loop analysis: the slip law's (a, s,
leak), the replayed and predicted reported rate and slip at each cap, and the PPV correction.

With ``--json`` the output is one object::

    {"posterior": {"pi": S, "J_inf": S, "J": {"1": S, ...}, "Se": {...}, "Sp": {...},
                   "R": {...}},
     "diagnostics": {"passed", "r_hat_max", "ess_bulk_min", "ess_tail_min", "divergences"},
     "estimates": [{"k", "method", "estimate", "low", "high", "prob", "note"}, ...],
     "independence_check": {"observed", "expected", "difference", "p_value", "n_pairs",
                            "n_items", "flippy", "consistent"}}

with ``S = {"mean", "sd", "low", "high", "prob"}``, plus ``"loop": {...}`` when ``--loop`` is
given (a loop-only run prints ``{"loop": {...}}``). Exit codes as for ``bayesjudge estimate``:
0, 2 bad input, 3 failed diagnostics.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register"]


def _caps(text: str) -> int:
    from bayesjudge.cli import _positive_int

    return _positive_int(text)


def register(commands: Any) -> None:
    """Add the ``gate`` subcommand to an argparse subparsers object.

    Parameters
    ----------
    commands : argparse._SubParsersAction
        What ``parser.add_subparsers(...)`` returned; the handler is set as ``handler``.
    """
    from bayesjudge.cli import _positive_int, _probability, _seed

    sub = commands.add_parser(
        "gate",
        help="true success rate behind a retry-until-PASS gate, with J(K) at each cap",
        description="Fit the per-item pass-rate hierarchy of a retry gate to repeated rulings "
        "(columns item, verdict[, label][, ruling][, slice]), check it, and compare the "
        "posterior of pi with naive, Rogan-Gladen, PPI and PPI++ at each cap K. With --loop, "
        "also analyse revise-then-rejudge loop logs (item, attempt, verdict, correct).",
    )
    sub.add_argument("rulings", nargs="?", metavar="RULINGS.csv", help="long-format rulings")
    sub.add_argument(
        "--k", nargs="+", type=_caps, default=[1, 2, 5], metavar="K", help="caps (default 1 2 5)"
    )
    sub.add_argument("--prob", type=_probability, default=0.95, help="interval mass")
    sub.add_argument("--random-seed", type=_seed, default=None, help="seed for reproducibility")
    sub.add_argument("--json", action="store_true", help="print one JSON object")
    sub.add_argument("--out", metavar="DIR", default=None, help="also write a report folder")
    sub.add_argument("--loop", metavar="LOGS.csv", default=None, help="loop logs to analyse")
    sub.add_argument(
        "--calibration",
        choices=["random", "by_class"],
        default="random",
        help="labelled items are a random sample (default) or were chosen by class",
    )
    sub.add_argument(
        "--cal-fraction",
        type=_probability,
        default=0.5,
        help="share of loop items used to estimate PPV (default 0.5)",
    )
    sub.add_argument(
        "--draws", type=_positive_int, default=2000, help="draws per chain (default 2000)"
    )
    sub.add_argument("--tune", type=_positive_int, default=1000, help="tuning steps per chain")
    sub.add_argument("--chains", type=_positive_int, default=4, help="chains (default 4)")
    sub.add_argument("--strict", action="store_true", help="reject undocumented columns")
    sub.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    sub.set_defaults(handler=run_gate)


def _diagnostics_block(diagnostics: Any) -> dict[str, Any]:
    return {
        "passed": diagnostics.passed,
        "r_hat_max": diagnostics.r_hat_max,
        "ess_bulk_min": diagnostics.ess_bulk_min,
        "ess_tail_min": diagnostics.ess_tail_min,
        "divergences": diagnostics.divergences,
    }


def estimate_rows(estimates: list[Any]) -> list[dict[str, Any]]:
    """Return the JSON rows of the baselines: k, method, estimate, low, high, prob, note."""
    keys = ("k", "method", "estimate", "low", "high", "prob", "note")
    return [{key: est.to_row()[key] for key in keys} for est in estimates]


def loop_block(
    path: str, *, caps: list[int], prob: float, cal_fraction: float, random_seed: int | None
) -> dict[str, Any]:
    """Analyse loop logs: slip-law parameters, replay vs prediction per cap, PPV correction."""
    from bayesjudge.data import LoopLog
    from bayesjudge.gates import ppv_correction, replay_loop, slip_parameters

    log = LoopLog.from_frame(path)
    params = slip_parameters(log)
    replay = replay_loop(log, caps=caps)
    law = params.law(caps)
    rows = []
    for i, cap in enumerate(replay.caps):
        ppv = ppv_correction(
            log, k=int(cap), calibration_fraction=cal_fraction, prob=prob, random_seed=random_seed
        )
        corrected = ppv.corrected
        assert corrected.interval is not None
        rows.append(
            {
                "k": int(cap),
                "reported": float(replay.reported[i]),
                "delivered": float(replay.delivered[i]),
                "slip": float(replay.slip[i]),
                "reported_predicted": float(law.reported[i]),
                "slip_predicted": float(law.slip[i]),
                "ppv_corrected": {
                    "estimate": corrected.estimate,
                    "low": corrected.interval.low,
                    "high": corrected.interval.high,
                    "prob": corrected.interval.prob,
                    "ppv": ppv.ppv,
                    "reported_eval": ppv.reported,
                    "n_calibration": ppv.n_calibration,
                    "n_evaluation": ppv.n_evaluation,
                },
            }
        )
    return {
        "n_items": replay.n_items,
        "slip_law": {"a": params.a, "s": params.s, "leak": params.leak, "rho": law.rho},
        "caps": rows,
    }


def run_gate(args: argparse.Namespace) -> int:
    """Run ``bayesjudge gate``; return the exit code."""
    from bayesjudge.cli import EXIT_OK, _emit_json
    from bayesjudge.errors import DataError

    caps = sorted(set(args.k))
    if args.rulings is None and args.loop is None:
        raise DataError("gate needs RULINGS.csv, --loop LOGS.csv, or both")
    loop = None
    if args.loop is not None:
        loop = loop_block(
            args.loop,
            caps=caps,
            prob=args.prob,
            cal_fraction=args.cal_fraction,
            random_seed=args.random_seed,
        )
    if args.rulings is None:
        assert loop is not None
        if args.json:
            _emit_json({"loop": loop})
        else:
            _print_loop(loop)
        return EXIT_OK

    from bayesjudge.data import Rulings
    from bayesjudge.diagnostics import check_fit
    from bayesjudge.gate_fit import fit_gate, gate_baselines, gate_posterior_summary
    from bayesjudge.gates import independence_check_table

    rulings = Rulings.from_frame(args.rulings, strict=args.strict)
    independence = independence_check_table(args.rulings, random_seed=args.random_seed)
    estimates = gate_baselines(rulings, caps=caps, prob=args.prob)
    posterior = fit_gate(
        rulings,
        k_max=max(caps),
        draws=args.draws,
        tune=args.tune,
        chains=args.chains,
        random_seed=args.random_seed,
        progressbar=False if args.no_progress else None,
        calibration=args.calibration,
        check=False,
    )
    diagnostics = check_fit(posterior, prob=args.prob)
    summary = gate_posterior_summary(posterior, caps=caps, prob=args.prob)
    if args.out is not None:
        from bayesjudge.report_gate import write_gate_report

        write_gate_report(
            args.out,
            posterior=posterior,
            rulings=rulings,
            estimates=estimates,
            diagnostics=diagnostics,
            independence=independence,
            loop=loop,
            caps=caps,
            prob=args.prob,
            source=args.rulings,
        )
    if args.json:
        payload: dict[str, Any] = {
            "posterior": summary,
            "diagnostics": _diagnostics_block(diagnostics),
            "estimates": estimate_rows(estimates),
            "independence_check": independence.to_dict(),
        }
        if loop is not None:
            payload["loop"] = loop
        _emit_json(payload)
    else:
        _print_rulings(args.rulings, rulings, summary, estimates, diagnostics, independence)
        if loop is not None:
            _print_loop(loop)
        if args.out is not None:
            print(f"report written to {args.out}")
    from bayesjudge.cli import _diagnostics_exit

    return _diagnostics_exit(diagnostics)


def _fmt(value: float | None) -> str:
    return "       -" if value is None else f"{value:>8.4f}"


def _print_rulings(
    source: str,
    rulings: Any,
    summary: dict[str, Any],
    estimates: list[Any],
    diagnostics: Any,
    independence: Any,
) -> None:
    print(
        f"{source}: {rulings.items.size} items ({int(rulings.labelled.sum())} labelled), "
        f"{int(rulings.r.sum())} rulings"
    )
    print(f"{'posterior':<10} {'k':>3} {'mean':>8} {'low':>8} {'high':>8}")
    print(
        f"{'pi':<10} {'':>3} " + " ".join(_fmt(summary["pi"][x]) for x in ("mean", "low", "high"))
    )
    print(
        f"{'J_inf':<10} {'':>3} "
        + " ".join(_fmt(summary["J_inf"][x]) for x in ("mean", "low", "high"))
    )
    for name in ("J", "Se", "Sp", "R"):
        for cap, s in summary[name].items():
            print(f"{name:<10} {cap:>3} " + " ".join(_fmt(s[x]) for x in ("mean", "low", "high")))
    print(f"diagnostics: {'passed' if diagnostics.passed else 'FAILED'}")
    print(f"{'k':>3} {'method':<22} {'estimate':>8} {'low':>8} {'high':>8}  note")
    for row in (e.to_row() for e in estimates):
        print(
            f"{row['k']:>3} {row['method']:<22} {_fmt(row['estimate'])} {_fmt(row['low'])} "
            f"{_fmt(row['high'])}  {row['note'] or ''}".rstrip()
        )
    verdict = "consistent with" if independence.consistent else "NOT consistent with"
    print(
        f"lag-1 same-verdict rate {independence.observed:.4f} vs {independence.expected:.4f} "
        f"expected (p = {independence.p_value:.3f}): {verdict} independent rulings"
    )


def _print_loop(loop: dict[str, Any]) -> None:
    law = loop["slip_law"]
    print(
        f"loop: {loop['n_items']} items; a={law['a']:.3f} s={law['s']:.3f} "
        f"leak={law['leak']:.3f} rho={law['rho']:.3f}"
    )
    print(f"{'k':>3} {'reported':>9} {'delivered':>9} {'slip':>7} {'pred.slip':>9} {'PPV-corr':>9}")
    for row in loop["caps"]:
        print(
            f"{row['k']:>3} {row['reported']:>9.4f} {row['delivered']:>9.4f} {row['slip']:>7.4f} "
            f"{row['slip_predicted']:>9.4f} {row['ppv_corrected']['estimate']:>9.4f}"
        )
