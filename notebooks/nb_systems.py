"""Cells of the notebook "Which model is better?" (built by notebooks/_build.py)."""

from __future__ import annotations

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

NAME = "systems.ipynb"


def cells() -> list[nbformat.NotebookNode]:
    return [
        new_markdown_cell(
            "# Which model is better?\n"
            "\n"
            "Three assistants answered the same 400 prompts and one LLM judge graded every answer; "
            "120 prompts also carry a gold label for each assistant's answer. The judge's raw pass "
            "rates are biased, and the judge may not treat the assistants alike: here it passes "
            "more wrong answers of `assistant-c` (the bundled example, simulated with "
            "specificity 0.60 for `c` against 0.85 for the others). This notebook ranks the "
            "assistants with the judge's errors carried into the comparison "
            "(`bayesjudge.systems`), beside the frequentist answers."
        ),
        new_code_cell(
            "import os\n"
            "\n"
            "from bayesjudge.examples import load_example\n"
            "from bayesjudge.systems import SystemsData, analyze_systems, difference_baselines\n"
            "\n"
            "# The test suite runs this notebook with fewer draws.\n"
            'DRAWS = int(os.environ.get("BAYESJUDGE_NB_DRAWS", "2000"))\n'
            "\n"
            'data = SystemsData.read(load_example("systems"))\n'
            "counts = data.system_counts()\n"
            "for s, name in enumerate(data.systems):\n"
            "    print(\n"
            '        f"{name}: judged pass rate {counts.k[s] / counts.n[s]:.3f} on {counts.n[s]} "\n'
            '        f"unlabelled answers; gold-FAIL answers passed {counts.x0[s]} of {counts.m0[s]}"\n'
            "    )"
        ),
        new_markdown_cell(
            "## The naive answer\n"
            "\n"
            "On the prompts unlabelled for both, McNemar's test and Newcombe's paired interval "
            "compare the judge's verdicts; the Rogan-Gladen difference corrects both systems with "
            "one Se and Sp estimated from every gold label."
        ),
        new_code_cell(
            'for row in difference_baselines(data, a="assistant-a", b="assistant-c")[::2]:\n'
            "    print(row.method, round(row.estimate, 4), row.interval, row.notes[-1])"
        ),
        new_markdown_cell(
            "## The posterior, with the judge fitted per system\n"
            "\n"
            "With gold labels of both classes for every assistant, `analyze_systems` fits each "
            "assistant's Se and Sp, partially pooled, and integrates the prompt's difficulty out "
            "(a Rasch item effect), so the pairing is used."
        ),
        new_code_cell(
            "analysis = analyze_systems(data, draws=DRAWS, random_seed=1, progressbar=False)\n"
            'print("diagnostics passed:", analysis.passed)\n'
            'print("corrected ranking:", " > ".join(analysis.order))\n'
            'print("naive ranking:    ", " > ".join(analysis.naive_order))\n'
            'print("reversals:", [(r.a, r.b, round(r.prob, 2)) for r in analysis.reversals])\n'
            "analysis.to_frame().round(3)"
        ),
        new_code_cell("analysis.differences_frame().round(3)"),
        new_code_cell(
            "for name, (se, sp) in analysis.judge.by_system.items():\n"
            '    print(f"{name}: Se {se.mean:.3f}, Sp {sp.mean:.3f} [{sp.eti.low:.3f}, {sp.eti.high:.3f}]")\n'
            "print(\n"
            '    "ranking with the population-centre judge for every system:",\n'
            '    " > ".join(analysis.judge.shared_order),\n'
            '    "(changes the ranking)" if analysis.judge.changes_ranking else "(same ranking)",\n'
            ")"
        ),
        new_markdown_cell(
            "## One judge for all\n"
            "\n"
            '`judge="shared"` assumes the judge treats every assistant alike: `c`\'s extra '
            "passes then read as extra successes. This is a separate fit, with its own Se, Sp "
            "and success rates; the order printed above instead corrects each assistant's judged "
            "rate, within the per-system fit, with the judge at the centre of the population. "
            "`a` and `b` are close, so the two need not order them alike."
        ),
        new_code_cell(
            "shared = analyze_systems(\n"
            '    data, judge="shared", draws=DRAWS, random_seed=1, progressbar=False\n'
            ")\n"
            'print("diagnostics passed:", shared.passed)\n'
            'print("corrected ranking:", " > ".join(shared.order))\n'
            "shared.to_frame().round(3)"
        ),
        new_markdown_cell(
            "The per-system judge finds the judge lenient with `c` and widens `c`'s interval "
            "accordingly: the data cannot say how much of `c`'s lead is leniency. `bayesjudge "
            "rank` prints the same analysis from the command line, and `--out DIR` writes it as a "
            "report."
        ),
    ]
