#!/usr/bin/env python3
"""Writes one LSTM layer twice, as OpenVINO IR (LSTMSequence-5) and as ONNX (LSTM-14), with the
same weights, to compare irlite with ONNX Runtime on the recurrent ops (issue 28's target: a
100-step sequence, batch 1, input 128, hidden 256).

    make_lstm_pair.py OUTDIR [--steps 100] [--input 128] [--hidden 256] [--batch 1]

OUTDIR/model.xml + model.bin (X [N, T, I] batch first; initial states zero Consts; lengths T), and
OUTDIR/model.onnx (X [T, N, I]; no initial states, which ONNX takes as zeros). Both have the one f32
input X. Gate order: IR f, i, c, o; ONNX i, o, f, c (the blocks are reordered, the values equal).
Needs numpy only: the ONNX protobuf is encoded here.

    irlite:  build/tools/irlite bench OUTDIR/model.xml -n 200 -t 1
    ORT:     NODE_PATH=/tmp/ortnpm/node_modules node ../shared/bench/ort_latency.js OUTDIR/model.onnx \\
                 --shape T,1,I --threads 1,2
"""
import argparse
import os

import numpy as np


# ---- a minimal protobuf writer (varints, length-delimited fields) --------------------------------
def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_varint(num, v):
    return varint(num << 3) + varint(v)


def field_bytes(num, data):
    if isinstance(data, str):
        data = data.encode()
    return varint(num << 3 | 2) + varint(len(data)) + data


def tensor_proto(name, array):  # TensorProto: dims=1, data_type=2, name=8, raw_data=9
    msg = b''.join(field_varint(1, d) for d in array.shape)
    msg += field_varint(2, 1)  # FLOAT
    msg += field_bytes(8, name) + field_bytes(9, array.astype('<f4').tobytes())
    return msg


def value_info(name, dims):  # ValueInfoProto{name=1, type=2{tensor_type=1{elem_type=1, shape=2{dim=1{dim_value=1}}}}}
    shape = b''.join(field_bytes(1, field_varint(1, d)) for d in dims)
    tensor_type = field_varint(1, 1) + field_bytes(2, shape)
    return field_bytes(1, name) + field_bytes(2, field_bytes(1, tensor_type))


def attribute_int(name, v):  # AttributeProto{name=1, i=3, type=20 (INT = 2)}
    return field_bytes(1, name) + field_varint(3, v) + field_varint(20, 2)


def write_onnx(path, T, N, I, H, W, R, B):
    node = b''.join(field_bytes(1, n) for n in ['X', 'W', 'R', 'B'])
    node += b''.join(field_bytes(2, n) for n in ['Y', 'Y_h', 'Y_c'])
    node += field_bytes(3, 'lstm') + field_bytes(4, 'LSTM') + field_bytes(5, attribute_int('hidden_size', H))
    graph = field_bytes(1, node) + field_bytes(2, 'lstm_graph')
    graph += field_bytes(5, tensor_proto('W', W)) + field_bytes(5, tensor_proto('R', R)) + field_bytes(5, tensor_proto('B', B))
    graph += field_bytes(11, value_info('X', [T, N, I]))
    graph += field_bytes(12, value_info('Y', [T, 1, N, H]))
    graph += field_bytes(12, value_info('Y_h', [1, N, H])) + field_bytes(12, value_info('Y_c', [1, N, H]))
    model = field_varint(1, 8) + field_bytes(2, 'irlite') + field_bytes(7, graph)
    model += field_bytes(8, field_bytes(1, '') + field_varint(2, 14))  # opset_import: domain "", version 14
    with open(path, 'wb') as f:
        f.write(model)


def port(i, dims, prec='FP32'):
    return '<port id="%d" precision="%s">%s</port>' % (i, prec, ''.join('<dim>%d</dim>' % d for d in dims))


