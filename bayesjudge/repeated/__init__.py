"""Model family 6: repeated samples, several judged answers per item (epochs, repeats).

Where to find each piece:

* :mod:`~bayesjudge.repeated.data`: :class:`RepeatedData` (the contract and its counts per
  item);
* :mod:`~bayesjudge.repeated.fit`: :func:`fit_repeated` and its posterior predictive check (the
  PyMC model is :mod:`bayesjudge.models.repeated`);
* :mod:`~bayesjudge.repeated.analysis`: :func:`analyze_repeated`, the family's whole answer;
* :mod:`~bayesjudge.repeated.report`, :mod:`~bayesjudge.repeated.cli`: its rendering;
* :mod:`~bayesjudge.repeated.simulate`: seeded simulators.
"""

from bayesjudge._lazy import by_module, lazy_exports

#: Public names of the family by module, each loaded from its module on first access.
_NAMES = by_module(
    {
        ".analysis": "DEFINITIONS RepeatedAnalysis analyze_repeated rows_counts",
        ".data": "GOLD_PER RepeatedData",
        ".fit": "REPORTED fit_repeated pass_histogram_check",
        ".priors": "RepeatedPriors",
        ".simulate": "RepeatedTruth SimulatedRepeated simulate_repeated",
    }
)

__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
