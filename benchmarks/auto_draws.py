"""``--draws auto`` against the fixed default draws, side by side, on the bundled examples.

For each command (``estimate`` on the judge example, ``rank`` on the systems example,
``panel`` and ``gate`` on theirs) the script runs, in one process, the command once to fill
the compile cache (not timed), then ``repeat`` times each of: the default (2,000 draws per
chain) and ``--draws auto`` (:class:`bayesjudge.inference.fit.StoppingRule`), alternating
which goes first. It records per run:

- the CPU time (``time.process_time``: every thread of the process, the sampler's included)
  of the whole command and of the sampler calls (``sample_nuts`` for the default,
  ``sample_nuts_until`` for auto, which includes the rule's checks at each checkpoint),
  and the wall time of the command;
- the draws per chain kept by each fit, the checkpoint where auto stopped and why, and
  whether the diagnostics passed;
- for each fit (a command can fit more than one model), the posterior mean and the bounds of
  the 95 % equal-tailed interval of every reported quantity (those whose MCSE the fit
  checks), default beside auto, with the difference in units of the two runs' combined Monte
  Carlo standard error (ArviZ's ``mcse``: ``sqrt(mcse_default^2 + mcse_auto^2)``).

Usage::

    python benchmarks/auto_draws.py                 # repeat 2
    python benchmarks/auto_draws.py --repeat 1 --only estimate gate
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _record import write_result

COMMANDS: dict[str, tuple[str, str]] = {
    "estimate": ("estimate", "judge"),
    "rank": ("rank", "systems"),
    "panel": ("panel", "panel"),
    "gate": ("gate", "gate"),
}


class Recorder:
    """Wraps the fitting path's sampler calls and ``fit_model`` to time and keep each fit."""

    def __init__(self) -> None:
        from bayesjudge.inference import fit

        self.fit = fit
        self.sampling_cpu = 0.0
        self.trees: list[Any] = []
        self._originals = (fit.sample_nuts, fit.sample_nuts_until, fit.fit_model)

        def timed(function: Any) -> Any:
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                start = time.process_time()
                try:
                    return function(*args, **kwargs)
                finally:
                    self.sampling_cpu += time.process_time() - start

            return wrapper

        def kept(*args: Any, **kwargs: Any) -> Any:
            tree = self._originals[2](*args, **kwargs)
            self.trees.append(tree)
            return tree

        fit.sample_nuts = timed(fit.sample_nuts)
        fit.sample_nuts_until = timed(fit.sample_nuts_until)
        fit.fit_model = kept
        # the families imported fit_model by name
        import bayesjudge.gates.fit as gates
        import bayesjudge.panels.fit as panels
        import bayesjudge.prevalence.fit as prevalence
        import bayesjudge.systems.fit as systems

        for module in (gates, panels, prevalence, systems):
            module.fit_model = kept  # type: ignore[attr-defined]

    def reset(self) -> None:
        self.sampling_cpu = 0.0
        self.trees = []


def run_command(recorder: Recorder, name: str, auto: bool) -> dict[str, Any]:
    from bayesjudge.cli.app import main
    from bayesjudge.examples import example_file

    command, example = COMMANDS[name]
    argv = [command, str(example_file(example)), "--no-progress", "--json"]
    if auto:
        argv += ["--draws", "auto"]
    recorder.reset()
    out = io.StringIO()
    wall, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(argv)
    return {
        "code": code,
        "wall": time.perf_counter() - wall,
        "cpu": time.process_time() - cpu,
        "sampling_cpu": recorder.sampling_cpu,
        "trees": list(recorder.trees),
    }


def _reported(tree: Any) -> list[str]:
    """The labels whose MCSE the fit checked, e.g. ``pi`` or ``pi[A]``."""
    checks = json.loads(tree.attrs["diagnostics"])["checks"]
    return [c["variable"] for c in checks if c["name"] == "mcse_mean"]


def _values(tree: Any, label: str) -> np.ndarray:
    """The draws (chain, draw) of one scalar named like ``name[c1,c2]``."""
    match = re.fullmatch(r"([^\[]+)(?:\[(.*)\])?", label)
    assert match is not None
    name, index = match.group(1), match.group(2)
    variable = tree["posterior"][name]
    if index:
        dims = [d for d in variable.dims if d not in ("chain", "draw")]
        selection = dict(zip(dims, index.split(","), strict=True))
        for dim, value in list(selection.items()):
            coord = variable[dim].to_numpy()
            selection[dim] = type(coord[0].item())(value) if coord.size else value
        variable = variable.sel(selection)
    return np.asarray(variable.transpose("chain", "draw").to_numpy(), dtype=float)


