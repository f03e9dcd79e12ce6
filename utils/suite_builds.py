#!/usr/bin/env python3
"""Which .cu files of a CUDA suite are translation units, and with what flags.

Best-effort readers of the suite's own build files (nothing is run: no make,
no cmake):

Makefiles (files named Makefile, makefile or GNUmakefile; other Makefile_*
variants only for files no plain Makefile compiles):
  - variables (=, :=, ::=, ?=, +=, override, export), $(VAR) and ${VAR},
    substitution references $(VAR:.cu=.o), and the functions subst, patsubst,
    addprefix, addsuffix, notdir, dir, basename, strip, filter, filter-out,
    sort, wildcard; $(shell ...) and unknown functions expand to nothing;
  - include / -include / sinclude (a path that does not exist, such as
    `~/rodinia_3.0/common/make.config`, is looked up by its last components
    in the makefile's folder and its parents up to the suite root);
  - ifeq / ifneq / ifdef / ifndef / else / endif, evaluated with the
    variables as the Makefile sets them (nothing set on the command line, so
    `ifeq ($(dbg),1)` takes its else branch: the default build);
  - explicit rules and pattern rules (`%.o: %.cu`, `$(OBJDIR)/%.cu_o:
    %.cu`), their recipes with $@, $<, $^ and $*; a pattern rule applies to
    every name the Makefile mentions (targets, prerequisites, variable
    values) that matches its target pattern;
  - recipe lines whose command is nvcc (`nvcc`, `$(CUDA_DIR)/bin/nvcc`, a
    variable naming it), after `cd DIR;` or `cd DIR &&` prefixes.
  Not understood: recursive make's variables passed down, target-specific
  variables, define/endef, eval/call/foreach, vpath, suffix rules (.cu.o:),
  variables set on the command line (KERNEL_DIM and the like are empty).

CMake (every CMakeLists.txt; add_subdirectory passes the directory's scope
down, whatever condition it sits under):
  - set, list(APPEND), project (PROJECT_NAME, PROJECT_SOURCE_DIR),
    include_directories, add_definitions, add_compile_definitions,
    add_compile_options, CMAKE_CUDA_FLAGS, CMAKE_CUDA_STANDARD;
  - add_executable / add_library / target_sources with their .cu sources;
    target_include_directories, target_compile_definitions,
    target_compile_options, target_compile_features (cuda_std_NN),
    set_target_properties / set_property(TARGET) with
    CUDA_SEPARABLE_COMPILATION (-rdc=true) and CUDA_STANDARD;
    target_link_libraries(OpenMP::OpenMP_CUDA) adds -Xcompiler=-fopenmp
    (OpenMP::OpenMP_CXX adds -fopenmp to C++ sources only, as CMake does);
  - generator expressions $<$<COMPILE_LANGUAGE:CUDA>:X> (kept for .cu),
    $<BUILD_INTERFACE:X>; other $<...> are dropped;
  - add_custom_command(COMMAND ${CMAKE_CUDA_COMPILER} ...) compiling a .cu
    file (fatbin, ptx, cubin): a unit with that command's flags;
  - ${CUDAToolkit_INCLUDE_DIRS} and ${CUDA_INCLUDE_DIR} are CUDA's include.
  Conditions (if/else/foreach) are not evaluated: every branch counts, so a
  sample built only on Tegra or with an optional SDK is still listed.
  Not understood: usage requirements of linked targets other than OpenMP,
  functions and macros, file(GLOB) for sources, toolchain files.

A .cu file that no build compiles but a unit includes (`#include "k.cu"`,
directly or through headers) is "included by" that unit; one neither
compiled nor included is "not built" (kernels loaded at run time by NVRTC,
other ports of the suite, dead files).

Run alone, it prints every .cu file's classification and flags:
    suite_builds.py SUITE_DIR [--cuda-path /usr/local/cuda]
"""
import glob
import os
import re
import shlex
import sys

CUDA_PATH = "/usr/local/cuda"


class Unit:
    """One translation unit: a .cu file, the build file that compiles it and
    the nvcc flags of that compile that matter to a parse."""

    def __init__(self, path, build, nvcc_flags):
        self.path = path
        self.build = build
        self.nvcc_flags = nvcc_flags

    def parse_flags(self):
        """The flags as clang (cuda-opt after --) takes them."""
        return clang_flags(self.nvcc_flags)


# ----------------------------------------------------------------------------
# nvcc command lines


