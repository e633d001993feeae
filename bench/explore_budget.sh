#!/bin/bash
# bench/explore_budget.sh: `explore --time T` (T=10 unless set) on every corpus
# and held-out kernel and the symbolic stage's stress specs, one at a time, with the wall
# time of the whole command: issue #16 asks for T + 10 % at most, a result
# or a stated reason, exit 0 and atoms that all replay (invalid = 0).
# Run from the repository root after `make`; results go to /tmp/xr.
# WARPHUNT=PATH runs another build (a before/after comparison).
T=${T:-10}
WARPHUNT=${WARPHUNT:-./warphunt}
cd "$(dirname "$0")/.." || exit 1
printf "%-22s %3s %7s %6s %6s %7s %7s %s\n" spec rc wall_s paths atoms invalid cov reason
specs=(kernels/corpus/*.json kernels/holdout/*.json kernels/gt_hash.json
       tests/specs/{module_inputs,csr_bfs,csr_sssp,scalar_trip,mbarrier_publish,sim_collatz,sim_digits,sim_histogram_shared,sim_hash_trip}.json)
[ -n "$SPECS" ] && specs=($SPECS)   # e.g. SPECS=kernels/corpus/md_cutoff.json
for f in "${specs[@]}"; do
  n=$(basename $f .json)
  t0=$(date +%s.%N)
  "$WARPHUNT" explore $f --time $T --no-cache --json --results /tmp/xr > /tmp/xo.json 2>/tmp/xe.txt; rc=$?
  t1=$(date +%s.%N)
  python3 - "$n" "$rc" "$t0" "$t1" <<'PY'
import json,sys
n,rc,t0,t1=sys.argv[1],int(sys.argv[2]),float(sys.argv[3]),float(sys.argv[4])
try:
    d=json.load(open('/tmp/xo.json'))
except Exception:
    d={}
reason=''
if d.get('paths',0)==0:
    said=[l for l in open('/tmp/xe.txt').read().splitlines()
          if (l.startswith('explore: X=') and ' running ' not in l) or l.startswith('warphunt:')]
    reason=said[-1].split(', ')[-1] if said else 'no paths, nothing said'
print("%-22s %3d %7.1f %6s %6s %7s %7.1f %s"%(n,rc,t1-t0,d.get('paths','-'),d.get('atoms','-'),d.get('atoms_invalid','-'),d.get('coverage',0.0),reason))
PY
done
rm -rf /tmp/xr
