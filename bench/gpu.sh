#!/usr/bin/env bash
# bench/gpu.sh — everything that needs a real NVIDIA GPU, in one go.
#
#   bench/gpu.sh [--device N] [--reps R] [--kernels A,B] [--skip-tests]
#                [--skip-compare] [--reference] [--fidelity] [--large]
#                [--prebuilt] [--check-specs 'GLOB ...'] [--step-timeout S]
#
# On a machine with a GPU (and the NVIDIA driver) it:
#   1. builds warphunt, the PTX of the bundled kernels, the test runner and
#      bench_launch;
#   2. checks that a CUDA device is usable (driver loaded, JIT works) and
#      fails clearly, with the reason, when not;
#   3. measures the launch rate of an empty kernel and the harness's fixed
#      cost per repetition (bench_launch), and writes a sim profile of the
#      GPU with `warphunt calibrate` (calibrated.json);
#   4. with --fidelity: bench_fidelity --measure on the GPU, warm and cold
#      L2 (fidelity_gpu.csv, fidelity_gpu_cold.csv): every bundled and
#      corpus kernel's seeded random and hand-built inputs and the sim
#      reference runs' best ones (results/<kernel>/reference), to be compared
#      with the sim's times of the same inputs, made anywhere
#      (bench_fidelity --compare; README, "calibrate");
#      with --large: bench/gpu_large.sh, the grid constant G at which each
#      bundled and corpus kernel runs a millisecond (large_search.md);
#   5. runs the cuda tests with WARPHUNT_REQUIRE_GPU=1 (a skip is a failure);
#   6. for every bundled kernel: `warphunt measure --backend cuda --reps R
#      --json`: the harness's overhead per repetition beyond the kernel
#      time (its wall_s over R, less the kernel's mean; uploads and
#      warm-ups included) and the fixed cost of the command (start_ms: its
#      wall time less wall_s: process start, spec and PTX load, worker
#      start, JIT); and `warphunt measure --backend cuda --check`:
#      sim and GPU on the same random input, outputs compared (integers bit
#      for bit, floats within HARNESS_CHECK_FLOAT_ULPS ulp);
#   7. `warphunt compare` on kernels/artificial.json with the cuda backend;
#   8. with --reference: results/run_reference.sh on the GPU (the sim
#      reference runs' budgets, seeds and cached explorations) into
#      reference/<kernel>/;
#   9. bench_groundtruth on the GPU: the ground-truth kernels' known worst,
#      best and random inputs, beside reference/'s best inputs where there
#      are some (groundtruth.txt, groundtruth.json);
# and writes everything under results/gpu/<device>/ with a summary.txt.
# --kernels limits steps 6 and 8 to the named bundled kernels.
# --check-specs adds spec files (globs, e.g. 'tests/specs/tex_*.json') to
# step 6's agreement check: the texture and surface test specs exercise what
# the bundled kernels do not.
# --step-timeout S: every step (each command of it) gets at most S seconds
# (timeout(1)); one that runs out counts as failed and the run goes on, so a
# hang costs one step, not the campaign.  Where device time is short, the
# order matters: after the launch figures come the calibration and, with
# --fidelity, the fidelity inputs (the issue's figures), then the tests and
# the per-kernel steps.
#
# --prebuilt: build nothing; use the binaries already in BUILD (and the
# libraries in BUILD/lib, if any) and the PTX in build/ptx.  For a GPU
# machine that cannot build warphunt (no Z3, jansson or Criterion there):
# bench/device_bundle.sh packs such a BUILD here, and its header says how
# to run it there.
#
# Environment: BUILD (default build), JOBS, WARPHUNT_LIBCUDA (driver library),
# COMPARE_ARGS (extra arguments for `warphunt compare`), GPU_OUT (write
# there instead of results/gpu/<device>).
#
# Dry run without a GPU (checks the script, not the GPU code: every kernel
# but the fake's own runs as an empty kernel, so every check differs):
#   WARPHUNT_LIBCUDA=build/libfakecuda.so WH_FAKECUDA_ANY_KERNEL=1 \
#   GPU_OUT=/tmp/gpu-dry bench/gpu.sh --skip-tests
# (tests/test_gpu_script.c does this).
# Exit status: 0 all good, 1 some step failed (see summary.txt), 2 no GPU or
# the build failed.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 4)}
DEVICE=0
REPS=100
RUN_TESTS=1
RUN_COMPARE=1
RUN_REFERENCE=0
RUN_FIDELITY=0
RUN_LARGE=0
PREBUILT=0
KERNELS=
CHECK_SPECS=
STEP_TIMEOUT=0
COMPARE_ARGS=${COMPARE_ARGS:-}

