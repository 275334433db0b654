"""Reporting helpers shared by every family.

HTML and Markdown pieces (:mod:`~bayesjudge.reporting.html`), posteriors on disk
(:mod:`~bayesjudge.reporting.netcdf`) and output folders written safely.
"""
