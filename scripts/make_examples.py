"""Write the bundled example datasets of bayesjudge/examples/ (seeded; rerun to reproduce them).

Usage: python scripts/make_examples.py

* ``gate_example.csv``: a retry gate shaped like the HaluEval / Gemini-Flash row of Table 4 of
  *Below the Reliability Floor* (Se(1) 0.844, leak 0.431): 1,000 items ruled 6 times, a true
  success rate of 0.6, and a gold set drawn by class (80 compliant, 80 violating items).
* ``channel_example.csv``: a two-step pipeline (revise, then verify) scored before and after
  each step (``e0``, ``e1``, ``e2``) on 1,200 items in three difficulty slices; the second step
  corrects less and corrupts more on hard items.
* ``panel_example.csv``: four judges on 1,700 items in wide form (``item``, ``label``, one
  verdict column per judge), 200 of them a random gold sample, true success rate 0.70; judge
  ``a_copy`` is a near-copy of ``a`` (latent error correlation 0.90) and judge ``b`` left 5 % of
  its verdicts blank.

* ``systems_example.csv``: three systems answer the same 400 prompts and one judge grades every
  answer; 120 prompts carry gold labels for all three. The judge is kinder to ``assistant-c``
  (specificity 0.60 against 0.85: it passes more of its wrong answers, as a judge from the same
  model family might), so the raw pass rates rank ``assistant-c`` first while its true success
  rate (0.66) is below ``assistant-b``'s (0.70); ``assistant-a`` is at 0.62.

* ``repeated_example.csv``: 200 items answered 5 times each (``item``, ``epoch``, ``verdict``,
  ``label``, ``cluster``), items spread over 20 tasks, difficulty spread sigma 2.0 and task
  spread tau 0.5 on the logit scale around a median rate of 0.6; judge Se 0.90, Sp 0.85; 200 of
  the 1,000 answers gold-labelled at random.

The judge example (``judge_example.csv``) is ``judge_table(pi=0.7, se=0.9, sp=0.85, n=2000,
m1=150, m0=150, random_seed=2002)``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from bayesjudge.channels.simulate import simulate_stack
from bayesjudge.gates.simulate import TABLE4, rejudgment_gate, table4_gate
from bayesjudge.panels.simulate import panel_scenario, simulate_panel
from bayesjudge.repeated import simulate_repeated
from bayesjudge.systems import simulate_systems

HERE = Path(__file__).resolve().parent.parent / "bayesjudge" / "examples"


def gate_example() -> pd.DataFrame:
    """Return the gate example's rulings table (item, ruling, verdict, label)."""
    se1, leak, _ = TABLE4["HaluEval / Gemini-Flash"]
    gate = rejudgment_gate(
        *table4_gate(se1, leak),
        pi=0.6,
        n_items=1000,
        rulings=6,
        labelled_by_class=(80, 80),
        random_seed=2026,
    )
    return gate.table


def channel_example() -> pd.DataFrame:
    """Return the channel example's outcomes table (item, slice, e0, e1, e2)."""
    rng = np.random.default_rng(2027)
    settings = {
        "easy": (500, 0.85, [0.45, 0.30], [0.03, 0.02]),
        "medium": (450, 0.65, [0.35, 0.20], [0.06, 0.06]),
        "hard": (250, 0.40, [0.25, 0.10], [0.10, 0.15]),
    }
    frames = []
    for name, (n, p0, c, gamma) in settings.items():
        frame = simulate_stack(n, p0=p0, c=c, gamma=gamma, random_seed=rng)
        frame.insert(1, "slice", name)
        frames.append(frame)
    table = pd.concat(frames, ignore_index=True)
    table["item"] = [f"q{k:04d}" for k in range(len(table))]
    return table


def systems_example() -> pd.DataFrame:
    """Return the systems example's answers table (system, item, label, verdict)."""
    sim = simulate_systems(
        [0.62, 0.70, 0.66],
        n_unlabelled=280,
        n_labelled=120,
        se=0.90,
        sp=[0.85, 0.85, 0.60],
        systems=["assistant-a", "assistant-b", "assistant-c"],
        random_seed=2028,
    )
    table = sim.frame.copy()
    table["item"] = [f"p{int(str(i).lstrip('q')):03d}" for i in table["item"]]
    return table


def panel_example() -> pd.DataFrame:
    """Return the panel example's wide table (item, label, a, a_copy, b, c), rows shuffled."""
    sim = simulate_panel(
        pi=0.7,
        **panel_scenario(4),  # type: ignore[arg-type]
        n_unlabelled=1500,
        n_gold=200,
        missing=[0.0, 0.0, 0.05, 0.0],
        random_seed=2005,
    )
    wide = sim.data.to_wide()
    table = wide.iloc[np.random.default_rng(2005).permutation(len(wide))].reset_index(drop=True)
    table["item"] = [f"q{k:04d}" for k in range(len(table))]
    return table


def repeated_example() -> pd.DataFrame:
    """Return the repeated-samples example (one row per answer), verdicts as PASS/FAIL."""
    sim = simulate_repeated(
        200,
        5,
        mean_logit=float(np.log(0.6 / 0.4)),
        sigma=2.0,
        n_clusters=20,
        tau=0.5,
        se=0.9,
        sp=0.85,
        gold_answers=200,
        random_seed=2006,
    )
    frame = sim.frame.drop(columns="truth")
    words = {1.0: "PASS", 0.0: "FAIL"}
    frame["verdict"] = frame["verdict"].map(words)
    frame["label"] = frame["label"].map(words)
    return frame[["item", "epoch", "verdict", "label", "cluster"]]


def main() -> None:
    """Write the examples next to the package's judge example."""
    gate_example().to_csv(HERE / "gate_example.csv", index=False)
    channel_example().to_csv(HERE / "channel_example.csv", index=False)
    systems_example().to_csv(HERE / "systems_example.csv", index=False)
    panel_example().to_csv(HERE / "panel_example.csv", index=False)
    repeated_example().to_csv(HERE / "repeated_example.csv", index=False)


if __name__ == "__main__":
    main()