while [ $# -gt 0 ]; do
    case "$1" in
        --device) DEVICE=$2; shift 2 ;;
        --reps) REPS=$2; shift 2 ;;
        --skip-tests) RUN_TESTS=0; shift ;;
        --skip-compare) RUN_COMPARE=0; shift ;;
        --reference) RUN_REFERENCE=1; shift ;;
        --fidelity) RUN_FIDELITY=1; shift ;;
        --large) RUN_LARGE=1; shift ;;
        --prebuilt) PREBUILT=1; shift ;;
        --kernels) KERNELS=$2; shift 2 ;;
        --check-specs) CHECK_SPECS=$2; shift 2 ;;
        --step-timeout) STEP_TIMEOUT=$2; shift 2 ;;
        -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;;
        *) echo "gpu.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done

say() { echo "gpu.sh: $*" >&2; }
die() { echo "gpu.sh: error: $*" >&2; exit 2; }

# The spec files of the kernels to measure, from --kernels or all bundled ones.
specs=()
if [ -n "$KERNELS" ]; then
    IFS=, read -r -a names <<<"$KERNELS"
    for k in "${names[@]}"; do
        [ -f "kernels/$k.json" ] || die "--kernels: no bundled kernel '$k' (kernels/$k.json)"
        specs+=("kernels/$k.json")
    done
else
    specs=(kernels/*.json)
fi

# Step 6 checks the bundled kernels and the --check-specs files.
check_specs=("${specs[@]}")
if [ -n "$CHECK_SPECS" ]; then
    for pattern in $CHECK_SPECS; do
        matched=0
        for f in $pattern; do
            [ -f "$f" ] || continue
            check_specs+=("$f")
            matched=1
        done
        [ "$matched" = 1 ] || die "--check-specs: no spec file matches '$pattern'"
    done
fi
case "$STEP_TIMEOUT" in
    ''|*[!0-9]*) die "--step-timeout: '$STEP_TIMEOUT' is not a number of seconds" ;;
esac

# One command of a step, under --step-timeout when given (exit status 124
# when it ran out; the caller counts it as a failure).
step() {
    if [ "$STEP_TIMEOUT" -gt 0 ]; then
        timeout -k 10 "$STEP_TIMEOUT" "$@"
    else
        "$@"
    fi
}

# --- 1/2. build the probe first, and stop early without a GPU --------------------
if [ "$PREBUILT" = 1 ]; then
    for f in "$BUILD/warphunt" "$BUILD/bench/bench_launch" "$BUILD/bench/bench_groundtruth"; do
        [ -x "$f" ] || die "--prebuilt: $f is missing (see bench/device_bundle.sh)"
    done
    [ "$RUN_FIDELITY" = 0 ] || [ -x "$BUILD/bench/bench_fidelity" ] || die "--prebuilt: $BUILD/bench/bench_fidelity is missing"

    [ "$RUN_TESTS" = 0 ] || [ -x "$BUILD/test_runner" ] || die "--prebuilt: $BUILD/test_runner is missing"
    ls build/ptx/kernels/*.ptx >/dev/null 2>&1 || die "--prebuilt: no PTX under build/ptx/kernels"
    [ -d "$BUILD/lib" ] && export LD_LIBRARY_PATH="$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    say "prebuilt binaries in $BUILD, nothing is built"
else
    say "building bench_launch (probe)"
    make -j"$JOBS" BUILD="$BUILD" "$BUILD/bench/bench_launch" >/dev/null || die "the build of bench_launch failed"
fi
if ! device_name=$("$BUILD/bench/bench_launch" --probe --device "$DEVICE"); then
    die "no usable CUDA device $DEVICE (the reason is above); this script needs a GPU and the NVIDIA driver"
fi
slug=$(printf '%s' "$device_name" | tr -c 'A-Za-z0-9._-' '_' | sed 's/__*/_/g; s/^_//; s/_$//')
[ -n "$slug" ] || slug="device$DEVICE"
OUT=${GPU_OUT:-results/gpu/$slug}
case "$device_name" in
    *fake*) [ -n "${GPU_OUT:-}" ] || die "'$device_name' is not a GPU: its figures do not belong in results/gpu (set GPU_OUT for a dry run)" ;;
