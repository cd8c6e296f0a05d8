#!/usr/bin/env python3
"""Regenerate tests/zkx/programs/ from ZKX's own test sources.

usage: tests/zkx/regen.py ZKX [--zk-dtypes ZKD] [--commit SHA] [--out DIR]

ZKX is a checkout of github.com/fractalyze/zkx or a bare git mirror of it (read at HEAD
with `git show`). The optional ZKD (a zk_dtypes checkout or mirror) checks the C++ type ->
HLO type-name table below against zk_dtypes' all_types.h at the commit ZKX pins.

What it extracts, and how (nothing of ZKX is compiled or run):

* The typed GoogleTest suites of the headers in SUITES. A header defines fixtures
  (`template <typename F> class FieldScalarBinaryTest`) whose `SetUpX()` methods build
  `hlo_text_ = absl::Substitute(R"(...)", args...)` (or a plain `hlo_text_ = R"(...)"`;
  a raw string of a header that no listed test uses is reported); the matching *_unittest.cc files list
  the types (`testing::Types<...>` + TYPED_TEST_SUITE) and the tests
  (`TYPED_TEST(Fixture, Name) { this->SetUpX(); ... }`). One program per (test, type).
  The args are resolved as ZKX computes them: `x_typename_` etc. from the fixture's SetUp()
  (`LowercasePrimitiveTypeName(NativeToPrimitiveType<T>())`, T the type parameter or one of
  its member types), integer constants from `constexpr static int64_t N = 4;`. Args ZKX
  draws at run time get a fixed value, recorded in the program's header (FIXED below).
* The benchmarks in BENCHMARKS: `GenerateHlo(...)` is one Substitute; its enum args are
  expanded over every case of the switch that maps the enum to an HLO string (read from
  benchmark/*_flag.cc), bools over both values, and the degree (a required command-line
  flag, `-k`) is fixed at BENCH_DEGREE.

Output: one file per program, `<suite>__<Fixture.Test>__<type>.hlo` (benchmarks:
`<suite>__<variant>__<type>.hlo`), the ZKX text verbatim after a `//` header naming the
source, line, test, type and what ZKX expects, and MANIFEST.tsv. The manifest's `status`
column (what fieldfuse does with the program today, checked by run_corpus.py) is kept from
the existing manifest for programs already listed; a new program gets `new` and fails the
test until someone records its status (run_corpus.py --update writes the observed ones).
Python 3, standard library only.
"""

import argparse
import os
import re
import subprocess
import sys

# LowercasePrimitiveTypeName of each C++ type the suites list (zkx/primitive_util.cc builds
# the names from zk_dtypes' ZK_DTYPES_PUBLIC_TYPE_LIST, zk_dtypes/include/all_types.h at the
# commit ZKX pins in third_party/py/zk_dtypes/workspace.bzl: de0d3bd127178d). Member types
# the fixtures use (AffinePoint::JacobianPoint, ::ScalarField) are resolved by MEMBER_TYPES.
TYPE_NAMES = {
    "zk_dtypes::Babybear": "babybear",
    "zk_dtypes::Mersenne31": "mersenne31",
    "zk_dtypes::Goldilocks": "goldilocks",
    "zk_dtypes::Koalabear": "koalabear",
    "zk_dtypes::bn254::Fr": "bn254_sf",
    "zk_dtypes::BabybearX4": "babybearx4",
    "zk_dtypes::KoalabearX4": "koalabearx4",
    "zk_dtypes::Mersenne31X2": "mersenne31x2",
    "zk_dtypes::GoldilocksX3": "goldilocksx3",
    "zk_dtypes::bn254::G1AffinePoint": "bn254_g1_affine",
    "zk_dtypes::bn254::G2AffinePoint": "bn254_g2_affine",
    "zk_dtypes::bn254::G1JacobianPoint": "bn254_g1_jacobian",
    "zk_dtypes::bn254::G2JacobianPoint": "bn254_g2_jacobian",
    "zk_dtypes::bn254::G1PointXyzz": "bn254_g1_xyzz",
    "zk_dtypes::bn254::G2PointXyzz": "bn254_g2_xyzz",
}
# zk_dtypes' point classes: AffinePoint<Curve>::JacobianPoint / ::ScalarField.
MEMBER_TYPES = {
    ("zk_dtypes::bn254::G1AffinePoint", "JacobianPoint"): "zk_dtypes::bn254::G1JacobianPoint",
    ("zk_dtypes::bn254::G2AffinePoint", "JacobianPoint"): "zk_dtypes::bn254::G2JacobianPoint",
    ("zk_dtypes::bn254::G1AffinePoint", "ScalarField"): "zk_dtypes::bn254::Fr",
    ("zk_dtypes::bn254::G2AffinePoint", "ScalarField"): "zk_dtypes::bn254::Fr",
}

