"""Runs an IR model on inputs of ones and prints each output's name and shape (as run_model.cpp).

    python3 examples/run_model.py models/demo/model.xml
"""
import sys

import numpy as np

import irlite

compiled = irlite.compile_model(sys.argv[1])
inputs = {p.name: np.ones(p.shape, p.dtype) for p in compiled.inputs}
request = compiled.create_infer_request()
for _ in range(2):
    outputs = request.infer(inputs)
for name, value in outputs.items():
    print(name, "[" + ",".join(map(str, value.shape)) + "]")
