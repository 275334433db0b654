"""Exceptions and warnings raised by bayesjudge."""

from __future__ import annotations

__all__ = ["DataError", "FitWarning", "MissingDependencyError", "NotIdentifiableError"]


class DataError(ValueError):
    """Input data break a contract; the message names the argument or column and the row."""


class MissingDependencyError(ImportError):
    """An optional dependency is not installed; the message names it and how to install it.

    The command line reports it in one line with exit code 2, as it does bad input.
    """


class NotIdentifiableError(ValueError):
    """The judge is no better than chance on the calibration data, so the correction is undefined.

    The Rogan-Gladen map divides by Youden's J = q0 + q1 - 1; when the calibration estimate of J
    is zero or negative the judge carries no information about the true label (or inverts it),
    and no corrected estimate exists.

    Parameters
    ----------
    j : float
        The calibration estimate of Youden's J that triggered the error.
    method : str
        The estimator that could not be computed.
    """

    def __init__(self, j: float, method: str = "rogan_gladen") -> None:
        self.j = float(j)
        self.method = method
        super().__init__(
            f"{method}: the judge is no better than chance on the calibration data "
            f"(J={self.j:.4g} <= 0), so the true success rate is not identifiable"
        )


class FitWarning(UserWarning):
    """A posterior failed one or more of its convergence or predictive checks."""
