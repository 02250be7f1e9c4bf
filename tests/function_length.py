#!/usr/bin/env python3
"""Fails when a C++ function is longer than LIMIT lines (from the first line of its signature to
its closing brace), so that a long function gets split into parts whose names explain them.
A function may stay long only on ALLOWED below, each with a one-line reason.

usage: function_length.py SOURCE_DIR     check engine/ parser/ kernels/ api/ tools/ include/ python/src/
       function_length.py --self-test    check the scanner itself on synthetic sources

How it finds functions (no compiler involved, so it stays simple): comments, string and character
literals and preprocessor lines are blanked first (newlines kept, so line numbers stay), then the
braces are matched. At file scope and inside namespaces, classes, structs, unions and extern "C"
blocks, a brace opens a function body when the text before it (since the last ';' or '}' of that
scope) is a declarator: a parenthesised parameter list followed only by qualifiers (const,
noexcept, override, a trailing return type, ...) or by a constructor's member-initializer list,
or a lambda assigned to a name. Any other brace there is an initializer or an enum and is skipped.
A function's body is not searched further: lambdas and local classes in it count as its lines.
"""
import pathlib, re, sys

LIMIT = 80
DIRS = ("engine", "parser", "kernels", "api", "tools", "include", "python/src")
SUFFIXES = (".cpp", ".hpp", ".h", ".inl", ".inc")

# "path:function" -> why it may stay longer than LIMIT. Keep it short: each entry is a function a
# reader is better served by reading in one piece (a table, a list of cases).
ALLOWED = {
}

IDENT = re.compile(r"[A-Za-z_]\w*")
QUALIFIERS = {"const", "volatile", "noexcept", "override", "final", "mutable", "constexpr",
              "throw", "requires", "try"}
CONTAINER = re.compile(r"^(?:(?:inline|export)\s+)*namespace\b|^extern\s*\"\"\s*$")
LAMBDA = re.compile(r"=\s*\[\](?:\s*\(\))?[\w\s&>:\-]*$")
CONTROL = {"if", "for", "while", "switch", "catch", "do", "else", "return", "sizeof", "decltype",
           "alignof", "static_assert"}


def literal_end(text, i):
    """Index just past the string or character literal opening at i (its quote), escapes skipped;
    an unterminated one ends with its line."""
    quote, j = text[i], i + 1
    while j < len(text) and text[j] != quote and text[j] != "\n":
        j += 2 if text[j] == "\\" else 1
    return j + 1 if j < len(text) and text[j] == quote else j  # the newline is kept: line numbers stay


def blank(text):
    """text with comments, literals and preprocessor lines replaced by spaces (newlines kept).
    String literals keep their quotes ("" stays visible, so that extern "C" is recognisable)."""
    out, i, n = [], 0, len(text)
    line_start = True  # only whitespace so far on this line: a '#' here starts a directive

    def spaces(s):
        return re.sub(r"[^\n]", " ", s)

    while i < n:
        c = text[i]
        if c == "\n":
            out.append(c)
            line_start = True
            i += 1
            continue
        if line_start and c == "#":
            j = i
            while j < n and text[j] != "\n":  # a directive runs on while lines end with '\'
                if text.startswith("/*", j):  # a block comment may span lines inside it
                    k = text.find("*/", j + 2)
                    j = n if k < 0 else k + 2
                    continue
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    j += 2
                    continue
                j += 1
            out.append(spaces(text[i:j]))
            i = j
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(spaces(text[i:j]))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(spaces(text[i:j]))
            i = j
        elif c == '"':
            m = re.search(r"(?:\b|(?<=\W))(?:u8|u|U|L)?R$", text[max(0, i - 3):i])
            if m and (i - len(m.group(0)) == 0 or not (text[i - len(m.group(0)) - 1].isalnum()
                                                       or text[i - len(m.group(0)) - 1] == "_")):
                # a raw string: R"delim( ... )delim"
                paren = text.find("(", i)
                delim = text[i + 1:paren]
                end = text.find(")" + delim + '"', paren)
                j = n if end < 0 else end + len(delim) + 2
            else:
                j = literal_end(text, i)
            out.append('"' + spaces(text[i + 1:j - 1]) + '"')
            i = j
        elif c == "'":
            # a digit separator (1'000) is no character literal: the token before it is a number
            k = i
            while k > 0 and (text[k - 1].isalnum() or text[k - 1] in "_.'"):
                k -= 1
            if k < i and text[k].isdigit():
                out.append(" ")
                i += 1
                continue
            j = literal_end(text, i)
            out.append("'" + spaces(text[i + 1:j - 1]) + "'")
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def matching(text, i):
    """Index of the bracket closing the one at i (len(text) when unbalanced)."""
    pairs = {"{": "}", "(": ")", "[": "]"}
    stack = [pairs[text[i]]]
    j = i + 1
    while j < len(text) and stack:
        c = text[j]
        if c in pairs:
            stack.append(pairs[c])
        elif c in ")]}":
            # a stray closer of another kind is tolerated: braces are what must balance
            if c == stack[-1]:
                stack.pop()
            elif c == "}":
                while stack and stack[-1] != "}":
                    stack.pop()
                if stack:
                    stack.pop()
        j += 1
    return j - 1 if not stack else len(text)


