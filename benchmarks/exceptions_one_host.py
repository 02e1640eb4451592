# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The role's no-change re-run on one host with few and with many unchanged exceptions.

Builds two throw-away host trees under .cache/bench-exceptions/ (each with UNITS Python 2
oneshot units), applies the policy once with FEW and once with MANY exceptions through
``pep493_https_root`` and the local connection (no container, nothing outside the checkout),
then re-runs both alternately (A B A B ...) for several rounds, each re-run checked to change
nothing. Prints the medians of the whole re-run and of the service_verification task, and
their ratios MANY/FEW; the target is at most 1.10 for the re-run. Then the module alone: its
``main()`` timed in this process on both trees (no Ansible around it), and with --profile the
functions that take the time of the MANY case (cProfile).

    .venv/bin/python benchmarks/exceptions_one_host.py [--few 1] [--many 200] [--rounds 7] [--profile 25]
        [--record benchmarks/exceptions_one_host.md]

Figures, not assertions: it fails only when a run fails or a re-run changes something.
"""

from __future__ import print_function

import argparse
import contextlib
import cProfile
import datetime
import io
import json
import os
import platform
import pstats
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from tools.checkout_env import checkout_env

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
WORK = os.path.join(REPO, '.cache', 'bench-exceptions')
EXPIRES = '2099-12-31'
PLAY = '''- name: Apply the HTTPS verification policy with the role
  hosts: all
  gather_facts: false
  vars:
    pep493_https_verify: enable
    pep493_https_exceptions: "{{ bench_exceptions }}"
    pep493_https_audit: false
  roles:
    - role: pep493.https.policy
'''


def shared_env():
    """The environment of tools/env (ANSIBLE_HOME, its temp folder and the collections path inside the checkout)."""
    return checkout_env(ANSIBLE_CALLBACK_PLUGINS=os.path.join(HERE, 'callback_plugins'),
                        ANSIBLE_CALLBACKS_ENABLED='bench_timer', ANSIBLE_NOCOLOR='1', ANSIBLE_RETRY_FILES_ENABLED='0',
                        ANSIBLE_LOCALHOST_WARNING='0', ANSIBLE_INVENTORY_UNPARSED_WARNING='0')


def exceptions(count):
    return [{'name': 'bench-svc-%03d.service' % i, 'verify': False, 'reason': 'benchmark exception %d' % i,
             'expires': EXPIRES} for i in range(1, count + 1)]


def make_tree(root, units):
    folder = os.path.join(root, 'etc', 'systemd', 'system')
    os.makedirs(folder)
    for i in range(1, units + 1):
        with open(os.path.join(folder, 'bench-svc-%03d.service' % i), 'w') as handle:
            handle.write('[Unit]\nDescription=benchmark unit %d\n[Service]\nType=oneshot\nRemainAfterExit=yes\n'
                         'ExecStart=/usr/bin/python2.7 -c pass\n' % i)


def playbook(env, inventory, play, extra, expect_changed):
    fd, times = tempfile.mkstemp(prefix='times-', suffix='.json', dir=WORK)
    os.close(fd)
    cmd = [os.path.join(env['PEP493_VENV'], 'bin', 'ansible-playbook'), '-i', inventory, play, '-e', '@' + extra]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=dict(env, PEP493_BENCH_TIMES=times), cwd=REPO, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    with open(times) as handle:
        data = json.load(handle)
    os.unlink(times)
    changed = sum(stats.get('changed', 0) for stats in data['stats'].values())
    if proc.returncode != 0 or (changed > 0) != expect_changed:
        raise SystemExit('%s: exit %d, changed %d (expected %s):\n%s'
                         % (' '.join(cmd), proc.returncode, changed, expect_changed, proc.stdout[-3000:]))
    task = sum(t['seconds'] for t in data['tasks'] if t['action'].endswith('service_verification'))
    return {'wall': wall, 'cpu': cpu, 'play': data['seconds'], 'task': task}


@contextlib.contextmanager
def captured_stdout():
    real, sys.stdout = sys.stdout, io.StringIO()
    try:
        yield sys.stdout
    finally:
        sys.stdout = real


def module_run(root, count, profiler=None):
    """Seconds of one service_verification main() in this process, no change expected."""
    from ansible.module_utils.common import warnings as ansible_warnings
    from ansible.module_utils.testing import patch_module_args
    from ansible_collections.pep493.https.plugins.modules import service_verification
    # warnings are kept process-wide: one run's would show in the next one's result
    ansible_warnings._global_warnings.clear()
    args = dict(services=exceptions(count), exclusive=False, root=root)
    with captured_stdout() as out:
        start = time.perf_counter()
        if profiler:
            profiler.enable()
        try:
            with patch_module_args(args):
                service_verification.main()
        except SystemExit:
            pass
        finally:
            if profiler:
                profiler.disable()
        seconds = time.perf_counter() - start
    result = json.loads(out.getvalue())
    if result.get('failed') or result['changed']:
        raise SystemExit('service_verification on %s: %s' % (root, result.get('msg')))
    return seconds, len(out.getvalue()), len(result.get('warnings', []))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--few', type=int, default=1)
    parser.add_argument('--many', type=int, default=200)
    parser.add_argument('--rounds', type=int, default=7)
    parser.add_argument('--profile', type=int, default=0, metavar='LINES', help='print a cProfile of the module')
    parser.add_argument('--record', help='also write the table to this Markdown file')
    args = parser.parse_args()
    env = shared_env()
    sys.path.insert(0, env['PEP493_ROOT'] + '/.cache/self')
    sizes = {'few': args.few, 'many': args.many}
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    play = os.path.join(WORK, 'policy.yml')
    with open(play, 'w') as handle:
        handle.write(PLAY)
    roots, inventories, extras = {}, {}, {}
    for key, count in sizes.items():
        roots[key] = os.path.join(WORK, 'root-%s' % key)
        make_tree(roots[key], max(sizes.values()))
        inventories[key] = os.path.join(WORK, 'inventory-%s.ini' % key)
        with open(inventories[key], 'w') as handle:
            handle.write('host-%s ansible_connection=local ansible_python_interpreter=%s pep493_https_root=%s\n'
                         % (key, os.path.join(env['PEP493_VENV'], 'bin', 'python'), roots[key]))
        extras[key] = os.path.join(WORK, 'exceptions-%s.json' % key)
        with open(extras[key], 'w') as handle:
            json.dump({'bench_exceptions': exceptions(count)}, handle)
        playbook(env, inventories[key], play, extras[key], True)
    load_before = os.getloadavg()
    runs = {'few': [], 'many': []}
    for _round in range(args.rounds + 1):       # the first round warms caches and is dropped
        for key in ('few', 'many'):
            runs[key].append(playbook(env, inventories[key], play, extras[key], False))
    alone = {'few': [], 'many': []}
    shown = {}
    for _round in range(args.rounds + 1):
        for key in ('few', 'many'):
            seconds, size, warnings = module_run(roots[key], sizes[key])
            alone[key].append(seconds)
            shown[key] = (size, warnings)
    load_after = os.getloadavg()

    def median(key, field):
        return statistics.median(run[field] for run in runs[key][1:])
    lines = [
        '| exceptions | re-run, wall (s) | re-run, CPU (s) | re-run, play (s) | service_verification task (s) '
        '| module alone (s) | result (bytes) | warnings |',
        '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ]
    for key in ('few', 'many'):
        lines.append('| %d | %.2f | %.2f | %.2f | %.3f | %.4f | %d | %d |' % (
            sizes[key], median(key, 'wall'), median(key, 'cpu'), median(key, 'play'), median(key, 'task'),
            statistics.median(alone[key][1:]), shown[key][0], shown[key][1]))
    lines += [
        '',
        '%d against %d: re-run %+.1f %% wall (target at most +10 %%), %+.1f %% CPU, %+.1f %% play; '
        'service_verification task '
        '%.2f x; module alone +%.3f s. %d rounds, alternating; local connection, throw-away roots; ansible-core %s, '
        'Python %s; %s, %d CPUs; load %.1f before, %.1f after; %s UTC.' % (
            sizes['many'], sizes['few'], 100 * (median('many', 'wall') / median('few', 'wall') - 1),
            100 * (median('many', 'cpu') / median('few', 'cpu') - 1),
            100 * (median('many', 'play') / median('few', 'play') - 1), median('many', 'task') / median('few', 'task'),
            statistics.median(alone['many'][1:]) - statistics.median(alone['few'][1:]), args.rounds,
            ansible_version(env), platform.python_version(), platform.platform(), os.cpu_count() or 0,
            load_before[0], load_after[0], datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M')),
    ]
    print('\n'.join(lines))
    if args.profile:
        profiler = cProfile.Profile()
        module_run(roots['many'], sizes['many'], profiler)
        pstats.Stats(profiler, stream=sys.stdout).strip_dirs().sort_stats('cumulative').print_stats(args.profile)
    if args.record:
        with open(args.record, 'w') as handle:
            handle.write('# The role\'s re-run with few and with many unchanged exceptions\n\n' + '\n'.join(lines)
                         + '\n\nWritten by `benchmarks/exceptions_one_host.py --record`; what the figures mean and '
                           'where the time goes: `RESULTS.md`.\n')
    return 0


def ansible_version(env):
    return subprocess.check_output([os.path.join(env['PEP493_VENV'], 'bin', 'python'), '-c',
                                    'from ansible.release import __version__; print(__version__)'],
                                   universal_newlines=True).strip()


if __name__ == '__main__':
    sys.exit(main())
