"""Posteriors on disk: written atomically, readable by xarray, following the umask."""

from __future__ import annotations

import doctest
import errno
import os
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from bayesjudge.reporting import netcdf
from bayesjudge.reporting.netcdf import write_netcdf, write_posterior


def _tree(value: float) -> xr.DataTree:
    posterior = xr.Dataset({"pi": (("chain", "draw"), np.full((2, 3), value))})
    tree = xr.DataTree.from_dict({"posterior": posterior})
    tree.attrs = {"priors": {"pi": "jeffreys"}, "passed": True}
    return tree


def test_writes_a_readable_file_that_follows_the_umask(tmp_path: Path) -> None:
    previous = os.umask(0o027)
    try:
        written = write_posterior(_tree(0.25), tmp_path / "new" / "posterior.nc")
    finally:
        os.umask(previous)
    assert written == tmp_path / "new" / "posterior.nc"
    assert written.stat().st_mode & 0o777 == 0o640
    tree = xr.open_datatree(written, engine="h5netcdf")
    assert float(tree["posterior"]["pi"].mean()) == 0.25
    assert tree.attrs["passed"] == 1
    assert sorted(os.listdir(written.parent)) == ["posterior.nc"]


def test_a_failed_write_leaves_the_previous_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = write_posterior(_tree(0.25), tmp_path / "posterior.nc")
    before = target.read_bytes()

    def full(self: Path, data: object) -> int:
        with open(self, "wb") as stream:
            stream.write(b"half")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))

    monkeypatch.setattr(Path, "write_bytes", full)
    with pytest.raises(OSError, match="No space left on device") as info:
        write_posterior(_tree(0.75), target)
    assert info.value.filename == os.fspath(target)  # the file, not a hidden temporary
    assert target.read_bytes() == before
    assert os.listdir(tmp_path) == ["posterior.nc"]


def test_a_study_dataset_round_trips(tmp_path: Path) -> None:
    data = xr.Dataset({"estimate": (("replicate", "estimator"), np.arange(6.0).reshape(3, 2))})
    written = write_netcdf(data, tmp_path / "chunk.nc")
    with xr.open_dataset(written, engine="h5netcdf") as back:
        xr.testing.assert_identical(back.load(), data)


def test_docstring_examples_run() -> None:
    result = doctest.testmod(netcdf)
    assert result.attempted >= 2
    assert result.failed == 0
