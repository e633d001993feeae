#!/usr/bin/env bash
# bench/device_bundle.sh — pack a build that runs on a GPU machine which
# cannot build warphunt itself.
#
#   bench/device_bundle.sh [--out FILE] [--no-tests | --san]
#
# A lent GPU machine may have the driver and nvcc but not Z3, jansson or
# Criterion, and nothing can be installed there.  This script builds here
# (BUILD, default build) warphunt, the test runner, bench_launch,
# bench_groundtruth and the PTX, and packs into one tarball, xz or gzip by
# --out's name (default .devbundle/warphunt-bundle.tar.xz; binaries and
# libraries stripped of debug information):
#   build-bundle/warphunt, build-bundle/test_runner,
#   build-bundle/bench/bench_launch, build-bundle/bench/bench_groundtruth,
#   build-bundle/bench/bench_fidelity
#                                     the binaries;
#   build-bundle/lib/                 every shared library they need except
#                                     the C and C++ runtimes (libc, libm,
#                                     libstdc++, libgcc_s and friends), which
#                                     the target has, newer;
#   build-bundle/MANIFEST             commit, date, toolchain, PTX ISA;
#   build/ptx/                        the bundled kernels' PTX.
# It then checks that, with LD_LIBRARY_PATH=build-bundle/lib, nothing but
# those runtimes resolves outside the bundle.  --no-tests leaves the test
# runner out (gpu.sh must then be run with --skip-tests).  --san packs the
# test runner built with AddressSanitizer and UBSan (build-bundle/
# test_runner_san, with the sanitizers' runtimes) and nothing else, for
# `make check`'s GPU tests on a real driver (default .devbundle/
# warphunt-san.tar.xz):
#   ASAN_OPTIONS=detect_leaks=1:protect_shadow_gap=0 WARPHUNT_REQUIRE_GPU=1 \
#     LD_LIBRARY_PATH=build-bundle/lib build-bundle/test_runner_san --filter='cuda*/*'
#
# On the GPU machine, in a checkout of the same commit (the `device` tool
# carries .devbundle with `carry: [".devbundle"]`):
#   tar xf .devbundle/warphunt-bundle.tar.xz &&
#   BUILD=build-bundle bench/gpu.sh --prebuilt
# The target needs glibc at least as new as this machine's (x86-64 only).
# Where a remote runner returns only a few files (the device tool: 8),
# bring the results back as one archive, and run the comparison, which can
# take minutes, in a second call:
#   ... bench/gpu.sh --prebuilt --skip-compare; tar czf "$OUT/gpu.tar.gz" results/gpu
#   ... LD_LIBRARY_PATH=build-bundle/lib build-bundle/warphunt compare \
#         kernels/artificial.json --backend cuda -o results/gpu/DEVICE/compare
# Exit status: 0 packed, 2 the build or a check failed.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
OUTFILE=
WITH_TESTS=1
SAN=0

while [ $# -gt 0 ]; do
    case "$1" in
        --out) OUTFILE=$2; shift 2 ;;
        --no-tests) WITH_TESTS=0; shift ;;
        --san) SAN=1; shift ;;
        -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;;
        *) echo "device_bundle.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done

say() { echo "device_bundle.sh: $*" >&2; }
die() { echo "device_bundle.sh: error: $*" >&2; exit 2; }

# The runtimes every glibc system has; a copy of an older one would shadow
# the target's own (and libc cannot be swapped under a running loader).
system_lib() {
    case "$1" in
        linux-vdso.so.*|ld-linux*|libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*) return 0 ;;
        libresolv.so.*|libutil.so.*|libstdc++.so.*|libgcc_s.so.*) return 0 ;;
    esac
    return 1
}

if [ "$SAN" = 1 ]; then
    binaries=("$BUILD/test_runner_san")
    OUTFILE=${OUTFILE:-.devbundle/warphunt-san.tar.xz}
else
    binaries=("$BUILD/warphunt" "$BUILD/bench/bench_launch" "$BUILD/bench/bench_groundtruth" "$BUILD/bench/bench_fidelity")
    [ "$WITH_TESTS" = 1 ] && binaries+=("$BUILD/test_runner")
    OUTFILE=${OUTFILE:-.devbundle/warphunt-bundle.tar.xz}
