"""NIST trec_eval 10.0 and 9.0.8 built from ../shared/tools (unmodified sources) into a scratch folder, once per
test session: stock (``%6.4f``) and full precision (``%.17g``, as tools/README says). Tests skip with the reason
when there is no C compiler or no sources."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

TOOLS = Path(os.environ.get("EVALKIT_TOOLS", Path(__file__).resolve().parents[2] / "shared" / "tools"))
VERSIONS = {"10.0": "trec_eval-10.0", "9.0.8": "trec_eval-9.0.8"}
_BUILT: dict[tuple[str, bool], Path] = {}


def source(version: str) -> Path:
    return TOOLS / VERSIONS[version]


def build(version: str, scratch: Path, full_precision: bool = False) -> Path:
    """The path of a trec_eval binary built in ``scratch`` (skips the test when it cannot be built)."""
    key = (version, full_precision)
    if key in _BUILT:
        return _BUILT[key]
    src = source(version)
    if not (src / "trec_eval.c").is_file():
        pytest.skip(f"trec_eval {version} sources not found at {src} (set EVALKIT_TOOLS)")
    compiler = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if compiler is None or shutil.which("make") is None:
        pytest.skip("no C compiler or make: cannot build trec_eval")
    where = scratch / f"{version}{'-full' if full_precision else ''}"
    shutil.copytree(src, where, ignore=shutil.ignore_patterns("*.o", "trec_eval"))
    if full_precision:
        for name in ("meas_print_single.c", "meas_print_final.c"):
            path = where / name
            path.write_text(path.read_text().replace("%6.4f", "%.17g"))
    done = subprocess.run(["make", "-C", str(where)], capture_output=True, text=True)
    binary = where / "trec_eval"
    if done.returncode != 0 or not binary.is_file():
        pytest.skip(f"building trec_eval {version} failed: {done.stderr[-500:]}")
    _BUILT[key] = binary
    return binary


def run(binary: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(binary), *map(str, args)], capture_output=True, input=stdin)
