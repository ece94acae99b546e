#!/usr/bin/env python3
"""Each row's ratio to its serial loop, before -> after, every round:
   python3 table.py DIR   (DIR holds before-N/ and after-N/ from run.sh)"""
import collections
import glob
import json
import os
import sys

base = sys.argv[1]
cells = collections.defaultdict(list)
for f in sorted(glob.glob(os.path.join(base, '*-[0-9]', 'loop-*.jsonl'))):
    which = os.path.basename(os.path.dirname(f)).rsplit('-', 1)[0]
    dev = 'PoCL' if 'pocl' in f else 'host'
    for line in open(f):
        try:
            d = json.loads(line)
        except ValueError:
            continue
        row = d['op'] + ' ' + d['type']
        cells[(dev, row, d['n'], which)].append(d['of_serial'])
rows = sorted(set((k[0], k[1]) for k in cells))
sizes = sorted(set(k[2] for k in cells))
print('| device, row | ' + ' | '.join('2^%d' % (n.bit_length() - 1) for n in sizes) + ' |')
print('|---' * (len(sizes) + 1) + '|')
for dev, row in rows:
    def fmt(n, w):
        return ', '.join('%.2f' % v for v in cells.get((dev, row, n, w), []))
    print('| %s %s | ' % (dev, row) +
          ' | '.join('%s -> %s' % (fmt(n, 'before'), fmt(n, 'after')) for n in sizes) + ' |')
