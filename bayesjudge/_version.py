"""The package's version, and the installed versions of the distributions it records."""

from functools import cache

__version__ = "0.1.0"


@cache
def installed_version(distribution: str) -> str | None:
    """Return the installed version of ``distribution``, or None when it is not installed.

    Read from the distribution's metadata (nothing is imported) once per process: a lookup
    scans every folder of ``sys.path``, and provenance, the compile cache's fingerprint and
    the report footer each ask for the same few names.

    Examples
    --------
    >>> installed_version("numpy") is not None
    True
    >>> installed_version("no-such-distribution") is None
    True
    """
    from importlib import metadata  # imported here: `import bayesjudge` stays light

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None