def nvcc_parse_flags(words, cwd):
    """The flags of an nvcc command line that affect parsing, normalised for
    nvcc (paths absolute): -I, -isystem, -D, -U, -include, -std,
    relocatable device code, --extended-lambda, --expt-relaxed-constexpr and
    the host compiler's -fopenmp. Returns (flags, .cu sources)."""
    out, sources = [], []
    i = 0

    def value(flag):
        nonlocal i
        w = words[i]
        for spelling in flag:
            if w == spelling:
                if i + 1 < len(words):
                    i += 1
                    return words[i]
                return None
            if spelling.startswith("--") and w.startswith(spelling + "="):
                return w[len(spelling) + 1:]
            if not spelling.startswith("--") and w.startswith(spelling) \
                    and len(w) > len(spelling):
                v = w[len(spelling):]
                return v[1:] if v.startswith("=") else v
        return False

    def absdir(d):
        d = os.path.expanduser(d)
        return os.path.normpath(d if os.path.isabs(d) else os.path.join(cwd, d))

    while i < len(words):
        w = words[i]
        v = value(("-I", "--include-path"))
        if v is not False:
            if v:
                out.append("-I" + absdir(v))
        elif w in ("-isystem", "--system-include") or \
                (w.startswith("-isystem") and len(w) > len("-isystem")):
            if w in ("-isystem", "--system-include"):
                i += 1
                v = words[i] if i < len(words) else ""
            else:
                v = w[len("-isystem"):]
            if v:
                out += ["-isystem", absdir(v)]
        else:
            v = value(("-D", "--define-macro"))
            if v is not False:
                if v:
                    out.append("-D" + v)
            else:
                v = value(("-U", "--undefine-macro"))
                if v is not False:
                    if v:
                        out.append("-U" + v)
                else:
                    v = value(("-include", "--pre-include"))
                    if v is not False:
                        if v:
                            out += ["-include", absdir(v)]
                    elif w in ("-std", "--std") and i + 1 < len(words):
                        i += 1
                        out.append("-std=" + words[i])
                    elif w.startswith("-std=") or w.startswith("--std="):
                        out.append("-std=" + w.split("=", 1)[1])
                    elif w in ("-rdc=true", "--relocatable-device-code=true",
                               "-dc", "--device-c"):
                        out.append("-rdc=true")
                    elif w in ("-rdc", "--relocatable-device-code") and \
                            i + 1 < len(words):
                        i += 1
                        if words[i] == "true":
                            out.append("-rdc=true")
                    elif w in ("--extended-lambda", "--expt-extended-lambda",
                               "-extended-lambda", "-expt-extended-lambda"):
                        out.append("--extended-lambda")
                    elif w in ("--expt-relaxed-constexpr",
                               "-expt-relaxed-constexpr"):
                        out.append("--expt-relaxed-constexpr")
                    elif w in ("-Xcompiler", "--compiler-options") or \
                            w.startswith("-Xcompiler=") or \
                            w.startswith("--compiler-options="):
                        if "=" in w:
                            host = w.split("=", 1)[1]
                        elif i + 1 < len(words):
                            i += 1
                            host = words[i]
                        else:
                            host = ""
                        for h in re.split(r"[,\s]+", host):
                            if h == "-fopenmp" or h == "-openmp":
                                out.append("-Xcompiler=-fopenmp")
                            elif h.startswith("-D") and len(h) > 2:
                                out.append(h)
                            elif h.startswith("-I") and len(h) > 2:
                                out.append("-I" + absdir(h[2:]))
                    elif w in ("-o", "--output-file", "-x", "-ccbin",
                               "--compiler-bindir", "-arch", "-code",
                               "--gpu-architecture", "--gpu-code", "-gencode",
                               "-Xptxas", "-Xlinker", "-L", "-l", "-maxrregcount",
                               "--gpu-name", "-Xopencc"):
                        i += 1  # a flag with a separate value we drop
                    elif not w.startswith("-") and w.endswith(".cu"):
                        sources.append(absdir(w))
        i += 1
    return out, sources


def clang_flags(nvcc_flags):
    """nvcc flags (from nvcc_parse_flags) as clang's: relocatable device code
    becomes -fgpu-rdc, the host compiler's -fopenmp -fopenmp; nvcc-only
    switches clang does not need (extended lambdas) are dropped."""
    out = []
    for f in nvcc_flags:
        if f == "-rdc=true":
            out.append("-fgpu-rdc")
        elif f == "-Xcompiler=-fopenmp":
            out.append("-fopenmp")
        elif f in ("--extended-lambda", "--expt-relaxed-constexpr"):
            continue
        else:
            out.append(f)
    # Keep each flag once, in order (CMake repeats directory settings).
    seen, uniq = set(), []
    i = 0
    while i < len(out):
        item = tuple(out[i:i + 2]) if out[i] in ("-isystem", "-include") \
            else (out[i],)
        i += len(item)
        if item not in seen:
            seen.add(item)
            uniq += list(item)
    return uniq


