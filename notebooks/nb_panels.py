"""Cells of the notebook "A panel of judges" (built by notebooks/_build.py)."""

from __future__ import annotations

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

NAME = "panels.ipynb"


def cells() -> list[nbformat.NotebookNode]:
    return [
        new_markdown_cell(
            "# A panel of judges\n\n"
            "**The question.** Four LLM judges graded the same 1,700 answers of our system. "
            "What share of the answers is really good? Can we simply take the majority vote, "
            "and which judges are worth their cost?\n\n"
            "**The data** is the example bundled with bayesjudge (`load_example('panel')`), a "
            "seeded simulation: 200 of the answers carry a gold label; judge `a_copy` is a "
            "near-copy of judge `a` (the same model with another prompt), so the two make the "
            "same mistakes; judge `b` failed to answer 5% of the items. A majority vote "
            "counts the copies twice.\n\n"
            "The panel model (the random-effects latent-class model of Qu, Tan and Kutner, "
            "1996) estimates each judge's accuracy and the correlation of their errors from "
            "the gold and the unlabelled items together, and carries both into the true "
            "success rate $\\pi$. The page *Judge panels* of the documentation has the math."
        ),
        new_code_cell(
            "import matplotlib.pyplot as plt\n\n"
            "from bayesjudge import analyze_panel, load_example\n"
            "from bayesjudge.panels import load_panel\n"
            "from bayesjudge.panels.report import best_rule_text\n"
            "from bayesjudge.panels.rules import rule_words\n\n"
            "DRAWS = 2000  # posterior draws per chain\n"
            "TUNE = 1000  # tuning steps per chain\n\n"
            "table = load_example('panel')\n"
            "data = load_panel(table)\n"
            "n_fail, n_pass = data.n_labelled\n"
            "print(f'judges {data.judges} on {data.n_items} items; '\n"
            "      f'{n_pass} gold-PASS and {n_fail} gold-FAIL')\n"
            "print('share of items each judge left blank:',\n"
            "      {judge: round(share, 3) for judge, share in data.missing_share.items()})\n"
            "table.head()"
        ),
        new_markdown_cell(
            "One row per answer: the gold label where there is one and each judge's verdict "
            "(1 PASS, 0 FAIL); NaN marks a missing label or verdict.\n\n"
            "## The answer: fit, check and compare in one call\n\n"
            "`analyze_panel` starts the chains at the posterior mode, samples, checks R-hat, "
            "the effective sample sizes, divergences and the Monte Carlo error (retrying once "
            "if a check fails), and runs the baselines on the same data."
        ),
        new_code_cell(
            "analysis = analyze_panel(\n"
            "    data, draws=DRAWS, tune=TUNE, random_seed=1, progressbar=False\n"
            ")\n"
            "pi, effective = analysis.pi, analysis.effective_judges\n"
            "print('diagnostics passed:', analysis.passed)\n"
            "print(f'true success rate pi: {pi.mean:.3f} (95% interval {pi.eti.low:.3f} '\n"
            "      f'to {pi.eti.high:.3f})')\n"
            "print(f'naive majority vote:  {analysis.naive.estimate:.3f}')"
        ),
        new_markdown_cell(
            "## The judges, and how much they overlap\n\n"
            "Each judge's sensitivity (Se), specificity (Sp) and Youden's J (posterior "
            "means); then the correlation of each pair's errors among truly-PASS "
            "(`positive`) and truly-FAIL (`negative`) items, and the effective number of "
            "independent judges $J / (1 + (J - 1)\\bar\\rho)$."
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
            "print(f'effective number of judges: {effective.mean:.2f} '\n"
            "      f'(95% interval {effective.eti.low:.2f} to {effective.eti.high:.2f})')"
        ),
        new_markdown_cell(
            "## Vote rules\n\n"
            "Every at-least-t-of-4 rule and the likelihood-ratio rule (pass when the pattern "
            "of votes is more likely under PASS), each used as one judge, in the ROC plane "
            "beside the four judges."
        ),
        new_code_cell(
            "fig, ax = plt.subplots(figsize=(5, 5))\n"
            "for rule in analysis.rules:\n"
            "    ax.plot(1 - rule.sp.mean, rule.se.mean, 'o', color='C0')\n"
            "    ax.annotate(rule_words(rule.rule), (1 - rule.sp.mean, rule.se.mean), fontsize=8)\n"
            "for judge, values in analysis.judges.items():\n"
            "    ax.plot(1 - values['sp'].mean, values['se'].mean, 's', color='C1')\n"
            "    ax.annotate(judge, (1 - values['sp'].mean, values['se'].mean), fontsize=8)\n"
            "ax.plot([0, 1], [0, 1], ':', color='grey')\n"
            "ax.set_xlabel('1 - Sp'); ax.set_ylabel('Se'); ax.set_title('rules (o) and judges (s)')\n"
            "print(best_rule_text(analysis))"
        ),
        new_markdown_cell(
            "## What to trust: the posterior of $\\pi$ beside every baseline\n\n"
            "Each judge alone (Rogan-Gladen and PPI++ on the items it answered), the majority "
            "vote (naive, then Rogan-Gladen) and Dawid-Skene, which assumes independent "
            "judges and gives no interval."
        ),
        new_code_cell(
            "analysis.estimates_frame()[['judge', 'rule', 'method', 'estimate', 'low', 'high']]"
            ".round(3).astype(object).fillna('')"
        ),
        new_markdown_cell(
            "## Conclusion\n\n"
            "The majority vote understates the success rate: 0.633, against a posterior of "
            "0.726 (95% interval 0.671 to 0.779). It also counts `a` twice: `a` and `a_copy` "
            "have almost the same Se and Sp, and their errors correlate (0.613 among "
            "truly-FAIL and 0.676 among truly-PASS items, against at most 0.270 for any "
            "other pair), so the four judges count as 2.40 independent judges (2.16 to "
            "2.65). `a_copy` brings almost nothing that `a` does not.\n\n"
            "What to trust: the diagnostics passed, and the corrected baselines agree with the "
            "posterior within their intervals. "
            "Each judge alone, corrected by Rogan-Gladen, gives 0.691 to 0.749 with intervals "
            "about 0.19 wide; the Rogan-Gladen-corrected majority vote gives 0.745 (0.663 to "
            "0.827); PPI++ per judge gives 0.671 to 0.696. Dawid-Skene (0.666) assumes "
            "independent judges, which this panel is not, and gives no interval. Report the "
            "posterior: it uses all four judges, the gold and the unlabelled items, and "
            "carries the judges' dependence into its interval."
        ),
    ]
