"""The examples in the panel modules' docstrings run and give what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "bayesjudge.panels.data",
    "bayesjudge.panels.dependence",
    "bayesjudge.panels.rules",
    "bayesjudge.panels.baselines",
    "bayesjudge.panels.simulate",
    "bayesjudge.panels.quantities",
    "bayesjudge.panels.start",
    "bayesjudge.panels.fit",
    "bayesjudge.panels.analysis",
    "bayesjudge.panels.report",
    "bayesjudge.models.panel",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0
