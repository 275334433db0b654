"""The ``bayesjudge`` command line.

Exit codes: 0 success; 2 bad input (the message on stderr names the problem); 3 the posterior
failed its diagnostics (the failures are printed). A user error never shows a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from bayesjudge.errors import DataError

__all__ = ["EXIT_BAD_INPUT", "EXIT_DIAGNOSTICS", "EXIT_OK", "main"]

EXIT_OK = 0
EXIT_BAD_INPUT = 2
EXIT_DIAGNOSTICS = 3


class _UserError(Exception):
    """An error in what the user asked for, reported in one line with exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


# --------------------------------------------------------------------------- argument types
def _parsed(text: str, cast: Callable[[str], Any], valid: Callable[[Any], bool], what: str) -> Any:
    """Return ``cast(text)`` when it is ``valid``, else raise argparse's error naming ``what``."""
    try:
        value = cast(text)
    except ValueError:
        value = None
    if value is None or not valid(value):
        raise argparse.ArgumentTypeError(f"must be {what}; got {text!r}")
    return value


def _probability(text: str) -> float:
    return float(_parsed(text, float, lambda v: 0.0 < v < 1.0, "a number in (0, 1)"))


def _unit(text: str) -> float:
    return float(_parsed(text, float, lambda v: 0.0 <= v <= 1.0, "a number in [0, 1]"))


def _positive_int(text: str) -> int:
    return int(_parsed(text, int, lambda v: v >= 1, "a positive whole number"))


def _seed(text: str) -> int:
    return int(_parsed(text, int, lambda v: v >= 0, "a non-negative integer"))


