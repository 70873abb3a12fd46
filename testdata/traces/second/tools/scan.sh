#!/bin/bash
# scan.sh owner+name ... : count SpecStory history files, agents and shell calls in fetched mirrors
for r in "$@"; do
  d=/work/.mirror/$r/repo; [ -d "$d" ] || continue
  python3 - "$d" "$r" <<'PY'
import sys, collections, os
sys.path.insert(0, '/work/main/testdata/traces/second/tools')
import build, specstory_extract, re
d, r = sys.argv[1], sys.argv[2]
files = build.history_files(d, '.specstory/history')
agents = collections.Counter(); n = 0
for f in files:
    t, c = build.latest(d, f)
    if not t: continue
    m = re.search(r'<!--\s*([A-Za-z][A-Za-z0-9 .+-]*?)\s+Session', t)
    agents[m.group(1) if m else '?'] += 1
    n += len(specstory_extract.commands(t))
print('%-50s files=%-4d cmds=%-5d %s' % (r, len(files), n, dict(agents)))
PY
done
