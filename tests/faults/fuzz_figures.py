# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pass pytest's output through and end with one line of figures per property test:
examples tried (hypothesis' own statistics) and the verdict."""

import re
import sys

tried = {}
current = None
for line in sys.stdin:
    sys.stdout.write(line)
    match = re.match(r'^(\S+::\S+):\s*$', line.strip())
    if match:
        current = match.group(1)
    match = re.search(r'(\d+) passing(?: examples)?, (\d+) failing(?: examples)?,? (?:and )?(\d+) invalid', line)
    if match and current:
        passing, failing, invalid = (int(g) for g in match.groups())
        total = tried.setdefault(current, [0, 0, 0])
        total[0] += passing
        total[1] += failing
        total[2] += invalid
sys.stdout.flush()
if tried:
    print('fuzz figures: %d property tests, %d examples tried, %d failing, %d invalid' % (
        len(tried), sum(t[0] + t[1] for t in tried.values()), sum(t[1] for t in tried.values()),
        sum(t[2] for t in tried.values())))
    for name, (passing, failing, invalid) in sorted(tried.items()):
        print('  %-90s %6d tried %3d failing' % (name, passing + failing, failing))
