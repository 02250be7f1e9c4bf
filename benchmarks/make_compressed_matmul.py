#!/usr/bin/env python3
"""Writes a batch-1 linear layer with compressed weights as OpenVINO IR, in the form NNCF's weight
compression (optimum-intel's int4/int8 exports) writes it, for issue 27's compressed-weight MatMul:

    x f32 [M, K] -> MatMul(transpose_b) <- [Convert f32] <- Reshape [N, K] <- Multiply(scale)
                                   <- Subtract(zero point) <- Convert <- w Const

    make_compressed_matmul.py OUTDIR [--format u4|i4|u8|i8] [--n 4096] [--k 4096] [--group 128]
                              [--rows 1] [--decompress f16|f32] [--seed 0]

u4 and u8 are asymmetric (a zero point per group, u4/u8 like the weights); i4 and i8 symmetric (no
Subtract). --group 0 means one group per output row (per channel: [N, K] weights, no Reshape).
--decompress f16 (the default) decompresses in f16 and converts to f32 before the MatMul, as an
FP16-compressed export does. OUTDIR gets model.xml, model.bin, inputs/x.npy and expected/y.npy
(the reference in float64 on the decompressed weights, rounded to f16 first when they are f16).

    build/tools/irlite bench OUTDIR/model.xml -i x=OUTDIR/inputs/x.npy -n 200 -t 1
"""
import argparse
import os

import numpy as np


def port(i, dims, prec):
    return '<port id="%d" precision="%s">%s</port>' % (i, prec, ''.join('<dim>%d</dim>' % d for d in dims))


PREC = {'f32': 'FP32', 'f16': 'FP16', 'u4': 'U4', 'i4': 'I4', 'u8': 'U8', 'i8': 'I8', 'i64': 'I64'}


def pack4(values):
    """Two 4-bit elements per byte, element 0 in the low nibble (OpenVINO's packing)."""
    v = (values.reshape(-1) & 0xF).astype(np.uint8)
    if v.size % 2:
        v = np.concatenate([v, np.zeros(1, np.uint8)])
    return (v[0::2] | (v[1::2] << 4)).tobytes()