# Args ZKX computes at run time: the fixed value used here, and why.
FIXED = {
    # ComparisonDirection picked by RandomComparisonDirection() (any of the six) in the
    # field suite's SetUpCompare: LT stands for the four orderings (4 of the 6 draws).
    "RandomComparisonDirection()": ("LT", "direction is RandomComparisonDirection() at run time "
                                          "(EQ NE GE GT LE LT); LT is used here"),
    # RandomEqualityComparisonDirection() (EQ or NE) in the group suite's SetUpCompare.
    "RandomEqualityComparisonDirection()": ("EQ", "direction is RandomEqualityComparisonDirection() "
                                                  "at run time (EQ or NE); EQ is used here"),
    # msm_test.h: tsl::port::MaxParallelism() + 1 (host threads + 1, so the MSM is chunked).
    "tsl::port::MaxParallelism() + 1": ("17", "the length is tsl::port::MaxParallelism() + 1 at run "
                                              "time (the host's thread count + 1); 16 threads "
                                              "assumed, so 17"),
}
BENCH_DEGREE = 4  # benchmarks take the degree from `-k` (required); 2^4 = 16 elements here

# suite name -> (header, [unittest .cc files])
SUITES = [
    ("cpu_field", "zkx/backends/cpu/codegen/field_test.h",
     ["zkx/backends/cpu/codegen/cpu_kernel_emitter_field_unittest.cc"]),
    ("gpu_field", "zkx/backends/gpu/codegen/field_test.h",
     ["zkx/backends/gpu/codegen/cuda_kernel_emitter_field_unittest.cc"]),
    ("gpu_ext_field", "zkx/backends/gpu/codegen/field_test.h",
     ["zkx/backends/gpu/codegen/cuda_kernel_emitter_ext_field_unittest.cc"]),
    ("cpu_group", "zkx/backends/cpu/codegen/group_test.h",
     ["zkx/backends/cpu/codegen/cpu_kernel_emitter_g1_unittest.cc",
      "zkx/backends/cpu/codegen/cpu_kernel_emitter_g2_unittest.cc"]),
    ("gpu_group", "zkx/backends/gpu/codegen/group_test.h",
     ["zkx/backends/gpu/codegen/cuda_kernel_emitter_g1_unittest.cc",
      "zkx/backends/gpu/codegen/cuda_kernel_emitter_g2_unittest.cc"]),
    ("cpu_msm", "zkx/backends/cpu/codegen/msm_test.h",
     ["zkx/backends/cpu/codegen/cpu_kernel_emitter_g1_msm_unittest.cc",
      "zkx/backends/cpu/codegen/cpu_kernel_emitter_g2_msm_unittest.cc"]),
]
# suite name -> (benchmark source, flag source for the enum -> HLO string switches)
BENCHMARKS = [
    ("bench_vec_ops", "benchmark/vec_ops/benchmark.cc", "benchmark/field_flag.cc"),
    ("bench_fft", "benchmark/fft/benchmark.cc", "benchmark/field_flag.cc"),
    ("bench_msm", "benchmark/msm/benchmark.cc", "benchmark/curve_flag.cc"),
]


class Source:
    """Files of a checkout (a directory with the files) or a git repository (bare or not)."""

    def __init__(self, path):
        self.path = path
        self.git = os.path.isdir(os.path.join(path, ".git")) or (
            os.path.isfile(os.path.join(path, "HEAD")) and os.path.isdir(os.path.join(path, "objects")))
        self.bare = self.git and not os.path.isdir(os.path.join(path, ".git"))
        self.commit = self._git("rev-parse", "HEAD").strip() if self.git else "unknown"
        self.date = self._git("log", "-1", "--format=%cs %s", "HEAD").strip() if self.git else ""

    def _git(self, *args):
        return subprocess.run(["git", "-C", self.path, *args], check=True, capture_output=True,
                              text=True).stdout

    def read(self, rel, rev="HEAD"):
        if self.bare or rev != "HEAD":
            return self._git("show", f"{rev}:{rel}")
        with open(os.path.join(self.path, rel), encoding="utf-8") as f:
            return f.read()


