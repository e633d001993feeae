#!/usr/bin/env bash
# bench/gpu_fidelity_scaled.sh — the fidelity inputs timed on a GPU at
# larger launch sizes (issue #24).
#
#   bench/gpu_fidelity_scaled.sh -o DIR [--scales K,K] [--runs R] [--cold]
#                                [--kernels A,B] [--skip A,B] [--device N]
#                                [--timeout S]
#
# At the bundled sizes most kernels take 3-40 us against a 2.7 us launch,
# and the GPU's run-to-run noise reorders their random inputs (its rho
# against its own second run is below 0.9 on 26 of 29 kernels on an H200).
# For every scale K (default 16,64): bench_fidelity --measure --backend
# cuda --reps 5 --grid-scale K --set 'slots=threads*2' (the hash tables
# half full at every size) on the --kernels named (default all) but the
# --skip ones (default gt_hash: its kernel has its 4096 slots compiled
# in, so past 4096 threads its table is full and every later key probes
# all of it), R times (default 2: the second is the ceiling of
# bench_fidelity --compare), into DIR/fidelity_gpu_xK.csv,
# DIR/fidelity_gpu_xK_b.csv, and with --cold once more with the L2 flushed
# (DIR/fidelity_gpu_xK_cold.csv).  Every run is under timeout(1) of S
# seconds (default 150); a CSV cut short keeps the rows written, and the
# script goes on.  The sim's times of the same inputs are made anywhere:
#   bench_fidelity --measure --grid-scale K --set 'slots=threads*2' \
#     --skip gt_hash [--profile P] -o SIM.csv
#
# Environment: BUILD (default build), WARPHUNT_LIBCUDA (driver library).
# Exit status: 0 every run finished, 1 some failed or timed out, 2 bad
# arguments or no bench_fidelity.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
DIR= SCALES=16,64 RUNS=2 COLD=0 DEVICE=0 TIMEOUT=150 SKIP=gt_hash KERNELS=

die() { echo "gpu_fidelity_scaled.sh: error: $*" >&2; exit 2; }
number() { case "$2" in ''|*[!0-9]*) die "$1: '$2' is not a whole number" ;; esac; }

while [ $# -gt 0 ]; do
    case "$1" in
        -o) DIR=$2; shift 2 ;;
        --scales) SCALES=$2; shift 2 ;;
        --runs) RUNS=$2; shift 2 ;;
        --cold) COLD=1; shift ;;
        --skip) SKIP=$2; shift 2 ;;
        --kernels) KERNELS=$2; shift 2 ;;
        --device) DEVICE=$2; shift 2 ;;
        --timeout) TIMEOUT=$2; shift 2 ;;
        -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done
[ -n "$DIR" ] || die "-o DIR is required"
number --runs "$RUNS"; number --device "$DEVICE"; number --timeout "$TIMEOUT"
IFS=, read -r -a scales <<<"$SCALES"
for k in "${scales[@]}"; do number --scales "$k"; done
[ -x "$BUILD/bench/bench_fidelity" ] || die "$BUILD/bench/bench_fidelity is missing (make, or BUILD=...)"
mkdir -p "$DIR" || die "cannot create $DIR"

failed=0
for k in "${scales[@]}"; do
    runs=()
    for ((r = 1; r <= RUNS; r++)); do runs+=("$r"); done
    [ "$COLD" = 1 ] && runs+=(cold)
    for r in "${runs[@]}"; do
        case "$r" in
            1) csv=$DIR/fidelity_gpu_x$k.csv extra=() ;;
            cold) csv=$DIR/fidelity_gpu_x${k}_cold.csv extra=(--cold-l2) ;;
            *) csv=$DIR/fidelity_gpu_x${k}_$(printf "\\x$(printf %x $((96 + r)))").csv extra=() ;;
        esac
        start=$(date +%s)
        timeout -k 10 "$TIMEOUT" "$BUILD/bench/bench_fidelity" --measure --backend cuda --device "$DEVICE" --reps 5 \
            --grid-scale "$k" --set 'slots=threads*2' ${SKIP:+--skip "$SKIP"} ${KERNELS:+--kernels "$KERNELS"} \
            "${extra[@]}" -o "$csv" 2>>"$DIR/fidelity_scaled.err"
        rc=$?
        [ "$rc" = 0 ] || failed=1
        echo "gpu_fidelity_scaled.sh: x$k run $r: exit $rc, $(($(wc -l <"$csv") - 1)) inputs," \
             "$(($(date +%s) - start)) s -> $csv" | tee -a "$DIR/fidelity_scaled.err" >&2
    done
done
exit "$failed"
