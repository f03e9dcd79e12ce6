#!/usr/bin/env python3
"""Check that cuda-opt's lib/ stages only depend downwards.

The stages of the data path, lowest first (docs/architecture.md):
  Support < Frontend < Analysis < Pass < Transforms < Capture < Measure < Search
SparseLowering sits beside them and may use Support only.

Checked, over the source tree given as the argument (default: this repo):
  * #include "cuda-opt/<Stage>/..." lines in lib/<S>/ and include/cuda-opt/<S>/
    name only stages at or below S;
  * LINK_LIBS of every add_cuda_opt_library() in lib/*/CMakeLists.txt name only
    libraries of lower stages (or, within one folder, libraries declared before);
  * the clang plugin (tools/cuda-opt-plugin) reaches neither the measurement
    stages nor MLIR through its link libraries.
Prints one line per violation and exits 1 if there is any; prints a summary
and exits 0 otherwise.
"""
import os
import re
import sys

STAGES = ["Support", "Frontend", "Analysis", "Pass", "Transforms", "Capture",
          "Measure", "Search"]
BESIDE = {"SparseLowering": {"Support"}}
# Libraries the plugin must not link, directly or through another library.
PLUGIN_FORBIDDEN = {"CudaOptCapture", "CudaOptMeasure", "CudaOptSearch",
                    "CudaOptSparseLowering", "CudaOptMLIR", "MLIR"}

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"cuda-opt/([A-Za-z]+)/')
LIBRARY_RE = re.compile(r"add_cuda_opt_library\(\s*(\w+)(.*?)\)", re.S)


def rank(stage):
    return STAGES.index(stage) if stage in STAGES else None


def may_include(owner, target):
    if owner in BESIDE:
        return target == owner or target in BESIDE[owner]
    if target in BESIDE:
        return False  # A stage of the main path never needs the MLIR side.
    ro, rt = rank(owner), rank(target)
    return ro is not None and rt is not None and rt <= ro


def source_files(root):
    for top in ("lib", os.path.join("include", "cuda-opt")):
        base = os.path.join(root, top)
        if not os.path.isdir(base):
            continue
        for stage in sorted(os.listdir(base)):
            folder = os.path.join(base, stage)
            if not os.path.isdir(folder):
                continue
            for dirpath, _, files in os.walk(folder):
                for name in sorted(files):
                    if name.endswith((".h", ".cpp", ".inc", ".def", ".cuh")):
                        yield stage, os.path.join(dirpath, name)


def check_includes(root, errors):
    count = 0
    for stage, path in source_files(root):
        with open(path, encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                count += 1
                target = m.group(1)
                if not may_include(stage, target):
                    errors.append(
                        f"{os.path.relpath(path, root)}:{lineno}: stage "
                        f"'{stage}' includes cuda-opt/{target}/, a stage that "
                        f"is not below it")
    return count


def libraries(root):
    """{library: (stage, [link libs], order)} from lib/*/CMakeLists.txt."""
    libs = {}
    order = 0
    base = os.path.join(root, "lib")
    for stage in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        cmake = os.path.join(base, stage, "CMakeLists.txt")
        if not os.path.exists(cmake):
            continue
        text = re.sub(r"#.*", "", open(cmake, encoding="utf-8").read())
        for m in LIBRARY_RE.finditer(text):
            body = m.group(2).split()
            links = []
            if "LINK_LIBS" in body:
                i = body.index("LINK_LIBS") + 1
                while i < len(body) and body[i] not in ("DEPENDS",):
                    links.append(body[i])
                    i += 1
            order += 1
            libs[m.group(1)] = (stage, links, order)
    return libs


def check_links(root, libs, errors):
    for name, (stage, links, order) in sorted(libs.items()):
        for dep in links:
            if dep not in libs:
                continue  # Runtime libraries (CudaOptSparse) and LLVM.
            dstage, _, dorder = libs[dep]
            ok = may_include(stage, dstage) and (
                dstage != stage or dorder < order)
            if not ok:
                errors.append(
                    f"lib/{stage}/CMakeLists.txt: {name} (stage '{stage}') "
                    f"links {dep} (stage '{dstage}'), which is not below it")


def reach(libs, start):
    seen, todo = set(), list(start)
    while todo:
        lib = todo.pop()
        if lib in seen:
            continue
        seen.add(lib)
        if lib in libs:
            todo.extend(libs[lib][1])
    return seen


def check_plugin(root, libs, errors):
    cmake = os.path.join(root, "tools", "cuda-opt-plugin", "CMakeLists.txt")
    if not os.path.exists(cmake):
        return
    text = re.sub(r"#.*", "", open(cmake, encoding="utf-8").read())
    m = re.search(r"target_link_libraries\(\s*CudaOptPlugin\s+PRIVATE(.*?)\)",
                  text, re.S)
    direct = m.group(1).split() if m else []
    bad = sorted(reach(libs, direct) & PLUGIN_FORBIDDEN)
    for lib in bad:
        errors.append(f"tools/cuda-opt-plugin/CMakeLists.txt: the plugin "
                      f"reaches {lib}; it may link the stages up to the "
                      f"policy only")


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    errors = []
    includes = check_includes(root, errors)
    libs = libraries(root)
    check_links(root, libs, errors)
    check_plugin(root, libs, errors)
    for e in errors:
        print("error: " + e)
    if errors:
        print(f"layering: {len(errors)} violation(s)")
        return 1
    print(f"layering: ok ({includes} includes, {len(libs)} libraries checked)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