def skip_literal(text, i):
    """If a string/char literal, raw string or comment starts at i, the index after it."""
    if text.startswith('R"', i):
        m = re.match(r'R"([^(\s]*)\(', text[i:])
        end = text.index(")" + m.group(1) + '"', i + m.end())
        return end + len(m.group(1)) + 2
    if text[i] in "\"'":
        q, j = text[i], i + 1
        while text[j] != q:
            j += 2 if text[j] == "\\" else 1
        return j + 1
    if text.startswith("//", i):
        j = text.find("\n", i)
        return len(text) if j < 0 else j
    if text.startswith("/*", i):
        return text.index("*/", i) + 2
    return None


def match_close(text, i):
    """text[i] is ( [ or {: the index of its partner, skipping literals and comments."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    depth, j = 0, i
    while j < len(text):
        k = skip_literal(text, j)
        if k is not None:
            j = k
            continue
        c = text[j]
        if c in pairs:
            depth += 1
        elif c in pairs.values():
            depth -= 1
            if depth == 0:
                return j
        j += 1
    raise ValueError(f"unbalanced bracket at {i}")


def split_args(text):
    """Top-level comma-separated arguments of a call's argument text."""
    args, start, j = [], 0, 0
    while j < len(text):
        k = skip_literal(text, j)
        if k is not None:
            j = k
            continue
        if text[j] in "([{":
            j = match_close(text, j) + 1
            continue
        if text[j] == ",":
            args.append(text[start:j].strip())
            start = j + 1
        j += 1
    args.append(text[start:].strip())
    return [a for a in args if a]


def line_of(text, i):
    return text.count("\n", 0, i) + 1


def substitute(fmt, args):
    """absl::Substitute: $0..$9 are args, $$ is a dollar sign."""
    def rep(m):
        if m.group(1) == "$":
            return "$"
        n = int(m.group(1))
        if n >= len(args):
            raise ValueError(f"${n} with {len(args)} args")
        return args[n]
    return re.sub(r"\$(\$|\d)", rep, fmt)


def raw_string(arg):
    m = re.fullmatch(r'R"([^(\s]*)\((.*)\)\1"', arg, re.S)
    if not m:
        raise ValueError(f"not a raw string: {arg[:40]}")
    return m.group(2)


def classes(header):
    """{fixture name: (class text, offset)} of a header's class templates."""
    out = {}
    for m in re.finditer(r"template <typename (\w+)>\s*class (\w+)\s*:[^{]*\{", header):
        end = match_close(header, m.end() - 1)
        out[m.group(2)] = (m.group(1), header[m.start():end + 1], m.start())
    return out


def methods(cls_text):
    """{method name: (body, offset in cls_text)} of `void Name() [override] {` methods."""
    out = {}
    for m in re.finditer(r"void (\w+)\(\)\s*(?:const\s*)?(?:override\s*)?\{", cls_text):
        end = match_close(cls_text, m.end() - 1)
        out[m.group(1)] = (cls_text[m.end():end], m.start())
    return out


def int_constants(text):
    return {m.group(1): m.group(2) for m in re.finditer(
        r"constexpr static (?:int64_t|size_t|int) (\w+) = (\d+);", text)}


class Resolver:
    """Evaluates one fixture's Substitute args for one C++ type."""

    def __init__(self, param, cls_text, setup_body, method_body, cpp_type):
        self.param, self.cpp_type = param, cpp_type
        self.aliases = {m.group(1): m.group(3) for m in re.finditer(
            r"using (\w+) = typename (\w+)::(\w+);", cls_text) if m.group(2) == param}
        self.consts = int_constants(cls_text)
        self.consts.update(int_constants(method_body))
        self.fields = {}
        for m in re.finditer(r"(\w+_typename_) = primitive_util::LowercasePrimitiveTypeName\(\s*"
                             r"primitive_util::NativeToPrimitiveType<(\w+)>\(\)\);", setup_body):
            self.fields[m.group(1)] = m.group(2)
        self.locals = {}
        for m in re.finditer(r"(?:ComparisonDirection|auto) (\w+) = ([^;]+);", method_body):
            self.locals[m.group(1)] = m.group(2).strip()
        for m in re.finditer(r"std::string (\w+) = ComparisonDirectionToString\((\w+)\);", method_body):
            self.locals[m.group(1)] = self.locals.get(m.group(2), m.group(2))
        for m in re.finditer(r"(\w+_) = ([^;]+);", setup_body):
            self.locals.setdefault(m.group(1), m.group(2).strip())
        self.notes = []

    def type_name(self, t):
        if t == self.param:
            full = self.cpp_type
        elif t in self.aliases:
            full = MEMBER_TYPES[(self.cpp_type, self.aliases[t])]
        else:
            raise ValueError(f"unknown type {t}")
        return TYPE_NAMES[full]

    def value(self, arg):
        arg = re.sub(r"\s+", " ", arg)
        m = re.fullmatch(r"primitive_util::LowercasePrimitiveTypeName\( ?"
                         r"primitive_util::NativeToPrimitiveType<(\w+)>\(\)\)", arg)
        if m:
            return self.type_name(m.group(1))
        if arg in self.fields:
            return self.type_name(self.fields[arg])
        if arg in self.consts:
            return self.consts[arg]
        if arg in self.locals:
            expr = self.locals[arg]
            if expr in FIXED:
                val, why = FIXED[expr]
                self.notes.append(why)
                return val
        raise ValueError(f"cannot evaluate Substitute arg '{arg}'")