def is_nvcc(word):
    return os.path.basename(word) in ("nvcc", "nvcc.exe")


# ----------------------------------------------------------------------------
# Makefiles


def _split_args(s):
    """Split a function's arguments at top-level commas."""
    args, depth, cur = [], 0, ""
    for c in s:
        if c in "({":
            depth += 1
        elif c in ")}":
            depth -= 1
        if c == "," and depth == 0:
            args.append(cur)
            cur = ""
        else:
            cur += c
    args.append(cur)
    return args


def _pattern_match(pat, word):
    """The stem when word matches a make pattern with one %, else None."""
    if "%" not in pat:
        return None
    pre, post = pat.split("%", 1)
    if word.startswith(pre) and word.endswith(post) and \
            len(word) >= len(pre) + len(post):
        return word[len(pre):len(word) - len(post)]
    return None


class Makefile:
    def __init__(self, path, root):
        self.path = path
        self.dir = os.path.dirname(path)
        self.root = root
        self.vars = {"CURDIR": self.dir, "MAKE": "make", "SHELL": "/bin/sh"}
        self.rules = []  # (targets, prereqs, recipe lines)
        self.words = set()
        self.read(path, 0)

    # -- expansion ----------------------------------------------------------
    def expand(self, s, auto=None, depth=0):
        if depth > 20 or "$" not in s:
            return s
        out, i = [], 0
        while i < len(s):
            c = s[i]
            if c != "$" or i + 1 >= len(s):
                out.append(c)
                i += 1
                continue
            n = s[i + 1]
            if n == "$":
                out.append("$")
                i += 2
                continue
            if n in "({":
                close = ")" if n == "(" else "}"
                depth_p, j = 1, i + 2
                while j < len(s) and depth_p:
                    if s[j] == n:
                        depth_p += 1
                    elif s[j] == close:
                        depth_p -= 1
                    j += 1
                body = s[i + 2:j - 1]
                out.append(self.reference(body, auto, depth))
                i = j
                continue
            # $X: one-character variable ($@, $<, $^, $*, $A).
            out.append(self.reference(n, auto, depth))
            i += 2
        return "".join(out)

    def reference(self, body, auto, depth):
        if auto is not None and body in ("@", "<", "^", "*", "?", "+"):
            return auto.get(body, "")
        if body in ("@D", "<D"):
            return os.path.dirname(auto.get(body[0], "")) if auto else ""
        m = re.match(r"([\w.-]+)\s+(.*)", body, re.S)
        if m and m.group(1) in FUNCTIONS:
            name = m.group(1)
            if name == "shell":
                return ""
            args = [self.expand(a, auto, depth + 1)
                    for a in _split_args(m.group(2))]
            return FUNCTIONS[name](self, args)
        if ":" in body and "=" in body:
            # Substitution reference $(VAR:a=b).
            var, sub = body.split(":", 1)
            a, b = sub.split("=", 1)
            words = self.expand(self.vars.get(var, ""), auto, depth + 1).split()
            if "%" not in a:
                a, b = "%" + a, "%" + b
            return " ".join(_patsubst(a, b, w) for w in words)
        name = self.expand(body, auto, depth + 1)
        if m and not re.match(r"^[\w.-]+$", name):
            return ""  # unknown function
        return self.expand(self.vars.get(name, os.environ.get("SUITE_MAKE_" + name, "")),
                           auto, depth + 1)

    # -- reading ------------------------------------------------------------
    def logical_lines(self, text):
        lines, cur = [], ""
        for raw in text.splitlines():
            if raw.endswith("\\"):
                cur += raw[:-1] + " "
                continue
            lines.append(cur + raw)
            cur = ""
        if cur:
            lines.append(cur)
        return lines

    def resolve_include(self, name):
        name = os.path.expanduser(name)
        cand = name if os.path.isabs(name) else os.path.join(self.dir, name)
        if os.path.isfile(cand):
            return cand
        parts = [p for p in name.split("/") if p not in ("", ".", "..", "~")]
        d = self.dir
        while True:
            for k in range(len(parts), 0, -1):
                c = os.path.join(d, *parts[-k:])
                if os.path.isfile(c):
                    return c
            if os.path.samefile(d, self.root) or d == os.path.dirname(d):
                return None
            d = os.path.dirname(d)

    def condition(self, line):
        kw, _, rest = line.partition(" ")
        rest = rest.strip()
        if kw in ("ifdef", "ifndef"):
            defined = bool(self.expand(self.vars.get(self.expand(rest), "")).strip())
            return defined if kw == "ifdef" else not defined
        # ifeq (a,b) | ifeq "a" "b" | ifeq 'a' 'b'
        if rest.startswith("("):
            a, b = (_split_args(rest[1:rest.rfind(")")]) + [""])[:2]
        else:
            parts = re.findall(r"\"[^\"]*\"|'[^']*'", rest)
            if len(parts) < 2:
                return False
            a, b = parts[0][1:-1], parts[1][1:-1]
        eq = self.expand(a).strip() == self.expand(b).strip()
        return eq if kw == "ifeq" else not eq

    def read(self, path, level):
        if level > 8:
            return
        try:
            text = open(path, errors="replace").read()
        except OSError:
            return
        stack = []  # (active, taken) per open conditional
        rule = None
        for line in self.logical_lines(text):
            active = all(a for a, _ in stack)
            if line.startswith("\t") and rule is not None:
                # A recipe line (a tab before any rule is makefile syntax).
                if active:
                    rule[2].append(line[1:])
                continue
            stripped = re.sub(r"(?<!\\)#.*", "", line).strip()
            if not stripped:
                continue
            kw = stripped.split()[0]
            if kw in ("ifeq", "ifneq", "ifdef", "ifndef"):
                c = self.condition(stripped) if active else False
                stack.append((c, c))
                continue
            if kw == "else":
                if stack:
                    _, taken = stack[-1]
                    rest = stripped[4:].strip()
                    if rest and not taken:
                        c = self.condition(rest)
                        stack[-1] = (c, c)
                    else:
                        stack[-1] = (not taken, True)
                continue
            if kw == "endif":
                if stack:
                    stack.pop()
                continue
            if not active:
                continue
            if kw in ("include", "-include", "sinclude"):
                for name in self.expand(stripped.split(None, 1)[1]
                                        if " " in stripped else "").split():
                    inc = self.resolve_include(name)
                    if inc:
                        self.read(inc, level + 1)
                rule = None
                continue
            m = re.match(r"^(?:override\s+|export\s+)?([\w.-]+)\s*"
                         r"(::=|:=|\?=|\+=|!=|=)\s*(.*)$", stripped)
            if m:
                name, op, val = m.groups()
                if op in (":=", "::="):
                    self.vars[name] = self.expand(val)
                elif op == "?=":
                    self.vars.setdefault(name, val)
                elif op == "+=":
                    old = self.vars.get(name, "")
                    self.vars[name] = (old + " " + val).strip()
                elif op == "!=":
                    self.vars[name] = ""
                else:
                    self.vars[name] = val
                rule = None
                continue
            m = re.match(r"^([^:=]+?)\s*::?\s*(.*)$", stripped)
            if m and not re.match(r"^\.[A-Z_]+\s*:", stripped):
                targets = self.expand(m.group(1)).split()
                rest = m.group(2)
                recipe = []
                if ";" in rest:
                    rest, inline = rest.split(";", 1)
                    recipe.append(inline)
                # Static pattern rule: targets: target-pattern: prereqs.
                static = None
                if re.match(r"^[^:]*%[^:]*:", self.expand(rest)):
                    tp, rest = self.expand(rest).split(":", 1)
                    static = tp.strip()
                prereqs = self.expand(rest).split()
                rule = (targets, prereqs, recipe, static)
                self.rules.append(rule)
                continue
            rule = None

    # -- units --------------------------------------------------------------
    def mentioned_words(self):
        words = set()
        for v in list(self.vars):
            words.update(self.expand(self.vars[v]).split())
        for targets, prereqs, _, _ in self.rules:
            words.update(targets)
            words.update(prereqs)
        return words

    def compiles(self):
        """[(nvcc flags, [sources])] of every nvcc recipe line."""
        found = []
        words = None
        for targets, prereqs, recipe, static in self.rules:
            if not recipe:
                continue
            instances = []
            pattern = "%" in " ".join(targets) if static is None else True
            if static is not None:
                for t in targets:
                    stem = _pattern_match(static, t)
                    if stem is not None:
                        instances.append((t, stem))
            elif pattern:
                if words is None:
                    words = self.mentioned_words()
                for tp in targets:
                    for w in sorted(words):
                        stem = _pattern_match(tp, w)
                        if stem is not None and stem:
                            instances.append((w, stem))
            else:
                instances = [(targets[0] if targets else "", None)]
            for target, stem in instances:
                pre = [p.replace("%", stem) if stem is not None else p
                       for p in prereqs]
                if pattern and stem is not None and not any(
                        os.path.isfile(os.path.join(self.dir, p))
                        for p in pre[:1]):
                    continue
                auto = {"@": target, "<": pre[0] if pre else "",
                        "^": " ".join(pre), "+": " ".join(pre),
                        "?": " ".join(pre), "*": stem or ""}
                for line in recipe:
                    found += self.recipe_compiles(self.expand(line, auto))
        return found

    def recipe_compiles(self, line):
        out = []
        cwd = self.dir
        for cmd in re.split(r"&&|;|\|\|", line):
            cmd = cmd.strip().lstrip("@-+").strip()
            try:
                words = shlex.split(cmd)
            except ValueError:
                words = cmd.split()
            if not words:
                continue
            if words[0] == "cd" and len(words) > 1:
                cwd = os.path.normpath(os.path.join(cwd, words[1]))
                continue
            if is_nvcc(words[0]):
                flags, sources = nvcc_parse_flags(words[1:], cwd)
                if sources:
                    out.append((flags, sources))
        return out


