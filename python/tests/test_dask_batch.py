"""examples/dask_batch.py on a LocalCluster of 2 worker processes on the loopback interface: every
output equals a single-process run's."""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import irlite

SOURCE = pathlib.Path(os.environ.get("IRLITE_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
DEMO = SOURCE / "models" / "demo" / "model.xml"

pytest.importorskip("dask.distributed", reason="python3-distributed is not installed")


def test_dask_batch_matches_a_single_process(tmp_path):
    rng = np.random.default_rng(0)
    samples = []
    for i in range(6):
        path = tmp_path / f"sample{i}.npy"
        np.save(path, rng.random((4, 6), dtype=np.float32))
        samples.append(str(path))
    out = tmp_path / "out"
    # As a user runs it: a script of its own, its worker processes finding irlite as it does.
    run = subprocess.run([sys.executable, str(SOURCE / "examples" / "dask_batch.py"), str(DEMO), str(out), *samples,
                          "--workers", "2"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "6 samples in" in run.stdout
    compiled = irlite.compile_model(DEMO)
    for s in samples:
        expected = compiled({"x": np.load(s)})
        for name, value in expected.items():
            safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in name)
            got = np.load(out / f"{pathlib.Path(s).stem}.{safe}.npy")
            assert got.tobytes() == value.tobytes() and got.shape == value.shape
