"""Deferred imports: a dependency's unused heavy import costs nothing until it is used."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from bayesjudge._lazy import deferring


def test_a_deferred_module_is_imported_at_its_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    with deferring("colorsys"):
        import colorsys as stand_in

        assert "colorsys" in sys.modules  # the stand-in, not yet the module
        with pytest.raises(AttributeError, match="colorsys is deferred"):
            stand_in.rgb_to_hsv  # noqa: B018
    assert "colorsys" not in sys.modules  # after the block, `import colorsys` is ordinary
    assert stand_in.rgb_to_hsv(1.0, 0.0, 0.0) == (0.0, 1.0, 1.0)  # the first use imports it
    assert "colorsys" in sys.modules
    assert stand_in.rgb_to_hsv is sys.modules["colorsys"].rgb_to_hsv


def test_an_imported_module_is_left_as_it_is() -> None:
    import json as before

    with deferring("json"):
        import json as inside
    assert inside is before is sys.modules["json"]


def test_the_sampling_stack_starts_without_arviz() -> None:
    # nutpie imports ArviZ (and matplotlib) for its own trace conversion, which bayesjudge
    # does not use: a command that samples must not pay for them, and nutpie's conversion
    # must still work when it is called
    script = textwrap.dedent(
        """
        import json, sys
        import numpy as np
        import bayesjudge.inference.compile
        nutpie_sample = sys.modules["nutpie.sample"]  # the module (nutpie.sample is a function)
        loaded = [m for m in ("arviz", "matplotlib") if m in sys.modules]
        tree = nutpie_sample.arviz.from_dict({"posterior": {"x": np.zeros((1, 5))}})
        print(json.dumps({"before": loaded, "after": "arviz" in sys.modules,
                          "draws": int(tree.posterior.sizes["draw"])}))
        """
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result == {"before": [], "after": True, "draws": 5}
