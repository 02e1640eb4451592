# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A simulated fleet on one machine: N local hosts, the playbooks side by side with the ping floor.

For each N, builds N host trees under .cache/fleet-sim/N/ in a fixed mix (the cfg file as RHEL 7
ships it, the runbook's ``sed`` fix to verify=disable, a malformed file, no file; 0, 5 or 50
exceptions, each for a Python 2 unit file in the tree; on every tenth host with exceptions two of
them past their expiry date) and an inventory of N hosts with ``ansible_connection: local``,
``pep493_https_root`` pointing at each tree and the same interpreter for all. Then, in this order
and with the same forks: ``ansible.builtin.ping`` on all N hosts (the floor), ``pep493.https.audit``
(report written under .cache/fleet-sim/N/), ``pep493.https.enforce`` (first run: must change every
host; re-run: must change none, or the benchmark stops) and ``pep493.https.rollback``.

Per step: wall time; controller CPU seconds per host (ansible-playbook and all its descendants:
with the local connection the modules run as children of the controller, so their CPU counts
here too); the controller's peak memory (the process tree of ansible-playbook, sampled from
/proc every --sample seconds: the peak of the summed RSS, and of the summed PSS, which counts the
pages forked workers share once); for the audit the sizes of report.json and report.html and the
time the report takes to build (the tasks that build and write it, from the bench_timer callback).
Then the ratios the targets name and, for each step, the tasks that take the time, summed over
hosts. Pipelining on and fact gathering off, as docs/scale.md recommends; enforce and rollback with
their default batches (one host, 10 %, the rest).

    .venv/bin/python benchmarks/fleet_sim.py [--n 100,1000] [--forks 5] [--steps ping,audit,...]
        [--record benchmarks/fleet_sim.md] [--keep]

Figures, not assertions: it fails only when a run fails or a first run / re-run is not what it must be.
"""

from __future__ import print_function

import argparse
import collections
import datetime
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from exceptions_one_host import ansible_version, exceptions, make_tree, shared_env

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
WORK = os.path.join(REPO, '.cache', 'fleet-sim')
STEPS = ('ping', 'audit', 'enforce', 'enforce-rerun', 'rollback')
# (playbook, must change: every host / none / not checked). The audit's own changes are the report
# files it writes on the controller (counted under the host that runs them once): not checked there,
# its report must cover every host instead.
PLAYBOOKS = {'ping': (os.path.join(WORK, 'ping.yml'), None), 'audit': ('pep493.https.audit', None),
             'enforce': ('pep493.https.enforce', 'every'), 'enforce-rerun': ('pep493.https.enforce', 'none'),
             'rollback': ('pep493.https.rollback', 'every')}
PING = '''- name: The floor, one ping per host
  hosts: all
  gather_facts: false
  tasks:
    - name: Ping the host
      ansible.builtin.ping:
'''
CFG = {
    'vendor': ("# Possible values are:\n"
               "# 'enable' to ensure HTTPS certificate verification is enabled by default\n"
               "# 'disable' to ensure HTTPS certificate verification is disabled by default\n"
               "# 'platform_default' to delegate the decision to the redistributor providing this particular "
               "Python version\n\n# For more info refer to https://www.python.org/dev/peps/pep-0493/\n"
               "[https]\nverify=platform_default\n"),
    'sed': None,        # the vendor file after sed -i 's/verify=platform_default/verify=disable/'
    'malformed': 'verify=disable\n[https]\nverify=enable\n',  # a line before any section header
    'none': None,
}
CFG['sed'] = CFG['vendor'].replace('verify=platform_default', 'verify=disable')
KINDS = ('vendor', 'sed', 'malformed', 'none')
COUNTS = (0, 5, 50)
EXPIRED = '2024-01-31'
# The audit's tasks on the controller, once per run: building and writing the report.
REPORT_FIRST, REPORT_LAST = 'Build the report of the hosts of this run', 'Fail when a host does not comply'


def host_policy(index):
    """The cfg kind, the exceptions and the repair setting of host number index (0-based)."""
    kind, count = KINDS[index % len(KINDS)], COUNTS[index % len(COUNTS)]
    listed = exceptions(count)
    if count and index % 10 < 3:      # a few hosts carry two exceptions past their expiry date
        for entry in listed[:2]:
            entry['expires'] = EXPIRED
    return kind, listed


def build(n, env):
    """The host trees, the inventory and the ping play of one fleet size; the inventory's path."""
    folder = os.path.join(WORK, str(n))
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    hosts = {}
    for index in range(n):
        name = 'sim-%05d' % index
        root = os.path.join(folder, 'hosts', name)
        kind, listed = host_policy(index)
        make_tree(root, len(listed))
        if CFG[kind] is not None:
            os.makedirs(os.path.join(root, 'etc', 'python'))
            with open(os.path.join(root, 'etc', 'python', 'cert-verification.cfg'), 'w') as handle:
                handle.write(CFG[kind])
        hosts[name] = {'pep493_https_root': root, 'pep493_https_exceptions': listed, 'sim_cfg': kind}
        if kind == 'malformed':     # what an operator sets for such a host: comment the bad lines out, and
            # roll back to the vendor's value (the rollback restores no backup that would break "import ssl")
            hosts[name].update(pep493_https_cfg_repair=True, pep493_https_rollback_verify='platform_default')
        if kind == 'sed':           # the rollback puts verify=disable back: acknowledged, or it refuses
            hosts[name]['pep493_https_allow_insecure_host_default'] = True
    inventory = os.path.join(folder, 'inventory.json')
    with open(inventory, 'w') as handle:
        json.dump({'all': {'hosts': hosts, 'vars': {
            'ansible_connection': 'local', 'ansible_python_interpreter': os.path.join(env['PEP493_VENV'], 'bin', 'python'),
            'pep493_https_report_dir': os.path.join(folder, 'report')}}}, handle)
    with open(PLAYBOOKS['ping'][0], 'w') as handle:
        handle.write(PING)
    return inventory


