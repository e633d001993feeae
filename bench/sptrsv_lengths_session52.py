"""sptrsv_lengths_session52.py NAME LLO LHI ULO UHI SEED

Builds a hand-made sptrsv_level input in /tmp/hyp52/NAME as CSV files
(level_rows, row_len, cols) for `warphunt input import --from`: a level of
16384 rows drawn at random among 32768, each listed row's length uniform
in [LLO, LHI], each unlisted row's in [ULO, UHI], every column below its
row (outside the level for a level row).  bench/owner_index_session52.md
measures what listed rows' lengths are worth with it.
"""
import random, sys, bisect
name, llo, lhi, ulo, uhi, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
rng = random.Random(seed)
T, NR, K = 16384, 32768, 16
level = rng.sample(range(NR), T)
inlevel = [False]*NR
for r in level: inlevel[r] = True
lens = [rng.randint(llo, lhi) if inlevel[r] else rng.randint(ulo, uhi) for r in range(NR)]
nonlevel = [r for r in range(NR) if not inlevel[r]]
cols = []
for r in range(NR):
    for j in range(lens[r]):
        if r == 0: cols.append(0); continue
        if inlevel[r]:
            k = bisect.bisect_left(nonlevel, r)   # nonlevel rows below r: nonlevel[:k]
            cols.append(nonlevel[rng.randrange(k)] if k else r)
        else:
            cols.append(rng.randrange(r))
cols += [0]*(NR*K - len(cols))
d = f'/tmp/hyp52/{name}'
import os; os.makedirs(d, exist_ok=True)
for nm, v in (('level_rows', level), ('row_len', lens), ('cols', cols)):
    with open(f'{d}/{nm}.csv', 'w') as f:
        f.write(nm + '\n'); f.write('\n'.join(map(str, v)) + '\n')