def _patsubst(a, b, w):
    stem = _pattern_match(a, w)
    if stem is None:
        return w if "%" in a else (b if w == a else w)
    return b.replace("%", stem, 1)


def _wildcard(mk, args):
    res = []
    for p in args[0].split():
        full = p if os.path.isabs(p) else os.path.join(mk.dir, p)
        res += sorted(os.path.relpath(f, mk.dir) if not os.path.isabs(p) else f
                      for f in glob.glob(full))
    return " ".join(res)


FUNCTIONS = {
    "shell": lambda mk, a: "",
    "subst": lambda mk, a: a[2].replace(a[0], a[1]) if len(a) > 2 else "",
    "patsubst": lambda mk, a: " ".join(_patsubst(a[0].strip(), a[1].strip(), w)
                                       for w in a[2].split()) if len(a) > 2 else "",
    "addprefix": lambda mk, a: " ".join(a[0].strip() + w for w in a[1].split())
    if len(a) > 1 else "",
    "addsuffix": lambda mk, a: " ".join(w + a[0].strip() for w in a[1].split())
    if len(a) > 1 else "",
    "notdir": lambda mk, a: " ".join(os.path.basename(w) for w in a[0].split()),
    "dir": lambda mk, a: " ".join((os.path.dirname(w) or ".") + "/"
                                  for w in a[0].split()),
    "basename": lambda mk, a: " ".join(os.path.splitext(w)[0]
                                       for w in a[0].split()),
    "strip": lambda mk, a: " ".join(a[0].split()),
    "sort": lambda mk, a: " ".join(sorted(set(a[0].split()))),
    "filter": lambda mk, a: " ".join(
        w for w in a[1].split() if any(_pattern_match(p, w) is not None or p == w
                                       for p in a[0].split())) if len(a) > 1 else "",
    "filter-out": lambda mk, a: " ".join(
        w for w in a[1].split() if not any(_pattern_match(p, w) is not None or p == w
                                           for p in a[0].split())) if len(a) > 1 else "",
    "wildcard": _wildcard,
    "error": lambda mk, a: "",
    "warning": lambda mk, a: "",
    "info": lambda mk, a: "",
}


