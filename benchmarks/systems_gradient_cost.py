"""CPU cost of one log-density-and-gradient evaluation of the many-system (Rasch) model.

``rank`` on the bundled three-system example spends nearly all its time in the sampler, so its
cost is (leapfrog steps) x (cost of one gradient). This script times, on the bundled example's
cells (padded as the fit pads them) and with the fit's default judge (system-specific, partially
pooled):

- the whole model's log density and gradient (PyTensor's numba backend, as nutpie compiles it);
- the cell sum of the model, :math:`\\log \\sum_k w_k \\exp \\sum_s T[k, s, \\text{state}_{cs}]`
  and its gradient with respect to the table :math:`T`, in the two formulations: a gather of
  :math:`T` over (node, cell, system) (the model before this change) and one matrix product
  with a 0/1 indicator of each cell's states (the model now). Both give the same values (checked
  here to 1e-12).

CPU time (``time.process_time``) of ``--calls`` evaluations, median of ``--repeat`` rounds.

Usage::

    python benchmarks/systems_gradient_cost.py [--calls 2000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pytensor
import pytensor.tensor as pt
from _record import record

from bayesjudge.examples import load_example
from bayesjudge.models import systems as models
from bayesjudge.priors import SystemsPriors
from bayesjudge.systems.data import STATES, SystemsData, bucket_size
from bayesjudge.systems.fit import choose_judge, choose_pooling
from bayesjudge.systems.irt import normal_quadrature


def cpu_per_call(function, args, calls: int, repeat: int) -> float:  # type: ignore[no-untyped-def]
    function(*args)
    rounds = []
    for _ in range(repeat):
        start = time.process_time()
        for _ in range(calls):
            function(*args)
        rounds.append((time.process_time() - start) / calls)
    return 1e6 * statistics.median(rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    data = SystemsData.read(load_example("systems"))
    patterns = data.patterns()
    size = bucket_size(patterns.count.size)
    judge = choose_judge(data)
    pooling = choose_pooling(data, judge)
    model = models.irt_model(
        patterns, priors=SystemsPriors(), judge=judge, pooling=pooling, size=size
    )
    point = model.initial_point()
    values = model.value_vars
    logp = model.logp()
    full = pytensor.function(values, [logp, *pytensor.grad(logp, values)], mode="NUMBA")
    full_us = cpu_per_call(full, [point[v.name] for v in values], args.calls, args.repeat)

    # the cell sum alone, both formulations, on a random table of the model's shape
    n_systems, n_states = len(patterns.systems), len(STATES)
    z, log_w = normal_quadrature(32)
    cells = patterns.padded(size)
    state = pt.as_tensor_variable(cells["cell_state"].astype(np.int64))
    table = pt.tensor3("table")
    flat = table.reshape((z.size, n_systems * n_states))
    column = pt.arange(n_systems)[None, :] * n_states + state
    gathered = pt.take(flat, column.flatten(), axis=1).reshape((z.size, size, n_systems))
    by_gather = pt.logsumexp(gathered.sum(axis=-1) + log_w[:, None], axis=0).sum()
    indicator = pt.eq(column[:, :, None], pt.arange(n_systems * n_states)[None, None, :])
    indicator = indicator.sum(axis=1).astype("float64").T
    by_product = pt.logsumexp(pt.dot(flat, indicator) + log_w[:, None], axis=0).sum()
    rng = np.random.default_rng(30)
    value = np.log(rng.uniform(0.05, 1.0, size=(z.size, n_systems, n_states)))
    timings = {}
    results = {}
    for name, expr in (("gather (before)", by_gather), ("matrix product (now)", by_product)):
        function = pytensor.function([table], [expr, pytensor.grad(expr, table)], mode="NUMBA")
        results[name] = function(value)
        timings[name] = cpu_per_call(function, [value], args.calls, args.repeat)
    (v0, g0), (v1, g1) = results.values()
    if abs(v0 - v1) > 1e-9 or np.max(np.abs(g0 - g1)) > 1e-12:
        raise AssertionError(f"the formulations differ: {v0} and {v1}")

    lines = [
        f"Bundled systems example: {len(patterns.systems)} systems, {patterns.count.size} cells "
        f"padded to {size}; judge {judge}, pooling {pooling}; 32 quadrature nodes. CPU "
        f"microseconds per call, median of {args.repeat} rounds of {args.calls} calls.",
        "",
        "| what | CPU us per call |",
        "|---|---|",
        f"| whole model: log density and gradient | {full_us:.1f} |",
        *(f"| cell sum and its gradient: {name} | {us:.1f} |" for name, us in timings.items()),
        "",
        "The two cell-sum formulations agree to 1e-12 (value and gradient).",
    ]
    path = record(
        "systems_gradient_cost",
        "Gradient cost of the many-system model",
        f"python benchmarks/systems_gradient_cost.py --calls {args.calls} --repeat {args.repeat}",
        "\n".join(lines),
    )
    print("\n".join(lines))
    print(path)


if __name__ == "__main__":
    main()
