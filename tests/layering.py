#!/usr/bin/env python3
"""Fails when a lower layer includes a higher one (see the README's "How it works").

usage: layering.py SOURCE_DIR

    engine/   includes engine/ only: it knows no XML and no kernel
    parser/   engine/, parser/
    kernels/  engine/, kernels/: kernels see typed attributes and tensors, never XML
    api/      engine/, parser/, kernels/, api/: the thin layer that joins them
    tools/    anything but tests/
"""
import pathlib, re, sys

ALLOWED = {
    "engine": {"engine"},
    "parser": {"engine", "parser"},
    "kernels": {"engine", "kernels"},
    "api": {"engine", "parser", "kernels", "api"},
    "tools": {"engine", "parser", "kernels", "api", "tools"},
}
LAYERS = set(ALLOWED) | {"tests"}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"/]+)/')


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
    for p in problems:
        print(p)
    print(f"layering: {checked} files, {len(problems)} includes across layers the wrong way")
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