esac
mkdir -p "$OUT" || die "cannot create $OUT"
say "device $DEVICE: $device_name -> $OUT"

if [ "$PREBUILT" = 0 ]; then
    say "building warphunt, the PTX and the tests"
    targets=("$BUILD/warphunt" "$BUILD/bench/bench_groundtruth" ptx)
    [ "$RUN_FIDELITY" = 1 ] && targets+=("$BUILD/bench/bench_fidelity")
    [ "$RUN_TESTS" = 1 ] && targets+=("$BUILD/test_runner")
    make -j"$JOBS" BUILD="$BUILD" "${targets[@]}" >"$OUT/build.log" 2>&1 \
        || die "the build failed (see $OUT/build.log)"
fi

failures=()
summary="$OUT/summary.txt"
{
    echo "warphunt GPU run, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "device $DEVICE: $device_name"
    if [ "$PREBUILT" = 1 ] && [ -f "$BUILD/MANIFEST" ]; then
        echo "prebuilt in $BUILD:"
        sed 's/^/  /' "$BUILD/MANIFEST"
    elif [ "$PREBUILT" = 1 ]; then
        echo "prebuilt in $BUILD (no MANIFEST)"
    else
        echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (modified)')"
    fi
} >"$summary"
if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi -q -i "$DEVICE" >"$OUT/nvidia-smi.txt" 2>&1 || true
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
        --format=csv -i "$DEVICE" >>"$summary" 2>/dev/null || true
fi

# --- 3. launch rate and fixed cost ------------------------------------------------
say "launch rate (bench_launch)"
if step "$BUILD/bench/bench_launch" --require-gpu --json --device "$DEVICE" >"$OUT/launch.json" 2>"$OUT/launch.err"; then
    step "$BUILD/bench/bench_launch" --require-gpu --device "$DEVICE" --n 500 >>"$summary" 2>&1 || true
else
    failures+=("bench_launch")
    echo "bench_launch: FAILED ($(tail -1 "$OUT/launch.err"))" >>"$summary"
fi

# --- 3b. a sim profile of this GPU (warphunt calibrate) ---------------------------
say "calibration (warphunt calibrate)"
if step "$BUILD/warphunt" calibrate --backend cuda --device "$DEVICE" --name "$device_name" \
    -o "$OUT/calibrated.json" --json >"$OUT/calibrate.json" 2>"$OUT/calibrate.err"; then
    echo "calibrate: ok (calibrated.json: a sim profile of this GPU)" >>"$summary"
    sed 's/^/  /' "$OUT/calibrate.err" >>"$summary"
else
    failures+=("calibrate")
    echo "calibrate: FAILED ($(tail -1 "$OUT/calibrate.err"))" >>"$summary"
fi

