"""Docstring text written once and filled in where a docstring names it (``%(name)s`` lines).

The pattern of matplotlib's ``_docstring.interpd`` and pandas' ``@doc``; only whole lines that
name a part are replaced, so braces and percent signs in formulas are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

__all__ = ["SAMPLER_PARAMETERS", "fill_doc"]

#: The numpydoc entries of the sampler keywords that every fit function takes, in the order of
#: their signatures; a fit function's docstring names them with a ``%(sampler_parameters)s``
#: line. A fit module's ``TARGET_ACCEPT`` documents its model's default target acceptance.
SAMPLER_PARAMETERS = """draws : int or "auto"
    Posterior draws per chain (default as in the signature). ``"auto"`` samples until the
    diagnostics' targets hold, looking every :data:`~bayesjudge.inference.defaults.AUTO_CHECKPOINT`
    draws per chain up to :data:`~bayesjudge.inference.defaults.AUTO_MAX_DRAWS`
    (:class:`bayesjudge.inference.fit.StoppingRule`); the rule is recorded in the posterior's
    attrs.
tune, chains : int
    Tuning steps per chain and chains (defaults as in the signature).
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
    r"""Return a decorator that replaces each ``%(name)s`` line of a docstring by ``parts[name]``.

    The part's lines take the placeholder line's indentation. A docstring with no line naming
    one of ``parts`` raises ``ValueError`` (a misspelt placeholder would drop the text).

    Examples
    --------
    >>> @fill_doc(seed="random_seed : int\n    Seed.")
    ... def f(random_seed: int) -> None:
    ...     '''Do nothing.
    ...
    ...     %(seed)s
    ...     '''
    >>> f.__doc__.splitlines()[2:4]
    ['    random_seed : int', '        Seed.']
    """

    def decorate(func: F) -> F:
        doc = func.__doc__ or ""
        for name, text in parts.items():
            pattern = re.compile(rf"^([ \t]*)%\({re.escape(name)}\)s[ \t]*$", re.MULTILINE)
            doc, count = pattern.subn(partial(_indent, text), doc)
            if count == 0:
                raise ValueError(f"the docstring of {func!r} has no line '%({name})s' to fill")
        func.__doc__ = doc
        return func

    return decorate


def _indent(text: str, match: re.Match[str]) -> str:
    return "\n".join(match[1] + line if line else line for line in text.splitlines())
