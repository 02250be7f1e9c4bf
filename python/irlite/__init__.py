"""irlite: a small, fast engine for OpenVINO IR (model.xml + model.bin), shaped like OpenVINO's API.

    import irlite, numpy as np
    compiled = irlite.compile_model("model.xml")
    outputs = compiled({"input": np.zeros((1, 3, 224, 224), np.float32)})   # {name: ndarray}

Inputs are read in place when they are C-contiguous arrays of the input's exact dtype, and refused
otherwise (irlite never casts silently); outputs are arrays that own their data. Failures raise
irlite.Error with .code, .message, .file, .line, .layer_id, .layer_name, .layer_type and .port.
"""
import os
import queue
import threading

from ._irlite import (CompiledModel, Error, InferRequest, Model, Port, VariableState,  # noqa: F401
                      __version__, set_log_level, supported_ops)
from . import _irlite

__all__ = ["read_model", "compile_model", "check", "compare", "AsyncInferQueue", "Model", "CompiledModel",
           "InferRequest", "VariableState", "Port", "Error", "__version__", "supported_ops",
           "set_log_level"]


def read_model(path, weights=None):
    """Reads model.xml (and its .bin: `weights`, else the xml's stem + .bin when it exists)."""
    return _irlite._read_model(os.fspath(path), os.fspath(weights) if weights else "")


def compile_model(model, threads=None, profiling=False, fusion=True, log_level=None, precision="f32", int8=True):
    """Compiles a Model, or the model at a path, for this machine's CPU.

    threads: intra-op threads per infer request (None: IRLITE_NUM_THREADS, else every core).
    profiling: per-node timings in every request (request.profiling()). fusion: False runs every
    op as its own node. log_level: "off", "error", "warning", "info", "debug" or "trace" for what
    this compile logs to stderr (None: set_log_level's, else IRLITE_LOG_LEVEL's, else off).
    precision: what an f16/bf16 model computes in: "f32" (weights converted once, inputs and
    outputs at the boundary, as OpenVINO's CPU plugin) or "f16" (the types the file declares).
    int8: False runs every FakeQuantize in float instead of the int8 layers (README: INT8)."""
    if not isinstance(model, Model):
        model = read_model(model)
    return _irlite._compile(model, threads, profiling, fusion, log_level or "", precision, bool(int8))


def check(path, no_weights=False, weights=None):
    """Every problem `irlite check` finds in a model file, as objects with .code, .severity
    ("error" or "warning"), .message, .file, .line, .layer_id, .layer_name, .layer_type, .port,
    .declared and .inferred (the fields of `irlite check --json`)."""
    return _irlite._check(os.fspath(path), no_weights, os.fspath(weights) if weights else "")


def compare(a, b=None, inputs=None, fill="random", seed=0, threshold=0.999, fused=False, vs=None, threads=1,
            atol=0.0):
    """Runs models a and b (paths or Models) on the same inputs and compares every layer's output,
    as `irlite compare --json` does, returning the same document as a dict: "a", "b", "vs",
    "inputs", "threshold", "atol", "tensors" (per matched tensor, in a's topological order: "name",
    "layer_a", "layer_b", "port", "cosine", "max_abs", "max_rel", "nonfinite_differs"),
    "first_divergent" (a tensor's dict with its "index", or None), "unmatched_a", "unmatched_b".

    inputs: {name: array} for a's inputs (exact dtypes); the others are filled (fill: "random",
    "zeros" or "ones"; seed). b's inputs are bound by name, converted where only the element type
    differs. Both run unfused unless fused=True. vs="no-fusion" | "no-int8" | "threads=N" | "isa=NAME" compares
    a with itself run that way instead of b. threads: each run's intra-op threads. A tensor
    diverges when its cosine is below threshold and its max_abs above atol, or when its NaN/Inf
    elements differ."""
    def load(m):
        return m if isinstance(m, Model) else read_model(m)

    def name(m, fallback):
        return fallback if isinstance(m, Model) else os.fspath(m)

    if (b is None) == (vs is None):
        raise ValueError("compare needs either a second model b or vs=..., not both")
    report = _irlite._compare(load(a), None if b is None else load(b), inputs, fill, int(seed), float(threshold),
                              bool(fused), vs or "", int(threads), float(atol))
    a_name = name(a, "a")
    document = {"a": a_name, "b": a_name if b is None else name(b, "b"), "vs": report.pop("vs")}
    document.update(report)
    return document


class AsyncInferQueue:
    """A pool of infer requests for throughput, as OpenVINO's AsyncInferQueue: start_async() hands
    inputs to the next idle request and returns; the callback, when set, receives (request,
    userdata) once that run is done (on a worker thread); wait_all() waits for every run."""

    def __init__(self, compiled, jobs=0):
        jobs = jobs or os.cpu_count() or 1
        self._idle = queue.Queue()
        self._requests = [compiled.create_infer_request() for _ in range(jobs)]
        for r in self._requests:
            self._idle.put(r)
        self._callback = None
        self._pending = 0
        self._errors = []
        self._done = threading.Condition()

    def __len__(self):
        return len(self._requests)

    def __getitem__(self, i):
        return self._requests[i]

    def set_callback(self, callback):
        self._callback = callback

    def start_async(self, inputs=None, userdata=None):
        request = self._idle.get()
        with self._done:
            self._pending += 1
        threading.Thread(target=self._run, args=(request, inputs, userdata), daemon=True).start()

    def _run(self, request, inputs, userdata):
        try:
            request.infer(inputs)  # the GIL is released while the model runs
            if self._callback:
                self._callback(request, userdata)
        except Exception as e:  # reported by wait_all
            self._errors.append(e)
        finally:
            self._idle.put(request)
            with self._done:
                self._pending -= 1
                self._done.notify_all()

    def wait_all(self):
        with self._done:
            self._done.wait_for(lambda: self._pending == 0)
        if self._errors:
            errors, self._errors = self._errors, []
            raise errors[0]
