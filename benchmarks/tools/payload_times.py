# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Inside a bench container: how long a module's AnsiballZ payload takes, and its child processes.

    python3 payload_times.py PAYLOAD ROUNDS [STRACE]

Prints one JSON object: the median wall time of ROUNDS runs of the payload, the bare interpreter
start-up for comparison, and (with STRACE, the path of a strace binary) each child process the
module started, with its command and duration.
"""

from __future__ import absolute_import, division, print_function

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time


def timed(argv, rounds):
    times = []
    for unused_attempt in range(rounds):
        t0 = time.time()
        subprocess.call(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.time() - t0)
    return statistics.median(times)


def children(payload, strace):
    fd, trace = tempfile.mkstemp()
    os.close(fd)
    subprocess.call([strace, '-f', '-ttt', '-v', '-s', '48', '-e', 'trace=execve,exit_group', '-o', trace, sys.executable, payload],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    started, ended, command = {}, {}, {}
    first = None
    with open(trace) as f:
        for line in f:
            m = re.match(r'(\d+)\s+([\d.]+)\s+(.*)', line)
            if not m:
                continue
            pid, t, rest = int(m.group(1)), float(m.group(2)), m.group(3)
            if first is None:
                first = pid
            if rest.startswith('execve(') and '= -1' not in rest and pid not in started:
                started[pid] = t
                args = re.findall(r'"((?:[^"\\]|\\.)*)"', rest.split('[', 1)[1].split(']', 1)[0]) if '[' in rest else []
                command[pid] = ' '.join(a if len(a) < 40 else a[:37] + '...' for a in args[:4]) + (
                    ' ... (%d arguments)' % len(args) if len(args) > 4 else '')
            elif rest.startswith('exit_group('):
                ended[pid] = t
            elif rest.startswith('+++ exited'):
                ended.setdefault(pid, t)
    os.unlink(trace)
    total = ended.get(first, 0) - started.get(first, 0)
    kids = [{'command': command[p], 'start': round(started[p] - started[first], 3),
             'seconds': round(ended.get(p, started[p]) - started[p], 3)} for p in sorted(started) if p != first]
    return {'traced_total': round(total, 3), 'children': kids}


def main():
    payload, rounds = sys.argv[1], int(sys.argv[2])
    strace = sys.argv[3] if len(sys.argv) > 3 else None
    out = {'payload': round(timed([sys.executable, payload], rounds), 3),
           'python_start': round(timed([sys.executable, '-c', 'pass'], rounds), 3)}
    if strace:
        out.update(children(payload, strace))
    print(json.dumps(out))


main()
