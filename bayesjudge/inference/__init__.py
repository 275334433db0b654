"""The inference core shared by every model family.

* :mod:`~bayesjudge.inference.cache`: the one cache of built and compiled models;
* :mod:`~bayesjudge.inference.sampling`: the sampler call (nutpie, or PyMC's NUTS), the seed
  rule, and the raw-draws path for studies;
* :mod:`~bayesjudge.inference.fit`: :func:`~bayesjudge.inference.fit.fit_model`, the one
  fitting path (sample, complete, check, escalate once, record);
* :mod:`~bayesjudge.inference.diagnostics`: :func:`~bayesjudge.inference.diagnostics.check_fit`
  and its batched twin for studies;
* :mod:`~bayesjudge.inference.affine`: a model rebuilt in coordinates whitened at its mode;
* :mod:`~bayesjudge.inference.predictive`: posterior predictive draws of counts;
* :mod:`~bayesjudge.inference.provenance`: versions, seed and command recorded with results;
* :mod:`~bayesjudge.inference.summary`: posterior summaries.

Nothing here imports a model family; PyMC and nutpie are imported only when a model is fitted.
"""
