# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One module call through the collection runner against the same call through ansible-core
2.16's own payload, on the same local target (Python 2.7 and 3.6 by default).

Each pair alternates run by run for several rounds; medians are compared as ratios:

1. payload: the target's side alone - ansible-core 2.16's AnsiballZ file for the call against the
   runner's payload for the same call (both kept with ANSIBLE_KEEP_REMOTE_FILES, both with the
   arguments inside), each run as ``python FILE`` on the target's Python: wall and CPU;
2. task: the reference is the call as ansible-core 2.16 ran it before the collection had action
   plugins (a copy of the collection without plugins/action: ansible-core's normal action, its own
   payload). Against it: the action plugin with 2.16's own payload (PEP493_HTTPS_RUNNER=never: what
   the controller-side check costs), the runner on the same controller (always), and ansible-core
   2.21 with the default (auto: the runner too; the run's first call is reported apart).

A task's time is the per-host time of the bench_timer callback: from the worker starting it to its
result, the controller's part included. Each playbook runs the same no-change call CALLS times on a
throw-away root (the local connection, nothing outside the checkout); its first call is left out of
the median (the first call of a run pays for what a run starts once).

    .venv/bin/python benchmarks/runner_cost.py [--rounds 9] [--calls 8] [--reps 40] [--targets 2.7,3.6]
        [--modules cert_verification,verification_info] [--record benchmarks/runner_cost.md]

Figures, not assertions: it fails only when a call fails or changes something (target: <= 1.2 x).
"""

from __future__ import print_function

import argparse
import datetime
import glob
import json
import os
import platform
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
WORK = os.path.join(REPO, '.cache', 'bench-runner')
CALLS = {
    'cert_verification': '{verify: enable, root: "{{ bench_root }}"}',
    'verification_info': '{root: "{{ bench_root }}", probe: false}',
}
TARGET = 1.2


def env_for(core_venv, **extra):
    env = checkout_env(ANSIBLE_CALLBACK_PLUGINS=os.path.join(HERE, 'callback_plugins'),
                       ANSIBLE_CALLBACKS_ENABLED='bench_timer', ANSIBLE_NOCOLOR='1', ANSIBLE_RETRY_FILES_ENABLED='0',
                       ANSIBLE_PIPELINING='True', ANSIBLE_LOCAL_TEMP=os.path.join(WORK, 'ltmp'),
                       ANSIBLE_REMOTE_TMP=os.path.join(WORK, 'rtmp'), **extra)
    if core_venv == 'legacy':
        env['ANSIBLE_COLLECTIONS_PATH'] = env['PEP493_COLLECTIONS_LEGACY']
    return env


def venv_of(core, env):
    return {'2.16': env['PEP493_VENV_LEGACY'], '2.21': env['PEP493_VENV']}[core]


def python_of(version):
    return subprocess.check_output([os.path.join(REPO, 'tools', 'find-python'), version], universal_newlines=True).strip()


def write_play(module, calls):
    path = os.path.join(WORK, '%s-%d.yml' % (module, calls))
    tasks = ''.join('    - name: call %d\n      pep493.https.%s: %s\n' % (i, module, CALLS[module]) for i in range(calls))
    with open(path, 'w') as handle:
        handle.write('- hosts: all\n  gather_facts: false\n  tasks:\n' + tasks)
    return path


def make_root(root):
    os.makedirs(os.path.join(root, 'etc', 'python'))
    with open(os.path.join(root, 'etc', 'python', 'cert-verification.cfg'), 'w') as handle:
        handle.write('[https]\nverify=enable\n')
    os.makedirs(os.path.join(root, 'etc', 'systemd', 'system'))


def plain_collection():
    """A copy of the collection without its action plugins, in a collections folder of its own."""
    folder = os.path.join(WORK, 'plain')
    target = subprocess.check_output([os.path.join(REPO, 'tools', 'collection-copy'), folder], universal_newlines=True).strip()
    shutil.rmtree(os.path.join(target, 'plugins', 'action'))
    return folder


def task_times(core, runner, play, python, root, env):
    """The per-call seconds of one playbook run (no call may fail or change anything)."""
    fd, times = tempfile.mkstemp(prefix='times-', suffix='.json', dir=WORK)
    os.close(fd)
    run_env = dict(env, PEP493_BENCH_TIMES=times, PEP493_HTTPS_RUNNER=runner)
    cmd = [os.path.join(venv_of(core, env), 'bin', 'ansible-playbook'), '-i', 'bench,', play, '-e', 'ansible_connection=local',
           '-e', 'ansible_python_interpreter=%s' % python, '-e', 'bench_root=%s' % root]
    proc = subprocess.run(cmd, env=run_env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, check=False)
    with open(times) as handle:
        data = json.load(handle)
    os.unlink(times)
    stats = list(data['stats'].values())[0]
    if proc.returncode != 0 or stats.get('changed', 0) or stats.get('failures', 0):
        raise SystemExit('%s: exit %d:\n%s' % (' '.join(cmd), proc.returncode, proc.stdout[-3000:]))
    return [task['host_seconds'] for task in data['tasks']]


def kept_payload(core, runner, module, python, root, env):
    """The file a call leaves with ANSIBLE_KEEP_REMOTE_FILES (pipelining off): AnsiballZ or the runner's."""
    kept = os.path.join(WORK, 'kept-%s-%s' % (core, runner))
    shutil.rmtree(kept, ignore_errors=True)
    os.makedirs(kept)
    play = write_play(module, 1)
    run_env = dict(env, ANSIBLE_KEEP_REMOTE_FILES='1', ANSIBLE_PIPELINING='False', ANSIBLE_REMOTE_TMP=kept)
    task_times(core, runner, play, python, root, run_env)
    found = glob.glob(os.path.join(kept, '*', 'AnsiballZ_*.py')) + glob.glob(os.path.join(kept, '*', 'pep493_https_*.py'))
    if len(found) != 1:
        raise SystemExit('expected one kept payload in %s, found %s' % (kept, found))
    return found[0]


def payload_run(python, path):
    """(wall, CPU) seconds of ``python path``, which must print a result that changed nothing."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run([python, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False,
                         universal_newlines=True, cwd=WORK)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if out.returncode or result.get('failed') or result.get('changed'):
        raise SystemExit('%s %s: %s %s' % (python, path, out.stdout[-2000:], out.stderr[-2000:]))
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def median(values):
    return statistics.median(values) if values else float('nan')


def core_version(env, core):
    return subprocess.check_output([os.path.join(venv_of(core, env), 'bin', 'python'), '-c',
                                    'from ansible.release import __version__; print(__version__)'], universal_newlines=True).strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--rounds', type=int, default=9)
    parser.add_argument('--calls', type=int, default=8, help='calls per playbook run (the first is left out)')
    parser.add_argument('--reps', type=int, default=40, help='payload runs of each side')
    parser.add_argument('--targets', default='2.7,3.6')
    parser.add_argument('--modules', default='cert_verification,verification_info')
    parser.add_argument('--record', help='also write the table to this Markdown file')
    args = parser.parse_args()
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(os.path.join(WORK, 'ltmp'))
    os.makedirs(os.path.join(WORK, 'rtmp'))
    env = env_for('current')
    legacy_env = env_for('legacy')
    plain_env = dict(legacy_env, ANSIBLE_COLLECTIONS_PATH=plain_collection())
    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = os.getloadavg()
    rows = []
    for version in args.targets.split(','):
        python = python_of(version)
        for module in args.modules.split(','):
            root = os.path.join(WORK, 'root-%s-%s' % (version, module))
            make_root(root)
            play = write_play(module, args.calls)
            # the target alone: AnsiballZ against the runner's payload for the same call
            ansiballz = kept_payload('2.16', 'never', module, python, root, legacy_env)
            runner = kept_payload('2.21', 'always', module, python, root, env)
            payload = {'own': [], 'runner': []}
            for _rep in range(args.reps + 1):
                for key, path in (('own', ansiballz), ('runner', runner)):
                    payload[key].append(payload_run(python, path))
            # the task: 2.16 as before, with the action, through the runner; 2.21 through the runner (chosen)
            tasks = {'plain-2.16': [], 'own-2.16': [], 'runner-2.16': [], 'runner-2.21': []}
            first = []
            for _round in range(args.rounds + 1):  # the first round warms caches and is dropped
                for key, core, choice, leg_env in (('plain-2.16', '2.16', 'auto', plain_env),
                                                   ('own-2.16', '2.16', 'never', legacy_env),
                                                   ('runner-2.16', '2.16', 'always', legacy_env),
                                                   ('runner-2.21', '2.21', 'auto', env)):
                    seconds = task_times(core, choice, play, python, root, leg_env)
                    tasks[key].extend(seconds[1:] if _round else [])
                    if _round and key == 'runner-2.21':
                        first.append(seconds[0])
            rows.append(dict(
                target=version, module=module,
                payload_own=(median([w for w, _c in payload['own'][1:]]), median([c for _w, c in payload['own'][1:]])),
                payload_runner=(median([w for w, _c in payload['runner'][1:]]), median([c for _w, c in payload['runner'][1:]])),
                sizes=(os.path.getsize(ansiballz), os.path.getsize(runner)), plain=median(tasks['plain-2.16']),
                own=median(tasks['own-2.16']), runner_same=median(tasks['runner-2.16']),
                runner_current=median(tasks['runner-2.21']), first_current=median(first)))
            print('Python %s, %s: payload %.3f / %.3f s; task 2.16 as before %.3f s, with the action %.3f s, '
                  'through the runner %.3f s; 2.21 through the runner %.3f s'
                  % (version, module, rows[-1]['payload_own'][0], rows[-1]['payload_runner'][0], rows[-1]['plain'],
                     rows[-1]['own'], rows[-1]['runner_same'], rows[-1]['runner_current']), flush=True)
    load_after = os.getloadavg()
    lines = [
        '| target | module | payload: 2.16 AnsiballZ, wall / CPU (s) | payload: runner, wall / CPU (s) | ratio wall / CPU '
        '| task: 2.16 as before (s) | 2.16 with the action, own payload (s) | 2.16 through the runner (s) | ratio '
        '| 2.21 through the runner (s) | ratio | 2.21 first call (s) |',
        '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ]
    for row in rows:
        lines.append('| Python %s | %s | %.3f / %.3f | %.3f / %.3f | %.2f x / %.2f x | %.3f | %.3f (%.2f x) | %.3f | %.2f x '
                     '| %.3f | %.2f x | %.3f |' % (
                         row['target'], row['module'], row['payload_own'][0], row['payload_own'][1],
                         row['payload_runner'][0], row['payload_runner'][1], row['payload_runner'][0] / row['payload_own'][0],
                         row['payload_runner'][1] / row['payload_own'][1], row['plain'], row['own'], row['own'] / row['plain'],
                         row['runner_same'], row['runner_same'] / row['plain'], row['runner_current'],
                         row['runner_current'] / row['plain'], row['first_current']))
    worst = max(max(row['payload_runner'][0] / row['payload_own'][0], row['runner_same'] / row['plain'],
                    row['runner_current'] / row['plain']) for row in rows)
    lines += [
        '',
        'Worst ratio %.2f x (target at most %.1f x). Payloads: %s bytes (AnsiballZ / runner). Medians: payloads over %d '
        'runs of each, alternating; tasks over %d rounds x %d calls (the first call of each run left out), the four legs '
        'alternating; the local connection with pipelining, throw-away roots; ansible-core %s and %s, controller Python %s; '
        '%s, %d CPUs; load %.1f before, %.1f after; %s UTC.' % (
            worst, TARGET, ', '.join('%s %d / %d' % (row['module'], row['sizes'][0], row['sizes'][1])
                                     for row in rows if row['target'] == rows[0]['target']),
            args.reps, args.rounds, args.calls - 1, core_version(legacy_env, '2.16'), core_version(env, '2.21'),
            platform.python_version(), platform.platform(), os.cpu_count() or 0, load_before[0], load_after[0],
            started.strftime('%Y-%m-%d %H:%M')),
    ]
    print('\n'.join(lines))
    if args.record:
        with open(args.record, 'w') as handle:
            handle.write('# One module call: the collection runner against ansible-core 2.16\'s own payload\n\n')
            handle.write('\n'.join(lines) + '\n\nWritten by `benchmarks/runner_cost.py --record`; what the figures mean: '
                         '`RESULTS.md`.\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