def type_lists(cc):
    """{alias: [C++ types]} of `using X = testing::Types<...>;` in a unittest file."""
    out = {}
    for m in re.finditer(r"using (\w+) = (?:::)?testing::Types<(.*?)>;", cc, re.S):
        body = re.sub(r"//[^\n]*", "", m.group(2))
        out[m.group(1)] = [t.strip().lstrip(":") for t in body.split(",") if t.strip()]
    return out


def typed_tests(cc):
    """[(fixture, test, [SetUp methods called], runs: bool, line)] in file order."""
    out = []
    for m in re.finditer(r"TYPED_TEST\((\w+), (\w+)\)\s*\{", cc):
        body = cc[m.end():match_close(cc, m.end() - 1)]
        calls = re.findall(r"this->(SetUp\w+)\(\)", body)
        out.append((m.group(1), m.group(2), calls, "RunAndVerify" in body, line_of(cc, m.start())))
    return out


def header_comment(lines):
    return "".join(f"// {l}\n" if l else "//\n" for l in lines)


def gen_suites(src, programs):
    used, raws = set(), {}
    for suite, hpath, ccs in SUITES:
        header = src.read(hpath)
        for m in re.finditer(r'R"([^(\s]*)\((.*?)\)\1"', header, re.S):
            raws.setdefault(m.group(2), f"{hpath}:{line_of(header, m.start())}")
        cls = classes(header)
        for ccpath in ccs:
            cc = src.read(ccpath)
            tlists = type_lists(cc)
            suite_types = {m.group(1): m.group(2) for m in re.finditer(
                r"TYPED_TEST_SUITE\((\w+), (\w+)\);", cc)}
            for fixture, test, calls, runs, tline in typed_tests(cc):
                param, ctext, coff = cls[fixture]
                meths = methods(ctext)
                setup_body = meths["SetUp"][0]
                if len(calls) != 1:
                    raise ValueError(f"{ccpath}:{tline}: expected one SetUp call, got {calls}")
                body, moff = meths[calls[0]]
                sm = re.search(r"absl::Substitute\(", body)
                if sm:
                    args = split_args(body[sm.end():match_close(body, sm.end() - 1)])
                else:  # a plain `hlo_text_ = R"(...)";`
                    pm = re.search(r'hlo_text_ = (R"([^(\s]*)\(.*?\)\2")', body, re.S)
                    if not pm:
                        raise ValueError(f"{hpath}: {calls[0]} sets no hlo_text_")
                    args = [pm.group(1)]
                fmt = raw_string(args[0])
                used.add(fmt)
                hline = line_of(header, coff + moff)
                fails = "expected_status_code_" in body
                for cpp_type in tlists[suite_types[fixture]]:
                    r = Resolver(param, ctext, setup_body, body, cpp_type)
                    text = substitute(fmt, [r.value(a) for a in args[1:]])
                    tname = TYPE_NAMES[cpp_type]
                    name = f"{suite}__{fixture}.{test}__{tname}"
                    notes = list(r.notes)
                    if test.startswith("DISABLED_"):
                        notes.append("DISABLED in ZKX (GoogleTest skips it); the text is what it would run")
                    if not runs:
                        notes.append("the TYPED_TEST only calls the SetUp (no RunAndVerify): ZKX builds "
                                     "this text but never runs it")
                    if fails:
                        st = re.search(r"expected_status_code_ = absl::StatusCode::(\w+);", body).group(1)
                        expect = f"error ({st}: {hpath} {calls[0]} sets expected_status_code_)"
                    else:
                        expect = "success (the result is compared with a host computation)"
                    hdr = [f"ZKX test program, generated by tests/zkx/regen.py: do not edit.",
                           f"source: fractalyze/zkx {src.commit[:12]} {hpath}:{hline} ({fixture}::{calls[0]})",
                           f"test:   {ccpath}:{tline} TYPED_TEST({fixture}, {test})",
                           f"type:   {tname} ({cpp_type}, TypeParam)",
                           f"ZKX expects: {expect}"] + [f"note: {n}" for n in notes]
                    programs.append(dict(name=name, source=f"{hpath}:{hline}", expected="error" if fails else "ok",
                                         text=header_comment(hdr) + text))
    for text, where in raws.items():
        if text not in used:  # a SetUp no TYPED_TEST calls, or a raw string outside one
            print(f"regen.py: warning: {where}: raw string not used by any listed test", file=sys.stderr)