# --- 4. with --fidelity: every kernel's inputs timed for bench_fidelity -------------
if [ "$RUN_FIDELITY" = 1 ]; then
    say "fidelity inputs on the GPU (bench_fidelity), warm and cold L2"
    fid=("$BUILD/bench/bench_fidelity" --measure --backend cuda --device "$DEVICE" --reps 5 --found 'results/{}/reference')
    # Each CSV is written row by row: one cut short by --step-timeout keeps
    # the kernels it measured.
    for l2 in warm cold; do
        csv="$OUT/fidelity_gpu.csv" extra=()
        [ "$l2" = cold ] && csv="$OUT/fidelity_gpu_cold.csv" extra=(--cold-l2)
        if step "${fid[@]}" "${extra[@]}" -o "$csv" 2>>"$OUT/fidelity.err"; then
            echo "fidelity ($l2 L2): ok ($(basename "$csv"): $(($(wc -l <"$csv") - 1)) inputs;" \
                "compare it with the sim's CSV: bench_fidelity --compare)" >>"$summary"
        else
            failures+=("fidelity-$l2")
            echo "fidelity ($l2 L2): FAILED ($(tail -1 "$OUT/fidelity.err"))" >>"$summary"
        fi
    done
fi

# --- 4b. with --large: launch sizes of a millisecond ---------------------------------
if [ "$RUN_LARGE" = 1 ]; then
    say "launch sizes of a millisecond (bench/gpu_large.sh)"
    if step env BUILD="$BUILD" bench/gpu_large.sh --device "$DEVICE" -o "$OUT/large_search.md" \
        2>"$OUT/large_search.err"; then
        echo "large sizes: ok (large_search.md)" >>"$summary"
    else
        failures+=("large")
        echo "large sizes: FAILED ($(tail -1 "$OUT/large_search.err"))" >>"$summary"
    fi
fi

# --- 5. the GPU tests --------------------------------------------------------------
if [ "$RUN_TESTS" = 1 ]; then
    say "cuda tests (a skip counts as a failure)"
    if WARPHUNT_REQUIRE_GPU=1 step "$BUILD/test_runner" --filter='cuda*/*' --verbose >"$OUT/tests.log" 2>&1; then
        echo "tests: $(grep -E 'Synthesis' "$OUT/tests.log" | tail -1)" >>"$summary"
    else
        failures+=("tests")
        echo "tests: FAILED ($(grep -E 'Synthesis' "$OUT/tests.log" | tail -1); see tests.log)" >>"$summary"
    fi
fi

# A number from a flat JSON object (no jq needed): json_num FILE KEY
json_num() { sed -n "s/^ *\"$2\": *\\(-\\{0,1\\}[0-9.eE+-]*\\).*/\\1/p" "$1" | head -1; }
json_str() { sed -n "s/^ *\"$2\": *\"\\([^\"]*\\)\".*/\\1/p" "$1" | head -1; }

# --- 6. every bundled kernel: timing overhead and agreement with the sim ---------
printf '\n%-12s %8s %12s %12s %14s %10s %10s  %s\n' kernel status mean_us stddev_us overhead_us/rep start_ms check note >>"$summary"
for spec in "${check_specs[@]}"; do
    k=$(basename "$spec" .json)
    say "kernel $k"
    t0=$(date +%s.%N)
    step "$BUILD/warphunt" measure "$spec" --backend cuda --device "$DEVICE" --reps "$REPS" --json --quiet \
        >"$OUT/measure_$k.json" 2>"$OUT/measure_$k.err"
    rc=$?
    t1=$(date +%s.%N)
    status=$(json_str "$OUT/measure_$k.json" status)
    mean=$(json_num "$OUT/measure_$k.json" mean)
    sd=$(json_num "$OUT/measure_$k.json" stddev)
    note=""
    overhead="-"
    start="-"
    if [ $rc -ne 0 ]; then
        failures+=("measure $k")
        status="error"
        note=$(tail -1 "$OUT/measure_$k.err")
    elif [ "$status" = ok ]; then
        wall=$(json_num "$OUT/measure_$k.json" wall_s)
        overhead=$(awk -v w="$wall" -v m="$mean" -v r="$REPS" 'BEGIN { printf "%.1f", w * 1e6 / r - m }')
        start=$(awk -v a="$t0" -v b="$t1" -v w="$wall" 'BEGIN { printf "%.0f", ((b - a) - w) * 1e3 }')
    else
        note=$(json_str "$OUT/measure_$k.json" message | cut -c1-100)
    fi

    step "$BUILD/warphunt" measure "$spec" --backend cuda --device "$DEVICE" --check --json --quiet \
        >"$OUT/check_$k.json" 2>"$OUT/check_$k.err"
    crc=$?
    if [ $crc -eq 0 ]; then
        check=agree
    elif [ $crc -eq 3 ]; then
        check=DIFFER
        failures+=("check $k")
    else
        check=error
        failures+=("check $k")
        [ -n "$note" ] || note=$(tail -1 "$OUT/check_$k.err")
    fi
    [ -n "$mean" ] && mean=$(printf '%.3f' "$mean")
    [ -n "$sd" ] && sd=$(printf '%.3f' "$sd")
    printf '%-12s %8s %12s %12s %14s %10s %10s  %s\n' "$k" "${status:-?}" "${mean:--}" "${sd:--}" "$overhead" "$start" "$check" "$note" >>"$summary"
