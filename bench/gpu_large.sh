#!/usr/bin/env bash
# bench/gpu_large.sh — launch sizes at which each kernel runs milliseconds
# on a GPU (issue #24's large variants).
#
#   bench/gpu_large.sh [--device N] [--kernels A,B] [--target-us T]
#                      [--factor F] [--max-steps N] [--reps R]
#                      [--start-scale K] [--timeout S] [-o FILE.md]
#
# For every bundled and corpus spec (or the --kernels named), on one random
# input (measure --random 1): starts at the spec's "large" size when it has
# one (`--size large`), else at its default grid constant G (times K with
# --start-scale K: at the default sizes most kernels take 3-40 us, and a
# kernel's time grows about linearly in G past the launch's), and multiplies
# G by F (default 4) until the mean time reaches T microseconds (default
# 1000), the input image would pass the 4 GiB limit, a measurement fails
# (a timeout, a fault), or N steps (default 12) were taken.  Each
# measurement is `warphunt measure --backend cuda --reps R --set G=...`
# (default R 3) under timeout(1) of S seconds (default 60).  Writes a Markdown table
# (default results/gpu/<device>/large_search.md; FILE.md with -o): per
# kernel the last G measured, its mean time, and whether it reached T (or
# where it failed); G values that reached it belong in the spec's
# "sizes": {"large": [...]}.
#
# Environment: BUILD (default build), WARPHUNT_LIBCUDA (driver library).
# Exit status: 0 every kernel measured (reached or not), 1 some failed,
# 2 bad arguments or no warphunt binary.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
DEVICE=0
KERNELS=
TARGET_US=1000
FACTOR=4
MAX_STEPS=12
START_SCALE=1
REPS=3
TIMEOUT=60
OUT_MD=

die() { echo "gpu_large.sh: error: $*" >&2; exit 2; }
number() { case "$2" in ''|*[!0-9]*) die "$1: '$2' is not a whole number" ;; esac; }

while [ $# -gt 0 ]; do
    case "$1" in
        --device) DEVICE=$2; shift 2 ;;
        --kernels) KERNELS=$2; shift 2 ;;
        --target-us) TARGET_US=$2; shift 2 ;;
        --factor) FACTOR=$2; shift 2 ;;
        --max-steps) MAX_STEPS=$2; shift 2 ;;
        --reps) REPS=$2; shift 2 ;;
        --start-scale) START_SCALE=$2; shift 2 ;;
        --timeout) TIMEOUT=$2; shift 2 ;;
        -o) OUT_MD=$2; shift 2 ;;
        -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done
for v in "--device:$DEVICE" "--target-us:$TARGET_US" "--factor:$FACTOR" "--max-steps:$MAX_STEPS" \
         "--reps:$REPS" "--timeout:$TIMEOUT" "--start-scale:$START_SCALE"; do
    number "${v%%:*}" "${v#*:}"
done
[ "$FACTOR" -ge 2 ] || die "--factor must be at least 2"
[ "$START_SCALE" -ge 1 ] || die "--start-scale must be at least 1"
[ -x "$BUILD/warphunt" ] || die "$BUILD/warphunt is missing (make, or BUILD=...)"

# A number or string from warphunt's flat --json output: json_field FILE KEY
json_field() { sed -n "s/^ *\"$2\": *\"\\{0,1\\}\\([^\",]*\\)\"\\{0,1\\},\\{0,1\\}$/\\1/p" "$1" | head -1; }

specs=()
if [ -n "$KERNELS" ]; then
    IFS=, read -r -a names <<<"$KERNELS"
    for k in "${names[@]}"; do
        f=kernels/$k.json
        [ -f "$f" ] || f=kernels/corpus/$k.json
        [ -f "$f" ] || die "--kernels: no spec kernels/$k.json or kernels/corpus/$k.json"
        specs+=("$f")
    done
else
    specs=(kernels/*.json kernels/corpus/*.json)
fi

tmp=$(mktemp -d) || die "mktemp failed"
trap 'rm -rf "$tmp"' EXIT
rows=()
failed=0
device_name=
for spec in "${specs[@]}"; do
    name=$(basename "$spec" .json)
    default_g=$(sed -n 's/.*"G": *"\([0-9][0-9]*\)".*/\1/p' "$spec" | head -1)
    if [ -z "$default_g" ]; then
        rows+=("| $name | - | - | - | no grid constant G |")
        continue
    fi
    size=() g=$((default_g * START_SCALE))
    if grep -q '"sizes".*"large"' "$spec"; then
        size=(--size large)
        g=$(sed -n 's/.*"large": *\[[^]]*"G=\([0-9][0-9]*\)".*/\1/p' "$spec" | head -1)
        [ -n "$g" ] || g=$((default_g * START_SCALE))
    fi
    steps=0 outcome= mean=- ok_g=- ok_mean=-
    while :; do
        if timeout -k 5 "$TIMEOUT" "$BUILD/warphunt" measure "$spec" --backend cuda --device "$DEVICE" \
            --reps "$REPS" --random 1 --json --quiet "${size[@]}" --set "G=$g" >"$tmp/m.json" 2>"$tmp/m.err"; then
            mean=$(json_field "$tmp/m.json" mean)
            ok_g=$g ok_mean=$mean
            [ -n "$device_name" ] || device_name=$(json_field "$tmp/m.json" name)
            if awk -v m="$mean" -v t="$TARGET_US" 'BEGIN { exit !(m >= t) }'; then
                outcome="reached"
                break
            fi
        else
            rc=$?
            why=$(tail -1 "$tmp/m.err" | tr '|' '/')
            [ "$rc" = 124 ] && why="timed out after $TIMEOUT s"
            if grep -q 'an input image is limited to' "$tmp/m.err"; then
                outcome="image limit at G=$g (4 GiB)"   # a size, not a failure
            else
                outcome="failed at G=$g: ${why:-exit status $rc}"
                failed=1
            fi
            break
        fi
        if [ "$steps" -ge "$MAX_STEPS" ]; then
            outcome="below the target after $MAX_STEPS steps"
            break
        fi
        g=$((g * FACTOR)) steps=$((steps + 1))
    done
    echo "gpu_large.sh: $name G=$ok_g mean_us=$ok_mean $outcome" >&2
    rows+=("| $name | $default_g | $ok_g${size:+ (from --size large)} | $ok_mean | $outcome |")
done

if [ -z "$OUT_MD" ]; then
    case "$device_name" in *"not a GPU"*) die "the driver is not a GPU ($device_name): give -o FILE" ;; esac
    dir=results/gpu/$(echo "${device_name:-unknown}" | tr -c 'A-Za-z0-9_.\n-' '_')
    mkdir -p "$dir" || die "cannot create $dir"
    OUT_MD=$dir/large_search.md
fi
{
    echo "# Launch sizes of a millisecond (bench/gpu_large.sh)"
    echo
    echo "Device: ${device_name:-unknown} (device $DEVICE); target $TARGET_US us; from $START_SCALE times the default G;" \
         "G times $FACTOR per step," \
         "at most $MAX_STEPS steps; warphunt measure --random 1 --reps $REPS; $(date -u '+%Y-%m-%d %H:%M UTC')."
    echo
    echo "| kernel | default G | G | mean (us) | outcome |"
    echo "|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
} >"$OUT_MD" || die "cannot write $OUT_MD"
echo "gpu_large.sh: wrote $OUT_MD" >&2
exit "$failed"
