#!/usr/bin/env python3
"""Writes models/demo/: a small IR v11 model that uses every op of irlite's core, with inputs.

    x (f32 [4,6]) -> Slice [:, 1::2] -> Add bias -> VariadicSplit axis 0 [1, -1] -> head, rest
    rest -> GatherElements axis 1 (reverse each row)          -> reversed
    rest -> ScatterNDUpdate rows [2, 0] with constant rows     -> patched
    x * scale (Multiply, numpy broadcasting)                  -> scaled

Standard library only, so that it runs anywhere; the files it writes are committed.
"""
import os
import struct

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "demo")


def npy_bytes(descr, shape, raw):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join("%d, " % d for d in shape).rstrip(" ") if len(shape) != 1 else "%d," % shape[0])
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + raw


class Bin:
    def __init__(self):
        self.data = b""

    def add(self, raw):
        offset = len(self.data)
        self.data += raw
        return offset, len(raw)


def main():
    os.makedirs(os.path.join(HERE, "inputs"), exist_ok=True)
    weights = Bin()
    i64 = lambda *v: struct.pack("<%dq" % len(v), *v)
    f32 = lambda *v: struct.pack("<%df" % len(v), *v)
    consts = {
        "start": ("i64", [1], weights.add(i64(1))),
        "stop": ("i64", [1], weights.add(i64(2**62))),
        "step": ("i64", [1], weights.add(i64(2))),
        "axes": ("i64", [1], weights.add(i64(1))),
        "bias": ("f32", [3], weights.add(f32(100.0, 200.0, 300.0))),
        "split_axis": ("i64", [], weights.add(i64(0))),
        "split_lengths": ("i64", [2], weights.add(i64(1, -1))),
        "reverse_idx": ("i32", [3, 3], weights.add(struct.pack("<9i", 2, 1, 0, 2, 1, 0, 2, 1, 0))),
        "row_idx": ("i64", [2, 1], weights.add(i64(2, 0))),
        "new_rows": ("f32", [2, 3], weights.add(f32(-1, -2, -3, -4, -5, -6))),
        "scale": ("f32", [1, 6], weights.add(f32(1, 10, 100, 1000, 10000, 100000))),
    }
    layers, edges = [], []
    prec = {"f32": "FP32", "i64": "I64", "i32": "I32"}

    def port(pid, et, dims, names=None, out=True):
        n = ' names="%s"' % names if names else ""
        p = ' precision="%s"' % prec[et] if et else ""
        return '<port id="%d"%s%s>%s</port>' % (pid, p, n, "".join("<dim>%d</dim>" % d for d in dims))

    def layer(lid, name, typ, opset, data="", ins=(), outs=()):
        body = '      <data %s/>\n' % data if data else ""
        if ins:
            body += "      <input>\n" + "".join("        %s\n" % p for p in ins) + "      </input>\n"
        if outs:
            body += "      <output>\n" + "".join("        %s\n" % p for p in outs) + "      </output>\n"
        layers.append('    <layer id="%d" name="%s" type="%s" version="%s">\n%s    </layer>' % (lid, name, typ, opset, body))

    ids = {}

    def const(name):
        et, shape, (off, size) = consts[name]
        lid = len(ids)
        ids[name] = lid
        layer(lid, name, "Const", "opset1",
              'element_type="%s" shape="%s" offset="%d" size="%d"' % (et, ",".join(map(str, shape)), off, size),
              outs=[port(0, et, shape, name)])

    def edge(a, ap, b, bp):
        edges.append('    <edge from-layer="%d" from-port="%d" to-layer="%d" to-port="%d"/>' % (a, ap, b, bp))

    ids["x"] = 0
    layer(0, "x", "Parameter", "opset1", 'shape="4,6" element_type="f32"', outs=[port(0, "f32", [4, 6], "x")])
    for c in consts:
        const(c)
    nid = len(ids)
    sl, add, split, gat, sc, mul = range(nid, nid + 6)
    layer(sl, "odd_columns", "Slice", "opset8", ins=[port(0, "f32", [4, 6])] + [port(i, "i64", [1]) for i in (1, 2, 3, 4)],
          outs=[port(5, "f32", [4, 3], "odd_columns")])
    layer(add, "plus_bias", "Add", "opset1", 'auto_broadcast="numpy"', ins=[port(0, "f32", [4, 3]), port(1, "f32", [3])],
          outs=[port(2, "f32", [4, 3], "plus_bias")])
    layer(split, "split_rows", "VariadicSplit", "opset1", ins=[port(0, "f32", [4, 3]), port(1, "i64", []), port(2, "i64", [2])],
          outs=[port(3, "f32", [1, 3], "head"), port(4, "f32", [3, 3], "rest")])
    layer(gat, "reverse_rows", "GatherElements", "opset6", 'axis="1"', ins=[port(0, "f32", [3, 3]), port(1, "i32", [3, 3])],
          outs=[port(2, "f32", [3, 3], "reversed")])
    layer(sc, "patch_rows", "ScatterNDUpdate", "opset3", ins=[port(0, "f32", [3, 3]), port(1, "i64", [2, 1]), port(2, "f32", [2, 3])],
          outs=[port(3, "f32", [3, 3], "patched")])
    layer(mul, "scale_columns", "Multiply", "opset1", 'auto_broadcast="numpy"', ins=[port(0, "f32", [4, 6]), port(1, "f32", [1, 6])],
          outs=[port(2, "f32", [4, 6], "scaled")])
    edge(0, 0, sl, 0)
    for i, c in enumerate(("start", "stop", "step", "axes")):
        edge(ids[c], 0, sl, i + 1)
    edge(sl, 5, add, 0); edge(ids["bias"], 0, add, 1)
    edge(add, 2, split, 0); edge(ids["split_axis"], 0, split, 1); edge(ids["split_lengths"], 0, split, 2)
    edge(split, 4, gat, 0); edge(ids["reverse_idx"], 0, gat, 1)
    edge(split, 4, sc, 0); edge(ids["row_idx"], 0, sc, 1); edge(ids["new_rows"], 0, sc, 2)
    edge(0, 0, mul, 0); edge(ids["scale"], 0, mul, 1)
    rid = mul + 1
    for src, sport, name, dims in ((split, 3, "head", [1, 3]), (gat, 2, "reversed", [3, 3]), (sc, 3, "patched", [3, 3]),
                                   (mul, 2, "scaled", [4, 6])):
        layer(rid, name + "/sink_port_0", "Result", "opset1", ins=[port(0, "f32", dims)])
        edge(src, sport, rid, 0)
        rid += 1
    xml = '<?xml version="1.0"?>\n<net name="demo" version="11">\n  <layers>\n%s\n  </layers>\n  <edges>\n%s\n  </edges>\n  <rt_info/>\n</net>\n' % (
        "\n".join(layers), "\n".join(edges))
    with open(os.path.join(HERE, "model.xml"), "w") as f:
        f.write(xml)
    with open(os.path.join(HERE, "model.bin"), "wb") as f:
        f.write(weights.data)
    x = [float(r * 10 + c) for r in range(4) for c in range(6)]
    with open(os.path.join(HERE, "inputs", "x.npy"), "wb") as f:
        f.write(npy_bytes("<f4", [4, 6], f32(*x)))


if __name__ == "__main__":
    main()
