"""irlite.compare and `python3 -m irlite.compare`: a model against itself, against a copy whose
weights differ in one layer, against itself run another way, the report's fields, and the plot
(skipped without matplotlib)."""
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import irlite

SOURCE = pathlib.Path(os.environ.get("IRLITE_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
SHARED = pathlib.Path(os.environ.get("IRLITE_SHARED_DIR", SOURCE.parent / "shared"))


def write_mlp(directory, stem, changed=False):
    """x[2,8] -> mm1 (MatMul) -> add1 -> relu1 -> mm2 (MatMul) -> add2 -> Result; `changed`: mm2's
    weights differ. Every port has a tensor name ("mm1:0")."""
    rng = np.random.default_rng(7)
    consts = {"W1": rng.uniform(-1, 1, (8, 16)), "b1": rng.uniform(-1, 1, 16),
              "W2": rng.uniform(-1, 1, (16, 4)), "b2": rng.uniform(-1, 1, 4)}
    if changed:
        consts["W2"] = consts["W2"] * 3 + 0.5
    blob, layers, offset = b"", [], 0

    def port(pid, dims, name=""):
        names = f' names="{name}"' if name else ""
        return f'<port id="{pid}" precision="FP32"{names}>' + "".join(f"<dim>{d}</dim>" for d in dims) + "</port>"

    ids = {"x": 0, "W1": 1, "mm1": 2, "b1": 3, "add1": 4, "relu1": 5, "W2": 6, "mm2": 7, "b2": 8, "add2": 9, "out": 10}
    layers.append(f'<layer id="0" name="x" type="Parameter" version="opset1"><data shape="2,8" element_type="f32"/>'
                  f'<output>{port(0, [2, 8], "x")}</output></layer>')
    for name, value in consts.items():
        data = value.astype(np.float32).tobytes()
        shape = ",".join(map(str, value.shape))
        layers.append(f'<layer id="{ids[name]}" name="{name}" type="Const" version="opset1"><data element_type="f32" '
                      f'shape="{shape}" offset="{offset}" size="{len(data)}"/><output>{port(0, value.shape)}</output></layer>')
        blob += data
        offset += len(data)
    mm = 'transpose_a="false" transpose_b="false"'
    for name, kind, data, a, b, out in [("mm1", "MatMul", mm, [2, 8], [8, 16], [2, 16]),
                                        ("add1", "Add", "", [2, 16], [16], [2, 16]),
                                        ("mm2", "MatMul", mm, [2, 16], [16, 4], [2, 4]),
                                        ("add2", "Add", "", [2, 4], [4], [2, 4])]:
        layers.append(f'<layer id="{ids[name]}" name="{name}" type="{kind}" version="opset1">'
                      + (f"<data {data}/>" if data else "")
                      + f"<input>{port(0, a)}{port(1, b)}</input><output>{port(2, out, name + ':0')}</output></layer>")
    layers.append(f'<layer id="5" name="relu1" type="Relu" version="opset1"><input>{port(0, [2, 16])}</input>'
                  f'<output>{port(1, [2, 16], "relu1:0")}</output></layer>')
    layers.append(f'<layer id="10" name="out" type="Result" version="opset1"><input>{port(0, [2, 4])}</input></layer>')
    edges = [(0, 0, 2, 0), (1, 0, 2, 1), (2, 2, 4, 0), (3, 0, 4, 1), (4, 2, 5, 0), (5, 1, 7, 0), (6, 0, 7, 1),
             (7, 2, 9, 0), (8, 0, 9, 1), (9, 2, 10, 0)]
    xml = ('<?xml version="1.0"?>\n<net name="mlp" version="11"><layers>' + "".join(layers) + "</layers><edges>"
           + "".join(f'<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}"/>' for a, b, c, d in edges)
           + "</edges></net>\n")
    (directory / f"{stem}.xml").write_text(xml)
    (directory / f"{stem}.bin").write_bytes(blob)
    return directory / f"{stem}.xml"


X = {"x": np.linspace(-1, 1, 16, dtype=np.float32).reshape(2, 8)}


def test_a_model_against_itself(tmp_path):
    a = write_mlp(tmp_path, "a")
    report = irlite.compare(a, a, inputs=X)
    assert list(report) == ["a", "b", "vs", "inputs", "threshold", "atol", "tensors", "first_divergent",
                            "unmatched_a", "unmatched_b"]
    assert report["a"] == str(a) and report["vs"] is None and report["threshold"] == 0.999 and report["atol"] == 0
    assert report["inputs"] == [{"name": "x", "source": "array", "element_type": "f32", "shape": [2, 8]}]
    assert [t["name"] for t in report["tensors"]] == ["x", "mm1:0", "add1:0", "relu1:0", "mm2:0", "add2:0"]
    assert all(t["cosine"] == 1 and t["max_abs"] == 0 and not t["nonfinite_differs"] for t in report["tensors"])
    assert report["first_divergent"] is None
    assert report["unmatched_a"] == [] and report["unmatched_b"] == []


def test_names_the_layer_whose_weights_changed(tmp_path):
    a, b = write_mlp(tmp_path, "a"), write_mlp(tmp_path, "b", changed=True)
    report = irlite.compare(irlite.read_model(a), irlite.read_model(b))  # Models; inputs filled
    first = report["first_divergent"]
    assert first["layer_a"] == "mm2" and first["layer_b"] == "mm2" and first["index"] == 4
    assert first["cosine"] < 0.999
    assert report["inputs"][0]["source"] == "random fill, seed 0"
    fused = irlite.compare(a, b, inputs=X, fused=True)
    assert fused["first_divergent"]["layer_a"] == "mm2+add2"
    assert irlite.compare(a, b, inputs=X, threshold=-1)["first_divergent"] is None
    assert irlite.compare(a, b, inputs=X, atol=1e9)["first_divergent"] is None


def test_one_model_run_another_way(tmp_path):
    a = write_mlp(tmp_path, "a")
    for vs in ("no-fusion", "threads=2", "isa=sse"):
        report = irlite.compare(a, vs=vs, inputs=X)
        assert report["vs"] == vs and report["b"] == str(a)
        assert report["first_divergent"] is None, vs
    assert irlite.compare(a, vs="no-fusion")["unmatched_b"] == ["mm1", "add1", "mm2"]
    with pytest.raises(irlite.Error) as e:
        irlite.compare(a, vs="threads=0")
    assert e.value.code == "vs-invalid"
    with pytest.raises(ValueError):
        irlite.compare(a)
    with pytest.raises(irlite.Error) as e:
        irlite.compare(a, a, inputs={"y": X["x"]})
    assert e.value.code == "input-unknown"


def run_module(*args):
    return subprocess.run([sys.executable, "-m", "irlite.compare", *map(str, args)], capture_output=True, text=True,
                          env=os.environ)


def test_the_command_line(tmp_path):
    a, b = write_mlp(tmp_path, "a"), write_mlp(tmp_path, "b", changed=True)
    np.save(tmp_path / "x.npy", X["x"])
    r = run_module(a, a, "-i", f"x={tmp_path / 'x.npy'}")
    assert r.returncode == 0, r.stderr
    assert "no divergence: 6 tensors matched" in r.stdout
    r = run_module(a, b, "--json")
    assert r.returncode == 3, r.stderr
    assert json.loads(r.stdout)["first_divergent"]["layer_a"] == "mm2"
    assert run_module(a).returncode == 2


def test_the_plot(tmp_path):
    pytest.importorskip("matplotlib")
    a, b = write_mlp(tmp_path, "a"), write_mlp(tmp_path, "b", changed=True)
    r = run_module(a, b, "--plot", tmp_path / "divergence.png")
    assert r.returncode == 3, r.stderr
    assert "first divergent layer: 'mm2'" in r.stdout
    png = (tmp_path / "divergence.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 5000


@pytest.mark.skipif(not (SHARED / "models-int8").is_dir(), reason="../shared/models-int8 is not beside the clone")
def test_int8_against_fp32_like_the_cli(tmp_path):
    case, twin = SHARED / "models-int8" / "resnet18_int8", SHARED / "models-real" / "resnet18"
    x = {"input": np.load(case / "inputs" / "input.npy")}
    report = irlite.compare(case / "model.xml", twin / "model.xml", inputs=x)
    cli = os.environ.get("IRLITE_CLI", str(SOURCE / "build" / "tools" / "irlite"))
    r = subprocess.run([cli, "compare", case / "model.xml", twin / "model.xml", "-i",
                        f"input={case / 'inputs' / 'input.npy'}", "--json"], capture_output=True, text=True)
    assert r.returncode in (0, 3), r.stderr
    from_cli = json.loads(r.stdout)
    assert [t["name"] for t in report["tensors"]] == [t["name"] for t in from_cli["tensors"]]
    assert [t["cosine"] for t in report["tensors"]] == pytest.approx([t["cosine"] for t in from_cli["tensors"]])
    assert report["first_divergent"] == from_cli["first_divergent"] or \
        report["first_divergent"]["layer_a"] == from_cli["first_divergent"]["layer_a"]
