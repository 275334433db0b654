"""Run the command line as ``python -m bayesjudge``; :func:`main` is also the ``bayesjudge`` script.

The command line imports its parser and the modules that declare its options (about a tenth
of a second; NumPy, SciPy and pandas wait for the command that needs them) before its own
Ctrl-C handling (:func:`bayesjudge.cli.app.main`) is in place. :func:`main` ends a
Ctrl-C during those imports as it ends one during a command: one line on stderr and exit code
130, never a traceback. Nothing but ``sys`` is imported before its ``try``.
"""

import sys

__all__ = ["main"]


def main() -> int:
    """Import and run the command line on ``sys.argv``; return its exit code (130 on Ctrl-C)."""
    try:
        from bayesjudge._interrupt import catching_ctrl_c  # the standard library only

        # a Ctrl-C that lands in a callback of the import machinery (a module lock's weakref
        # callback) cannot propagate there: it is recorded and raised when the imports end
        with catching_ctrl_c():
            from bayesjudge.cli.app import main as run_command

        return run_command()
    except KeyboardInterrupt:  # while importing, or outside the command's own handling
        from bayesjudge._interrupt import interrupted_exit  # the standard library only

        return interrupted_exit()


if __name__ == "__main__":
    sys.exit(main())
