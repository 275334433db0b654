"""The shared docstring text: filled where named, refused where missing, true to signatures."""

from __future__ import annotations

import inspect
import re

import pytest

from bayesjudge._docstring import SAMPLER_PARAMETERS, fill_doc
from bayesjudge.batches.statespace import fit_drift
from bayesjudge.gates.fit import fit_gate
from bayesjudge.panels.fit import fit_panel
from bayesjudge.prevalence.fit import fit_prevalence
from bayesjudge.repeated.fit import fit_repeated
from bayesjudge.systems.fit import fit_systems
from bayesjudge.systems.repeated_analysis import fit_repeated_systems

FIT_FUNCTIONS = [
    fit_prevalence,
    fit_gate,
    fit_repeated,
    fit_drift,
    fit_repeated_systems,
    fit_panel,
    fit_systems,
]


def test_fill_doc_indents_the_part_as_its_line_and_leaves_formulas_alone():
    @fill_doc(part="a : int\n    First.\n\nb : int")
    def f() -> None:
        r"""Sum :math:`\{x_i\}` at 95 %.

        Parameters
        ----------
        %(part)s
        """

    lines = f.__doc__.splitlines()
    assert lines[0] == r"Sum :math:`\{x_i\}` at 95 %."
    assert lines[4:8] == ["        a : int", "            First.", "", "        b : int"]


def test_fill_doc_refuses_a_docstring_without_the_placeholder():
    with pytest.raises(ValueError, match=r"no line '%\(part\)s'"):

        @fill_doc(part="text")
        def f() -> None:
            """Name %(part)s only inside a sentence."""


@pytest.mark.parametrize("func", FIT_FUNCTIONS, ids=lambda f: f.__name__)
def test_each_fit_function_documents_its_sampler_keywords_in_signature_order(func):
    doc = inspect.getdoc(func)
    assert "%(" not in doc
    parameters = list(inspect.signature(func).parameters)
    entries = re.findall(r"^(\w[\w, ]*) :", SAMPLER_PARAMETERS, flags=re.MULTILINE)
    documented = [name for entry in entries for name in entry.split(", ")]
    assert documented == [name for name in parameters if name in documented]
    for entry in entries:
        assert f"\n{entry} :" in doc, entry
    defaults = {name: inspect.signature(func).parameters[name].default for name in documented}
    assert (defaults["sampler"], defaults["escalate"], defaults["prob"]) == ("auto", True, 0.95)
    assert defaults["target_accept"] is None
    assert hasattr(inspect.getmodule(func), "TARGET_ACCEPT")  # what the entry names
