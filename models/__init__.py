"""PyMC generative models of bayesjudge, one module per model family.

Installed as ``bayesjudge.models``; import from there, e.g.
``from bayesjudge.models import prevalence``.
"""
