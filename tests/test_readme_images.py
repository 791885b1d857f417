"""The README's pictures are current: regenerating them changes nothing."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_pictures_are_current(tmp_path, monkeypatch):
    monkeypatch.delenv("AUTOGRADVIZ_RENDERER", raising=False)
    spec = importlib.util.spec_from_file_location(
        "make_readme_images", ROOT / "scripts" / "make_readme_images.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(tmp_path)
    for name in module.PICTURES:
        fresh = (tmp_path / name).read_text(encoding="utf-8")
        committed = (ROOT / "docs" / "images" / name).read_text(encoding="utf-8")
        assert fresh == committed, f"docs/images/{name} is stale: run scripts/make_readme_images.py"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/images/graph.svg" in readme and "docs/images/stepper_frame.svg" in readme
