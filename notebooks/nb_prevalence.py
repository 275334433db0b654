"""Cells of the notebook "Prevalence under an imperfect judge" (built by notebooks/_build.py)."""

from __future__ import annotations

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

NAME = "prevalence.ipynb"


def cells() -> list[nbformat.NotebookNode]:
    cells = [
        new_markdown_cell(
            "# Prevalence under an imperfect judge\n\n"
            "**The question.** An LLM judge passes 700 of our agent's 1,000 answers. What share "
            "of the answers is really good, and how sure can we be?\n\n"
            "The judge passes some failures and fails some good work, so its pass rate is not "
            "the true success rate $\\pi$. A gold-labelled calibration set tells us the judge's "
            "sensitivity $Se = P(\\hat y = 1 \\mid y = 1)$ and specificity "
            "$Sp = P(\\hat y = 0 \\mid y = 0)$. The judged pass rate has expectation\n\n"
            "$$R = \\pi\\,Se + (1 - \\pi)(1 - Sp),$$\n\n"
            "which bayesjudge inverts in two ways: the frequentist Rogan-Gladen estimator "
            "$(\\hat p + \\hat q_0 - 1)/(\\hat q_0 + \\hat q_1 - 1)$ with its intervals, and a "
            "posterior of $(\\pi, Se, Sp)$ under Jeffreys priors, checked by its diagnostics "
            "and against an exact numerical integral."
        ),
        new_code_cell(
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
            "DRAWS = 2000  # posterior draws per chain"
        ),
        new_markdown_cell(
            "## The data\n\n"
            "The counts of a published worked example (the article *Bias-correct your "
            "LLM-as-a-judge eval before reporting it*, 2026): the judge passed 90 of 100 "
            "gold-PASS items and 15 of 100 gold-FAIL items (Se 0.90, Sp 0.85), and 700 of "
            "1,000 test items. The article corrects 0.70 to about 0.73, with a standard error "
            "of about 0.037. Youden's $J = Se + Sp - 1$ says how much the judge "
            "discriminates at all (0 is a coin flip)."
        ),
        new_code_cell(
            "worked = bj.JudgeData.from_counts(m1=100, x1=90, m0=100, x0=15, n=1000, k=700)\n"
            "print(worked.counts)\n"
            "print('Youden J of the calibration set:', round(worked.counts.j, 3))"
        ),
        new_markdown_cell(
            "## The frequentist answers\n\n"
            "The raw pass rate (`naive`), the gold labels alone (`calibration_only`), three "
            "intervals around the Rogan-Gladen estimate, and prediction-powered inference "
            "(PPI, PPI++). The notes say what each method assumes."
        ),
        new_code_cell("baselines(worked, random_seed=2)"),
        new_markdown_cell(
            "## The posterior\n\n"
            "`fit_prevalence` samples the model (four chains, from a fixed seed), draws "
            "replicated data to check the fit, and runs the diagnostics; a fit whose sampler "
            "struggles is retried once with smaller steps, and one that still fails raises a "
            "`FitWarning`. Posterior means with 95% equal-tailed intervals:"
        ),
        new_code_cell(
            "posterior = fit_prevalence(worked, draws=DRAWS, random_seed=1, progressbar=False)\n"
            "for name in ('pi', 'se', 'sp', 'j'):\n"
            "    s = posterior_summary(posterior, name)\n"
            "    print(f'{name:>2}: {s.mean:.3f} [{s.eti.low:.3f}, {s.eti.high:.3f}]')"
        ),
        new_markdown_cell(
            "## What to trust\n\n"
            "**Diagnostics.** R-hat (do the chains agree), the effective sample sizes, the "
            "Monte Carlo error of the mean and of the interval ends, and the posterior "
            "predictive checks of the observed counts, each against its threshold:"
        ),
        new_code_cell(
            "checks = check_fit(posterior, var_names=['pi', 'se', 'sp', 'j'])\n"
            "print('all checks passed:', checks.passed)\n"
            "checks.to_frame().round(4)"
        ),
        new_markdown_cell(
            "**An exact reference.** For this model the posterior of $\\pi$ can also be "
            "computed by numerical integration; the sampler must agree with it."
        ),
        new_code_cell(
            "exact = exact_posterior(worked)\n"
            "nuts = posterior_summary(posterior, 'pi')\n"
            "e = exact.eti(0.95)\n"
            "print(f'sampled mean {nuts.mean:.4f}  sd {nuts.sd:.4f}  95% interval '\n"
            "      f'[{nuts.eti.low:.4f}, {nuts.eti.high:.4f}]')\n"
            "print(f'exact   mean {exact.mean:.4f}  sd {exact.sd:.4f}  95% interval '\n"
            "      f'[{e.low:.4f}, {e.high:.4f}]')"
        ),
        new_markdown_cell(
            "**Baselines beside the posterior.** `compare` puts the posterior (its median "
            "with the equal-tailed interval, its mean with the highest-density interval, and "
            "the exact integral) above the frequentist rows, and adds a warning where the "
            "data contradict a method's assumption:"
        ),
        new_code_cell("compare(posterior, worked, random_seed=2, exact=exact)"),
        new_code_cell("azp.plot_trace_dist(posterior, var_names=['pi', 'se', 'sp', 'j']);"),
        new_markdown_cell(
            "The four chains overlap and mix (left: the marginal densities per chain; "
            "right: the draws in order).\n\n"
            "## When the calibration set is not like the test set\n\n"
            "A seeded simulation (`judge_table`, seed 7): the calibration set was labelled "
            "half PASS, half FAIL, but only 20% of the 3,000 test items are truly good. "
            "Sensitivity and specificity are conditional on the true label, so they transfer; "
            "the label mix does not. Methods that lean on the calibration mix "
            "(calibration-only, PPI, PPI++) are biased here; Rogan-Gladen and the posterior "
            "are not, and the notes say so."
        ),
        new_code_cell(
            "shifted = bj.JudgeData.from_frame(\n"
            "    judge_table(pi=0.2, se=0.85, sp=0.9, n=3000, m1=150, m0=150, random_seed=7)\n"
            ")\n"
            "shift_post = fit_prevalence(shifted, draws=DRAWS, random_seed=3, progressbar=False)\n"
            "table = compare(shift_post, shifted, random_seed=3)\n"
            "truth = 0.2\n"
            "table.assign(error=table['estimate'] - truth)[\n"
            "    ['method', 'estimate', 'low', 'high', 'error']\n"
            "].round(3)"
        ),
        new_code_cell(
            "for method, note in zip(table['method'], table['note'].fillna(''), strict=True):\n"
            "    if note:\n"
            "        print(f'{method}: {note}')"
        ),
        new_code_cell("azp.plot_dist(shift_post, var_names=['pi', 'bias']);"),
        new_markdown_cell(
            "The judge's bias $R - \\pi$ is a derived quantity of every fit: here the judge "
            "overstates the success rate, because at a low true rate its false passes "
            "outnumber its misses.\n\n"
            "## Conclusion\n\n"
            "The judge's 70% pass rate understates the agent. The true success rate is about "
            "74%: posterior mean 0.739 with 95% interval 0.666 to 0.826, in line with the "
            "article's 0.73 and with Rogan-Gladen (0.733, 0.660 to 0.807). The interval is "
            "almost three times as wide as the naive one (0.671 to 0.728) because it carries "
            "the uncertainty of the judge's Se and Sp, learnt from only 200 gold labels (the "
            "naive standard error, which ignores them, is 0.014; Rogan-Gladen's is 0.037).\n\n"
            "The answer can be trusted as far as the checks go: every diagnostic passed, and "
            "the sampler agrees with the exact integral (mean 0.7393 against 0.7389). "
            "Calibration-only, PPI and PPI++ should not be reported here: the gold items are "
            "not a random sample of the test items (the judge passes 52% of the one and 70% "
            "of the other), and their notes say so. Under label shift the same holds: the "
            "posterior (median 0.236) and Rogan-Gladen (0.238) are within 0.04 of the true "
            "0.2 and their intervals contain it, while PPI++ is off by 0.116 and the "
            "calibration-only estimate by 0.300."
        ),
    ]
    return cells
