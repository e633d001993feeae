#!/usr/bin/env python3
"""Sanity checks for the bundled kernel specs (kernels/*.json).

Checks each spec against README.md (The kernel spec) and against the PTX of its source:
keys and types, every expression evaluates (full launch and every X-thread
symbolic run), ranges are ordered, input buffers are large enough for their
per_thread slices, and the params match the .entry's .param list in number,
order and size.  PTX is taken from build/ptx/<dir>/<stem>.ptx when it is
newer than the source, otherwise compiled with nvcc into a temporary folder.

Usage: python3 kernels/check_specs.py [SPEC.json ...]   (default: kernels/*.json
and kernels/corpus/*.json)
Exit status 0 when every spec passes, 1 otherwise.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
NVCC = os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc")

TYPES = {"i8": 1, "u8": 1, "i16": 2, "u16": 2, "i32": 4, "u32": 4,
         "i64": 8, "u64": 8, "f32": 4, "f64": 8}
TOP_KEYS = {"name", "source", "ptx", "entry", "grid", "block",
            "shared_bytes", "constants", "symbolic", "params"}
PARAM_KEYS = {"name", "kind", "type", "fields", "count", "role", "init",
              "per_thread", "range", "value", "check", "check_why"}
CHECKS = ("exact", "multiset", "none")


class SpecError(Exception):
    pass


# ---- expressions ------------------------------------------------------------

TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z_0-9]*)|(.))")


def evaluate(expr, env):
    """Integer expression of README.md (The kernel spec): + - * / %, (), min, max, names."""
    if isinstance(expr, bool):
        raise SpecError("boolean where an expression is expected")
    if isinstance(expr, int):
        return expr
    if not isinstance(expr, str):
        raise SpecError("expression must be a string or an integer: %r" % (expr,))
    toks = []
    for m in TOKEN.finditer(expr):
        if m.group(1):
            toks.append(("num", int(m.group(1))))
        elif m.group(2):
            toks.append(("name", m.group(2)))
        elif m.group(3) and not m.group(3).isspace():
            toks.append(("op", m.group(3)))
    pos = [0]

    def peek():
        return toks[pos[0]] if pos[0] < len(toks) else ("end", None)

    def take(kind=None, val=None):
        t = peek()
        if (kind and t[0] != kind) or (val is not None and t[1] != val):
            raise SpecError("bad expression %r near token %d" % (expr, pos[0]))
        pos[0] += 1
        return t

    def primary():
        t = peek()
        if t == ("op", "("):
            take()
            v = add()
            take("op", ")")
            return v
        if t == ("op", "-"):
            take()
            return -primary()
        if t[0] == "num":
            take()
            return t[1]
        if t[0] == "name":
            take()
            if t[1] in ("min", "max"):
                take("op", "(")
                a = add()
                take("op", ",")
                b = add()
                take("op", ")")
                return min(a, b) if t[1] == "min" else max(a, b)
            if t[1] not in env:
                raise SpecError("unknown name %r in %r" % (t[1], expr))
            return env[t[1]]
        raise SpecError("bad expression %r" % expr)

    def mul():
        v = primary()
        while peek() in (("op", "*"), ("op", "/"), ("op", "%")):
            op = take()[1]
            r = primary()
            if op == "*":
                v = v * r
            else:
                if r == 0:
                    raise SpecError("division by zero in %r" % expr)
                q = abs(v) // abs(r) * (1 if (v >= 0) == (r >= 0) else -1)
                v = q if op == "/" else v - q * r
        return v

    def add():
        v = mul()
        while peek() in (("op", "+"), ("op", "-")):
            op = take()[1]
            r = mul()
            v = v + r if op == "+" else v - r
        return v

    v = add()
    if peek()[0] != "end":
        raise SpecError("trailing text in expression %r" % expr)
    return v


# ---- PTX params -------------------------------------------------------------

def ptx_params(ptx_text, entry):
    m = re.search(r"\.entry\s+" + re.escape(entry) + r"\s*\((.*?)\)", ptx_text, re.S)
    if not m:
        if re.search(r"\.entry\s+" + re.escape(entry) + r"\s*\{", ptx_text):
            return []
        raise SpecError("no .entry %s in the PTX" % entry)
    out = []
    for line in m.group(1).split(","):
        line = line.strip()
        if not line:
            continue
        pm = re.match(r"\.param\s+(?:\.align\s+(\d+)\s+)?\.(\w+)\s+\S+?(?:\[(\d+)\])?$", line)
        if not pm:
            raise SpecError("cannot read PTX param %r" % line)
        ty = pm.group(2)
        width = {"b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2,
                 "b32": 4, "u32": 4, "s32": 4, "f32": 4,
                 "b64": 8, "u64": 8, "s64": 8, "f64": 8}[ty]
        n = int(pm.group(3)) if pm.group(3) else 1
        out.append(width * n)
    return out


def get_ptx(spec_path, spec):
    if "ptx" in spec:
        with open(os.path.join(os.path.dirname(spec_path), spec["ptx"])) as f:
            return f.read()
    src = os.path.join(os.path.dirname(spec_path), spec["source"])
    stem = os.path.splitext(os.path.basename(src))[0]
    # build/ptx mirrors the source tree: kernels/x.cu, kernels/corpus/y.cu
    rel = os.path.relpath(os.path.dirname(os.path.abspath(src)), ROOT)
    built = os.path.join(ROOT, "build", "ptx", rel, stem + ".ptx")
    if os.path.exists(built) and os.path.getmtime(built) >= os.path.getmtime(src):
        with open(built) as f:
            return f.read()
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, stem + ".ptx")
        subprocess.run([NVCC, "-ptx", "-arch=sm_80", "-lineinfo", "-o", out, src],
                       check=True)
        with open(out) as f:
            return f.read()


# ---- the checks -------------------------------------------------------------

def struct_layout(fields):
    off, align = 0, 1
    for fd in fields:
        sz = TYPES[fd["type"]]
        off = (off + sz - 1) // sz * sz + sz
        align = max(align, sz)
    return (off + align - 1) // align * align, align


def check(spec_path):
    with open(spec_path) as f:
        spec = json.load(f)
    for k in ("name", "source", "entry", "grid", "block", "params"):
        if k not in spec:
            raise SpecError("missing key %r" % k)
    extra = set(spec) - TOP_KEYS
    if extra:
        raise SpecError("unknown keys %s" % sorted(extra))
    if not os.path.exists(os.path.join(os.path.dirname(spec_path), spec["source"])):
        raise SpecError("source %s not found" % spec["source"])
    for k in ("grid", "block"):
        v = spec[k]
        if not (1 <= len(v) <= 3 and all(isinstance(x, int) and x > 0 for x in v)):
            raise SpecError("%s must be 1 to 3 positive integers" % k)
    nblocks = 1
    for x in spec["grid"]:
        nblocks *= x
    bsize = 1
    for x in spec["block"]:
        bsize *= x
    sym = spec.get("symbolic", {})
    xs = sym.get("threads", [2, 3, 4])

    runs = [("full", {"threads": nblocks * bsize, "blocks": nblocks, "block": bsize})]
    runs += [("X=%d" % x, {"threads": x, "blocks": 1, "block": x}) for x in xs]

    ptx = get_ptx(spec_path, spec)
    sizes = ptx_params(ptx, spec["entry"])
    if len(sizes) != len(spec["params"]):
        raise SpecError("PTX .entry %s has %d params, spec has %d"
                        % (spec["entry"], len(sizes), len(spec["params"])))

    for what, env in runs:
        env = dict(env)
        for cname, cexpr in spec.get("constants", {}).items():
            env[cname] = evaluate(cexpr, env)
        sb = evaluate(spec.get("shared_bytes", 0), env)
        if sb < 0 or sb > 227 * 1024:
            raise SpecError("%s: shared_bytes %d out of bounds" % (what, sb))
        for idx, p in enumerate(spec["params"]):
            where = "%s: param %d (%s)" % (what, idx, p.get("name"))
            extra = set(p) - PARAM_KEYS
            if extra:
                raise SpecError("%s: unknown keys %s" % (where, sorted(extra)))
            kind = p["kind"]
            ty = p["type"]
            if ty != "struct" and ty not in TYPES:
                raise SpecError("%s: unknown type %s" % (where, ty))
            if kind == "buffer":
                if sizes[idx] != 8:
                    raise SpecError("%s: buffer but PTX param is %d bytes" % (where, sizes[idx]))
                count = evaluate(p["count"], env)
                if count <= 0:
                    raise SpecError("%s: count %d" % (where, count))
                role = p["role"]
                if role not in ("input", "output", "fixed"):
                    raise SpecError("%s: role %s" % (where, role))
                if ("check" in p or "check_why" in p) and role != "output":
                    raise SpecError("%s: check/check_why on a buffer of role %s (output only)" % (where, role))
                if p.get("check", "exact") not in CHECKS:
                    raise SpecError("%s: check %r (expected one of %s)" % (where, p["check"], CHECKS))
                if "check_why" in p and p.get("check", "exact") == "exact":
                    raise SpecError("%s: check_why without a check of multiset or none" % where)
                if role == "fixed" and "init" not in p:
                    raise SpecError("%s: fixed buffer without init" % where)
                if role == "input" and "per_thread" in p:
                    need = p["per_thread"] * env["threads"]
                    if need > count:
                        raise SpecError("%s: per_thread %d x %d threads > count %d"
                                        % (where, p["per_thread"], env["threads"], count))
                if role == "input":
                    rngs = []
                    if ty == "struct":
                        rngs = [(fd["name"], fd["type"], fd["range"]) for fd in p["fields"]]
                    elif "range" in p:
                        rngs = [(p["name"], ty, p["range"])]
                    elif not ty.startswith("f"):
                        raise SpecError("%s: integer input without range" % where)
                    for fname, fty, rng in rngs:
                        for i in sorted({0, count - 1}):
                            e2 = dict(env, i=i)
                            if fty.startswith("f"):
                                lo, hi = rng
                            else:
                                lo, hi = evaluate(rng[0], e2), evaluate(rng[1], e2)
                            if lo > hi:
                                raise SpecError("%s: %s range [%s, %s] empty at i=%d"
                                                % (where, fname, lo, hi, i))
                if ty == "struct":
                    struct_layout(p["fields"])
            elif kind == "scalar":
                if "check" in p or "check_why" in p:
                    raise SpecError("%s: check/check_why on a scalar (output buffers only)" % where)
                if ty == "struct":
                    size, _ = struct_layout(p["fields"])
                else:
                    size = TYPES[ty]
                if sizes[idx] != size:
                    raise SpecError("%s: scalar of %d bytes, PTX param is %d"
                                    % (where, size, sizes[idx]))
                if "value" in p and not ty.startswith("f") and ty != "struct":
                    evaluate(p["value"], env)
            else:
                raise SpecError("%s: kind %s" % (where, kind))


def main(argv):
    corpus = os.path.join(HERE, "corpus")
    paths = argv[1:] or sorted(
        os.path.join(d, f) for d in (HERE, corpus) for f in os.listdir(d) if f.endswith(".json"))
    bad = 0
    for path in paths:
        try:
            check(path)
            print("ok   %s" % os.path.relpath(path, ROOT))
        except (SpecError, KeyError, ValueError, subprocess.CalledProcessError) as e:
            bad += 1
            print("FAIL %s: %s" % (os.path.relpath(path, ROOT), e))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
