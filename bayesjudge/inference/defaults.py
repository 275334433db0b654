"""The sampler defaults of every model, each written once.

A family's fit function, its analysis and its command's help all take their defaults from
here. The module imports nothing, so that ``bayesjudge COMMAND --help`` shows them without
importing PyMC or a model. The draws, tuning steps and chains every command shares are
:class:`bayesjudge.cli.options.SamplerOptions`'s; the seed is
:data:`bayesjudge.validation.DEFAULT_SEED`.

Examples
--------
>>> from bayesjudge.inference import defaults
>>> defaults.GATE_TARGET_ACCEPT
0.9
"""

from __future__ import annotations

__all__ = [
    "AUTO_CHECKPOINT",
    "AUTO_MAX_DRAWS",
    "BATCHES_TARGET_ACCEPT",
    "CHANNEL_DRAWS",
    "CHANNEL_TARGET_ACCEPT",
    "GATE_TARGET_ACCEPT",
    "PANEL_INDEPENDENCE",
    "PANEL_TARGET_ACCEPT",
    "PREVALENCE_TARGET_ACCEPT",
    "REPEATED_TARGET_ACCEPT",
    "SYSTEMS_TARGET_ACCEPT",
]

#: ``draws="auto"`` (``--draws auto``): draws per chain between two looks at the diagnostics'
#: targets (:func:`bayesjudge.inference.sampling.sample_nuts_until`) ...
AUTO_CHECKPOINT = 250
#: ... and the most draws per chain it makes (the fixed default's: a fit that has not met the
#: targets by then is the default fit, checked and retried as one).
AUTO_MAX_DRAWS = 2000
#: NUTS target acceptance of the prevalence model: 0.95, and 0.99 in the funnel of the
#: stratified hierarchy (keyed by whether the fit is stratified).
PREVALENCE_TARGET_ACCEPT: dict[bool, float] = {False: 0.95, True: 0.99}
#: NUTS target acceptance of the retry-gate hierarchy.
GATE_TARGET_ACCEPT = 0.9
#: NUTS target acceptance of every channel fit: at 0.8 the slice hierarchy of the bundled
#: example diverged 7 to 26 times in three seeds, at 0.95 at most 5 (then passed on retry).
CHANNEL_TARGET_ACCEPT = 0.95
#: Draws per chain of every channel fit (and ``draws * chains`` exact draws in
#: :func:`bayesjudge.channels.analysis.analyze_channel`).
CHANNEL_DRAWS = 1000
#: NUTS target acceptance of the systems models.
SYSTEMS_TARGET_ACCEPT = 0.95
#: NUTS target acceptance of the panel model.
PANEL_TARGET_ACCEPT = 0.9
#: NUTS target acceptance of the repeated-samples model (a non-centred item hierarchy).
REPEATED_TARGET_ACCEPT = 0.95
#: NUTS target acceptance of the state-space model across batches (random walks on the logit scale).
BATCHES_TARGET_ACCEPT = 0.95
#: Prior probability, per class, that a panel's judges are conditionally independent (the spike
#: of the loadings' spike-and-slab prior, ``dependence="random_effect"``).
PANEL_INDEPENDENCE = 0.5
