"""Packaging: ``models/`` ships as ``bayesjudge.models`` (never a bare ``models``), in the editable
install and in a wheel installed into a fresh virtual environment.

No network is used: the wheel is built with ``--no-isolation`` from a copy of the source tree
(so the repository gets no ``build/`` directory), installed with ``--no-deps``, and the fresh
environment sees the already-installed dependencies through a ``.pth`` file that names the
current interpreter's site-packages. A ``.pth`` line only adds a directory to ``sys.path``; the
``.pth`` files inside that directory (among them the editable install's finder) are not run, so
the fresh environment imports bayesjudge from the wheel alone - the tests check that.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from bayesjudge import models as bayesjudge_models

pytestmark = pytest.mark.packaging

REPO = Path(__file__).resolve().parents[1]
# Never copied into the build tree: caches, environments and build outputs.
IGNORED = shutil.ignore_patterns(
    ".git",
    ".venv",
    "__pycache__",
    "*.egg-info",
    "build",
    "dist",
    "_build",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".hypothesis",
    ".ipynb_checkpoints",
    "bayesjudge-report",
)


def clean_env() -> dict[str, str]:
    """Environment for child interpreters: no PYTHONPATH leaking the repository in."""
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTHONHOME"}}
    env["PYTHONNOUSERSITE"] = "1"
    return env


def run_python(python: Path | str, code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-c", code],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


# --------------------------------------------------------------------------- editable install
def test_editable_models_is_the_repository_models_package() -> None:
    assert Path(bayesjudge_models.__file__ or "").resolve() == REPO / "models" / "__init__.py"
    assert bayesjudge_models.__name__ == "bayesjudge.models"


def test_editable_install_has_no_top_level_models(tmp_path: Path) -> None:
    code = (
        "import importlib.util, bayesjudge.models, pathlib\n"
        "print(pathlib.Path(bayesjudge.models.__file__).resolve())\n"
        "assert importlib.util.find_spec('models') is None, importlib.util.find_spec('models')\n"
        "try:\n"
        "    import models\n"
        "except ModuleNotFoundError:\n"
        "    print('no-bare-models')\n"
        "else:\n"
        "    print('bare models imported from', models.__file__)\n"
    )
    result = run_python(sys.executable, code, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == str(REPO / "models" / "__init__.py")
    assert lines[1] == "no-bare-models"


# --------------------------------------------------------------------------- wheel
@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if importlib.util.find_spec("build") is None:
        pytest.skip("the 'build' package is not installed (pip install build)")
    root = tmp_path_factory.mktemp("packaging")
    source = root / "src"
    shutil.copytree(REPO, source, ignore=IGNORED)
    outdir = root / "dist"
    # --skip-dependency-check: without isolation the build uses the installed setuptools (which
    # builds wheels itself since 70.1) and must not fail on build requirements it cannot fetch.
    command = [
        sys.executable,
        "-m",
        "build",
        "--wheel",
        "--no-isolation",
        "--skip-dependency-check",
    ]
    result = subprocess.run(
        [*command, "--outdir", str(outdir)],
        cwd=source,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, f"wheel build failed:\n{result.stdout}\n{result.stderr}"
    wheels = sorted(outdir.glob("bayesjudge-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_wheel_contents(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        dist_info = next(n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info"))
        entry_points = archive.read(f"{dist_info}/entry_points.txt").decode()
    for required in (
        "bayesjudge/__init__.py",
        "bayesjudge/prevalence/data.py",
        "bayesjudge/inference/fit.py",
        "bayesjudge/io/tables.py",
        "bayesjudge/io/logs/__init__.py",
        "bayesjudge/py.typed",
        "bayesjudge/examples/judge_example.csv",
        "bayesjudge/models/__init__.py",
    ):
        assert required in names, f"{required} missing from {wheel.name}"
    top_level = {name.split("/")[0] for name in names}
    assert top_level == {"bayesjudge", dist_info}, top_level
    assert not any(name.startswith(("models/", "tests/", "docs/")) for name in names)
    assert "bayesjudge = bayesjudge.__main__:main" in entry_points
    # every subpackage of the source tree is in the wheel
    source = {
        str(p.parent.relative_to(REPO)).replace("models", "bayesjudge/models", 1)
        for p in (REPO / "bayesjudge").rglob("__init__.py")
    } | {"bayesjudge/models"}
    packaged = {name.rsplit("/", 1)[0] for name in names if name.endswith("__init__.py")}
    assert source <= packaged, source - packaged


def test_wheel_in_fresh_venv(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "fresh"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    python = venv / "bin" / "python"
    site_packages = Path(
        run_python(
            python, "import sysconfig; print(sysconfig.get_paths()['purelib'])", tmp_path
        ).stdout.strip()
    )
    assert site_packages.is_dir()
    install = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--no-index",
            "--no-build-isolation",
            "--disable-pip-version-check",
            str(wheel),
        ],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert install.returncode == 0, install.stderr
    # Dependencies (numpy, pandas, pymc, ...) come from the current environment.
    current = sysconfig.get_paths()["purelib"]
    (site_packages / "_deps_from_test_env.pth").write_text(current + "\n", encoding="utf-8")

    code = (
        "import importlib.util, pathlib\n"
        "import bayesjudge, bayesjudge.models\n"
        "print(pathlib.Path(bayesjudge.__file__).resolve())\n"
        "print(pathlib.Path(bayesjudge.models.__file__).resolve())\n"
        "frame = bayesjudge.load_example()\n"
        "data = bayesjudge.JudgeData.from_frame(frame)\n"
        "print(frame.shape[0], data.counts.n)\n"
        "print(importlib.util.find_spec('models'))\n"
        "try:\n"
        "    import models\n"
        "except ModuleNotFoundError:\n"
        "    print('no-bare-models')\n"
    )
    result = run_python(python, code, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    package_file, models_file, sizes, spec, bare = result.stdout.splitlines()
    fresh = site_packages.resolve()
    assert Path(package_file).is_relative_to(fresh), f"{package_file} not from the wheel"
    assert not Path(package_file).is_relative_to(REPO)
    assert Path(models_file) == fresh / "bayesjudge" / "models" / "__init__.py"
    assert sizes == "2300 2000"
    assert spec == "None"
    assert bare == "no-bare-models"