done

# --- 7. compare on artificial -----------------------------------------------------
if [ "$RUN_COMPARE" = 1 ]; then
    say "compare on kernels/artificial.json"
    # shellcheck disable=SC2086
    # (a budget or other search options go in COMPARE_ARGS, e.g. "--evals 300 --seeds 1")
    rm -rf "$OUT/compare"
    if step "$BUILD/warphunt" compare kernels/artificial.json --backend cuda --device "$DEVICE" $COMPARE_ARGS \
        -o "$OUT/compare" >"$OUT/compare.out" 2>"$OUT/compare.err"; then
        echo "compare: ok (compare/table.md, compare/plot.svg, one run directory per strategy and seed)" >>"$summary"
    else
        failures+=("compare")
        echo "compare: FAILED ($(tail -1 "$OUT/compare.err"))" >>"$summary"
    fi
fi

# --- 8. the reference comparisons on the GPU --------------------------------------
if [ "$RUN_REFERENCE" = 1 ]; then
    names=()
    for spec in "${specs[@]}"; do names+=("$(basename "$spec" .json)"); done
    say "reference comparisons on the GPU: ${names[*]}"
    if BACKEND=cuda WARPHUNT="$BUILD/warphunt" OUT_BASE="$OUT/reference" \
        results/run_reference.sh "${names[@]}" >"$OUT/reference.out" 2>"$OUT/reference.err"; then
        echo "reference: ok (reference/<kernel>/table.md for ${names[*]})" >>"$summary"
    else
        failures+=("reference")
        echo "reference: FAILED ($(tail -1 "$OUT/reference.err"))" >>"$summary"
    fi
fi

# --- 9. the ground-truth inputs on the GPU ------------------------------------------
say "ground-truth inputs (bench_groundtruth)"
gt_found=()
[ -d "$OUT/reference" ] && gt_found=(--found "$OUT/reference")
gt=("$BUILD/bench/bench_groundtruth" --backend cuda --device "$DEVICE" "${gt_found[@]}")
if step "${gt[@]}" >"$OUT/groundtruth.txt" 2>"$OUT/groundtruth.err" &&
    step "${gt[@]}" --json >"$OUT/groundtruth.json" 2>>"$OUT/groundtruth.err"; then
    echo "ground truth: ok (groundtruth.txt)" >>"$summary"
else
    failures+=("groundtruth")
    echo "ground truth: FAILED ($(tail -1 "$OUT/groundtruth.err"))" >>"$summary"
fi

echo >>"$summary"
if [ ${#failures[@]} -eq 0 ]; then
    echo "all steps passed" >>"$summary"
    cat "$summary"
    exit 0
fi
echo "failed: ${failures[*]}" >>"$summary"
cat "$summary"
exit 1
