"""The prevalence family's commands: ``estimate``, ``report``, ``baselines`` and ``allocate``.

Each command parses its arguments, calls one function of the family
(:func:`~bayesjudge.prevalence.analysis.analyze_prevalence`,
:func:`~bayesjudge.prevalence.baselines.baseline_estimates`,
:func:`~bayesjudge.prevalence.allocation.allocate`) and prints what it returns.
"""

from __future__ import annotations

import argparse
from typing import Any

from bayesjudge.cli.common import (
    EXIT_OK,
    UserError,
    add_fit_options,
    add_seed_option,
    bounded_int,
    emit_json,
    estimates_table,
    fmt,
    positive_int,
    probability,
    report_failures,
    unit,
)

__all__ = ["register"]

_PRIORS = "pi, se, sp (each beta; default jeffreys)"
_DATA_HELP = "judge data (columns label, verdict or score[, stratum])"


def _load(path: str | None, *, strict: bool) -> Any:
    from bayesjudge.examples import load_example
    from bayesjudge.prevalence.data import JudgeData

    if path is None:
        return JudgeData.from_frame(load_example("judge"), strict=strict)
    return JudgeData.from_csv(path, strict=strict)


def _priors(specs: list[str]) -> Any:
    from bayesjudge.priors import PrevalencePriors

    try:
        return PrevalencePriors().updated(specs)
    except ValueError as exc:
        raise UserError(f"--prior: {exc}") from None


def _source(args: argparse.Namespace) -> str:
    return args.data or "bundled example"


# --------------------------------------------------------------------------- baselines
def _cmd_baselines(args: argparse.Namespace) -> int:
    from bayesjudge.prevalence.analysis import calibration_check, flag_random_sample_estimators
    from bayesjudge.prevalence.baselines import baseline_estimates

    data = _load(args.data, strict=args.strict)
    estimates = flag_random_sample_estimators(
        baseline_estimates(data, prob=args.prob, random_seed=args.random_seed, n_boot=args.n_boot),
        calibration_check(data),
    )
    if args.json:
        emit_json(
            {
                "n_labelled": data.m,
                "n_unlabelled": data.n,
                "estimates": [e.to_dict() for e in estimates],
            }
        )
    else:
        print(f"{_source(args)}: {data.m} labelled, {data.n} unlabelled items")
        print(estimates_table(estimates, args.prob))
        print(f"seed {args.random_seed}")
    return EXIT_OK


# --------------------------------------------------------------------------- allocate
def _cmd_allocate(args: argparse.Namespace) -> int:
    from bayesjudge.prevalence.allocation import allocate

    try:
        allocation = allocate(
            args.budget,
            p_hat=args.p_hat,
            pilot_q0=args.pilot_q0,
            pilot_q1=args.pilot_q1,
            pilot_size=args.pilot_size,
        )
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    payload = allocation.to_dict()
    if args.json:
        emit_json(payload)
    else:
        for key, value in payload.items():
            print(f"{key:>14}: {value}")
    return EXIT_OK


# --------------------------------------------------------------------------- estimate, report
def _analyze(args: argparse.Namespace) -> Any:
    from bayesjudge.prevalence.analysis import analyze_prevalence

    data = _load(args.data, strict=args.strict)
    priors = _priors(args.prior)
    if getattr(args, "method", "nuts") == "exact" and args.stratified:
        raise UserError("--method exact covers the unstratified model only; drop --stratified")
    return analyze_prevalence(
        data,
        method=getattr(args, "method", "nuts"),
        priors=priors,
        stratified=args.stratified,
        prob=args.prob,
        draws=args.draws,
        tune=args.tune,
        chains=args.chains,
        target_accept=args.target_accept,
        random_seed=args.random_seed,
        n_boot=args.n_boot,
        progressbar=False if args.no_progress else None,
    )


def _write(args: argparse.Namespace, analysis: Any) -> Any:
    from bayesjudge.prevalence.report import write_report

    return write_report(args.out, analysis, source=_source(args))


def _exit(analysis: Any) -> int:
    if analysis.diagnostics is None:
        return EXIT_OK
    return report_failures(analysis.passed, [c.describe() for c in analysis.diagnostics.failures])


def _print_estimate(args: argparse.Namespace, analysis: Any) -> None:
    data = analysis.data
    print(f"{_source(args)}: {data.m} labelled, {data.n} unlabelled items")
    print(f"{'posterior':<12} {'mean':>8} {'sd':>8} {'low':>8} {'high':>8}")
    for name, s in analysis.summaries.items():
        print(f"{name:<12} {fmt(s.mean)} {fmt(s.sd)} {fmt(s.eti.low)} {fmt(s.eti.high)}")
    if analysis.method == "exact":
        print("posterior: exact (numerical integration; no sampling, no diagnostics needed)")
    else:
        verdict = "passed" if analysis.passed else "FAILED"
        retried = " after one retry" if len(analysis.attempts) > 1 else ""
        print(f"diagnostics: {verdict}{retried}")
    print(estimates_table(analysis.estimates, args.prob))
    print(f"seed {analysis.seed}; priors {analysis.priors.describe()}")