fi
say "building ${binaries[*]} and the PTX in $BUILD"
make -j"$JOBS" BUILD="$BUILD" "${binaries[@]}" ptx >/dev/null || die "the build failed"
ls build/ptx/kernels/*.ptx >/dev/null 2>&1 || die "no PTX under build/ptx/kernels (make ptx)"

stage=$(mktemp -d /tmp/wh_bundle_XXXXXX) || die "mktemp failed"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/build-bundle/bench" "$stage/build-bundle/lib" "$stage/build" || die "cannot stage"
for bin in "${binaries[@]}"; do
    dest="$stage/build-bundle/${bin#"$BUILD"/}"
    cp "$bin" "$dest" || die "copy of $bin failed"
    # DWARF is most of a binary's size, and the bundle travels beside the
    # repository under a size limit (the device tool's 64 MiB); the symbols
    # stay, so a backtrace or a sanitizer's report still names functions.
    strip --strip-debug "$dest" || die "strip $dest failed"
done
cp -r build/ptx "$stage/build/" || die "copy of build/ptx failed"

# Every library the binaries load, by the path this machine resolves it to.
for bin in "${binaries[@]}"; do
    ldd "$bin" || die "ldd $bin failed"
done | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | sort -u |
while read -r name path; do
    system_lib "$name" && continue
    cp -L "$path" "$stage/build-bundle/lib/$name" || exit 1
done || die "copying the libraries failed"

# Self-contained: with the bundle's lib first, only the runtimes come from
# outside it.
for bin in "${binaries[@]}"; do
    bin="$stage/build-bundle/${bin#"$BUILD"/}"
    LD_LIBRARY_PATH="$stage/build-bundle/lib" ldd "$bin" |
        awk '$2 == "=>" { print $1, $3 }' |
    while read -r name path; do
        [ "$path" = "not" ] && { echo "$name is not found" >&2; exit 1; }
        case "$path" in "$stage"/build-bundle/lib/*) continue ;; esac
        system_lib "$name" || { echo "$name resolves outside the bundle ($path)" >&2; exit 1; }
    done || die "the bundle is not self-contained ($(basename "$bin"))"
done

ptx_isa=$(sed -n 's/^\.version[ \t]*//p' build/ptx/kernels/artificial.ptx | head -1)
{
    echo "warphunt device bundle"
    echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (modified)')"
    echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -m), $(ldd --version 2>&1 | head -1)"
    echo "compiler: $(${CC:-cc} --version 2>/dev/null | head -1)"
    echo "ptx: ISA ${ptx_isa:-?} from $(nvcc --version 2>/dev/null | tail -1 || echo 'unknown nvcc')"
    echo "libraries: $(cd "$stage/build-bundle/lib" && ls | tr '\n' ' ')"
} >"$stage/build-bundle/MANIFEST"

mkdir -p "$(dirname "$OUTFILE")" || die "cannot create $(dirname "$OUTFILE")"
# .tar.xz is a third smaller than .tar.gz (14 MB against 20 for the default
# bundle), which the size limit above needs; tar x on the target detects it.
case "$OUTFILE" in
    *.xz) compress=(-J) ;;
    *.gz|*.tgz) compress=(-z) ;;
    *) die "--out: '$OUTFILE' should end in .tar.xz or .tar.gz" ;;
esac
XZ_OPT=${XZ_OPT:--T0} tar c "${compress[@]}" -f "$OUTFILE.tmp" -C "$stage" build-bundle build/ptx || die "tar failed"
mv "$OUTFILE.tmp" "$OUTFILE" || die "cannot write $OUTFILE"
say "wrote $OUTFILE ($(du -h "$OUTFILE" | cut -f1)); on the GPU machine:"
if [ "$SAN" = 1 ]; then
    say "  tar xf $OUTFILE && ASAN_OPTIONS=detect_leaks=1:protect_shadow_gap=0 WARPHUNT_REQUIRE_GPU=1 \\"
    say "    LD_LIBRARY_PATH=build-bundle/lib build-bundle/test_runner_san --filter='cuda*/*'"
else
    say "  tar xf $OUTFILE && BUILD=build-bundle bench/gpu.sh --prebuilt"
fi
