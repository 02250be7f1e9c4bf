"""The Python package against the library and the CLI: reading, compiling, running (sync, async,
queue), zero-copy input rules, errors, check, state, and results equal to the CLI's bit for bit on
../shared/models-real."""
import os
import pathlib
import subprocess
import tempfile

import numpy as np
import pytest

import irlite

SOURCE = pathlib.Path(os.environ.get("IRLITE_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
SHARED = pathlib.Path(os.environ.get("IRLITE_SHARED_DIR", SOURCE.parent / "shared"))
CLI = os.environ.get("IRLITE_CLI", str(SOURCE / "build" / "tools" / "irlite"))
DEMO = SOURCE / "models" / "demo" / "model.xml"
REAL = SHARED / "models-real"


def demo_inputs():
    return {p.stem: np.load(p) for p in sorted((DEMO.parent / "inputs").glob("*.npy"))}


def test_read_compile_infer_demo():
    model = irlite.read_model(DEMO)
    assert [p.name for p in model.inputs] == ["x"]
    assert "Slice-8" in model.ops()
    compiled = irlite.compile_model(model, threads=1)
    assert compiled.inputs[0].element_type == "f32"
    assert compiled.inputs[0].shape == [4, 6]
    assert compiled.inputs[0].dtype == np.float32
    outputs = compiled(demo_inputs())
    assert set(outputs) == {p.name for p in compiled.outputs}
    request = compiled.create_infer_request()
    again = request.infer(demo_inputs())
    for name, value in outputs.items():
        assert value.flags.owndata or value.base is not None
        assert np.array_equal(value, again[name])


def test_inputs_by_position_and_path():
    compiled = irlite.compile_model(str(DEMO))
    x = demo_inputs()["x"]
    assert all(np.array_equal(a, b) for a, b in zip(compiled([x]).values(), compiled({"x": x}).values()))


def test_no_silent_casts():
    compiled = irlite.compile_model(DEMO)
    x = demo_inputs()["x"]
    with pytest.raises(irlite.Error) as e:
        compiled({"x": x.astype(np.float64)})
    assert e.value.code == "input-type"
    assert "float64" in e.value.message
    with pytest.raises(irlite.Error) as e:
        compiled({"x": np.ones((6, 4), np.float32).T})  # the right shape, but Fortran order
    assert e.value.code == "input-layout"
    with pytest.raises(irlite.Error) as e:
        compiled({"nope": x})
    assert e.value.code == "input-unknown"


def test_errors_carry_the_location():
    with tempfile.TemporaryDirectory() as d:
        bad = pathlib.Path(d) / "bad.xml"
        bad.write_text(DEMO.read_text().replace('type="Slice"', 'type="Slise"'))
        with pytest.raises(irlite.Error) as e:
            irlite.compile_model(irlite.read_model(bad, weights=DEMO.with_suffix(".bin")))
        assert e.value.code == "unknown-op"
        assert e.value.line > 0 and e.value.layer_type == "Slise" and e.value.file.endswith("bad.xml")
        assert isinstance(e.value, RuntimeError)


def test_check_gives_the_json_fields():
    findings = irlite.check(SOURCE / "tests" / "data" / "check" / "many_faults.xml")
    assert len(findings) == 10
    dims = [f for f in findings if f.code == "dims-mismatch"][0]
    assert (dims.severity, dims.line, dims.layer_id, dims.layer_name, dims.layer_type, dims.port) == \
        ("error", 64, 8, "gather", "GatherElements", 2)
    assert dims.declared == "[3,5]"
    assert {f.severity for f in findings} == {"error", "warning"}
    assert irlite.check(DEMO) == []
    assert irlite.check(DEMO, no_weights=True) == []


def test_async_and_queue():
    compiled = irlite.compile_model(DEMO, threads=1)
    inputs = demo_inputs()
    expected = compiled(inputs)
    request = compiled.create_infer_request()
    request.start_async(inputs)
    request.wait()
    assert all(np.array_equal(request.results[k], v) for k, v in expected.items())
    queue = irlite.AsyncInferQueue(compiled, 3)
    seen = {}
    queue.set_callback(lambda req, i: seen.__setitem__(i, req.results))
    for i in range(10):
        queue.start_async(inputs, i)
    queue.wait_all()
    assert sorted(seen) == list(range(10))
    assert all(np.array_equal(seen[i][k], v) for i in seen for k, v in expected.items())


STATEFUL = """<?xml version="1.0"?>
<net name="acc" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="2" element_type="f32"/>
<output><port id="0" precision="FP32" names="x"><dim>2</dim></port></output></layer>
<layer id="1" name="read" type="ReadValue" version="opset6">
<data variable_id="acc" variable_type="f32" variable_shape="2"/>
<input><port id="0"><dim>2</dim></port></input><output><port id="1" precision="FP32"><dim>2</dim></port></output></layer>
<layer id="2" name="sum" type="Add" version="opset1"><input><port id="0"><dim>2</dim></port><port id="1"><dim>2</dim></port></input>
<output><port id="2" precision="FP32" names="sum"><dim>2</dim></port></output></layer>
<layer id="3" name="save" type="Assign" version="opset6"><data variable_id="acc"/><input><port id="0"><dim>2</dim></port></input></layer>
<layer id="4" name="out" type="Result" version="opset1"><input><port id="0"><dim>2</dim></port></input></layer>
</layers><edges>
<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/><edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
<edge from-layer="0" from-port="0" to-layer="2" to-port="1"/><edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
<edge from-layer="2" from-port="2" to-layer="4" to-port="0"/></edges></net>
"""


def test_query_state():
    with tempfile.TemporaryDirectory() as d:
        xml = pathlib.Path(d) / "acc.xml"
        xml.write_text(STATEFUL)
        request = irlite.compile_model(xml).create_infer_request()
        x = np.array([1, 2], np.float32)
        assert request.infer({"x": x})["sum"].tolist() == [2, 4]  # ReadValue starts from its init: x
        (state,) = request.query_state()
        assert state.name == "acc"
        assert state.state.tolist() == [2, 4]
        state.set_state(np.array([10, 20], np.float32))
        assert request.infer({"x": x})["sum"].tolist() == [11, 22]
        state.reset()
        assert request.infer({"x": x})["sum"].tolist() == [2, 4]


@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/models-real is not beside the clone")
@pytest.mark.parametrize("name", sorted(p.name for p in REAL.iterdir() if (p / "model.xml").exists()) if REAL.is_dir() else [])
def test_results_equal_the_cli_bit_for_bit(name, tmp_path):
    xml = REAL / name / "model.xml"
    compiled = irlite.compile_model(xml)
    args = [CLI, "run", str(xml), "-o", str(tmp_path), "-q"]
    inputs = {}
    for port in compiled.inputs:
        path = REAL / name / "inputs" / f"{port.name}.npy"
        if not path.exists():
            pytest.skip(f"no input file for {port.name}")
        inputs[port.name] = np.load(path)
        args += ["-i", f"{port.name}={path}"]
    subprocess.run(args, check=True)
    outputs = compiled(inputs)
    for out_name, value in outputs.items():
        safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in out_name)
        cli = np.load(tmp_path / f"{safe}.npy")
        assert cli.dtype == value.dtype and cli.shape == value.shape
        assert cli.tobytes() == value.tobytes(), out_name


def test_about_profiling_and_log_level(capfd):
    ops = irlite.supported_ops()
    assert ("TopK", 11, 11, 16) in ops and len(ops) > 100
    compiled = irlite.compile_model(DEMO, threads=1, profiling=True, log_level="info")
    assert "[irlite] [info] compiled" in capfd.readouterr().err
    request = compiled.create_infer_request()
    request.infer(demo_inputs())
    rows = request.profiling()
    assert rows and {"name", "body", "type", "method", "precision", "isa", "ms", "runs"} <= set(rows[0])
    assert all(r["isa"] for r in rows)
    assert all(r["runs"] == 1 and r["body"] == "" for r in rows)  # the demo model has no sub-graphs
    assert all(r["ms"] >= 0 for r in rows)
    irlite.compile_model(DEMO, log_level="off")
    assert capfd.readouterr().err == ""
    with pytest.raises(irlite.Error, match="unknown log level 'loud'"):
        irlite.compile_model(DEMO, log_level="loud")
    with pytest.raises(irlite.Error):
        irlite.set_log_level("loud")


def test_share_outputs_gives_read_only_views_until_the_next_run():
    compiled = irlite.compile_model(DEMO, threads=1)
    request = compiled.create_infer_request()
    inputs = demo_inputs()
    copies = request.infer(inputs)
    views = request.infer(inputs, share_outputs=True)
    assert copies.keys() == views.keys()
    for name, view in views.items():
        np.testing.assert_array_equal(view, copies[name])
        assert not view.flags.owndata and not view.flags.writeable
        assert copies[name].flags.owndata
    # The next run writes into the same memory: a view shows the new values, a copy keeps the old.
    doubled = {k: v * 2 for k, v in inputs.items()}
    again = request.infer(doubled)
    name = "scaled"
    np.testing.assert_array_equal(views[name], again[name])
    assert not np.array_equal(copies[name], again[name])


@pytest.mark.skipif(not (SHARED / "models-fp16").exists(), reason="the shared corpora are not beside this clone")
def test_f16_model_precision():
    path = SHARED / "models-fp16" / "squeezenet1_1_fp16" / "model.xml"
    x = np.load(path.parent / "inputs" / "input.npy")
    assert x.dtype == np.float16
    fast = irlite.compile_model(path, profiling=True)
    strict = irlite.compile_model(path, precision="f16")
    a, b = list(fast([x]).values())[0], list(strict([x]).values())[0]
    assert a.dtype == np.float16 and b.dtype == np.float16
    assert np.allclose(a.astype(np.float32), b.astype(np.float32), atol=2e-2, rtol=2e-2)
    request = fast.create_infer_request()
    request.infer([x])
    assert {row["precision"] for row in request.profiling()} >= {"f32"}
    with pytest.raises(irlite.Error):
        irlite.compile_model(path, precision="f8")


@pytest.mark.skipif(not (SHARED / "models-int8").exists(), reason="the shared corpora are not beside this clone")
def test_int8_switch():
    path = SHARED / "models-int8" / "resnet18_int8" / "model.xml"
    x = np.load(path.parent / "inputs" / "input.npy")
    methods = {}
    outputs = {}
    for int8 in (True, False):
        compiled = irlite.compile_model(path, threads=1, profiling=True, int8=int8)
        request = compiled.create_infer_request()
        outputs[int8] = list(request.infer([x]).values())[0].copy()
        methods[int8] = {row["method"] for row in request.profiling()}
    int8_methods = {"int8-im2col", "int8-implicit"}
    assert int8_methods & methods[True]
    assert not int8_methods & methods[False]
    a, b = outputs[True].ravel(), outputs[False].ravel()
    assert np.dot(a, b) / np.sqrt(np.dot(a, a) * np.dot(b, b)) >= 0.999
    assert np.argmax(a) == np.argmax(b)
