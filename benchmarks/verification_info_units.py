# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""verification_info on a host with few and with many services that each carry an exception.

Starts two throw-away systemd containers from a local Molecule image (molecule/images/build),
one with SMALL and one with LARGE extra running services, every one of them with an exception
of ours (a drop-in setting PYTHONHTTPSVERIFY=0, so the audit reports each), copies the module
and ansible-core's module_utils into them, and runs the module alternately (A B A B ...) for
several rounds. Each run is timed inside the container (interpreter start to exit, interpreter
probes included), so the container runtime's own overhead is not in the figures. Prints
medians and the ratio LARGE/SMALL; the target is at most 1.5.

    python3 benchmarks/verification_info_units.py [--image localhost/pep493-bullseye] [--rounds 9]
        [--small 10] [--large 300] [--record benchmarks/verification_info_units.md]

Needs root, podman and the image; removes its containers at the end.
"""

from __future__ import print_function

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
WHY = '''Written by `benchmarks/verification_info_units.py --record`. Each figure is one module run timed
inside its container, interpreter start to exit, probes of the host's interpreters included.

What bounds it: `systemctl show` costs a D-Bus round trip per unit (about 12 ms per unit named
on systemd 247, under 1 ms per unit matched by a pattern), so the module never asks it about
units: one `systemctl list-units` (every loaded service and its state) and one `busctl` call (the
manager's environment and search path) whatever their number, one pass over `/proc` (each
process's environment, cgroup and parent: the main process of each service), and one read of
each unit file, drop-in and environment file. What grows with the number of units is that
reading, the model built from it and ansible-core's handling of the larger result (0.25 - 0.3 ms
of CPU per reported unit on this machine, about a quarter of it ansible-core's).
'''

TIMER = r'''
import json, os, resource, subprocess, sys, time
env = dict(os.environ, PYTHONPATH="/tmp/pep493-bench/payload")
before = resource.getrusage(resource.RUSAGE_CHILDREN)
start = time.time()
out = subprocess.check_output([sys.executable, "-m",
    "ansible_collections.pep493.https.plugins.modules.verification_info", "/tmp/pep493-bench/args.json"],
    env=env, cwd="/tmp")
elapsed = time.time() - start
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
result = json.loads(out)
print(json.dumps({"seconds": elapsed, "cpu": cpu, "services": len(result["services"]),
                  "failed": bool(result.get("failed")), "scan_errors": result["scan_errors"]}))
'''

SETUP = r'''
set -e
n=$1
for i in $(seq 1 "$n"); do
  printf '[Service]\nExecStart=/bin/sleep infinity\n' > /etc/systemd/system/pep493-bench-$i.service
  mkdir -p /etc/systemd/system/pep493-bench-$i.service.d
  cp /tmp/pep493-bench/dropin.conf /etc/systemd/system/pep493-bench-$i.service.d/zz-pep493-https.conf
done
systemctl daemon-reload
systemctl start $(seq -f 'pep493-bench-%g.service' 1 "$n")
systemctl list-units --all --type=service --no-legend --plain | wc -l
'''


def run(cmd, **kwargs):
    return subprocess.check_output(cmd, universal_newlines=True, **kwargs)


def podman_env():
    """CONTAINERS_CONF as molecule/podman-env decides it for this machine."""
    env = dict(os.environ)
    if 'CONTAINERS_CONF' not in env:
        found = run(['bash', '-c', '. "$1" >/dev/null 2>&1; printf %s "${CONTAINERS_CONF:-}"', '-',
                     os.path.join(REPO, 'molecule', 'podman-env')])
        if found:
            env['CONTAINERS_CONF'] = found
    return env


def ansible_package():
    venv_python = os.path.join(REPO, '.venv', 'bin', 'python')
    python = venv_python if os.path.exists(venv_python) else sys.executable
    return run([python, '-c', 'import ansible, os; print(os.path.dirname(ansible.__file__))']).strip()


def payload(folder):
    """The module, the collection's module_utils and ansible-core's module_utils, importable as a tree."""
    https = os.path.join(folder, 'payload', 'ansible_collections', 'pep493', 'https')
    os.makedirs(https)
    shutil.copytree(os.path.join(REPO, 'plugins'), os.path.join(https, 'plugins'),
                    ignore=shutil.ignore_patterns('__pycache__', '*.pyc'))
    shutil.copytree(ansible_package(), os.path.join(folder, 'payload', 'ansible'),
                    ignore=shutil.ignore_patterns('__pycache__', '*.pyc'))
    with open(os.path.join(folder, 'args.json'), 'w') as handle:
        json.dump({'ANSIBLE_MODULE_ARGS': {}}, handle)
    with open(os.path.join(folder, 'timer.py'), 'w') as handle:
        handle.write(TIMER)
    with open(os.path.join(folder, 'setup.sh'), 'w') as handle:
        handle.write(SETUP)
    sys.path.insert(0, os.path.join(folder, 'payload'))
    from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
    with open(os.path.join(folder, 'dropin.conf'), 'wb') as handle:
        handle.write(dropin.render_dropin(False, 'benchmark', datetime.date.today() + datetime.timedelta(days=30)))


def start(env, image, name):
    run(['podman', 'run', '-d', '--name', name, '--systemd=always', image, '/sbin/init'], env=env)
    for _attempt in range(100):
        state = subprocess.run(['podman', 'exec', name, 'systemctl', 'is-system-running'], env=env, check=False,
                               stdout=subprocess.PIPE, universal_newlines=True).stdout.strip()
        if state in ('running', 'degraded'):
            return
        time.sleep(0.2)
    raise SystemExit('%s: systemd did not come up (%s)' % (name, state))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--image', default='localhost/pep493-bullseye')
    parser.add_argument('--rounds', type=int, default=9)
    parser.add_argument('--small', type=int, default=10)
    parser.add_argument('--large', type=int, default=300)
    parser.add_argument('--record', help='also write the table to this Markdown file')
    args = parser.parse_args()

    env = podman_env()
    work = tempfile.mkdtemp(prefix='pep493-bench.')
    names = {'small': 'pep493-bench-small-%d' % os.getpid(), 'large': 'pep493-bench-large-%d' % os.getpid()}
    sizes = {'small': args.small, 'large': args.large}
    times = {'small': [], 'large': []}
    cpu = {'small': [], 'large': []}
    loaded = {}
    try:
        payload(work)
        for key, name in names.items():
            start(env, args.image, name)
            run(['podman', 'cp', work, '%s:/tmp/pep493-bench' % name], env=env)
            loaded[key] = int(run(['podman', 'exec', name, 'bash', '/tmp/pep493-bench/setup.sh', str(sizes[key])],
                                  env=env).strip().splitlines()[-1])
        for _round in range(args.rounds + 1):       # the first round warms caches and is dropped
            for key in ('small', 'large'):
                out = json.loads(run(['podman', 'exec', names[key], 'python3', '/tmp/pep493-bench/timer.py'], env=env))
                if out['failed'] or out['scan_errors'] or out['services'] != sizes[key]:
                    raise SystemExit('%s: unexpected report: %s' % (key, out))
                times[key].append(out['seconds'])
                cpu[key].append(out['cpu'])
    finally:
        for name in names.values():
            subprocess.call(['podman', 'rm', '-f', '-t', '0', name], env=env, stdout=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)

    median = dict((key, statistics.median(values[1:])) for key, values in times.items())
    median_cpu = dict((key, statistics.median(values[1:])) for key, values in cpu.items())
    ratio = median['large'] / median['small']
    ratio_cpu = median_cpu['large'] / median_cpu['small']
    lines = [
        '| host | services with an exception | loaded services | median run, wall (s) | median run, CPU (s) |',
        '| --- | ---: | ---: | ---: | ---: |',
        '| small | %d | %d | %.3f | %.3f |' % (args.small, loaded['small'], median['small'], median_cpu['small']),
        '| large | %d | %d | %.3f | %.3f |' % (args.large, loaded['large'], median['large'], median_cpu['large']),
        '',
        'large / small: %.2f wall, %.2f CPU (target at most 1.5); %d rounds, alternating; every extra service '
        'carries an exception of ours; %s, %s, %d CPUs, %s.' % (
            ratio, ratio_cpu, args.rounds, args.image, platform.platform(), os.cpu_count() or 0,
            datetime.date.today().isoformat()),
    ]
    print('\n'.join(lines))
    if args.record:
        with open(args.record, 'w') as handle:
            handle.write('# verification_info: few units against many\n\n' + '\n'.join(lines) + '\n\n' + WHY)
    return 0 if ratio <= 1.5 else 1


if __name__ == '__main__':
    sys.exit(main())
