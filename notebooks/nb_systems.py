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
            "**The question.** A team has three candidate assistants and must pick one. Each "
            "answered the same 400 prompts and one LLM judge graded every answer; for 120 of "
            "the prompts a person also labelled each assistant's answer PASS or FAIL. Is the "
            "assistant with the highest judged pass rate really the best?\n"
            "\n"
            "**The data** is the example bundled with bayesjudge (`load_example('systems')`), a "
            "seeded simulation in which the judge is more lenient with `assistant-c`: it "
            "passes 40% of `c`'s wrong answers against 15% of the others' (specificity 0.60 "
            "against 0.85). The analysis does not know this; it has to find it in the gold "
            "labels."
        ),
        new_code_cell(
            "from bayesjudge.examples import load_example\n"
            "from bayesjudge.systems import SystemsData, analyze_systems, difference_baselines\n"
            "from bayesjudge.systems.report import rank_answer, ranking_sentence\n"
            "\n"
            "DRAWS = 2000  # posterior draws per chain\n"
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
            "Judged by pass rate, `assistant-c` leads by about 7 points. But the gold labels "
            "already hint at the problem: the judge passed a larger share of `c`'s gold-FAIL "
            "answers than of the others'.\n"
            "\n"
            "## The frequentist answers\n"
            "\n"
            "Three standard comparisons of `assistant-a` with `assistant-c`: Newcombe's paired "
            "interval on the judge's verdicts (with McNemar's test), the Rogan-Gladen "
            "difference, which corrects both assistants with one sensitivity and specificity "
            "estimated from all their gold labels, and PPI++ on the gold-labelled prompts."
        ),
        new_code_cell(
            "shown = {\n"
            "    'naive_difference_newcombe': 'judged rates, Newcombe',\n"
            "    'rogan_gladen_difference': 'Rogan-Gladen',\n"
            "    'ppi_plus_plus_difference': 'PPI++',\n"
            "}\n"
            "for row in difference_baselines(data, a='assistant-a', b='assistant-c'):\n"
            "    if row.method in shown:\n"
            "        low, high = row.interval.low, row.interval.high\n"
            "        print(f'{shown[row.method]}: c - a = {row.estimate:+.3f} [{low:+.3f}, {high:+.3f}]')\n"
            "        print(f'    {row.notes[-1]}')"
        ),
        new_markdown_cell(
            "Each of these assumes the judge treats the two assistants alike, which is the "
            "question at issue.\n"
            "\n"
            "## The posterior, with the judge's errors fitted per assistant\n"
            "\n"
            "`analyze_systems` fits each assistant's true success rate $\\pi$ together with "
            "the judge's sensitivity and specificity *for that assistant* (partially pooled "
            "across assistants), and a difficulty per prompt, so that the pairing of the "
            "answers is used. It then checks the sampler (R-hat, effective sample size, "
            "divergences). A ranking step $a > b$ is printed only where "
            "$P(\\pi_a > \\pi_b) \\ge 0.9$; assistants without such a step between them are a "
            "tie."
        ),
        new_code_cell(
            "analysis = analyze_systems(data, draws=DRAWS, random_seed=1, progressbar=False)\n"
            "print('diagnostics passed:', analysis.passed)\n"
            "print(rank_answer(analysis))\n"
            "print(ranking_sentence(analysis))\n"
            "print('ranking by judged pass rate:', ' > '.join(analysis.naive_order))\n"
            "analysis.to_frame().round(3)"
        ),
        new_markdown_cell(
            "Each row is one assistant: the posterior mean of $\\pi$ with its 95% interval, "
            "the probability that it is the best of the three (`p_best`), its posterior mean "
            "rank, and its judged pass rate and rank. The pairwise differences say the same "
            "thing in another form (`p_b_better` is $P(\\pi_b > \\pi_a)$):"
        ),
        new_code_cell("analysis.differences_frame().round(3)"),
        new_markdown_cell(
            "## Why the answer changed: the judge per assistant\n"
            "\n"
            "The fitted sensitivity and specificity of the judge for each assistant (posterior "
            "means, with the 95% interval of the specificity):"
        ),
        new_code_cell(
            "for name, (se, sp) in analysis.judge.by_system.items():\n"
            "    print(\n"
            "        f'{name}: Se {se.mean:.3f}, Sp {sp.mean:.3f} '\n"
            "        f'[{sp.eti.low:.3f}, {sp.eti.high:.3f}]'\n"
            "    )"
        ),
        new_markdown_cell(
            "## What if we had assumed one judge for all?\n"
            "\n"
            "`judge='shared'` fits one sensitivity and one specificity for every assistant, "
            "the assumption behind the frequentist corrections above. It is a separate fit."
        ),
        new_code_cell(
            "shared = analyze_systems(\n"
            "    data, judge='shared', draws=DRAWS, random_seed=1, progressbar=False\n"
            ")\n"
            "print('diagnostics passed:', shared.passed)\n"
            "print(rank_answer(shared))\n"
            "print(ranking_sentence(shared))\n"
            "shared.to_frame().round(3)"
        ),
        new_markdown_cell(
            "## Conclusion\n"
            "\n"
            "The judged pass rates say `assistant-c` is best, and the frequentist "
            "comparisons that trust one judge for all agree (Newcombe: c - a = +0.075, "
            "interval +0.003 to +0.146, McNemar mid-p 0.041; Rogan-Gladen: +0.138). The gold "
            "labels say why: the judge is lenient with `c`, with specificity 0.543 (0.395 to "
            "0.698) for `c` against 0.758 and 0.780 for `a` and `b`.\n"
            "\n"
            "With that leniency fitted there is **no clear winner**. The three success rates "
            "are 0.670, 0.668 and 0.654 with overlapping 95% intervals, every pairwise "
            "difference has an interval wide around 0, and no step of the ranking reaches "
            "P = 0.9, so the ranking is printed as a tie. The answer line names `assistant-c`, "
            "the most likely best (P(best) 0.420 against 0.337 for `a`), with the lower mean "
            "rank by a hair (1.919 against 1.939): both figures say that the data "
            "cannot separate them.\n"
            "\n"
            "What to trust: both fits passed their diagnostics. The shared-judge fit calls "
            "`c` best with P(best) 0.965, but only because it reads `c`'s extra passes as "
            "extra successes, the assumption the gold labels contradict. The answer for the "
            "team: no assistant is shown to be better than the others. `c`'s interval (0.454 "
            "to 0.836) is the widest because the judge's leniency with `c` is uncertain; more "
            "gold labels of `c`'s answers are what would narrow it.\n"
            "\n"
            "From the command line, `bayesjudge rank` runs the same analysis and `--out DIR` "
            "writes it as a report."
        ),
    ]
