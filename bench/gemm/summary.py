#!/usr/bin/env python3
"""Short table of gemm-bench JSONL results: ours vs cuBLAS per shape, with
every measured candidate of ours (tuning-round medians, us)."""
import json, sys

for path in sys.argv[1:]:
    for line in open(path):
        r = json.loads(line)
        if 'special' in r:
            if not r['ok']:
                print('SPECIAL FAIL', r['special'], r['relerr'])
            continue
        if r.get('failed'):
            print('FAILED', r['M'], r['N'], r['K'], r['type'], r['layout'])
            continue
        o = r['ours']['ms'] * 1e3
        c = r['cublas']['ms'] * 1e3
        la = r['lt_auto']['ms'] * 1e3 if 'lt_auto' in r else 0
        cands = ' '.join('%s=%.1f%s' % (x['plan'].replace('/g1/r0', '')
                                        .replace('x64_c', 'c'), x['ms'] * 1e3,
                                        '' if x['relerr'] >= 0 else '!')
                         for x in r['candidates'])
        print('%s/%s %5d %5d %5d ours %7.1f cb %7.1f lt* %7.1f x%.2f | %s' %
              (r['type'], r['layout'], r['M'], r['N'], r['K'], o, c, la, c / o,
               cands))
