"""Cells of the notebook "Prevalence under an imperfect judge" (built by notebooks/_build.py)."""

from __future__ import annotations

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

NAME = "prevalence.ipynb"


def cells() -> list[nbformat.NotebookNode]:
    cells = [
        new_markdown_cell(
            "# Prevalence under an imperfect judge\n\n"
            "An LLM judge passes some failures and fails some good work, so its pass rate is "
            "not the true success rate $\\pi$. With a gold-labelled calibration set we learn "
            "the judge's sensitivity $Se = P(\\hat y = 1 \\mid y = 1)$ and specificity "
            "$Sp = P(\\hat y = 0 \\mid y = 0)$ and correct for them. The judged pass rate on "
            "the test items has expectation\n\n"
            "$$R = \\pi\\,Se + (1 - \\pi)(1 - Sp),$$\n\n"
            "which bayesjudge inverts in two ways: the frequentist Rogan-Gladen estimator "
            "$(\\hat p + \\hat q_0 - 1)/(\\hat q_0 + \\hat q_1 - 1)$ with its intervals, and a "
            "PyMC posterior of $(\\pi, Se, Sp)$ under Jeffreys priors, checked with ArviZ "
            "diagnostics and against an exact numerical integral."
        ),
        new_code_cell(
            "import os\n\n"
            "import arviz_plots as azp\n\n"
            "import bayesjudge as bj\n"
            "from bayesjudge import (\n"
            "    baselines,\n"
            "    check_fit,\n"
            "    compare,\n"
            "    exact_posterior,\n"
            "    fit_prevalence,\n"
            "    posterior_summary,\n"
            ")\n"
            "from bayesjudge.prevalence.simulate import judge_table\n\n"
            "# The test suite runs this notebook with fewer draws.\n"
            "DRAWS = int(os.environ.get('BAYESJUDGE_NB_DRAWS', '2000'))"
        ),
        new_markdown_cell(
            "## A worked example\n\n"
            "A judge with sensitivity 0.90 and specificity 0.85 measured on 100 gold-PASS and "
            "100 gold-FAIL items passes 700 of 1,000 test items. The article *Bias-correct your "
            "LLM-as-a-judge eval before reporting it* (2026) corrects 0.70 to about 0.73 with a "
            "standard error of about 0.037 and a 95% interval of about [0.66, 0.81]."
        ),
        new_code_cell(
            "worked = bj.JudgeData.from_counts(m1=100, x1=90, m0=100, x0=15, n=1000, k=700)\n"
            "worked.counts, round(worked.counts.j, 3)"
        ),
        new_code_cell("baselines(worked, random_seed=2)"),
        new_markdown_cell(
            "The posterior of the prevalence model. `fit_prevalence` samples with nutpie "
            "(four chains by default, from a fixed default seed), adds posterior predictive "
            "draws of the observed counts, and runs the diagnostics; a fit whose sampler "
            "struggles is retried once with smaller steps, and one that still fails raises a "
            "`FitWarning`. What was run, with which versions and seed, is in the attrs."
        ),
        new_code_cell(
            "posterior = fit_prevalence(worked, draws=DRAWS, random_seed=1, progressbar=False)\n"
            "posterior"
        ),
        new_code_cell("check_fit(posterior).to_frame()"),
        new_markdown_cell(
            "The exact posterior of $\\pi$ by numerical integration is the reference the "
            "sampler must agree with (the test suite checks it within Monte-Carlo error)."
        ),
        new_code_cell(
            "exact = exact_posterior(worked)\n"
            "nuts = posterior_summary(posterior, 'pi')\n"
            "print(f'NUTS  mean {nuts.mean:.4f}  sd {nuts.sd:.4f}  95% ETI '\n"
            "      f'[{nuts.eti.low:.4f}, {nuts.eti.high:.4f}]')\n"
            "e = exact.eti(0.95)\n"
            "print(f'exact mean {exact.mean:.4f}  sd {exact.sd:.4f}  95% ETI '\n"
            "      f'[{e.low:.4f}, {e.high:.4f}]')"
        ),
        new_code_cell("compare(posterior, worked, random_seed=2, exact=exact)"),
        new_code_cell("azp.plot_trace_dist(posterior, var_names=['pi', 'se', 'sp', 'j']);"),
        new_markdown_cell(
            "## Label shift\n\n"
            "The calibration set was labelled half PASS, half FAIL, but only 20% of the test "
            "items are truly good. Sensitivity and specificity are conditional on the true "
            "label, so they transfer; the label mix does not. Estimators that lean on the "
            "calibration mix (calibration-only, PPI, PPI++) are biased here; Rogan-Gladen and "
            "the Bayesian model are not, and bayesjudge says so in their notes: the judge "
            "passes the gold items at a rate the test items do not share."
        ),
        new_code_cell(
            "shifted = bj.JudgeData.from_frame(\n"
            "    judge_table(pi=0.2, se=0.85, sp=0.9, n=3000, m1=150, m0=150, random_seed=7)\n"
            ")\n"
            "shift_post = fit_prevalence(shifted, draws=DRAWS, random_seed=3, progressbar=False)\n"
            "table = compare(shift_post, shifted, random_seed=3)\n"
            "table[['method', 'estimate', 'low', 'high', 'note']]"
        ),
        new_code_cell(
            "truth = 0.2\n"
            "table.assign(error=table['estimate'] - truth)[['method', 'estimate', 'error']]"
        ),
        new_code_cell("azp.plot_dist(shift_post, var_names=['pi', 'bias']);"),
        new_markdown_cell(
            "The judge's bias $R - \\pi$ is a derived quantity of every fit: here the judge "
            "overstates the success rate, because at a low true rate its false passes "
            "outnumber its misses."
        ),
    ]
    return cells