def switch_cases(flag_src, func):
    """[(enum case, string)] of `case Enum::kX: return "s";` in function `func`."""
    m = re.search(r"std::string_view " + func + r"\(\w+ \w+\) \{", flag_src)
    body = flag_src[m.end():match_close(flag_src, m.end() - 1)]
    return re.findall(r"case \w+::(\w+):\s*return \"([^\"]*)\";", body)


def gen_benchmarks(src, programs):
    for suite, bpath, fpath in BENCHMARKS:
        b = src.read(bpath)
        flags = src.read(fpath)
        m = re.search(r"std::string GenerateHlo\(([^)]*)\) \{", b)
        body = b[m.end():match_close(b, m.end() - 1)]
        sm = re.search(r"absl::Substitute\(", body)
        args = split_args(body[sm.end():match_close(body, sm.end() - 1)])
        fmt = raw_string(args[0])
        hline = line_of(b, m.start())
        # The enum-valued args: every switch case, the same case for every function of one
        # enum (a curve's scalar field and its point type go together).
        enum_funcs = [a for a in args[1:] if re.fullmatch(r"\w+\(\w+\)", a)]
        cases = None
        for f in enum_funcs:
            fc = switch_cases(flags, f.split("(")[0])
            cases = [c for c, _ in fc] if cases is None else cases
        variants = [dict()]
        if any(re.fullmatch(r"inverse \? \"IFFT\" : \"FFT\"", a) for a in args):
            variants = [dict(inverse=False), dict(inverse=True)]
        for case in cases:
            for var in variants:
                vals, notes = [], [f"the benchmark's degree is the required flag -k; "
                                   f"{BENCH_DEGREE} is used here ({1 << BENCH_DEGREE} elements)"]
                for a in args[1:]:
                    if a == "size":
                        vals.append(str(1 << BENCH_DEGREE))
                    elif a in enum_funcs:
                        vals.append(dict(switch_cases(flags, a.split("(")[0]))[case])
                    elif a == 'inverse ? "IFFT" : "FFT"':
                        vals.append("IFFT" if var["inverse"] else "FFT")
                    else:
                        raise ValueError(f"{bpath}: cannot evaluate '{a}'")
                text = substitute(fmt, vals)
                tname = vals[args[1:].index(enum_funcs[-1])]  # the curve's point type, or the field
                variant = "GenerateHlo" + ((".IFFT" if var["inverse"] else ".FFT") if "inverse" in var else "")
                name = f"{suite}__{variant}__{tname}"
                if "bn254.sf" in text:
                    notes.append("bn254.sf is the pre-2025-12 spelling of bn254_sf (renamed in ZKX "
                                 "f6f4588a); ZKX's own parser at this commit no longer reads it, "
                                 "fieldfuse keeps it as an alias")
                hdr = [f"ZKX benchmark program, generated by tests/zkx/regen.py: do not edit.",
                       f"source: fractalyze/zkx {src.commit[:12]} {bpath}:{hline} (GenerateHlo)",
                       f"test:   benchmark {suite[6:]}, {fpath} case {case}"
                       + (f", --inverse={'true' if var['inverse'] else 'false'}" if "inverse" in var else ""),
                       f"type:   {tname} ({fpath} case {case})",
                       "ZKX expects: success (a benchmark; results are not checked)"] + \
                      [f"note: {n}" for n in notes]
                programs.append(dict(name=name, source=f"{bpath}:{hline}", expected="ok",
                                     text=header_comment(hdr) + text))


