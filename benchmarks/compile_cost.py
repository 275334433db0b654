"""What compiling a model costs, and what two ways of cutting it give (issue 25 item 9).

Run: .venv/bin/python benchmarks/compile_cost.py [--exclude local_greedy_distributor]
[--out compile_cost.md]

Every measurement runs in a fresh interpreter with the disk model cache off
(``BAYESJUDGE_CACHE_DIR=off``) and is timed in CPU seconds of that process
(``time.process_time``: all its threads), since the machine is shared.

1. *Phases of one cold compile* of the prevalence model (``compile_model``): building the PyMC
   model, nutpie's ``_make_functions`` (PyTensor's graph rewrites and linking of the log density
   with its gradient and of the expand function), and the two numba callbacks.
2. *Fits under several priors in one process*: ``fit_prevalence`` on the bundled judge example
   under four priors (4 x 2000 draws after 1000 tuning steps, ``escalate=False``); the CPU of
   each fit and the compiles counted by the model cache. Before the priors entered the model as
   data each prior compiled a model of its own; now the first fit compiles and the others swap
   the prior in.
3. *A pruned rewrite database* (``--exclude``, comma-separated PyTensor rewrite names): the
   same compile with ``Mode.excluding(...)``, against the default mode; CPU of the compile, the
   log density and gradient at 2,000 points (largest relative difference), and a nutpie run
   (4 x 2000 after 1000, seed 11) with its leapfrog steps per CPU second and whether its draws
   equal the default's.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from _record import write_result

HERE = Path(__file__).resolve().parent

PHASES = """
import json, sys, time
import nutpie.compile_pymc as ncp
from bayesjudge.inference import compile as cm
from bayesjudge.models.prevalence import prevalence_model
from bayesjudge.prevalence.data import JudgeCounts
spent = {}
def timed(name, function):
    def call(*args, **kwargs):
        start = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[name] = spent.get(name, 0.0) + time.process_time() - start
    return call
ncp._make_functions = timed("pytensor_functions", ncp._make_functions)
cm._callback = timed("numba_callbacks", cm._callback)
start = time.process_time()
model = prevalence_model(JudgeCounts(m1=60, x1=50, m0=60, x0=12, n=500, k=300))
spent["build"] = time.process_time() - start
start = time.process_time()
cm.compile_model(model, folder=None)
spent["compile_model"] = time.process_time() - start
print(json.dumps(spent))
"""

PRIORS = """
import json, time, warnings
import bayesjudge
from bayesjudge.inference.cache import model_cache_info
from bayesjudge.prevalence.data import JudgeData
from bayesjudge.prevalence.fit import fit_prevalence
from bayesjudge.priors import Beta, PrevalencePriors
warnings.simplefilter("ignore")
data = JudgeData.from_frame(bayesjudge.load_example("judge"))
rows = []
for name, priors in [
    ("Jeffreys (default)", PrevalencePriors()),
    ("pi ~ Beta(1, 1)", PrevalencePriors(pi=Beta(1, 1))),
    ("pi ~ Beta(0.01, 0.01)", PrevalencePriors(pi=Beta(0.01, 0.01))),
    ("pi ~ Beta(2, 3), Se ~ Beta(9, 1), Sp ~ Beta(8, 2)",
     PrevalencePriors(pi=Beta(2, 3), se=Beta(9, 1), sp=Beta(8, 2))),
]:
    start = time.process_time()
    fit_prevalence(data, priors=priors, random_seed=7, escalate=False, progressbar=False)
    rows.append([name, time.process_time() - start, model_cache_info().compiles])
print(json.dumps(rows))
"""

PRUNED = """
import ctypes, json, sys, time
import numpy as np
import nutpie
import nutpie.compile_pymc as ncp
from pytensor.compile.mode import get_mode
from bayesjudge.inference import compile as cm
from bayesjudge.models.prevalence import prevalence_model
from bayesjudge.prevalence.data import JudgeCounts
exclude, out = sys.argv[1], sys.argv[2]
original = ncp._make_functions
def pruned(model, *, mode, **kwargs):
    chosen = get_mode(mode)
    if exclude:
        chosen = chosen.excluding(*exclude.split(","))
    return original(model, mode=chosen, **kwargs)
