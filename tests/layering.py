#!/usr/bin/env python3
"""Fails when a lower layer includes a higher one (see the README's "How it works").

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
