# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""verification_info on a host with few and with many service units, side by side.

Starts two throw-away systemd containers from a local Molecule image (molecule/images/build),
one with SMALL and one with LARGE extra running services (a few of them with an exception of
ours, the same in both), copies the module and ansible-core's module_utils into them, and runs
the module alternately (A B A B ...) for several rounds. Each run is timed inside the
container (interpreter start to exit), so the container runtime's own overhead is not in the
figures. Prints medians and the ratio LARGE/SMALL; the target is at most 1.5.

    python3 benchmarks/verification_info_units.py [--image localhost/pep493-bookworm] [--rounds 9]
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
EXCEPTIONS = 5
WHY = '''Written by `benchmarks/verification_info_units.py --record`. Each figure is one module run timed
inside its container, interpreter start to exit, probes of the host's interpreters included.

What bounds it: `systemctl show` costs one D-Bus round trip per unit it shows, about 1 ms. Asked
about every loaded service (`systemctl show --all -p ... '*.service'`) it took 87 ms on 66 loaded
services and 340 - 380 ms on 356 (systemd 252), so the module asks it only about the units that
may matter: those whose files mention `PYTHONHTTPSVERIFY` or name an `EnvironmentFile=`, the
loaded instances of such templates, and the units one of whose processes carries the variable
(one pass over `/proc`). What still grows with the number of units is reading the unit files
once and each process's environment once - no process per unit.
'''

TIMER = r'''
import json, os, subprocess, sys, time
env = dict(os.environ, PYTHONPATH="/tmp/pep493-bench/payload")
start = time.time()
out = subprocess.check_output([sys.executable, "-m",
    "ansible_collections.pep493.https.plugins.modules.verification_info", "/tmp/pep493-bench/args.json"],
    env=env, cwd="/tmp")
elapsed = time.time() - start
result = json.loads(out)
print(json.dumps({"seconds": elapsed, "services": len(result["services"]), "failed": bool(result.get("failed")),
                  "scan_errors": result["scan_errors"]}))
'''

SETUP = r'''
set -e
n=$1
for i in $(seq 1 "$n"); do
  printf '[Service]\nExecStart=/bin/sleep infinity\n' > /etc/systemd/system/pep493-bench-$i.service
done
for i in $(seq 1 {exceptions}); do
  mkdir -p /etc/systemd/system/pep493-bench-$i.service.d
  cp /tmp/pep493-bench/dropin.conf /etc/systemd/system/pep493-bench-$i.service.d/zz-pep493-https.conf
done
systemctl daemon-reload
systemctl start $(seq -f 'pep493-bench-%g.service' 1 "$n")
systemctl list-units --all --type=service --no-legend --plain | wc -l
'''.replace('{exceptions}', str(EXCEPTIONS))


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
    from ansible_collections.pep493.https.plugins.module_utils import dropin
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
    parser.add_argument('--image', default='localhost/pep493-bookworm')
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
                if out['failed'] or out['scan_errors'] or out['services'] != EXCEPTIONS:
                    raise SystemExit('%s: unexpected report: %s' % (key, out))
                times[key].append(out['seconds'])
    finally:
        for name in names.values():
            subprocess.call(['podman', 'rm', '-f', '-t', '0', name], env=env, stdout=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)

    median = dict((key, statistics.median(values[1:])) for key, values in times.items())
    ratio = median['large'] / median['small']
    lines = [
        '| host | extra services | loaded services | median run (s) |',
        '| --- | ---: | ---: | ---: |',
        '| small | %d | %d | %.3f |' % (args.small, loaded['small'], median['small']),
        '| large | %d | %d | %.3f |' % (args.large, loaded['large'], median['large']),
        '',
        'large / small: %.2f (target at most 1.5); %d rounds, alternating, %d exceptions on each host; '
        '%s, %s, %d CPUs, %s.' % (ratio, args.rounds, EXCEPTIONS, args.image, platform.platform(),
                                  os.cpu_count() or 0, datetime.date.today().isoformat()),
    ]
    print('\n'.join(lines))
    if args.record:
        with open(args.record, 'w') as handle:
            handle.write('# verification_info: few units against many\n\n' + '\n'.join(lines) + '\n\n' + WHY)
    return 0 if ratio <= 1.5 else 1


if __name__ == '__main__':
    sys.exit(main())