ncp._make_functions = pruned
model = prevalence_model(JudgeCounts(m1=60, x1=50, m0=60, x0=12, n=500, k=300))
start = time.process_time()
compiled, _ = cm.compile_model(model, folder=None)
compile_cpu = time.process_time() - start
double_p = ctypes.POINTER(ctypes.c_double)
points = np.random.default_rng(3).normal(size=(2000, compiled.n_dim))
points *= np.repeat([0.1, 1.0, 3.0, 6.0], 500)[:, None]
rows = []
for x in points:
    x = np.ascontiguousarray(x)
    grad, logp = np.zeros(compiled.n_dim), np.zeros(())
    compiled.compiled_logp_func.ctypes(
        ctypes.c_uint64(compiled.n_dim), x.ctypes.data_as(double_p),
        grad.ctypes.data_as(double_p), logp.ctypes.data_as(double_p),
        ctypes.c_void_p(compiled.user_data.ctypes.data))
    rows.append(np.concatenate([[float(logp)], grad]))
start = time.process_time()
trace = nutpie.sample(compiled, draws=2000, tune=1000, chains=4, seed=11, progress_bar=False,
                      cores=1)
sample_cpu = time.process_time() - start
steps = int(trace.sample_stats["n_steps"].sum())
np.savez(out, density=np.array(rows), pi=trace.posterior["pi"].values)
print(json.dumps({"compile": compile_cpu, "sample": sample_cpu, "steps": steps}))
"""


def _run(source: str, *args: str) -> object:
    env = {**os.environ, "BAYESJUDGE_CACHE_DIR": "off"}
    done = subprocess.run(
        [sys.executable, "-c", source, *args],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exclude", default="", help="rewrites to exclude (section 3)")
    parser.add_argument("--out", default="compile_cost.md")
    args = parser.parse_args()

    lines = ["# What compiling a model costs", ""]
    phases = _run(PHASES)
    assert isinstance(phases, dict)
    lines += [
        "## 1. Phases of one cold compile of the prevalence model (CPU s)",
        "",
        "| phase | CPU s |",
        "|---|---|",
        *(f"| {name} | {value:.2f} |" for name, value in phases.items()),
        "",
    ]
    rows = _run(PRIORS)
    assert isinstance(rows, list)
    lines += [
        "## 2. The bundled judge example under four priors, one process (4 x 2000 draws)",
        "",
        "| prior | CPU s of the fit | compiles so far |",
        "|---|---|---|",
        *(f"| {name} | {cpu:.2f} | {compiles} |" for name, cpu, compiles in rows),
        "",
    ]
    if args.exclude:
        import numpy as np

        folder = Path(os.environ.get("TMPDIR", "/tmp"))
        base = _run(PRUNED, "", str(folder / "compile_cost_default.npz"))
        pruned = _run(PRUNED, args.exclude, str(folder / "compile_cost_pruned.npz"))
        assert isinstance(base, dict)
        assert isinstance(pruned, dict)
        a = np.load(folder / "compile_cost_default.npz")
        b = np.load(folder / "compile_cost_pruned.npz")
        finite = np.isfinite(a["density"]).all(1) & np.isfinite(b["density"]).all(1)
        relative = np.abs(a["density"] - b["density"]) / np.maximum(1.0, np.abs(a["density"]))
        equal_share = float(np.mean(a["density"] == b["density"]))
        lines += [
            f"## 3. Rewrites excluded: `{args.exclude}`",
            "",
            "| mode | compile CPU s | sampling CPU s | leapfrog steps | steps per CPU s |",
            "|---|---|---|---|---|",
            *(
                f"| {name} | {r['compile']:.2f} | {r['sample']:.2f} | {r['steps']} | "
                f"{r['steps'] / r['sample']:.0f} |"
                for name, r in (("default", base), ("pruned", pruned))
            ),
            "",
            f"Log density and gradient at 2,000 points: largest relative difference "
            f"{relative[finite].max():.2e}, bit-equal share {equal_share:.3f}. "
            f"Draws of pi equal: {bool(np.array_equal(a['pi'], b['pi']))} (largest difference "
            f"{np.abs(a['pi'] - b['pi']).max():.2e}).",
            "",
        ]
    path = write_result(Path(args.out), "\n".join(lines))
    print(path.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
