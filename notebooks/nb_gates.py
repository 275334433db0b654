"""Cells of the notebook "Retry gates" (built by notebooks/_build.py)."""

from __future__ import annotations

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

NAME = "gates.ipynb"


def cells() -> list[nbformat.NotebookNode]:
    return [
        new_markdown_cell(
            "# Retry gates: the reliability floor, J(K) erosion and recovering true success\n\n"
            "An agent's work is judged; on FAIL it is judged again, up to a cap $K$; the loop "
            "reports the share of items that end in PASS. If the judge passes item $i$ with "
            "probability $p_i$ per ruling, the item ships with probability\n\n"
            "$$s_i(K) = 1 - (1 - p_i)^K,$$\n\n"
            "so the gate is a classifier of true compliance with $Se(K) = E[s \\mid "
            "\\text{compliant}]$, $1 - Sp(K) = E[s \\mid \\text{violation}]$, Youden "
            "$J(K) = Se(K) + Sp(K) - 1$ and reported rate $R(K) = \\pi Se(K) + (1-\\pi)"
            "(1 - Sp(K))$ (*Below the Reliability Floor*, eqs. 1-5). Retrying can only turn "
            "FAIL into PASS, so the "
            "reported rate is biased upwards and, on pass-prone gates, $J(K)$ erodes towards "
            "the reliability floor $J(\\infty) = P(p>0 \\mid \\text{comp}) - P(p>0 \\mid "
            "\\text{viol})$."
        ),
        new_code_cell(
            "import os\n\n"
            "import matplotlib.pyplot as plt\n"
            "import numpy as np\n"
            "import pandas as pd\n\n"
            "from bayesjudge import LoopLog, Rulings, analyze_gate\n"
            "from bayesjudge.gates import (\n"
            "    PassRateDistribution, gate_baselines, gate_curve, independence_check_table,\n"
            "    optimal_cap, ppv_correction, replay_loop, slip_parameters, stopping_rules,\n"
            "    transfer_check,\n"
            ")\n"
            "from bayesjudge.gates.report import curve_frame\n"
            "from bayesjudge.gates.simulate import (\n"
            "    TABLE4, rejudgment_gate, revise_loop, skewed_gate, table4_gate,\n"
            ")\n\n"
            "# The test suite runs this notebook with fewer draws.\n"
            "DRAWS = int(os.environ.get('BAYESJUDGE_NB_DRAWS', '1000'))"
        ),
        new_markdown_cell(
            "## J(K) erosion and the reliability floor\n\n"
            "The synthetic gate of section 4 of *Below the Reliability Floor* (anonymous, under "
            "review 2026): compliant items pass with rate about 0.90, violations "
            "with rate $q$. At $K = 1$, $J = 0.90 - q$; as $q \\to 0.90$ the gate stops "
            "discriminating ($J$: 0.80 to 0.01). Every item is passable ($\\omega = 0$ in both "
            "classes), so $J(\\infty) = 0$: retrying drives every such gate to the floor."
        ),
        new_code_cell(
            "caps = np.arange(1, 21)\n"
            "fig, ax = plt.subplots(figsize=(6.5, 3.5))\n"
            "for q in (0.1, 0.5, 0.8, 0.89):\n"
            "    curve = gate_curve(*skewed_gate(q), caps=caps, pi=0.5)\n"
            "    ax.plot(caps, curve.j, 'o-', ms=3, label=f'violation rate {q}')\n"
            "ax.set_xlabel('cap K'); ax.set_ylabel('J(K)'); ax.legend(); ax.set_title('J(K) erodes');"
        ),
        new_markdown_cell(
            "With never-pass mass the floor is positive: here 40% of violations are never "
            "passed and 5% of compliant items are never passed, so $J(\\infty) = 0.35$."
        ),
        new_code_cell(
            "compliant = PassRateDistribution(omega=0.05, mu=0.8, kappa=3.0)\n"
            "violation = PassRateDistribution(omega=0.4, mu=0.35, kappa=1.5)\n"
            "floor = gate_curve(compliant, violation, caps=[1, 2, 5, 10, 100, 10_000], pi=0.5)\n"
            "print('J(inf) =', round(floor.j_inf, 3))\n"
            "floor.to_frame().round(3)"
        ),
        new_markdown_cell(
            "## The measurement cap $K^* = 1$\n\n"
            "The Rogan-Gladen variance (Below the Reliability Floor, eq. B.1) carries "
            "$1/J(K)^2$; where $J(K)$ "
            "falls with $K$ it is smallest at $K = 1$."
        ),
        new_code_cell(
            "curve = gate_curve(*skewed_gate(0.5), caps=range(1, 9), pi=0.3)\n"
            "choice = optimal_cap(curve, n=2000, m1=100, m0=100)\n"
            "print('K* =', choice.k)\n"
            "pd.DataFrame({'k': choice.caps, 'J': curve.j, 'sd of RG': np.sqrt(choice.variance)})"
            ".round(4)"
        ),
        new_markdown_cell(
            "## Stopping rules\n\n"
            "Re-aggregating the same $K$ rulings: any-pass (retry) is the most inflationary, "
            "majority intermediate, unanimous the most conservative, and the signs can differ "
            "on one gate (Below the Reliability Floor, section 3)."
        ),
        new_code_cell("stopping_rules(compliant, violation, caps=[3, 6], pi=0.5).round(3)"),
        new_markdown_cell(
            "## Recovering $\\pi$ from a gated rate\n\n"
            "A gate shaped like a row of Table 4 of *Below the Reliability Floor* (HaluEval / "
            "Gemini-Flash: Se(1) 0.844, leak 0.431, $\\pi = 0.5$): 2,000 items ruled 6 times, "
            "10% gold-labelled at random. The per-item pass-rate hierarchy uses every ruling; "
            "each distinct (label, r, k) cell enters the likelihood once, weighted by its "
            "multiplicity. `analyze_gate` fits it, checks it, and runs the baselines and the "
            "independence check in one call."
        ),
        new_code_cell(
            "se1, leak, pi = TABLE4['HaluEval / Gemini-Flash']\n"
            "c, v = table4_gate(se1, leak)\n"
            "gate = rejudgment_gate(c, v, pi=pi, n_items=2000, rulings=6, labelled_fraction=0.1,\n"
            "                       random_seed=4)\n"
            "rulings = Rulings.from_frame(gate.table)\n"
            "analysis = analyze_gate(rulings, caps=[1, 5], draws=DRAWS, random_seed=4,\n"
            "                        progressbar=False)\n"
            "analysis.passed"
        ),
        new_code_cell(
            "truth = gate_curve(c, v, caps=[1, 5], pi=pi)\n"
            "s = analysis.summary('pi')\n"
            "print(f'pi: {s.mean:.3f} [{s.eti.low:.3f}, {s.eti.high:.3f}]  (truth {pi}, '\n"
            "      f'held-out share {gate.pi_unlabelled:.3f})')\n"
            "for j, cap in enumerate((1, 5)):\n"
            "    s = analysis.summary('j', cap)\n"
            "    print(f'J({cap}): {s.mean:.3f} [{s.eti.low:.3f}, {s.eti.high:.3f}]  '\n"
            "          f'(truth {truth.j[j]:.3f})')"
        ),
        new_code_cell(
            "pd.DataFrame([row.to_row() for row in gate_baselines(rulings, caps=[1, 2, 5])])[\n"
            "    ['cap', 'method', 'estimate', 'low', 'high', 'j']\n"
            "].round(3)"
        ),
        new_code_cell(
            "band = curve_frame(analysis.posterior, list(range(1, 9)))\n"
            "exact = gate_curve(c, v, caps=band['cap'], pi=pi)\n"
            "fig, ax = plt.subplots(figsize=(6.5, 3.5))\n"
            "ax.fill_between(band['cap'], band['j_low'], band['j_high'], alpha=0.3)\n"
            "ax.plot(band['cap'], band['j'], 'o-', label='posterior J(K)')\n"
            "ax.plot(band['cap'], exact.j, 'k--', label='true J(K)')\n"
            "ax.axhline(exact.j_inf, color='r', ls=':', label='true J(inf)')\n"
            "ax.set_xlabel('cap K'); ax.legend();"
        ),
        new_markdown_cell(
            "The model assumes independent rulings with a fixed per-item rate. The lag-1 check "
            "compares the share of consecutive rulings that agree with its expectation under "
            "that assumption."
        ),
        new_code_cell("independence_check_table(gate.table, random_seed=0)"),
        new_markdown_cell(
            "## A revise-then-rejudge loop and the slip law\n\n"
            "The agent's attempts are correct with rate $a$; the judge passes correct attempts "
            "with rate $s$ and wrong ones with leak $\\ell$; the loop ships the first PASS. "
            "With $\\rho = a s + (1-a)\\ell$: reported$(K) = 1 - (1-\\rho)^K$ and "
            "slip$(K)$ = reported$(K)\\,(1-a)\\ell/\\rho$ (Below the Reliability Floor, "
            "section 5.1). The true "
            "delivered success is reported $\\times$ PPV, PPV from a gold-labelled subset."
        ),
        new_code_cell(
            "log = LoopLog.from_frame(revise_loop(3000, a=0.35, s=0.9, leak=0.5, cap=5,\n"
            "                                     random_seed=5))\n"
            "params = slip_parameters(log)\n"
            "replay = replay_loop(log, caps=[1, 2, 3, 4, 5]).to_frame()\n"
            "replay['slip_predicted'] = params.law([1, 2, 3, 4, 5]).slip\n"
            "print(params)\n"
            "replay.round(3)"
        ),
        new_code_cell(
            "corrected = ppv_correction(log, k=5, calibration_fraction=0.2, random_seed=6)\n"
            "print(f'reported {corrected.reported:.3f}, PPV {corrected.ppv:.3f}, corrected '\n"
            "      f'{corrected.corrected.estimate:.3f}, truly delivered '\n"
            "      f'{replay.delivered.iloc[-1]:.3f}')\n"
            "transfer_check(replay_loop(log, caps=[5]).reported[0], corrected.reported)"
        ),
    ]