# --------------------------------------------------------------------------- output helpers
def _clean(value: Any) -> Any:
    """Make a value JSON-safe: NaN/inf -> None, numpy scalars -> Python scalars."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if hasattr(value, "item") and callable(value.item):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _emit_json(payload: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(_clean(payload), indent=2, allow_nan=False) + "\n")


def _estimate_rows(estimates: Sequence[Any]) -> list[dict[str, Any]]:
    """Return the JSON rows of `bayesjudge baselines`: method, estimate, low, high, prob, note."""
    rows = []
    for est in estimates:
        row = est.to_row()
        rows.append(
            {
                "method": row["method"],
                "estimate": row["estimate"],
                "low": row["low"],
                "high": row["high"],
                "prob": row["prob"],
                "note": row["note"],
            }
        )
    return rows


def _format_table(estimates: Sequence[Any], prob: float) -> str:
    lines = [f"{'method':<30} {'estimate':>9} {'low':>8} {'high':>8}  note"]
    for est in estimates:
        row = est.to_row()

        def cell(value: float | None, width: int) -> str:
            return f"{value:>{width}.4f}" if value is not None else f"{'-':>{width}}"

        lines.append(
            f"{row['method']:<30} {cell(row['estimate'], 9)} {cell(row['low'], 8)} "
            f"{cell(row['high'], 8)}  {row['note'] or ''}".rstrip()
        )
    lines.append(f"(intervals of mass {prob:g})")
    return "\n".join(lines)


# --------------------------------------------------------------------------- commands
def _load_judge_data(path: str | None, *, strict: bool) -> Any:
    from bayesjudge.data import JudgeData, load_example

    if path is None:
        return JudgeData.from_frame(load_example("judge"), strict=strict)
    return JudgeData.from_csv(path, strict=strict)


def _cmd_baselines(args: argparse.Namespace) -> int:
    from bayesjudge.baselines import baseline_estimates

    data = _load_judge_data(args.data, strict=args.strict)
    estimates = baseline_estimates(
        data, prob=args.prob, random_seed=args.random_seed, n_boot=args.n_boot
    )
    if args.json:
        _emit_json(
            {
                "n_labelled": data.m,
                "n_unlabelled": data.n,
                "estimates": _estimate_rows(estimates),
            }
        )
    else:
        source = args.data or "bundled example"
        print(f"{source}: {data.m} labelled, {data.n} unlabelled items")
        print(_format_table(estimates, args.prob))
    return EXIT_OK


def _cmd_allocate(args: argparse.Namespace) -> int:
    from bayesjudge.allocation import allocate

    try:
        allocation = allocate(
            args.budget,
            p_hat=args.p_hat,
            pilot_q0=args.pilot_q0,
            pilot_q1=args.pilot_q1,
            pilot_size=args.pilot_size,
        )
    except ValueError as exc:
        raise _UserError(str(exc)) from exc
    payload = allocation.to_dict()
    if args.json:
        _emit_json(payload)
    else:
        for key, value in payload.items():
            print(f"{key:>14}: {value}")
    return EXIT_OK


def _fit_and_check(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    """Load the data, fit the prevalence model and check it (shared by estimate and report)."""
    from bayesjudge.diagnostics import check_fit
    from bayesjudge.fitting import fit_prevalence

    data = _load_judge_data(args.data, strict=args.strict)
    posterior = fit_prevalence(
        data,
        stratified=args.stratified,
        draws=args.draws,
        tune=args.tune,
        chains=args.chains,
        random_seed=args.random_seed,
        progressbar=False if args.no_progress else None,
        check=False,
    )
    diagnostics = check_fit(posterior, prob=args.prob)
    return data, posterior, diagnostics


def _write_report(args: argparse.Namespace, data: Any, posterior: Any, diagnostics: Any) -> Any:
    from bayesjudge.compare import compare
    from bayesjudge.exact import exact_posterior
    from bayesjudge.report import write_report

    exact = None if args.stratified else exact_posterior(data)
    comparison = compare(
        posterior,
        data,
        prob=args.prob,
        random_seed=args.random_seed,
        n_boot=args.n_boot,
        exact=exact,
    )
    return write_report(
        args.out,
        posterior=posterior,
        data=data,
        comparison=comparison,
        diagnostics=diagnostics,
        prob=args.prob,
        source=args.data or "bundled example",
    )


def _report_failures(passed: bool, failures: Sequence[str]) -> int:
    """Print the failed diagnostic checks to stderr and return the exit code they imply."""
    if passed:
        return EXIT_OK
    print("bayesjudge: the posterior FAILED its diagnostics:", file=sys.stderr)
    for failure in failures:
        print(f"  - {failure}", file=sys.stderr)
    return EXIT_DIAGNOSTICS


def _diagnostics_exit(diagnostics: Any) -> int:
    return _report_failures(diagnostics.passed, [c.describe() for c in diagnostics.failures])


def _cmd_estimate(args: argparse.Namespace) -> int:
    from bayesjudge.baselines import baseline_estimates
    from bayesjudge.compare import posterior_summary

    data, posterior, diagnostics = _fit_and_check(args)
    estimates = baseline_estimates(
        data, prob=args.prob, random_seed=args.random_seed, n_boot=args.n_boot
    )
    summaries = {
        name: posterior_summary(posterior, name, prob=args.prob)
        for name in ("pi", "se", "sp", "j")
        if not (args.stratified and name in ("se", "sp", "j"))
    }
    if args.out is not None:
        _write_report(args, data, posterior, diagnostics)
    if args.json:
        _emit_json(
            {
                "posterior": {name: s.to_dict() for name, s in summaries.items()},
                "diagnostics": {
                    "passed": diagnostics.passed,
                    "r_hat_max": diagnostics.r_hat_max,
                    "ess_bulk_min": diagnostics.ess_bulk_min,
                    "ess_tail_min": diagnostics.ess_tail_min,
                    "divergences": diagnostics.divergences,
                },
                "estimates": _estimate_rows(estimates),
            }
        )
    else:
        print(f"{args.data or 'bundled example'}: {data.m} labelled, {data.n} unlabelled items")
        print(f"{'posterior':<12} {'mean':>8} {'sd':>8} {'low':>8} {'high':>8}")
        for name, s in summaries.items():
            print(f"{name:<12} {s.mean:>8.4f} {s.sd:>8.4f} {s.eti.low:>8.4f} {s.eti.high:>8.4f}")
        print(f"diagnostics: {'passed' if diagnostics.passed else 'FAILED'}")
        print(_format_table(estimates, args.prob))
        if args.out is not None:
            print(f"report written to {args.out}")
    return _diagnostics_exit(diagnostics)


def _cmd_report(args: argparse.Namespace) -> int:
    data, posterior, diagnostics = _fit_and_check(args)
    files = _write_report(args, data, posterior, diagnostics)
    print(f"report written to {files.folder}: report.html, summary.md, posterior.nc")
    return _diagnostics_exit(diagnostics)


# --------------------------------------------------------------------------- parser
def _add_data_options(parser: argparse.ArgumentParser, *, optional: bool) -> None:
    if optional:
        parser.add_argument(
            "data",
            nargs="?",
            metavar="DATA.csv",
            help="judge data (columns label, verdict or score[, stratum]); "
            "the bundled example when omitted",
        )
    else:
        parser.add_argument(
            "data",
            metavar="DATA.csv",
            help="judge data (columns label, verdict or score[, stratum])",
        )
    parser.add_argument(
        "--prob", type=_probability, default=0.95, help="interval mass (default 0.95)"
    )
    parser.add_argument("--random-seed", type=_seed, default=None, help="seed for reproducibility")
    parser.add_argument(
        "--strict", action="store_true", help="reject columns other than the documented ones"
    )


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``bayesjudge`` command."""
    parser = _Parser(
        prog="bayesjudge",
        description="Bayesian measurement of AI systems judged by imperfect LLM judges.",
    )
    from bayesjudge._version import __version__

    parser.add_argument("--version", action="version", version=f"bayesjudge {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    baselines = commands.add_parser(
        "baselines",
        help="frequentist estimates of the true success rate",
        description="Naive, calibration-only, Rogan-Gladen (delta, Lang-Reiczigel, bootstrap), "
        "PPI and PPI++ estimates of the true success rate.",
    )
    _add_data_options(baselines, optional=False)
    baselines.add_argument(
        "--n-boot", type=_positive_int, default=2000, help="bootstrap resamples (default 2000)"
    )
    baselines.add_argument("--json", action="store_true", help="print one JSON object")
    baselines.set_defaults(handler=_cmd_baselines)

    allocate = commands.add_parser(
        "allocate",
        help="split a calibration budget between gold-PASS and gold-FAIL items",
        description="Adaptive calibration allocation (Lee et al., Algorithm 1): how many "
        "gold-FAIL (m0) and gold-PASS (m1) items to label for the shortest interval.",
    )
    allocate.add_argument(
        "--budget", type=_positive_int, required=True, help="total calibration labels"
    )
    allocate.add_argument(
        "--p-hat", type=_unit, required=True, help="judged pass rate on the test set"
    )
    allocate.add_argument("--pilot-q0", type=_unit, required=True, help="pilot specificity")
    allocate.add_argument("--pilot-q1", type=_unit, required=True, help="pilot sensitivity")
    allocate.add_argument(
        "--pilot-size", type=_positive_int, required=True, help="pilot items per class"
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
        sub.add_argument(
            "--draws", type=_positive_int, default=2000, help="draws per chain (default 2000)"
        )
        sub.add_argument("--tune", type=_positive_int, default=1000, help="tuning steps per chain")
        sub.add_argument("--chains", type=_positive_int, default=4, help="chains (default 4)")
        sub.add_argument(
            "--n-boot", type=_positive_int, default=2000, help="bootstrap resamples (default 2000)"
        )
        sub.add_argument(
            "--stratified",
            action="store_true",
            help="per-stratum Se and Sp, partially pooled (needs a stratum column)",
        )
        sub.add_argument("--no-progress", action="store_true", help="hide the progress bar")
        if name == "estimate":
            sub.add_argument("--json", action="store_true", help="print one JSON object")
            sub.add_argument("--out", metavar="DIR", default=None, help="also write a report")
            sub.set_defaults(handler=_cmd_estimate)
        else:
            sub.add_argument(
                "--out", metavar="DIR", default="bayesjudge-report", help="report folder"
            )
            sub.set_defaults(handler=_cmd_report)

    from bayesjudge.cli_channel import register as register_channel
    from bayesjudge.cli_gate import register as register_gate
    from bayesjudge.cli_study import register as register_study

    register_gate(commands)
    register_channel(commands)
    register_study(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except (DataError, _UserError) as exc:
        print(f"bayesjudge {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