def _summary(x: np.ndarray) -> dict[str, tuple[float, float]]:
    from arviz_stats.base import array_stats

    out = {}
    for key, method, prob in (
        ("mean", "mean", None),
        ("low", "quantile", 0.025),
        ("high", "quantile", 0.975),
    ):
        value = float(x.mean()) if prob is None else float(np.quantile(x, prob))
        kwargs = {} if prob is None else {"prob": prob}
        error = float(array_stats.mcse(x[None], method=method, **kwargs)[0])
        out[key] = (value, error)
    return out


def _stopping(tree: Any) -> str:
    if "stopping_rule" not in tree.attrs:
        return "fixed"
    rule = json.loads(tree.attrs["stopping_rule"])
    return f"{rule['stopped']} at {rule['draws']}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--only", nargs="*", choices=list(COMMANDS), default=list(COMMANDS))
    parser.add_argument("--name", default="auto_draws")
    args = parser.parse_args()

    recorder = Recorder()
    timing = [
        "| command | draws | runs | CPU s (median) | sampling CPU s (median) | wall s (median) "
        "| draws kept per chain (each fit) | stopped | diagnostics passed |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    posterior = [
        "| command | fit | quantity | default | auto | difference / combined MCSE |",
        "|---|---|---|---|---|---|",
    ]
    ratios = []
    for name in args.only:
        run_command(recorder, name, auto=False)  # fills the compile cache: not timed
        runs: dict[bool, list[dict[str, Any]]] = {False: [], True: []}
        for i in range(args.repeat):
            for auto in (False, True) if i % 2 == 0 else (True, False):
                runs[auto].append(run_command(recorder, name, auto))
                print(name, auto, {k: v for k, v in runs[auto][-1].items() if k != "trees"})
        medians = {}
        for auto in (False, True):
            rows = runs[auto]
            last = rows[-1]["trees"]
            medians[auto] = {
                key: statistics.median(r[key] for r in rows) for key in ("cpu", "sampling_cpu")
            }
            timing.append(
                f"| {name} | {'auto' if auto else 'default'} | {len(rows)} | "
                f"{medians[auto]['cpu']:.1f} | {medians[auto]['sampling_cpu']:.1f} | "
                f"{statistics.median(r['wall'] for r in rows):.1f} | "
                f"{', '.join(str(t['posterior'].sizes['draw']) for t in last)} | "
                f"{'; '.join(_stopping(t) for t in last)} | "
                f"{', '.join(str(bool(t.attrs['diagnostics_passed'])) for t in last)} "
                f"(exit {', '.join(str(r['code']) for r in rows)}) |"
            )
        ratios.append(
            f"- {name}: auto takes {medians[True]['cpu'] / medians[False]['cpu']:.2f} x the "
            f"default's CPU for the whole command, "
            f"{medians[True]['sampling_cpu'] / medians[False]['sampling_cpu']:.2f} x for sampling."
        )
        for k, (fixed, auto_tree) in enumerate(
            zip(runs[False][-1]["trees"], runs[True][-1]["trees"], strict=False)
        ):
            for label in _reported(fixed):
                a, b = _summary(_values(fixed, label)), _summary(_values(auto_tree, label))
                z = max(
                    abs(a[key][0] - b[key][0]) / float(np.hypot(a[key][1], b[key][1])) for key in a
                )
                posterior.append(
                    f"| {name} | {k + 1}: {fixed.attrs.get('model', '')} | {label} | "
                    f"{a['mean'][0]:.4f} [{a['low'][0]:.4f}, {a['high'][0]:.4f}] | "
                    f"{b['mean'][0]:.4f} [{b['low'][0]:.4f}, {b['high'][0]:.4f}] | "
                    f"{z:.2f} |"
                )
    body = "\n".join(
        [
            f"# Fixed draws against `--draws auto` ({args.repeat} runs each per command)",
            "",
            "CPU times are `time.process_time` of the process (every thread). The sampling "
            "CPU of auto includes the stopping rule's checks at each checkpoint; the command's "
            "CPU includes everything (reading, baselines, posterior predictive checks, "
            "JSON). Each command ran once first to fill the compile cache (not timed).",
            "",
            *timing,
            "",
            *ratios,
            "",
            "## Posterior, default beside auto (the last run of each)",
            "",
            "Mean [2.5 %, 97.5 %] of each reported quantity; the last column is the largest of "
            "the three differences (mean, low, high) over the combined Monte Carlo standard "
            "error of the two runs (ArviZ `mcse`, mean and quantile).",
            "",
            *posterior,
            "",
        ]
    )
    path = write_result(Path(f"{args.name}.md"), body)
    print(path)


if __name__ == "__main__":
    main()