def check_type_names(zkd_path, src):
    """The TYPE_NAMES table against zk_dtypes' all_types.h at the commit ZKX pins."""
    pin = re.search(r'ZK_DTYPES_COMMIT = "([0-9a-f]+)"', src.read("third_party/py/zk_dtypes/workspace.bzl")).group(1)
    zkd = Source(zkd_path)
    all_types = zkd.read("zk_dtypes/include/all_types.h", rev=pin)
    names = {m.group(1): m.group(2) for m in re.finditer(
        r"WITH_STD\(V, ::([\w:]+), \w+, \w+, (\w+)\)", all_types)}
    for cpp, name in TYPE_NAMES.items():
        if names.get(cpp) != name:
            sys.exit(f"regen.py: {cpp} is '{names.get(cpp)}' in zk_dtypes {pin[:12]}, table says '{name}'")
    return pin


def read_manifest(path):
    rows = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("#") or line.startswith("name\t") or not line.strip():
                    continue
                name, source, expected, status = line.rstrip("\n").split("\t")
                rows[name] = status
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("zkx", help="fractalyze/zkx checkout or bare git mirror")
    ap.add_argument("--zk-dtypes", help="fractalyze/zk_dtypes checkout or mirror: check the type names")
    ap.add_argument("--commit", help="the ZKX commit, for a checkout that is not a git repository")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs"))
    a = ap.parse_args()
    src = Source(a.zkx)
    if a.commit:
        src.commit, src.date = a.commit, src.date or "date not known"
    pin = check_type_names(a.zk_dtypes, src) if a.zk_dtypes else None
    programs = []
    gen_suites(src, programs)
    gen_benchmarks(src, programs)
    names = [p["name"] for p in programs]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        sys.exit(f"regen.py: duplicate program names: {sorted(dup)}")

    os.makedirs(a.out, exist_ok=True)
    manifest = os.path.join(a.out, "MANIFEST.tsv")
    old = read_manifest(manifest)
    for f in os.listdir(a.out):
        if f.endswith(".hlo"):
            os.remove(os.path.join(a.out, f))
    for p in programs:
        with open(os.path.join(a.out, p["name"] + ".hlo"), "w", encoding="utf-8") as f:
            f.write(p["text"] if p["text"].endswith("\n") else p["text"] + "\n")
    with open(manifest, "w", encoding="utf-8") as f:
        f.write(f"# ZKX's test programs, from fractalyze/zkx {src.commit} ({src.date}).\n"
                "# Written by tests/zkx/regen.py; the status column by tests/zkx/run_corpus.py --update\n"
                "# (or by hand): run = both devices run it and --check passes; unsupported: TEXT = exit 2\n"
                "# with TEXT in the error; rejected: TEXT = an expected-error program that fieldfuse\n"
                "# rejects for ZKX's reason, TEXT in the error.\n")
        f.write("name\tsource\texpected\tstatus\n")
        for p in programs:
            f.write(f"{p['name']}\t{p['source']}\t{p['expected']}\t{old.get(p['name'], 'new')}\n")
    with open(os.path.join(a.out, "README.md"), "w", encoding="utf-8") as f:
        f.write(README.format(commit=src.commit, date=src.date, n=len(programs),
                              pin=(f"Type names checked against zk_dtypes {pin} (ZKX's pin)."
                                   if pin else "")))
    print(f"regen.py: {len(programs)} programs from fractalyze/zkx {src.commit[:12]} -> {a.out}")


README = """# ZKX's own test programs

Generated by `tests/zkx/regen.py` from fractalyze/zkx commit `{commit}` ({date}):
{n} programs, one per (typed test, type) of ZKX's CPU/GPU field, extension-field, group and
MSM kernel-emitter suites and per variant of its vec_ops/fft/msm benchmarks. {pin}
Do not edit the `.hlo` files; rerun the script:

    tests/zkx/regen.py /path/to/zkx-checkout-or-mirror [--zk-dtypes /path/to/zk_dtypes]

`MANIFEST.tsv` lists each program with what ZKX expects (`ok`/`error`) and what fieldfuse
does with it today (`status`), which `tests/zkx/run_corpus.py` (meson test `zkx_corpus`)
checks on PoCL and Rusticl.

The HLO texts are ZKX's test data, Copyright 2025 The ZKX Authors, licensed under the
Apache License, Version 2.0 (http://www.apache.org/licenses/LICENSE-2.0); each file names
its source file and line. The `//` header lines are added by the script; the text after them
is ZKX's, with the `absl::Substitute` arguments filled in.
"""

if __name__ == "__main__":
    main()
