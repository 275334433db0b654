"""The ``bayesjudge`` command line.

:mod:`bayesjudge.cli.common` holds the plumbing every family's commands use (argument types,
shared options, JSON and table output, exit codes); :mod:`bayesjudge.cli.app` assembles the
parser from each family's ``cli`` module and runs it. This package imports nothing at import
time, so a family's command module can import :mod:`bayesjudge.cli.common` without a cycle.
"""