def write_ir(outdir, T, N, I, H, W, R, B):
    zeros = np.zeros((N, 1, H), np.float32)
    lengths = np.full((N,), T, np.int64)
    blobs, layers, offset = [], [], 0
    consts = [('W', W, 'f32', 'FP32'), ('R', R, 'f32', 'FP32'), ('B', B, 'f32', 'FP32'), ('H0', zeros, 'f32', 'FP32'),
              ('C0', zeros, 'f32', 'FP32'), ('lengths', lengths, 'i64', 'I64')]
    layers.append('<layer id="0" name="X" type="Parameter" version="opset1"><data shape="%d,%d,%d" element_type="f32"/>'
                  '<output>%s</output></layer>' % (N, T, I, port(0, (N, T, I))))
    ids = {}
    for k, (name, a, et, prec) in enumerate(consts, start=1):
        data = a.tobytes()
        layers.append('<layer id="%d" name="%s" type="Const" version="opset1"><data element_type="%s" shape="%s" '
                      'offset="%d" size="%d"/><output>%s</output></layer>'
                      % (k, name, et, ','.join(map(str, a.shape)), offset, len(data), port(0, a.shape, prec)))
        blobs.append(data)
        offset += len(data)
        ids[name] = k
    inputs = [((N, T, I), 'FP32'), ((N, 1, H), 'FP32'), ((N, 1, H), 'FP32'), ((N,), 'I64'), (W.shape, 'FP32'),
              (R.shape, 'FP32'), (B.shape, 'FP32')]
    layers.append('<layer id="10" name="lstm" type="LSTMSequence" version="opset5"><data hidden_size="%d" '
                  'direction="forward" clip="0" activations="sigmoid,tanh,tanh" activations_alpha="" '
                  'activations_beta=""/><input>%s</input><output>%s%s%s</output></layer>'
                  % (H, ''.join(port(i, d, p) for i, (d, p) in enumerate(inputs)), port(7, (N, 1, T, H)),
                     port(8, (N, 1, H)), port(9, (N, 1, H))))
    for k, (name, dims) in enumerate([('Y', (N, 1, T, H)), ('Ho', (N, 1, H)), ('Co', (N, 1, H))]):
        layers.append('<layer id="%d" name="%s" type="Result" version="opset1"><input>%s</input></layer>'
                      % (20 + k, name, port(0, dims)))
    sources = [0, ids['H0'], ids['C0'], ids['lengths'], ids['W'], ids['R'], ids['B']]
    edges = ['<edge from-layer="%d" from-port="0" to-layer="10" to-port="%d"/>' % (s, i) for i, s in enumerate(sources)]
    edges += ['<edge from-layer="10" from-port="%d" to-layer="%d" to-port="0"/>' % (7 + k, 20 + k) for k in range(3)]
    xml = ('<?xml version="1.0"?>\n<net name="lstm_pair" version="11">\n<layers>\n%s\n</layers>\n<edges>\n%s\n'
           '</edges>\n</net>\n' % ('\n'.join(layers), '\n'.join(edges)))
    with open(os.path.join(outdir, 'model.xml'), 'w') as f:
        f.write(xml)
    with open(os.path.join(outdir, 'model.bin'), 'wb') as f:
        f.write(b''.join(blobs))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('outdir')
    ap.add_argument('--steps', type=int, default=100)
    ap.add_argument('--input', type=int, default=128)
    ap.add_argument('--hidden', type=int, default=256)
    ap.add_argument('--batch', type=int, default=1)
    a = ap.parse_args()
    T, N, I, H = a.steps, a.batch, a.input, a.hidden
    os.makedirs(a.outdir, exist_ok=True)
    rng = np.random.default_rng(0)
    W = (rng.standard_normal((1, 4 * H, I)) * 0.1).astype(np.float32)  # IR gate order f, i, c, o
    R = (rng.standard_normal((1, 4 * H, H)) * 0.1).astype(np.float32)
    B = (rng.standard_normal((1, 4 * H)) * 0.1).astype(np.float32)
    write_ir(a.outdir, T, N, I, H, W, R, B)
    order = [1, 3, 0, 2]  # ONNX i, o, f, c from the IR's f, i, c, o blocks

    def onnx_gates(m):
        return np.concatenate([m[:, g * H:(g + 1) * H] for g in order], axis=1)

    b_onnx = np.concatenate([onnx_gates(B), np.zeros((1, 4 * H), np.float32)], axis=1)  # Wb, Rb
    write_onnx(os.path.join(a.outdir, 'model.onnx'), T, N, I, H, onnx_gates(W), onnx_gates(R), b_onnx)
    print('wrote %s/model.xml, model.bin, model.onnx (T=%d N=%d I=%d H=%d)' % (a.outdir, T, N, I, H))


if __name__ == '__main__':
    main()