def _cmd_estimate(args: argparse.Namespace) -> int:
    if args.out is not None and args.method == "exact":
        raise UserError("--out writes a report of a sampled posterior; drop --method exact")
    analysis = _analyze(args)
    if args.out is not None:
        _write(args, analysis)
    if args.json:
        emit_json(analysis.to_dict())
    else:
        _print_estimate(args, analysis)
        if args.out is not None:
            print(f"report written to {args.out}")
    return _exit(analysis)


def _cmd_report(args: argparse.Namespace) -> int:
    analysis = _analyze(args)
    files = _write(args, analysis)
    print(f"report written to {files.folder}: report.html, summary.md, posterior.nc")
    print(f"seed {analysis.seed}")
    return _exit(analysis)


# --------------------------------------------------------------------------- parser
def _add_data_options(parser: argparse.ArgumentParser, *, optional: bool) -> None:
    if optional:
        parser.add_argument(
            "data",
            nargs="?",
            metavar="DATA.csv",
            help=f"{_DATA_HELP}; the bundled example when omitted",
        )
    else:
        parser.add_argument("data", metavar="DATA.csv", help=_DATA_HELP)
    parser.add_argument(
        "--prob", type=probability, default=0.95, help="interval mass (default 0.95)"
    )
    add_seed_option(parser)
    parser.add_argument(
        "--strict", action="store_true", help="reject columns other than the documented ones"
    )


def _n_boot(text: str) -> int:
    from bayesjudge.prevalence.baselines import MAX_BOOT

    return positive_int(text, maximum=MAX_BOOT)


def register(commands: Any) -> None:
    """Add ``baselines``, ``allocate``, ``estimate`` and ``report`` to the subcommands."""
    baselines = commands.add_parser(
        "baselines",
        help="frequentist estimates of the true success rate",
        description="Naive, calibration-only, Rogan-Gladen (delta, Lang-Reiczigel, bootstrap), "
        "PPI and PPI++ estimates of the true success rate.",
    )
    _add_data_options(baselines, optional=False)
    baselines.add_argument(
        "--n-boot", type=_n_boot, default=2000, help="bootstrap resamples (default 2000)"
    )
    baselines.add_argument("--json", action="store_true", help="print one JSON object")
    baselines.set_defaults(handler=_cmd_baselines)

    allocate = commands.add_parser(
        "allocate",
        help="split a calibration budget between gold-PASS and gold-FAIL items",
        description="Adaptive calibration allocation (Lee et al. 2025, Algorithm 1): how many "
        "gold-FAIL (m0) and gold-PASS (m1) items to label for the shortest interval.",
    )
    allocate.add_argument(
        "--budget",
        type=bounded_int(1, 10**9),
        required=True,
        help="total calibration labels",
    )
    allocate.add_argument(
        "--p-hat", type=unit, required=True, help="judged pass rate on the test set"
    )
    allocate.add_argument("--pilot-q0", type=unit, required=True, help="pilot specificity")
    allocate.add_argument("--pilot-q1", type=unit, required=True, help="pilot sensitivity")
    allocate.add_argument(
        "--pilot-size",
        type=bounded_int(1, 10**9),
        required=True,
        help="pilot items per class",
    )
    allocate.add_argument("--json", action="store_true", help="print one JSON object")
    allocate.set_defaults(handler=_cmd_allocate)

    for name, optional_data, helptext in (
        ("estimate", False, "posterior of the true success rate, beside the baselines"),
        ("report", True, "fit, check and write an HTML + Markdown report with the posterior"),
    ):
        sub = commands.add_parser(
            name,
            help=helptext,
            description="Fit the Bayesian prevalence model (pi, Se, Sp with Jeffreys priors, "
            "J > 0), check its diagnostics and compare it with the frequentist baselines.",
        )
        _add_data_options(sub, optional=optional_data)
        add_fit_options(sub, target_accept="0.95; 0.99 stratified", priors=_PRIORS)
        sub.add_argument(
            "--n-boot", type=_n_boot, default=2000, help="bootstrap resamples (default 2000)"
        )
        sub.add_argument(
            "--stratified",
            action="store_true",
            help="per-stratum Se and Sp, partially pooled (needs a stratum column)",
        )
        if name == "estimate":
            sub.add_argument(
                "--method",
                choices=["nuts", "exact"],
                default="nuts",
                help="nuts: sample the PyMC model (default); exact: the posterior by numerical "
                "integration, without PyMC (fast; unstratified model only)",
            )
            sub.add_argument("--json", action="store_true", help="print one JSON object")
            sub.add_argument("--out", metavar="DIR", default=None, help="also write a report")
            sub.set_defaults(handler=_cmd_estimate)
        else:
            sub.add_argument(
                "--out", metavar="DIR", default="bayesjudge-report", help="report folder"
            )
            sub.set_defaults(handler=_cmd_report)
