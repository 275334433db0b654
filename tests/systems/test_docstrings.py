"""The examples in the systems modules' docstrings run and give what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "bayesjudge.systems.data",
    "bayesjudge.systems.irt",
    "bayesjudge.systems.simulate",
    "bayesjudge.systems.exact",
    "bayesjudge.systems.rank",
    "bayesjudge.systems.baselines",
    "bayesjudge.systems.fit",
    "bayesjudge.systems.predictive",
    "bayesjudge.systems.analysis",
    "bayesjudge.models.systems",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0
