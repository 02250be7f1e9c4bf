#!/usr/bin/env python3
"""Fails when a lower layer includes a higher one (see the README's "How it works"), or when
modules include each other: a module is a header and its source (engine/op.hpp + engine/op.cpp),
and module A depends on B when a file of A includes B's header; the dependencies must form no cycle.

usage: layering.py SOURCE_DIR

    include/irlite/  the public API (irlite/...): includes irlite/ only, so that it installs alone
    engine/   engine/ and irlite/: it knows no XML and no kernel
    (every layer below may include irlite/)
    parser/   engine/, parser/
    kernels/  engine/, kernels/: kernels see typed attributes and tensors, never XML
    api/      engine/, parser/, kernels/, api/: the thin layer that joins them
    tools/    anything but tests/
"""
import pathlib, re, sys

# directory -> the include prefixes its files may use
ALLOWED = {
    "include/irlite": {"irlite"},
    "engine": {"irlite", "engine"},
    "parser": {"irlite", "engine", "parser"},
    "kernels": {"irlite", "engine", "kernels"},
    "api": {"irlite", "engine", "parser", "kernels", "api"},
    "tools": {"irlite", "engine", "parser", "kernels", "api", "tools"},
}
LAYERS = {"irlite", "engine", "parser", "kernels", "api", "tools", "tests"}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"/]+)/')
ANY_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def module_of(path):
    """engine/op.hpp and engine/op.cpp -> "engine/op"; include/irlite/x.hpp -> "irlite/x"."""
    text = path.as_posix()
    if text.startswith("include/"):
        text = text[len("include/"):]
    return text.rsplit(".", 1)[0]


def module_cycles(root):
    """Every cycle of the module dependency graph, each as a list of modules (first repeated last)."""
    deps = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.suffix not in (".cpp", ".hpp", ".h", ".inl") or rel.parts[0] not in ALLOWED and rel.parts[0] != "include":
            continue
        mod = module_of(rel)
        for line in path.read_text(errors="replace").splitlines():
            m = ANY_INCLUDE.match(line)
            if m and m.group(1).endswith((".hpp", ".h")):
                target = module_of(pathlib.PurePosixPath(m.group(1)))
                if target != mod:
                    deps.setdefault(mod, set()).add(target)
    cycles, state, stack = [], {}, []

    def visit(mod):
        state[mod] = "open"
        stack.append(mod)
        for nxt in sorted(deps.get(mod, ())):
            if state.get(nxt) == "open":
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[mod] = "done"

    for mod in sorted(deps):
        if mod not in state:
            visit(mod)
    return cycles


def main():
    root = pathlib.Path(sys.argv[1])
    problems, checked = [], 0
    for layer, allowed in ALLOWED.items():
        for path in sorted((root / layer).rglob("*")):
            if path.suffix not in (".cpp", ".hpp", ".h"):
                continue
            checked += 1
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                m = INCLUDE.match(line)
                if m and m.group(1) in LAYERS and m.group(1) not in allowed:
                    problems.append(f"{path.relative_to(root)}:{number}: {layer}/ must not include {m.group(1)}/")
    cycles = module_cycles(root)
    for p in problems:
        print(p)
    for c in cycles:
        print("include cycle: " + " -> ".join(c))
    print(f"layering: {checked} files, {len(problems)} includes across layers the wrong way, "
          f"{len(cycles)} include cycles between modules")
    return 1 if problems or cycles or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