def makefile_units(root):
    """{.cu path: Unit} from every Makefile under root."""
    primary, variants = [], []
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            if f in ("Makefile", "makefile", "GNUmakefile"):
                primary.append(os.path.join(d, f))
            elif f.startswith(("Makefile", "makefile")) and \
                    not f.endswith((".in", ".am")):
                variants.append(os.path.join(d, f))
    units = {}
    for group in (primary, variants):
        found = {}
        for path in group:
            try:
                mk = Makefile(path, root)
                compiles = mk.compiles()
            except RecursionError:
                continue
            for flags, sources in compiles:
                for src in sources:
                    if os.path.isfile(src) and src not in units and \
                            src not in found:
                        found[src] = Unit(src, os.path.relpath(path, root),
                                          flags)
        units.update(found)
    return units


# ----------------------------------------------------------------------------
# CMake


def cmake_commands(text):
    """[(name, [args])] of a CMakeLists.txt; quoted arguments keep their
    spaces, bracket comments and # comments are dropped."""
    text = re.sub(r"#\[(=*)\[.*?\]\1\]", " ", text, flags=re.S)
    cmds = []
    i, n = 0, len(text)
    name_re = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(")
    while i < n:
        if text[i] == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        m = name_re.match(text, i)
        if not m:
            i += 1
            continue
        name = m.group(1).lower()
        i = m.end()
        args, depth, cur, quoted = [], 1, "", False
        while i < n and depth:
            c = text[i]
            if quoted:
                if c == "\\" and i + 1 < n:
                    cur += text[i:i + 2]
                    i += 2
                    continue
                if c == '"':
                    quoted = False
                    args.append(("q", cur))
                    cur = ""
                else:
                    cur += c
            elif c == '"':
                quoted = True
            elif c == "#":
                j = text.find("\n", i)
                i = n if j < 0 else j
                continue
            elif c == "(":
                depth += 1
                cur += c
            elif c == ")":
                depth -= 1
                if depth:
                    cur += c
            elif c.isspace():
                if cur:
                    args.append(("u", cur))
                    cur = ""
            else:
                cur += c
            i += 1
        if cur:
            args.append(("u", cur))
        cmds.append((name, args))
    return cmds


def _genex(s, language="CUDA"):
    """Evaluate the generator expressions cuda-samples uses."""
    for _ in range(10):
        m = re.search(r"\$<([^<>]*)>", s)
        if not m:
            break
        body = m.group(1)
        rep = ""
        if body.startswith("COMPILE_LANGUAGE:"):
            rep = "1" if language in body.split(":", 1)[1].split(",") else "0"
        elif body.startswith("BUILD_INTERFACE:"):
            rep = body.split(":", 1)[1]
        elif body.startswith("1:"):
            rep = body[2:]
        elif body.startswith("0:"):
            rep = ""
        s = s[:m.start()] + rep + s[m.end():]
    return s


class CMakeScope:
    def __init__(self, parent=None):
        self.vars = dict(parent.vars) if parent else {}
        self.include_dirs = list(parent.include_dirs) if parent else []
        self.definitions = list(parent.definitions) if parent else []
        self.options = list(parent.options) if parent else []


class CMakeProject:
    def __init__(self, root, cuda_path=CUDA_PATH):
        self.root = root
        self.cuda_path = cuda_path
        self.targets = {}  # name -> dict
        self.custom = []  # (flags, sources, build file)
        self.visited = set()
        top = os.path.join(root, "CMakeLists.txt")
        if os.path.isfile(top):
            self.process(root, CMakeScope())
        for d, dirs, files in os.walk(root):
            dirs.sort()
            if "CMakeLists.txt" in files and os.path.realpath(d) not in self.visited:
                self.process(d, CMakeScope())

    def expand(self, s, scope, cur):
        def var(m):
            name = m.group(1)
            if name in ("CMAKE_CURRENT_SOURCE_DIR", "CMAKE_CURRENT_LIST_DIR"):
                return cur
            if name in ("CMAKE_SOURCE_DIR",):
                return self.root
            if name in ("CUDAToolkit_INCLUDE_DIRS", "CUDA_INCLUDE_DIR",
                        "CUDA_INCLUDE_DIRS", "CUDAToolkit_INCLUDE_DIR"):
                return os.path.join(self.cuda_path, "include")
            if name in ("CMAKE_CUDA_COMPILER", "CUDAToolkit_NVCC_EXECUTABLE"):
                return os.path.join(self.cuda_path, "bin", "nvcc")
            if name.startswith("CMAKE_CURRENT_BINARY_DIR") or \
                    name == "CMAKE_BINARY_DIR":
                return os.path.join(cur, "<build>")
            return scope.vars.get(name, "")
        for _ in range(10):
            new = re.sub(r"\$ENV\{[^}]*\}", "", s)
            new = re.sub(r"\$\{([A-Za-z0-9_.+-]*)\}", var, new)
            if new == s:
                break
            s = new
        return s

    def values(self, args, scope, cur):
        """Expanded arguments; an unquoted one splits at ';'."""
        out = []
        for kind, a in args:
            v = self.expand(a, scope, cur)
            if kind == "q":
                out.append(v)
            else:
                out += [x for x in v.split(";") if x != ""]
        return out

    def target(self, name):
        return self.targets.get(name)

    def process(self, d, scope):
        real = os.path.realpath(d)
        if real in self.visited:
            return
        self.visited.add(real)
        path = os.path.join(d, "CMakeLists.txt")
        try:
            text = open(path, errors="replace").read()
        except OSError:
            return
        build = os.path.relpath(path, self.root)
        for name, args in cmake_commands(text):
            vals = self.values(args, scope, d)
            absd = lambda p: os.path.normpath(p if os.path.isabs(p)
                                              else os.path.join(d, p))
            if name == "set" and vals:
                rest = [v for v in vals[1:]]
                for stop in ("CACHE", "PARENT_SCOPE"):
                    if stop in rest:
                        rest = rest[:rest.index(stop)]
                scope.vars[vals[0]] = ";".join(rest)
            elif name == "list" and len(vals) >= 2 and vals[0] == "APPEND":
                old = scope.vars.get(vals[1], "")
                scope.vars[vals[1]] = ";".join(([old] if old else []) + vals[2:])
            elif name == "project" and vals:
                scope.vars["PROJECT_NAME"] = vals[0]
                scope.vars["PROJECT_SOURCE_DIR"] = d
            elif name == "include_directories":
                scope.include_dirs += [absd(v) for v in vals
                                       if v not in ("SYSTEM", "BEFORE", "AFTER")]
            elif name == "add_definitions":
                scope.definitions += [v for v in vals if v.startswith("-D")]
            elif name == "add_compile_definitions":
                scope.definitions += ["-D" + v for v in vals]
            elif name == "add_compile_options":
                scope.options += vals
            elif name == "add_subdirectory" and vals:
                sub = absd(vals[0])
                if os.path.isfile(os.path.join(sub, "CMakeLists.txt")):
                    self.process(sub, CMakeScope(scope))
            elif name in ("add_executable", "add_library") and vals:
                if "IMPORTED" in vals or "ALIAS" in vals or "INTERFACE" in vals[1:2]:
                    continue
                srcs = [absd(v) for v in vals[1:] if v.endswith(".cu")]
                self.targets[vals[0]] = {
                    "build": build, "dir": d, "sources": srcs,
                    "scope": scope, "include_dirs": [], "definitions": [],
                    "options": [], "std": None, "rdc": False, "omp": False}
            elif name == "target_sources" and vals and self.target(vals[0]):
                self.target(vals[0])["sources"] += [
                    absd(v) for v in vals[1:] if v.endswith(".cu")]
            elif name == "target_include_directories" and vals and \
                    self.target(vals[0]):
                self.target(vals[0])["include_dirs"] += [
                    absd(_genex(v)) for v in vals[1:] if _genex(v) and v not in (
                        "PUBLIC", "PRIVATE", "INTERFACE", "SYSTEM", "BEFORE",
                        "AFTER")]
            elif name == "target_compile_definitions" and vals and \
                    self.target(vals[0]):
                self.target(vals[0])["definitions"] += [
                    "-D" + _genex(v).lstrip("-D") if not _genex(v).startswith("-D")
                    else _genex(v) for v in vals[1:] if _genex(v) and v not in (
                        "PUBLIC", "PRIVATE", "INTERFACE")]
            elif name == "target_compile_options" and vals and \
                    self.target(vals[0]):
                for v in vals[1:]:
                    v = _genex(v)
                    if v and v not in ("PUBLIC", "PRIVATE", "INTERFACE", "BEFORE"):
                        self.target(vals[0])["options"] += v.split()
            elif name == "target_compile_features" and vals and \
                    self.target(vals[0]):
                for v in vals[1:]:
                    m = re.match(r"cuda_std_(\d+)$", v)
                    if m:
                        self.target(vals[0])["std"] = m.group(1)
            elif name in ("set_target_properties", "set_property"):
                if name == "set_property":
                    if not vals or vals[0] != "TARGET":
                        continue
                    try:
                        p = vals.index("PROPERTY")
                    except ValueError:
                        continue
                    tnames, props = vals[1:p], vals[p + 1:]
                else:
                    if "PROPERTIES" not in vals:
                        continue
                    p = vals.index("PROPERTIES")
                    tnames, props = vals[:p], vals[p + 1:]
                for t in tnames:
                    tgt = self.target(t)
                    if not tgt:
                        continue
                    for k, v in zip(props[0::2], props[1::2]):
                        if k == "CUDA_SEPARABLE_COMPILATION":
                            tgt["rdc"] = v.upper() in ("ON", "TRUE", "1", "YES")
                        elif k == "CUDA_STANDARD":
                            tgt["std"] = v
            elif name == "target_link_libraries" and vals and \
                    self.target(vals[0]):
                if "OpenMP::OpenMP_CUDA" in vals:
                    self.target(vals[0])["omp"] = True
            elif name == "add_custom_command":
                if "COMMAND" not in vals:
                    continue
                cmd = vals[vals.index("COMMAND") + 1:]
                for stop in ("DEPENDS", "COMMENT", "WORKING_DIRECTORY",
                             "COMMAND", "OUTPUT", "VERBATIM", "MAIN_DEPENDENCY"):
                    if stop in cmd:
                        cmd = cmd[:cmd.index(stop)]
                words = []
                for w in cmd:
                    words += w.split() if " " in w and not os.path.exists(w) else [w]
                if words and is_nvcc(words[0]):
                    flags, sources = nvcc_parse_flags(words[1:], d)
                    if sources:
                        self.custom.append((flags, sources, build))
        # Directory-level CUDA settings are read when the directory ends.
        scope.vars.setdefault("CMAKE_CUDA_FLAGS", "")

    def units(self):
        units = {}
        for name, t in self.targets.items():
            sc = t["scope"]
            words = (["-I" + x for x in sc.include_dirs] + sc.definitions +
                     sc.options + sc.vars.get("CMAKE_CUDA_FLAGS", "").split() +
                     ["-I" + x for x in t["include_dirs"]] + t["definitions"] +
                     t["options"])
            std = t["std"] or sc.vars.get("CMAKE_CUDA_STANDARD")
            if std:
                words.append("-std=c++" + std)
            if t["rdc"]:
                words.append("-rdc=true")
            if t["omp"]:
                words += ["-Xcompiler", "-fopenmp"]
            flags, _ = nvcc_parse_flags(words, t["dir"])
            for src in t["sources"]:
                if os.path.isfile(src) and src not in units:
                    units[src] = Unit(src, t["build"] + " (" + name + ")", flags)
        for flags, sources, build in self.custom:
            for src in sources:
                if os.path.isfile(src) and src not in units:
                    units[src] = Unit(src, build + " (custom command)", flags)
        return units


# ----------------------------------------------------------------------------
# Includes


INCLUDE_RE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.M)


