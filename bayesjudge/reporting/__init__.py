"""Reporting helpers shared by every family.

HTML and Markdown pieces (:mod:`~bayesjudge.reporting.html`), posteriors on disk
(:mod:`~bayesjudge.reporting.netcdf`) and output folders and files that are written safely
(:mod:`~bayesjudge.reporting.output`: a folder the tool did not write is never replaced, a
crash never leaves half a report, files follow the umask).
"""
