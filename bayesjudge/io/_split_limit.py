"""The most groups ``--by`` splits a table into, in a module that imports nothing.

The command line's parser names this limit in ``--by``'s help, and every command builds the
parser (``--help`` and usage errors included); reading it from :mod:`bayesjudge.io.split`
would load pandas and the table readers for a number. :mod:`bayesjudge.io.split` exports it
as :data:`bayesjudge.io.split.MAX_GROUPS`.
"""

#: Most groups one table is split into: each group is a separate analysis (a separate fit).
MAX_GROUPS = 50