def collapse(head):
    """head with the contents of its bracket groups and template arguments removed, so that only
    its top level is left: `int f(int a = 1) const` -> `int f() const`."""
    out, depth = [], 0
    for c in head:
        if c in "([{":
            if depth == 0:
                out.append(c)
            depth += 1
        elif c in ")]}":
            depth = max(0, depth - 1)
            if depth == 0:
                out.append(c)
        elif depth == 0:
            out.append(c)
    text = "".join(out)
    text = re.sub(r"\boperator\s*(\(\)|\[\]|[^\w\s(]+)", "operator_", text)
    # template arguments hold no '(' at the top level that matters: drop them
    prev = None
    while prev != text:
        prev = text
        text = re.sub(r"<[^<>(){};]*>", "", text)
    return text


INIT_LIST = re.compile(r"\)\s*((?:[A-Za-z_]\w*|&&?|\s)*?)\s*:(?!:)")


def init_list_start(top):
    """Where a constructor's member-initializer list starts in top (the ':' after the parameter
    list and its qualifiers), or None."""
    for m in INIT_LIST.finditer(top):
        if all(w in QUALIFIERS for w in IDENT.findall(m.group(1))):
            return m.start() + 1
    return None


def declarator(top):
    """The match of the function's name and parameter list in top when top declares a function
    (its parameter list followed by qualifiers only, or a trailing return type), else None."""
    # (the tail is a lookahead so that every candidate name is tried, e.g. after __attribute__())
    for m in re.finditer(r"((?:[A-Za-z_]\w*\s*::\s*)*~?(?:operator_|\b[A-Za-z_]\w*))\s*\(\)(?=(.*)$)", top):
        name = m.group(1).split("::")[-1].strip()
        if name in CONTROL or name in QUALIFIERS:
            continue
        tail = re.sub(r"->.*$", "", m.group(2))  # a trailing return type
        rest = IDENT.sub("", tail).replace("()", "").replace("&", "").strip()
        if all(w in QUALIFIERS for w in IDENT.findall(tail)) and not rest:
            return m
    return None


def top_level(head):
    top = " ".join(collapse(head).split())
    top = re.sub(r'"\s*"', '""', top)
    return re.sub(r"^(?:(?:public|private|protected)\s*:\s*)+", "", top)


def classify(head):
    """What the brace following head opens: "scope" (search inside it), "function", "member-init"
    (a braced member initializer inside a constructor's initializer list) or "other"."""
    top = top_level(head)
    if CONTAINER.search(top):
        return "scope"
    if re.search(r"\benum\b", top):
        return "other"
    # a lambda given a name at namespace or class scope is a function too
    if LAMBDA.search(top):
        return "function"
    init = init_list_start(top)
    if init is not None and declarator(top[:init]):
        # the body follows a ')' or '}', a member's braced initializer follows the member's name
        return "function" if re.search(r"[)}]\s*$", top) else "member-init"
    if "=" in top.replace("operator_", ""):
        return "other"
    if declarator(top):
        return "function"
    if re.search(r"\b(class|struct|union)\b", top):
        return "scope"
    return "other"


def functions(text):
    """(name, first line, last line) of each function definition in the blanked text."""
    found = []
    n = len(text)

    def scope(i):
        """Reads declarations from i to the '}' closing the scope; returns the index after it."""
        head_start = i
        while i < n:
            c = text[i]
            if c == ";":
                head_start = i + 1
            elif c == "}":
                return i + 1
            elif c in "([":
                i = matching(text, i)
            elif c == "{":
                head = text[head_start:i]
                kind = classify(head)
                if kind == "scope":
                    i = scope(i + 1)
                    head_start = i
                    continue
                close = matching(text, i)
                if kind == "function":
                    start = head_start + len(head) - len(head.lstrip())
                    access = re.match(r"\s*(?:(?:public|private|protected)\s*:\s*)+", text[start:i])
                    if access:
                        start += access.end()
                    found.append((name_of(head), text.count("\n", 0, start) + 1,
                                  text.count("\n", 0, close) + 1))
                    head_start = close + 1
                i = close + 1
                continue
            i += 1
        return n

    scope(0)
    return found