class Ir:
    def __init__(self):
        self.layers, self.edges, self.blobs, self.offset, self.next_id = [], [], [], 0, 0

    def new_id(self):
        self.next_id += 1
        return self.next_id - 1

    def const(self, name, et, shape, data):
        i = self.new_id()
        self.layers.append('<layer id="%d" name="%s" type="Const" version="opset1"><data element_type="%s" shape="%s" '
                           'offset="%d" size="%d"/><output>%s</output></layer>'
                           % (i, name, et, ','.join(map(str, shape)), self.offset, len(data), port(0, shape, PREC[et])))
        self.blobs.append(data)
        self.offset += len(data)
        return (i, 0, et, shape)

    def op(self, name, kind, data, inputs, out_et, out_shape):
        i = self.new_id()
        ins = ''.join(port(k, s[3], PREC[s[2]]) for k, s in enumerate(inputs))
        out = len(inputs)
        self.layers.append('<layer id="%d" name="%s" type="%s" version="opset1">%s<input>%s</input><output>%s</output>'
                           '</layer>' % (i, name, kind, '<data %s/>' % data if data else '', ins,
                                         port(out, out_shape, PREC[out_et])))
        for k, s in enumerate(inputs):
            self.edges.append('<edge from-layer="%d" from-port="%d" to-layer="%d" to-port="%d"/>' % (s[0], s[1], i, k))
        return (i, out, out_et, out_shape)

    def write(self, outdir, name):
        xml = ('<?xml version="1.0"?>\n<net name="%s" version="11">\n<layers>\n%s\n</layers>\n<edges>\n%s\n'
               '</edges>\n</net>\n' % (name, '\n'.join(self.layers), '\n'.join(self.edges)))
        with open(os.path.join(outdir, 'model.xml'), 'w') as f:
            f.write(xml)
        with open(os.path.join(outdir, 'model.bin'), 'wb') as f:
            f.write(b''.join(self.blobs))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('outdir')
    ap.add_argument('--format', choices=['u4', 'i4', 'u8', 'i8'], default='u4')
    ap.add_argument('--n', type=int, default=4096)
    ap.add_argument('--k', type=int, default=4096)
    ap.add_argument('--group', type=int, default=128)
    ap.add_argument('--rows', type=int, default=1)
    ap.add_argument('--decompress', choices=['f16', 'f32'], default='f16')
    ap.add_argument('--seed', type=int, default=0)
    a = ap.parse_args()
    n, k, fmt, dt = a.n, a.k, a.format, a.decompress
    group = a.group if a.group > 0 else k
    if k % group:
        raise SystemExit('--k must be a multiple of --group')
    groups = k // group
    rng = np.random.default_rng(a.seed)
    bits = 4 if fmt in ('u4', 'i4') else 8
    signed = fmt[0] == 'i'
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    q = rng.integers(lo, hi + 1, size=(n, groups, group)).astype(np.int64)
    scale = rng.uniform(0.002, 0.02, size=(n, groups, 1)).astype(np.float16 if dt == 'f16' else np.float32)
    zp = None if signed else rng.integers(lo, hi + 1, size=(n, groups, 1)).astype(np.int64)

    ir = Ir()
    x = ir.new_id()
    ir.layers.append('<layer id="%d" name="x" type="Parameter" version="opset1"><data shape="%d,%d" element_type="f32"/>'
                     '<output>%s</output></layer>' % (x, a.rows, k, port(0, (a.rows, k), 'FP32')))
    x_ref = (x, 0, 'f32', (a.rows, k))
    grouped = group != k
    wshape = (n, groups, group) if grouped else (n, k)
    sshape = (n, groups, 1) if grouped else (n, 1)

    def raw(values, et):
        return pack4(values) if bits == 4 else values.astype(np.int8 if signed else np.uint8).tobytes()

    w = ir.const('w', fmt, wshape, raw(q, fmt))
    wc = ir.op('w_convert', 'Convert', 'destination_type="%s"' % dt, [w], dt, wshape)
    if zp is not None:
        z = ir.const('zero_point', fmt, sshape, raw(zp, fmt))
        zc = ir.op('zero_point_convert', 'Convert', 'destination_type="%s"' % dt, [z], dt, sshape)
        wc = ir.op('w_subtract', 'Subtract', 'auto_broadcast="numpy"', [wc, zc], dt, wshape)
    s = ir.const('scale', dt, sshape, scale.reshape(sshape).tobytes())
    wd = ir.op('w_multiply', 'Multiply', 'auto_broadcast="numpy"', [wc, s], dt, wshape)
    if grouped:
        shape = ir.const('w_shape', 'i64', (2,), np.array([n, k], np.int64).tobytes())
        wd = ir.op('w_reshape', 'Reshape', 'special_zero="false"', [wd, shape], dt, (n, k))
    if dt == 'f16':
        wd = ir.op('w_to_f32', 'Convert', 'destination_type="f32"', [wd], 'f32', (n, k))
    y = ir.op('linear', 'MatMul', 'transpose_a="false" transpose_b="true"', [x_ref, wd], 'f32', (a.rows, n))
    r = ir.new_id()
    ir.layers.append('<layer id="%d" name="y" type="Result" version="opset1"><input>%s</input></layer>'
                     % (r, port(0, (a.rows, n), 'FP32')))
    ir.edges.append('<edge from-layer="%d" from-port="%d" to-layer="%d" to-port="0"/>' % (y[0], y[1], r))
    os.makedirs(os.path.join(a.outdir, 'inputs'), exist_ok=True)
    os.makedirs(os.path.join(a.outdir, 'expected'), exist_ok=True)
    ir.write(a.outdir, 'compressed_matmul_%s' % fmt)

    xs = rng.standard_normal((a.rows, k)).astype(np.float32)
    wf = (q - (zp if zp is not None else 0)).astype(np.float64) * scale.astype(np.float64)
    if dt == 'f16':
        wf = wf.astype(np.float16).astype(np.float64)
    y = xs.astype(np.float64) @ wf.reshape(n, k).T
    np.save(os.path.join(a.outdir, 'inputs', 'x.npy'), xs)
    np.save(os.path.join(a.outdir, 'expected', 'y.npy'), y.astype(np.float32))


if __name__ == '__main__':
    main()
