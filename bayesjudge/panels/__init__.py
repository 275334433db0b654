"""Judge panels: several LLM judges on the same items, with correlated errors.

Model family 5 of bayesjudge. :mod:`~bayesjudge.panels.data` holds the data contract and its
reduction to verdict patterns; :mod:`~bayesjudge.panels.dependence` the latent-class model's
closed forms (pattern probabilities, error correlations, the effective number of judges);
:mod:`~bayesjudge.panels.rules` the vote rules; :mod:`~bayesjudge.panels.baselines` the
frequentist and unsupervised baselines; :mod:`~bayesjudge.panels.simulate` the simulators. The
PyMC model is :mod:`bayesjudge.models.panel`.
"""

from bayesjudge.panels.data import PanelData, PanelPatterns

__all__ = ["PanelData", "PanelPatterns"]