def name_of(head):
    """The function's name as written (Class::name, or the variable holding a lambda)."""
    top = top_level(head)
    m = LAMBDA.search(top)
    if m:
        names = IDENT.findall(top[:m.start()])
        return names[-1] if names else "lambda"
    init = init_list_start(top)
    m = declarator(top if init is None else top[:init])
    return re.sub(r"\s+", "", m.group(1)) if m else "?"


def long_functions(text, limit=LIMIT):
    return [(name, first, last, last - first + 1)
            for name, first, last in functions(blank(text)) if last - first + 1 > limit]


def self_test():
    body = "".join(f"    x += {k};\n" for k in range(LIMIT))
    source = (
        '#include <string>\n#define OPEN {\n'
        'namespace a { namespace b {\n'
        'const char* s = "}{\\" }";  // } {\n'
        "char c = '}'; int big = 1'000'000; /* { */\n"
        'const char* r = R"x(})x";\n'
        'static int short_one(int x) { return x; }\n'
        'int long_free(int x,\n              int y = 2)\n{\n' + body + '    return x;\n}\n'
        'struct S : Base<int> {\n  S() : a_{1}, b_(2) {\n' + body + '  }\n'
        'public:\n  int long_member() const noexcept {\n' + body + '    return 0;\n  }\n'
        '  int a_{0}; int b_ = 0;\n};\n'
        'enum class E { A, B };\n'
        'auto long_lambda = [](int x) {\n' + body + '  return x;\n};\n'
        'extern "C" { void c_long() {\n' + body + '} }\n'
        'template <typename T = int> auto trailing(T t) -> decltype(t) {\n' + body + '  return t;\n}\n'
        '}}  // namespace a::b\n'
        'int S::operator()(int x) const {\n' + body + '  return x;\n}\n'
        'TEST_LIKE_MACRO(name, m) {\n' + body + '}\n'
        '__attribute__((noinline)) void attributed() {\n' + body + '}\n'
        'template <class F>\ndecltype(auto) deduced(F&& f) {\n' + body + '  return f();\n}\n'
        'int just_fits() {\n' + "".join(f"    x += {k};\n" for k in range(LIMIT - 2)) + '}\n')
    got = [(name, length) for name, _, _, length in long_functions(source)]
    want = [("long_free", LIMIT + 5), ("S", LIMIT + 2), ("long_member", LIMIT + 3),
            ("long_lambda", LIMIT + 3), ("c_long", LIMIT + 2), ("trailing", LIMIT + 3),
            ("S::operator_", LIMIT + 3), ("TEST_LIKE_MACRO", LIMIT + 2),
            ("attributed", LIMIT + 2), ("deduced", LIMIT + 4)]
    short = [name for name, _, _ in functions(blank(source))]
    ok = got == want and "short_one" in short and "just_fits" in short
    print("function_length self-test: " + ("ok" if ok else f"FAILED\n  got  {got}\n  want {want}\n"
                                                            f"  all  {short}"))
    return 0 if ok else 1


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    root = pathlib.Path(sys.argv[1])
    problems, checked, counted, used = [], 0, 0, set()
    for folder in DIRS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file():
                continue
            checked += 1
            rel = path.relative_to(root).as_posix()
            text = path.read_text(errors="replace")
            counted += len(functions(blank(text)))
            for name, first, _, length in long_functions(text):
                key = f"{rel}:{name}"
                if key in ALLOWED:
                    used.add(key)
                    continue
                problems.append(f"{rel}:{first}: {name} is {length} lines (more than {LIMIT}): "
                                "split it into parts whose names say what they do")
    stale = sorted(set(ALLOWED) - used)
    for p in problems:
        print(p)
    for key in stale:
        print(f"{key}: on the allow-list but no longer over {LIMIT} lines (or gone): remove it")
    print(f"function_length: {checked} files, {counted} functions, {len(problems)} over {LIMIT} lines, "
          f"{len(used)} allowed, {len(stale)} stale allow-list entries")
    return 1 if problems or stale or checked == 0 or counted == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
