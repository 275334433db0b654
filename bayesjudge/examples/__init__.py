"""Example datasets shipped with bayesjudge, one per model family, for trying every command."""

from __future__ import annotations

from importlib import resources
from typing import Literal

import pandas as pd

__all__ = ["EXAMPLES", "example_file", "example_path", "load_example"]

Example = Literal["judge", "gate", "channel", "systems", "panel", "repeated"]

#: The bundled examples and their files (written by scripts/make_examples.py, seeded).
EXAMPLES: dict[str, str] = {
    "judge": "judge_example.csv",
    "gate": "gate_example.csv",
    "channel": "channel_example.csv",
    "systems": "systems_example.csv",
    "panel": "panel_example.csv",
    "repeated": "repeated_example.csv",
}


def example_path(name: Example = "judge") -> str:
    """Return the name under which an example is shown (e.g. in reports): ``example:NAME``."""
    if name not in EXAMPLES:
        raise ValueError(f"name must be one of {sorted(EXAMPLES)}; got {name!r}")
    return f"example:{name}"


def example_file(name: Example = "judge") -> str:
    """Return the path of a bundled example's CSV file (a real file in every install).

    Examples
    --------
    >>> example_file("gate").endswith("gate_example.csv")
    True
    """
    if name not in EXAMPLES:
        raise ValueError(f"name must be one of {sorted(EXAMPLES)}; got {name!r}")
    return str(resources.files(__name__).joinpath(EXAMPLES[name]))


def load_example(name: Example = "judge") -> pd.DataFrame:
    """Return a bundled example table.

    Parameters
    ----------
    name : {"judge", "gate", "channel", "systems", "panel", "repeated"}
        ``"judge"`` (columns ``label``, ``verdict``): 150 gold-PASS and 150 gold-FAIL calibration
        items and 2,000 unlabelled test items judged by a simulated judge with sensitivity 0.90
        and specificity 0.85 (the judge of the worked example of "Bias-correct your
        LLM-as-a-judge eval before reporting it", 2026), true success rate 0.70 on the test items.

        ``"gate"`` (``item``, ``ruling``, ``verdict``, ``label``): a retry gate shaped like the
        HaluEval / Gemini-Flash row of Table 4 of *Below the Reliability Floor*: 1,000 items
        ruled 6 times, true success rate 0.6, a gold set drawn by class (80 + 80 items).

        ``"channel"`` (``item``, ``slice``, ``e0``, ``e1``, ``e2``): a two-step pipeline scored
        before and after each step on 1,200 items in three difficulty slices.

        ``"systems"`` (``system``, ``item``, ``label``, ``verdict``): three systems answering the
        same 400 prompts, one judge, gold labels on 120 prompts for all three; the judge passes
        more wrong answers of ``assistant-c`` (specificity 0.60 against 0.85), whose true
        success rate 0.66 lies between ``assistant-a`` (0.62) and ``assistant-b`` (0.70).

        ``"panel"`` (``item``, ``label``, one verdict column per judge): four judges on 1,700
        items, 200 of them gold-labelled (a random sample), true success rate 0.70; judge
        ``a_copy`` is a near-copy of ``a`` (latent error correlation 0.90) and judge ``b`` left
        5 % of its verdicts blank.

        ``"repeated"`` (``item``, ``epoch``, ``verdict``, ``label``, ``cluster``): 200 items
        answered 5 times each, spread over 20 tasks; a large spread of difficulty (sigma 2.0
        on the logit scale), judge Se 0.90 and Sp 0.85, 200 answers gold-labelled at random.

        All six are simulated with fixed seeds by ``scripts/make_examples.py``.

    Examples
    --------
    >>> load_example("judge").columns.tolist()
    ['label', 'verdict']
    """
    if name not in EXAMPLES:
        raise ValueError(f"name must be one of {sorted(EXAMPLES)}; got {name!r}")
    with resources.files(__name__).joinpath(EXAMPLES[name]).open("r") as handle:
        if name == "judge":
            return pd.read_csv(handle)
        # item ids are text, as the input layer reads them
        return pd.read_csv(handle, dtype={"item": str, "slice": str, "system": str, "cluster": str})
