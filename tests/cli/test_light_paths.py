"""Answers that need no sampler import none: what ``baselines`` and ``--method exact`` load.

``bayesjudge baselines`` needs the counts and a normal quantile, and ``estimate --method exact``
the counts and SciPy's quadrature and special functions; neither may pay for the sampling
stack (PyMC, PyTensor, nutpie, numba), ArviZ, matplotlib or xarray, and ``baselines`` not even
for SciPy. Both commands run in one fresh interpreter, ``baselines`` first, and the test reads
``sys.modules`` after each.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from bayesjudge.examples import example_file

#: Top-level packages neither command may import.
HEAVY = ("pymc", "pytensor", "nutpie", "numba", "arviz", "matplotlib", "xarray")


def test_baselines_and_exact_import_only_what_they_need() -> None:
    script = textwrap.dedent(
        f"""
        import contextlib, io, json, sys
        from bayesjudge.cli.app import main

        heavy = {HEAVY!r}

        def loaded(names):
            tops = {{m.split(".")[0] for m in sys.modules}}
            return sorted(t for t in tops if t.startswith(names))

        out = {{}}
        with contextlib.redirect_stdout(io.StringIO()):
            out["baselines_code"] = main(["baselines", {example_file("judge")!r}, "--json"])
        out["baselines"] = loaded(heavy + ("scipy",))
        with contextlib.redirect_stdout(io.StringIO()):
            out["exact_code"] = main(
                ["estimate", {example_file("judge")!r}, "--method", "exact", "--json"]
            )
        out["exact"] = loaded(heavy)
        out["exact_scipy"] = "scipy.special" in sys.modules
        print(json.dumps(out))
        """
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result == {
        "baselines_code": 0,
        "baselines": [],
        "exact_code": 0,
        "exact": [],
        "exact_scipy": True,  # the quadrature's special functions: the check above can fail
    }


def test_parser_and_help_load_no_table_stack() -> None:
    """The parser (built by every command, and all of ``--help``) imports no pandas or pyarrow.

    ``--by``'s help names :data:`bayesjudge.io.split.MAX_GROUPS`, which lives in a module that
    imports nothing (``bayesjudge.io._split_limit``); reading it must not load the table
    readers, so ``bayesjudge COMMAND --help`` and a usage error stay light.
    """
    script = textwrap.dedent(
        f"""
        import contextlib, io, json, sys
        from bayesjudge.cli.app import build_parser, main
        from bayesjudge.io._split_limit import MAX_GROUPS

        heavy = {HEAVY!r} + ("pandas", "pyarrow", "scipy")
        text = build_parser().parse_args(["baselines", "data.csv"]).command
        with contextlib.redirect_stdout(io.StringIO()) as out:
            try:
                main(["baselines", "--help"])
            except SystemExit as exc:
                code = exc.code
        tops = {{m.split(".")[0] for m in sys.modules}}
        shown = " ".join(out.getvalue().split())
        print(json.dumps({{
            "command": text,
            "code": code,
            "help_names_limit": f"at most {{MAX_GROUPS}} groups" in shown,
            "loaded": sorted(t for t in tops if t.startswith(heavy)),
        }}))
        """
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result == {"command": "baselines", "code": 0, "help_names_limit": True, "loaded": []}