class TreeMemory(object):
    """Samples the summed RSS and PSS of a process and its descendants from /proc, keeps the peaks."""

    def __init__(self, pid, interval):
        self.pid, self.interval = pid, interval
        self.rss = self.pss = self.processes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run)
        self._thread.daemon = True
        self._thread.start()

    def _tree(self):
        children = collections.defaultdict(list)
        for entry in os.listdir('/proc'):
            if entry.isdigit():
                try:
                    with open('/proc/%s/stat' % entry) as handle:
                        ppid = int(handle.read().rsplit(')', 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
                children[ppid].append(int(entry))
        found, todo = [], [self.pid]
        while todo:
            pid = todo.pop()
            found.append(pid)
            todo.extend(children.get(pid, ()))
        return found

    def _sample(self):
        rss = pss = 0
        pids = self._tree()
        for pid in pids:
            try:
                with open('/proc/%d/smaps_rollup' % pid) as handle:
                    for line in handle:
                        if line.startswith('Rss:'):
                            rss += int(line.split()[1])
                        elif line.startswith('Pss:'):
                            pss += int(line.split()[1])
            except OSError:
                continue
        self.rss, self.pss = max(self.rss, rss), max(self.pss, pss)
        self.processes = max(self.processes, len(pids))

    def _run(self):
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.interval)

    def stop(self):
        self._stop.set()
        self._thread.join()


def run_step(step, n, env, inventory, forks, interval):
    playbook, expect = PLAYBOOKS[step]
    fd, times = tempfile.mkstemp(prefix='times-', suffix='.json', dir=WORK)
    os.close(fd)
    log = os.path.join(WORK, str(n), '%s.log' % step)
    cmd = [os.path.join(env['PEP493_VENV'], 'bin', 'ansible-playbook'), '-i', inventory, '--forks', str(forks), playbook]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with open(log, 'w') as out:
        proc = subprocess.Popen(cmd, env=dict(env, PEP493_BENCH_TIMES=times), cwd=REPO, stdout=out,
                                stderr=subprocess.STDOUT)
        memory = TreeMemory(proc.pid, interval)
        proc.wait()
        memory.stop()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(times) as handle:
        data = json.load(handle)
    os.unlink(times)
    changed = [stats.get('changed', 0) for host, stats in data['stats'].items() if host.startswith('sim-')]
    if proc.returncode != 0 or len(changed) != n or (expect == 'every' and not all(changed)) or (
            expect == 'none' and any(changed)):
        with open(log) as handle:
            tail = handle.read()[-3000:]
        raise SystemExit('%s at N=%d: exit %d, %d of %d hosts changed (expected: %s); log %s:\n%s'
                         % (step, n, proc.returncode, sum(1 for c in changed if c), len(changed), expect, log, tail))
    result = {'wall': wall, 'cpu': (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
              'rss': memory.rss, 'pss': memory.pss, 'processes': memory.processes,
              'tasks': data['tasks'], 'changed': sum(1 for c in changed if c)}
    if step == 'audit':
        names = [task['name'] for task in data['tasks']]
        first, last = names.index(REPORT_FIRST), names.index(REPORT_LAST)
        result['report'] = sum(task['seconds'] for task in data['tasks'][first:last + 1])
        folder = os.path.join(WORK, str(n), 'report')
        result['sizes'] = dict((name, os.path.getsize(os.path.join(folder, name)))
                               for name in ('report.json', 'report.html'))
        with open(os.path.join(folder, 'report.json')) as handle:
            covered = json.load(handle)['host_count']
        if covered != n:
            raise SystemExit('audit at N=%d: the report covers %d hosts' % (n, covered))
    return result


def top_tasks(tasks, count):
    """The tasks that take the time, summed over hosts (and over batches for the same task)."""
    summed = collections.OrderedDict()
    for task in tasks:
        entry = summed.setdefault((task['name'], task['action']), [0.0, 0.0, 0])
        entry[0] += task.get('host_seconds', 0.0)
        entry[1] += task['seconds']
        entry[2] += task.get('hosts', 0)
    total = sum(entry[0] for entry in summed.values()) or 1.0
    ranked = sorted(summed.items(), key=lambda item: -item[1][0])[:count]
    return [(name, action, host_s, 100 * host_s / total, wall, hosts)
            for (name, action), (host_s, wall, hosts) in ranked], total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--n', default='100,1000', help='fleet sizes, comma-separated (default: 100,1000)')
    parser.add_argument('--forks', type=int, default=5, help='the same for every step (default: 5)')
    parser.add_argument('--steps', default=','.join(STEPS), help='a subset of ' + ','.join(STEPS))
    parser.add_argument('--top', type=int, default=6, help='tasks listed per step (default: 6)')
    parser.add_argument('--sample', type=float, default=0.5, help='seconds between memory samples (default: 0.5)')
    parser.add_argument('--record', help='also write the tables to this Markdown file')
    parser.add_argument('--keep', action='store_true', help='keep the host trees, inventories and reports')
    args = parser.parse_args()
    ns = [int(n) for n in args.n.split(',')]
    steps = [s for s in STEPS if s in args.steps.split(',')]
    unknown = set(args.steps.split(',')) - set(STEPS)
    if unknown:
        parser.error('unknown steps: %s' % ', '.join(sorted(unknown)))
    env = shared_env()
    env.update(ANSIBLE_PIPELINING='1', ANSIBLE_GATHERING='explicit', ANSIBLE_REMOTE_TMP=env['ANSIBLE_HOME'] + '/tmp',
               ANSIBLE_DEPRECATION_WARNINGS='0', TMPDIR=os.path.join(WORK, 'tmp'))
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(env['TMPDIR'])
    results, load = {}, {}
    load['before'] = os.getloadavg()
    started = datetime.datetime.now(datetime.timezone.utc)
    for n in ns:
        inventory = build(n, env)
        for step in steps:
            results[(n, step)] = got = run_step(step, n, env, inventory, args.forks, args.sample)
            print('N=%-5d %-13s %7.1f s wall, %.3f CPU s/host, peak %d MB RSS / %d MB PSS, %d hosts changed'
                  % (n, step, got['wall'], got['cpu'] / n, got['rss'] // 1024, got['pss'] // 1024, got['changed']),
                  file=sys.stderr)
        if not args.keep:
            shutil.rmtree(os.path.join(WORK, str(n), 'hosts'))
    load['after'] = os.getloadavg()
    lines = report(ns, steps, results, args, env, load, started)
    print('\n'.join(lines))
    if args.record:
        with open(args.record, 'w') as handle:
            handle.write('# A simulated fleet on one machine\n\n' + '\n'.join(lines)
                         + '\n\nWritten by `benchmarks/fleet_sim.py --record`; what the figures mean: `RESULTS.md` '
                           'and `docs/scale.md`.\n')
    if not args.keep:
        shutil.rmtree(WORK, ignore_errors=True)
    return 0


def report(ns, steps, results, args, env, load, started):
    lines = ['| N | step | wall (s) | wall / ping | CPU s per host | peak RSS (MB) | peak PSS (MB) | PSS per host (MB) '
             '| processes | hosts changed |',
             '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |']
    for n in ns:
        ping = results.get((n, 'ping'))
        for step in steps:
            got = results[(n, step)]
            lines.append('| %d | %s | %.1f | %s | %.3f | %.0f | %.0f | %.2f | %d | %d |' % (
                n, step, got['wall'], '%.2f' % (got['wall'] / ping['wall']) if ping else '-', got['cpu'] / n,
                got['rss'] / 1024.0, got['pss'] / 1024.0, got['pss'] / 1024.0 / n, got['processes'], got['changed']))
    big, small = max(ns), min(ns)
    notes = []
    audit = results.get((big, 'audit'))
    if audit:
        notes.append('- Report at N=%d: built and written in %.2f s, %.1f %% of the audit\'s wall time (target at most '
                     '10 %%); report.json %d bytes, report.html %d bytes.'
                     % (big, audit['report'], 100 * audit['report'] / audit['wall'], audit['sizes']['report.json'],
                        audit['sizes']['report.html']))
    if (big, 'ping') in results:
        # the targets (benchmarks/RESULTS.md): a re-run, an audit and a first run against the floor
        for step, target in (('enforce-rerun', 2), ('audit', 1.5), ('enforce', 4)):
            if (big, step) in results:
                ratio = results[(big, step)]['wall'] / results[(big, 'ping')]['wall']
                notes.append('- %s / ping at N=%d: %.2f x the wall time (target at most %g x: %s), %.2f x the CPU.' % (
                    step, big, ratio, target, 'met' if ratio <= target else 'missed',
                    results[(big, step)]['cpu'] / results[(big, 'ping')]['cpu']))
    if big != small:
        for step in steps:
            one, other = results[(small, step)], results[(big, step)]
            notes.append('- %s from N=%d to N=%d, per host: wall %.2f x, CPU %.2f x, peak PSS %.2f x '
                         '(targets at most 1.2 x).' % (step, small, big, other['wall'] / big / (one['wall'] / small),
                                                       other['cpu'] / big / (one['cpu'] / small),
                                                       other['pss'] / big / (one['pss'] / small)))
    lines += [''] + notes + ['']
    way = os.environ.get('PEP493_HTTPS_RUNNER', 'auto')
    lines.append('%s; forks %d; local connection, pipelining, no fact gathering, one host tree per host under '
                 '.cache/fleet-sim/; the modules through %s (PEP493_HTTPS_RUNNER=%s); ansible-core %s, Python %s; '
                 '%s, %d CPUs; load %.1f before, %.1f after; started '
                 '%s UTC. CPU: user + system of ansible-playbook and every descendant (the local connection runs the '
                 'modules as its children). Memory: the ansible-playbook process tree summed, sampled every %.1f s '
                 'from /proc/PID/smaps_rollup. Hosts changed: the audit\'s one is the report it writes on the '
                 'controller, counted under the host that runs those tasks once.'
                 % ('N = ' + ', '.join(str(n) for n in ns), args.forks,
                    "ansible-core's own payload" if way == 'never' else 'the collection runner', way,
                    ansible_version(env), platform.python_version(),
                    platform.platform(), os.cpu_count() or 0, load['before'][0], load['after'][0],
                    started.strftime('%Y-%m-%d %H:%M'), args.sample))
    for n in ns:
        for step in steps:
            ranked, total = top_tasks(results[(n, step)]['tasks'], args.top)
            lines += ['', '### N=%d, %s: where the time goes (%.1f host-seconds in all)' % (n, step, total), '',
                      '| task | action | summed over hosts (s) | share | wall (s) | host runs |',
                      '| --- | --- | ---: | ---: | ---: | ---: |']
            lines += ['| %s | %s | %.1f | %.0f %% | %.1f | %d |' % row for row in ranked]
    return lines


if __name__ == '__main__':
    sys.exit(main())
