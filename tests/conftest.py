"""Shared pytest configuration for the bayesjudge test suite.

Hypothesis profiles
-------------------
``ci`` (the default): deterministic (``derandomize=True``), no per-example deadline (the first call
of a numerical routine may compile or warm caches), and a modest number of examples so the
default run stays fast on a small machine. ``dev``: more examples, random, for local bug hunting.
Select one with the ``HYPOTHESIS_PROFILE`` environment variable, e.g.
``HYPOTHESIS_PROFILE=dev python -m pytest tests``.

The on-disk model cache
-----------------------
Tests leave the user's cache folder alone: ``BAYESJUDGE_CACHE_DIR`` is set to ``off`` for the
session (and the subprocesses it starts) unless it is already set, so every test compiles its
models as a fresh process without a cache would. The tests of the cache itself point it at
temporary folders.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    deadline=None,
    derandomize=True,
    max_examples=40,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=300, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config: object) -> None:
    os.environ.setdefault("BAYESJUDGE_CACHE_DIR", "off")
