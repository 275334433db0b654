"""Cells of the notebook "A panel of judges" (built by notebooks/_build.py)."""

from __future__ import annotations

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

NAME = "panels.ipynb"


def cells() -> list[nbformat.NotebookNode]:
    return [
        new_markdown_cell(
            "# A panel of judges\n\n"
            "Four LLM judges grade the same 1,700 answers; 200 answers carry a gold label. "
            "Judge `a_copy` is a near-copy of judge `a` (the same model with another prompt), "
            "so the two make the same mistakes; judge `b` failed to answer 5% of the items. "
            "A majority vote counts the copies twice. The panel model of bayesjudge (the "
            "random-effects latent-class model of Qu, Tan and Kutner, 1996) estimates each "
            "judge's accuracy and the correlation of their errors from the gold and the "
            "unlabelled items together, and carries both into the true success rate $\\pi$. "
            "The page *Judge panels* of the documentation has the math."
        ),
        new_code_cell(
            "import os\n\n"
            "import matplotlib.pyplot as plt\n\n"
            "from bayesjudge import analyze_panel, load_example\n"
            "from bayesjudge.panels import load_panel\n\n"
            "# The test suite runs this notebook with fewer draws.\n"
            "DRAWS = int(os.environ.get('BAYESJUDGE_NB_DRAWS', '2000'))\n\n"
            "table = load_example('panel')\n"
            "data = load_panel(table)\n"
            "print(data.judges, data.n_items, 'items;', data.n_labelled, '(gold-FAIL, gold-PASS)')\n"
            "print('share of items each judge left blank:', data.missing_share)\n"
            "table.head()"
        ),
        new_markdown_cell(
            "## Fit, check and compare in one call\n\n"
            "`analyze_panel` starts the chains at the posterior mode, samples, checks R-hat, "
            "ESS, divergences and Monte Carlo error (retrying once if a check fails), and runs "
            "the baselines on the same data."
        ),
        new_code_cell(
            "analysis = analyze_panel(data, draws=DRAWS, random_seed=1, progressbar=False)\n"
            "print('diagnostics passed:', analysis.passed)\n"
            "print('pi:', analysis.pi)\n"
            "print('naive majority vote:', analysis.naive.estimate)"
        ),
        new_markdown_cell(
            "## The judges, and how much they overlap\n\n"
            "Each judge's sensitivity (Se), specificity (Sp) and Youden's J; then the "
            "correlation of each pair's errors among truly-PASS (`positive`) and truly-FAIL "
            "(`negative`) items, and the effective number of independent judges "
            "$J / (1 + (J - 1)\\bar\\rho)$."
        ),
        new_code_cell(
            "frame = analysis.to_frame()\n"
            "frame[frame['quantity'].isin(['se', 'sp', 'j'])].pivot(\n"
            "    index='subject', columns='quantity', values='mean'\n"
            ").round(3)"
        ),
        new_code_cell(
            "correlations = frame[frame['quantity'].str.startswith('correlation')]\n"
            "print(correlations.pivot(index='subject', columns='quantity', values='mean').round(3))\n"
            "print('effective number of judges:', analysis.effective_judges)"
        ),
        new_markdown_cell(
            "## Vote rules\n\n"
            "Every at-least-t-of-4 rule and the likelihood-ratio rule (pass when the pattern "
            "is more likely under PASS), each used as one judge. The best rule is the one "
            "whose Rogan-Gladen estimate of $\\pi$ would be the most precise."
        ),
        new_code_cell(
            "fig, ax = plt.subplots(figsize=(5, 5))\n"
            "for rule in analysis.rules:\n"
            "    ax.plot(1 - rule.sp.mean, rule.se.mean, 'o', color='C0')\n"
            "    ax.annotate(rule.rule, (1 - rule.sp.mean, rule.se.mean), fontsize=8)\n"
            "for judge, values in analysis.judges.items():\n"
            "    ax.plot(1 - values['sp'].mean, values['se'].mean, 's', color='C1')\n"
            "    ax.annotate(judge, (1 - values['sp'].mean, values['se'].mean), fontsize=8)\n"
            "ax.plot([0, 1], [0, 1], ':', color='grey')\n"
            "ax.set_xlabel('1 - Sp'); ax.set_ylabel('Se'); ax.set_title('rules (o) and judges (s)')\n"
            "print('best rule:', analysis.best_rule)"
        ),
        new_markdown_cell(
            "## The posterior of $\\pi$ beside every baseline\n\n"
            "Each judge alone (Rogan-Gladen and PPI++ on the items it answered), the majority "
            "vote (naive, then Rogan-Gladen) and Dawid-Skene, which assumes independent judges."
        ),
        new_code_cell(
            "analysis.estimates_frame()[['judge', 'rule', 'method', 'estimate', 'low', 'high']]"
        ),
    ]