def included_files(unit):
    """Every file a unit includes from the suite (quoted or angled includes
    found in its folder, the includer's folder or its -I folders),
    transitively; system and CUDA headers are not followed."""
    dirs = [f[2:] for f in unit.nvcc_flags if f.startswith("-I")]
    seen, todo = set(), [unit.path]
    while todo:
        f = todo.pop()
        try:
            text = open(f, errors="replace").read()
        except OSError:
            continue
        for name in INCLUDE_RE.findall(text):
            for d in [os.path.dirname(f)] + dirs:
                c = os.path.normpath(os.path.join(d, name))
                if os.path.isfile(c):
                    if c not in seen:
                        seen.add(c)
                        todo.append(c)
                    break
    return seen


def classify_suite(root, cuda_path=CUDA_PATH):
    """(units {path: Unit}, included {path: unit path}, not_built [path]) for
    every .cu file under root."""
    root = os.path.abspath(root)
    units = makefile_units(root)
    for path, u in CMakeProject(root, cuda_path).units().items():
        units.setdefault(path, u)
    included = {}
    for path in sorted(units):
        for inc in sorted(included_files(units[path])):
            if inc.endswith(".cu") and inc not in units and inc not in included:
                included[inc] = path
    not_built = []
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(d, f)
            if f.endswith(".cu") and p not in units and p not in included:
                not_built.append(p)
    return units, included, not_built


def main():
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root")
    ap.add_argument("--cuda-path", default=CUDA_PATH)
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    units, included, not_built = classify_suite(root, args.cuda_path)
    rel = lambda p: os.path.relpath(p, root)
    for p in sorted(set(units) | set(included) | set(not_built)):
        if p in units:
            u = units[p]
            flags = " ".join(f.replace(root, "<suite>")
                             for f in u.parse_flags())
            print("unit %s [%s]: %s" % (rel(p), u.build, flags))
        elif p in included:
            print("included %s by %s" % (rel(p), rel(included[p])))
        else:
            print("not-built %s" % rel(p))
    print("%d units, %d included, %d not built" % (
        len(units), len(included), len(not_built)))


if __name__ == "__main__":
    main()
