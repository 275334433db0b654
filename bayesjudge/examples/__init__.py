"""Example datasets shipped with bayesjudge, one per model family, for trying every command."""

from __future__ import annotations

from importlib import resources
from typing import Literal

import pandas as pd

__all__ = ["EXAMPLES", "example_path", "load_example"]

Example = Literal["judge"]

#: The bundled examples and their files.
EXAMPLES: dict[str, str] = {"judge": "judge_example.csv"}


def example_path(name: Example = "judge") -> str:
    """Return the name under which an example is shown (e.g. in reports): ``example:NAME``."""
    if name not in EXAMPLES:
        raise ValueError(f"name must be one of {sorted(EXAMPLES)}; got {name!r}")
    return f"example:{name}"


def load_example(name: Example = "judge") -> pd.DataFrame:
    """Return a bundled example table.

    Parameters
    ----------
    name : {"judge"}
        ``"judge"``: 150 gold-PASS and 150 gold-FAIL calibration items and 2,000 unlabelled test
        items judged by a simulated judge with sensitivity 0.90 and specificity 0.85 (the judge
        of the worked example in the article "Bias-correct your LLM-as-a-judge eval before
        reporting it"), true success rate 0.70 on the test items (simulated with
        ``bayesjudge.prevalence.simulate.judge_table(..., random_seed=2002)``).

    Examples
    --------
    >>> load_example("judge").columns.tolist()
    ['label', 'verdict']
    """
    if name not in EXAMPLES:
        raise ValueError(f"name must be one of {sorted(EXAMPLES)}; got {name!r}")
    with resources.files(__name__).joinpath(EXAMPLES[name]).open("r") as handle:
        return pd.read_csv(handle)
