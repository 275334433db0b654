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

from bayesjudge._lazy import lazy_exports

#: Public names of the family, each loaded from its module on first access.
_NAMES = {
    "GOLD_PER": ".data",
    "DEFINITIONS": ".analysis",
    "REPORTED": ".fit",
    "RepeatedAnalysis": ".analysis",
    "analyze_repeated": ".analysis",
    "rows_counts": ".analysis",
    "RepeatedData": ".data",
    "RepeatedPriors": ".priors",
    "RepeatedTruth": ".simulate",
    "SimulatedRepeated": ".simulate",
    "fit_repeated": ".fit",
    "pass_histogram_check": ".fit",
    "simulate_repeated": ".simulate",
}

__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
