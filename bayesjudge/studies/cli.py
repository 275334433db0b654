"""The ``bayesjudge study`` subcommand: run a simulation study from a spec, resumably.

``bayesjudge study SPEC [--out DIR] [--scheduler ADDRESS] [--workers N] [--resume] [--quick]
[--figures DIR]`` where ``SPEC`` is a built-in study name (``lee2025``, ``bakeoff``) or a TOML
file with the keys of :meth:`bayesjudge.studies.runner.StudySpec.from_dict`. Exit codes: 0 success
(MCMC replicates that failed their diagnostics are a finding of the study: they are counted in
the table and the JSON, not an error); 2 bad input (unknown spec, invalid TOML, an output folder
holding another study or refused, dask missing for ``--scheduler``, a scheduler that does not
answer); 130 interrupted (finished chunks are kept: ``--resume`` continues).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bayesjudge.cli.common import (
    EXIT_OK,
    UserError,
    bounded_int,
    echo,
    emit_json,
    named_paths,
)
from bayesjudge.cli.options import add_json_option

__all__ = ["register"]


def _load_spec(text: str, *, quick: bool) -> Any:
    from bayesjudge.studies.runner import BUILTIN_STUDIES, StudySpec, builtin_study

    if text in BUILTIN_STUDIES:
        return builtin_study(text, quick=quick)
    if not text.endswith(".toml") and not Path(text).exists():
        raise ValueError(
            f"SPEC must be a built-in study {list(BUILTIN_STUDIES)} or a TOML file; got {text!r}"
        )
    spec = StudySpec.from_toml(text)
    if quick:
        raise ValueError("--quick applies to the built-in studies only; shrink the TOML instead")
    return spec


def _print_summary(summary: Any, spec: Any, out: str) -> None:
    import pandas as pd

    columns = [c for c in summary.columns if c not in {"fit_time", "rmse", "coverage_passed"}]
    with pd.option_context("display.width", 200, "display.max_rows", 400):
        echo(summary[columns].to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    failed = int(summary["failed"].sum())
    echo(f"study {spec.name}: {spec.replicates} replicates per scenario, results in {out}")
    if failed:
        echo(f"{failed} MCMC replicate(s) FAILED their diagnostics (kept; column 'failed')")


def _cmd_study(args: argparse.Namespace) -> int:
    from bayesjudge.studies.runner import exact_check, run_study, summarize

    try:
        spec = _load_spec(args.spec, quick=args.quick)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    out = args.out if args.out is not None else f"bayesjudge-study-{spec.name}"
    try:
        results = run_study(
            spec,
            out=out,
            workers=args.workers,
            scheduler=args.scheduler,
            resume=args.resume,
            progressbar=False if args.no_progress else None,
        )
    except (ValueError, ImportError) as exc:
        raise UserError(str(exc)) from None
    summary = summarize(results)
    figures: list[str] = []
    if args.figures is not None:
        from bayesjudge.studies.plots import save_study_figures

        name = spec.name.replace("-quick", "") if args.quick else spec.name
        inputs = named_paths(args, skip=["out", "figures"])
        paths = save_study_figures(summary, args.figures, name=name, inputs=inputs)
        figures = [str(p) for p in paths]
    check = None
    if {"bayes_nuts", "bayes_exact"} <= set(spec.estimators):
        table = exact_check(results)
        check = {
            "compared": len(table),
            "mean_abs_z": float(table["z"].abs().mean()) if len(table) else None,
            "share_abs_z_above_3": float((table["z"].abs() > 3).mean()) if len(table) else None,
        }
    if args.json:
        emit_json(
            {
                "study": spec.name,
                "out": str(out),
                "spec": spec.to_dict(),
                "failed": int(summary["failed"].sum()),
                "exact_check": check,
                "figures": figures,
                "summary": summary.to_dict(orient="records"),
            }
        )
    else:
        _print_summary(summary, spec, out)
        if check is not None:
            echo(
                f"exact vs NUTS on {check['compared']} replicates: mean |z| = "
                f"{check['mean_abs_z']:.3f}, share |z| > 3 = {check['share_abs_z_above_3']:.3f}"
            )
        for path in figures:
            echo(f"figure: {path}")
    return EXIT_OK


def register(commands: Any) -> None:
    """Add the ``study`` subcommand to the ``bayesjudge`` subparsers object ``commands``."""
    sub = commands.add_parser(
        "study",
        help="simulation study: coverage, width and error of every estimator",
        description="Run a seeded simulation study (a built-in spec: lee2025, bakeoff; or a "
        "TOML file): every replicate through every estimator, written chunk by chunk to --out "
        "so that --resume continues an interrupted run; prints coverage (with Monte Carlo "
        "error), mean width, MAE and bias.",
    )
    sub.add_argument("spec", metavar="SPEC", help="built-in study name or SPEC.toml")
    sub.add_argument(
        "--out",
        metavar="DIR",
        default=None,
        help="study folder (default bayesjudge-study-NAME): a new or empty folder, or with "
        "--resume a study folder bayesjudge wrote",
    )
    sub.add_argument("--scheduler", metavar="ADDRESS", default=None, help="Dask scheduler address")
    sub.add_argument(
        "--workers",
        type=bounded_int(1, 256),
        default=1,
        help="local worker processes (default 1)",
    )
    sub.add_argument("--resume", action="store_true", help="continue a study in --out")
    sub.add_argument("--quick", action="store_true", help="a small version (about a minute)")
    sub.add_argument(
        "--figures",
        metavar="DIR",
        default=None,
        help="also write the coverage, width and MAE figures as PNG files into DIR (files of "
        "the same names are replaced, nothing else in DIR is touched)",
    )
    sub.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    add_json_option(sub)
    sub.set_defaults(handler=_cmd_study, outputs={"out": "study", "figures": "files"})
