"""Docstring text shared by several functions, written once and filled in where it is named.

The pattern of matplotlib's ``_docstring.interpd`` and pandas' ``@doc``: a docstring names a
shared part on a line of its own, ``%(name)s``, and :func:`fill_doc` replaces that line with
the part's text, indented as the line was. Only whole lines that name a given part are
replaced, so braces and percent signs elsewhere in a docstring (formulas) are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

__all__ = ["SAMPLER_PARAMETERS", "fill_doc"]

#: The numpydoc entries of the sampler keywords that every fit function takes, in the order of
#: their signatures; a fit function's docstring names them with a ``%(sampler_parameters)s``
#: line. A fit module's ``TARGET_ACCEPT`` documents its model's default target acceptance.
SAMPLER_PARAMETERS = """draws, tune, chains : int
    Posterior draws per chain, tuning steps per chain and chains (defaults as in the signature).
target_accept : float, optional
    NUTS target acceptance rate in (0, 1); by default the model's :data:`TARGET_ACCEPT`.
random_seed : int, Generator or None
    Seed of the sampler and of every random draw; the same integer seed gives identical draws.
    None uses the default seed (:data:`bayesjudge.validation.DEFAULT_SEED`).
progressbar : bool, optional
    Show the sampler's progress bar; by default only when stderr is a terminal.
sampler : {"auto", "nutpie", "pymc"}, default "auto"
    ``"auto"`` uses nutpie when it is installed and PyMC's NUTS otherwise; the sampler used,
    and why, is recorded in ``attrs["sampler"]`` and ``attrs["sampler_note"]``.
escalate : bool, default True
    Retry once when a sampler check fails: with smaller steps, longer tuning and more draws
    after divergent transitions, otherwise with more draws at the same step-size target
    (:func:`bayesjudge.inference.fit.retry_settings`).
prob : float, default 0.95
    Mass of the intervals whose bounds' Monte Carlo error is checked (and of any interval
    the function reports)."""


def fill_doc[F: Callable[..., object]](**parts: str) -> Callable[[F], F]:
    r"""Return a decorator that fills each ``%(name)s`` line of a docstring with ``parts[name]``.

    Parameters
    ----------
    **parts : str
        The shared texts by name, unindented (their lines take the placeholder's indentation).

    Returns
    -------
    callable
        The decorator; it returns the function itself, with its ``__doc__`` filled in.

    Raises
    ------
    ValueError
        If the docstring has no line naming one of ``parts`` (a misspelt placeholder would
        otherwise leave the text out silently).

    Examples
    --------
    >>> @fill_doc(seed="random_seed : int\n    Seed.")
    ... def f(random_seed: int) -> None:
    ...     '''Do nothing.
    ...
    ...     Parameters
    ...     ----------
    ...     %(seed)s
    ...     '''
    >>> print(f.__doc__.splitlines()[4:6])
    ['    random_seed : int', '        Seed.']
    """

    def decorate(func: F) -> F:
        doc = func.__doc__ or ""
        for name, text in parts.items():
            pattern = re.compile(rf"^([ \t]*)%\({re.escape(name)}\)s[ \t]*$", re.MULTILINE)
            doc, count = pattern.subn(partial(_indent, text), doc)
            if count == 0:
                raise ValueError(
                    f"the docstring of {getattr(func, '__qualname__', func)!r} has no line "
                    f"'%({name})s' to fill"
                )
        func.__doc__ = doc
        return func

    return decorate


def _indent(text: str, match: re.Match[str]) -> str:
    """Return ``text`` with each line indented as the placeholder line ``match``."""
    return "\n".join(match[1] + line if line else line for line in text.splitlines())
