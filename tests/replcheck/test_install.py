"""A clean install: the project's own metadata (``pyproject.toml``) gives setuptools nothing to
warn about. The slow test installs the project's skeleton (its ``pyproject.toml``, its README and
an empty module per listed package) into a fresh venv with ``pip install -v --no-deps -e``, so
the build backend is the one a fresh ``pip install -e .`` gets, and reads its output for a
deprecation warning."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_metadata_is_in_the_current_form() -> None:
    """What setuptools deprecated: ``project.license`` as a table (``{text = ...}``) and license
    classifiers beside an SPDX expression; a setuptools that reads the SPDX form is required."""
    project = PYPROJECT["project"]
    assert isinstance(project["license"], str), "an SPDX expression, not a table"
    assert not any(c.startswith("License ::") for c in project.get("classifiers", []))
    requires = PYPROJECT["build-system"]["requires"]
    assert any(r.replace(" ", "").startswith("setuptools>=77") for r in requires), requires


def _skeleton(dest: Path) -> None:
    """The project as setuptools sees it, with no code: every listed package an empty module."""
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")
    shutil.copy(ROOT / "README.md", dest / "README.md")
    tool = PYPROJECT["tool"]["setuptools"]
    dirs = tool["package-dir"]
    for package in tool["packages"]:
        top, _, rest = package.partition(".")
        parts = package.split(".")
        base = None
        for n in range(len(parts), 0, -1):
            if ".".join(parts[:n]) in dirs:
                base = Path(dirs[".".join(parts[:n])]).joinpath(*parts[n:])
                break
        folder = dest / (base if base is not None else Path(top, *rest.split(".")))
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "__init__.py").touch()
    for package, files in tool.get("package-data", {}).items():
        folder = dest / dirs.get(package, package.replace(".", "/"))
        for name in files:
            (folder / name).touch()


@pytest.mark.slow
def test_a_fresh_editable_install_prints_no_warning_from_our_metadata(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    _skeleton(project)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    proc = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-v", "--no-deps", "-e", str(project)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0 and "Could not find a version" in proc.stdout + proc.stderr:
        pytest.skip("no setuptools>=77 to build with (offline, no local wheel)")
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = proc.stdout + proc.stderr
    warnings = [line for line in text.splitlines() if "Deprecat" in line or "deprecated" in line]
    assert warnings == [], "\n".join(warnings)
