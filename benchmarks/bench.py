# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Time the collection against the same policy written by hand, and against the floor.

Run through benchmarks/run (which sets up podman and the collections path); see
benchmarks/README.md. Every container it starts is named pep493-bench-* and removed at the end.
"""

import argparse
import atexit
import datetime
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PLAYBOOKS = os.path.join(HERE, 'playbooks')
OUTPUT = os.path.join(HERE, 'output')
RESULTS = os.path.join(HERE, 'RESULTS.md')
PREFIX = 'pep493-bench-'
BEGIN = '<!-- bench:begin (written by benchmarks/run; edit outside these markers) -->'
END = '<!-- bench:end -->'

MODES = {
    # A quick default that answers every target on one host: by hand (about one second per
    # loop item here) runs in the first round only, and at N=50 only its re-run, on the role's state.
    'quick': dict(hosts=[1], ns=[1, 50, 200], byhand_ns=[1, 50], rounds=3, byhand_rounds=1, byhand_first_max_n=10,
                  byhand_max_hosts=1, floor_hosts=[1], audit_units=[10, 300], audit_noprobe=False,
                  ours_audit=False),
    # The whole matrix; by hand in two of the five rounds (at H=16, N=200 one by-hand re-run
    # alone is about 600 round trips per host).
    'full': dict(hosts=[1, 4, 16], ns=[1, 10, 50, 200], byhand_ns=[1, 10, 50, 200], rounds=5, byhand_rounds=2,
                 byhand_first_max_n=200,
                 byhand_max_hosts=16, floor_hosts=[1, 4, 16], audit_units=[10, 300], audit_noprobe=True,
                 ours_audit=True),
}
UNIT_COUNT = 200  # bench-svc-001 .. bench-svc-200 exist on every policy host
EXPIRES = '2099-12-31'


def capture(argv):
    """The stdout of a command that is only asked for information."""
    return subprocess.run(argv, stdout=subprocess.PIPE, text=True, check=False).stdout


def quiet(argv, check=False):
    """Run a command, its output dropped; with check, fail the run when it fails."""
    rc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False).returncode
    if check and rc != 0:
        die('%s failed (exit %d)' % (' '.join(argv), rc))


def log(msg):
    sys.stderr.write('[%s] %s\n' % (time.strftime('%H:%M:%S'), msg))
    sys.stderr.flush()


def die(msg):
    log('bench: ' + msg)
    sys.exit(1)


# --- containers --------------------------------------------------------------------------

class Fleet(object):
    """The containers of one run; every one of them is removed when the run ends."""

    def __init__(self, image, keep):
        self.image = image
        self.keep = keep
        self.started = []
        atexit.register(self.remove)
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, self._on_signal)

    def _on_signal(self, signum, frame):
        log('bench: signal %d, removing the containers' % signum)
        self.remove()
        os._exit(128 + signum)

    def start(self, names):
        # A container of the same name left by an interrupted run of this script goes first.
        quiet(['podman', 'rm', '--force', '--time', '0', '--ignore'] + names)
        for name in names:
            r = subprocess.run(['podman', 'run', '--detach', '--name', name, '--hostname', name,
                                '--systemd=always', '--label', 'owner=pep493-bench', self.image, '/sbin/init'],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False)
            if r.returncode != 0:
                die('podman run %s failed: %s' % (name, r.stderr.strip()))
            self.started.append(name)
        deadline = time.time() + 90
        waiting = list(names)
        while waiting:
            states = parallel([(n, 'systemctl is-system-running || true') for n in waiting])
            waiting = [n for n in waiting if states[n][1].strip() not in ('running', 'degraded')]
            if waiting and time.time() > deadline:
                die('systemd did not finish booting in %s: %s'
                    % (', '.join(waiting), '; '.join(states[n][1].strip() for n in waiting)))
            if waiting:
                time.sleep(0.5)

    def remove(self):
        if self.keep or not self.started:
            return
        quiet(['podman', 'rm', '--force', '--time', '0', '--ignore'] + self.started)
        log('bench: removed %d containers' % len(self.started))
        self.started = []


def parallel(jobs):
    """Run (container, shell script) pairs at once; {container: (rc, stdout, stderr)}."""
    procs = {}
    for name, script in jobs:
        procs[name] = subprocess.Popen(['podman', 'exec', '--interactive', name, 'sh', '-s'],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True)
        procs[name].stdin.write(script)
        procs[name].stdin.close()
    results = {}
    for name, proc in procs.items():
        out = proc.stdout.read()
        err = proc.stderr.read()
        proc.wait()
        results[name] = (proc.returncode, out, err)
    return results


def checked(jobs, what):
    results = parallel(jobs)
    for name, (rc, out, err) in results.items():
        if rc != 0:
            die('%s failed on %s (exit %d): %s' % (what, name, rc, (err or out).strip()[-400:]))
    return results


def svc_name(i):
    return 'bench-svc-%03d.service' % i


def unit_file(description):
    return ('[Unit]\nDescription=%s\n[Service]\nType=oneshot\nRemainAfterExit=yes\nExecStart=/bin/true\n'
            % description)


def dropin_text(reason):
    """The drop-in service_verification writes (dropin.render_dropin), for by-hand and audit hosts."""
    return ('# Managed by pep493.https.service_verification; edits here are overwritten.\n'
            '# reason: %s\n# expires: %s\n'
            '# PEP 493: Python 2 in this service does not verify HTTPS certificates (insecure).\n'
            '[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n' % (reason, EXPIRES))


def create_units_script(prefix, count, with_dropin):
    """Shell that writes `count` trivial oneshot units (optionally each with one of our drop-ins)
    and starts them, so that systemd has them loaded."""
    lines = ['set -e', 'cd /etc/systemd/system']
    names = []
    for i in range(1, count + 1):
        unit = '%s-%03d.service' % (prefix, i)
        names.append(unit)
        lines.append("printf '%%s' '%s' > %s" % (unit_file('benchmark unit %d' % i), unit))
        if with_dropin:
            lines.append('mkdir -p %s.d' % unit)
            lines.append("printf '%%s' '%s' > %s.d/zz-pep493-https.conf"
                         % (dropin_text('benchmark exception %d' % i), unit))
    lines.append('systemctl daemon-reload')
    lines.append('systemctl start ' + ' '.join(names))
    return '\n'.join(lines)


RESET_SCRIPT = 'rm -rf /etc/systemd/system/bench-svc-*.service.d /etc/python && systemctl daemon-reload'
# The end state both ways must reach: the drop-ins byte for byte, and what the cfg file says.
STATE_SCRIPT = ("cd /etc/systemd/system && find . -path './bench-svc-*.service.d*' "
                "| LC_ALL=C sort | while read -r f; do if [ -d \"$f\" ]; then echo \"$f dir $(stat -c %a \"$f\")\"; "
                "else echo \"$f $(stat -c %a \"$f\") $(sha256sum < \"$f\" | cut -c1-16)\"; fi; done; "
                "grep -E '^[[:space:]]*(\\[|verify)' /etc/python/cert-verification.cfg")


# --- ansible-playbook --------------------------------------------------------------------

class Runner(object):
    def __init__(self, args):
        self.args = args
        self.count = 0
        self.ansible_playbook = os.path.join(os.environ.get('PEP493_VENV', os.path.join(REPO, '.venv')),
                                             'bin', 'ansible-playbook')
        self.logs = os.path.join(OUTPUT, 'logs')
        shutil.rmtree(self.logs, ignore_errors=True)
        os.makedirs(self.logs)
        self.env = dict(os.environ)
        self.env.update({
            'ANSIBLE_CALLBACK_PLUGINS': os.path.join(HERE, 'callback_plugins'),
            'ANSIBLE_CALLBACKS_ENABLED': 'bench_timer',
            'ANSIBLE_PIPELINING': '1',
            'ANSIBLE_GATHERING': 'explicit',
            'ANSIBLE_NOCOLOR': '1',
            'ANSIBLE_RETRY_FILES_ENABLED': '0',
            'ANSIBLE_DEPRECATION_WARNINGS': '0',
            'ANSIBLE_SYSTEM_WARNINGS': '0',
            'ANSIBLE_LOCALHOST_WARNING': '0',
            'ANSIBLE_ACTION_WARNINGS': '0',
            'ANSIBLE_INVENTORY_UNPARSED_WARNING': '0',
            'ANSIBLE_HOST_KEY_CHECKING': '0',
        })
        self.env.setdefault('ANSIBLE_COLLECTIONS_PATH', os.path.join(REPO, '.cache', 'self') + ':' +
                            os.path.join(REPO, '.collections'))

    def inventory(self, hosts, tag):
        path = os.path.join(OUTPUT, 'inventory-%s.ini' % tag)
        with open(path, 'w') as f:
            f.write('[bench]\n')
            for h in hosts:
                f.write('%s\n' % h)
            f.write('\n[bench:vars]\nansible_connection=containers.podman.podman\n'
                    'ansible_python_interpreter=/usr/bin/python3\n')
        return path

    def exceptions_file(self, n):
        path = os.path.join(OUTPUT, 'exceptions-%d.json' % n)
        data = {'bench_exceptions': [
            {'name': svc_name(i), 'verify': False, 'reason': 'benchmark exception %d' % i, 'expires': EXPIRES}
            for i in range(1, n + 1)]}
        with open(path, 'w') as f:
            json.dump(data, f)
        return path

    def play(self, playbook, inventory, label, extra=(), forks=5, expect_changed=None, env_extra=None):
        """Run one playbook; its wall time, play time (callback), task times and host counts."""
        self.count += 1
        fd, times = tempfile.mkstemp(prefix='times-', suffix='.json', dir=OUTPUT)
        os.close(fd)
        cmd = [self.ansible_playbook, '-i', inventory, os.path.join(PLAYBOOKS, playbook), '--forks', str(forks)]
        for e in extra:
            cmd += ['-e', e]
        env = dict(self.env, PEP493_BENCH_TIMES=times)
        env.update(env_extra or {})
        logfile = os.path.join(self.logs, '%04d-%s.log' % (self.count, re.sub(r'[^A-Za-z0-9_.=-]+', '_', label)))
        t0 = time.perf_counter()
        with open(logfile, 'w') as out:
            rc = subprocess.call(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=REPO)
        wall = time.perf_counter() - t0
        try:
            with open(times) as f:
                data = json.load(f)
        except (OSError, ValueError):
            data = {'tasks': [], 'stats': {}, 'seconds': None}
        os.unlink(times)
        if rc != 0:
            with open(logfile) as f:
                tail = f.read()[-3000:]
            die('%s failed (exit %d), log %s:\n%s' % (label, rc, logfile, tail))
        changed = sum(s.get('changed', 0) for s in data['stats'].values())
        if expect_changed is True and any(s.get('changed', 0) == 0 for s in data['stats'].values()):
            die('%s: a first run changed nothing on some host (%s); log %s' % (label, data['stats'], logfile))
        if expect_changed is False and changed:
            die('%s: a re-run changed something (%s): not idempotent; log %s' % (label, data['stats'], logfile))
        return {'wall': wall, 'play': data['seconds'], 'tasks': data['tasks'], 'stats': data['stats'],
                'log': logfile}


def module_seconds(result, action_suffix):
    """Wall time of the task(s) whose action ends with action_suffix."""
    return sum(t['seconds'] for t in result['tasks'] if t['action'].endswith(action_suffix))


# --- measurements ------------------------------------------------------------------------

class Results(object):
    def __init__(self):
        self.rows = []

    def add(self, section, variant, key, phase, result, **extra):
        row = {'section': section, 'variant': variant, 'key': key, 'phase': phase,
               'wall': result['wall'], 'play': result['play'], 'tasks': result['tasks']}
        row.update(extra)
        self.rows.append(row)

    def values(self, section, variant, key, phase, field='wall'):
        return [r[field] for r in self.rows if (r['section'], r['variant'], r['key'], r['phase']) ==
                (section, variant, key, phase)]

    def median(self, *args, **kw):
        v = [x for x in self.values(*args, **kw) if x is not None]
        return statistics.median(v) if v else None


def bench_policy(runner, results, fleet_hosts, h, ns, byhand_ns, rounds, byhand_rounds, byhand_first_max_n):
    """Every N of one host count, round after round: ours, by hand, ours, by hand ...

    Rounds are the outer loop, so that a change in the machine's load reaches every N and both
    variants alike instead of one block of them.
    """
    hosts = fleet_hosts[:h]
    inv = runner.inventory(hosts, 'h%d' % h)
    forks = max(5, h)
    files = dict((n, '@' + runner.exceptions_file(n)) for n in ns)
    states = {}
    for rnd in range(rounds):
        for n in ns:
            variants = [('ours', 'ours.yml')]
            if n in byhand_ns and rnd < byhand_rounds:
                variants.append(('byhand', 'byhand.yml'))
            for variant, playbook in variants:
                label = '%s-h%d-n%d-r%d' % (variant, h, n, rnd)
                first = None
                if variant == 'ours' or n <= byhand_first_max_n:
                    checked([(x, RESET_SCRIPT) for x in hosts], 'reset')
                    first = runner.play(playbook, inv, label + '-first', [files[n]], forks, expect_changed=True)
                    results.add('policy', variant, (h, n), 'first', first, round=rnd)
                # Without a first run of its own, by hand re-runs on the role's end state: that it
                # changes nothing there shows that both ways reach the same state.
                rerun = runner.play(playbook, inv, label + '-rerun', [files[n]], forks, expect_changed=False)
                results.add('policy', variant, (h, n), 'rerun', rerun, round=rnd)
                if rnd == 0 and first is not None:
                    states[(n, variant)] = checked([(hosts[-1], STATE_SCRIPT)], 'end-state check')[hosts[-1]][1]
                log('H=%-2d N=%-3d %-6s round %d: first %s, re-run %6.2fs'
                    % (h, n, variant, rnd + 1, '%6.2fs' % first['wall'] if first else '     - ', rerun['wall']))
    for n in ns:
        got = states[(n, 'ours')].count('zz-pep493-https.conf')
        if got != n:
            die('H=%d N=%d: %d drop-ins in place after the role, expected %d:\n%s' % (h, n, got, n, states[(n, 'ours')]))
        if (n, 'byhand') in states and states[(n, 'byhand')] != states[(n, 'ours')]:
            die('H=%d N=%d: the by-hand end state differs from the role\'s:\n--- ours\n%s\n--- by hand\n%s'
                % (h, n, states[(n, 'ours')], states[(n, 'byhand')]))


def bench_ours_audit(runner, results, fleet_hosts, n, rounds):
    """The role with its default audit on, re-run, against the same without the audit."""
    hosts = fleet_hosts[:1]
    inv = runner.inventory(hosts, 'h1')
    ex = '@' + runner.exceptions_file(n)
    runner.play('ours.yml', inv, 'audit-prep', [ex])
    for rnd in range(rounds):
        for variant, extra in (('ours', [ex]), ('ours+audit', [ex, 'bench_audit=true'])):
            r = runner.play('ours.yml', inv, '%s-audit-n%d-r%d' % (variant, n, rnd), extra, expect_changed=False)
            results.add('ours_audit', variant, (1, n), 'rerun', r, round=rnd)
            log('H=1  N=%-3d %-10s re-run round %d: %.2fs' % (n, variant, rnd + 1, r['wall']))


def bench_floor(runner, results, fleet_hosts, h, rounds):
    hosts = fleet_hosts[:h]
    inv = runner.inventory(hosts, 'h%d' % h)
    forks = max(5, h)
    checked([(x, RESET_SCRIPT) for x in hosts], 'reset')
    runner.play('cert_nochange.yml', inv, 'floor-prep-h%d' % h, forks=forks)
    plays = [('empty', 'floor_empty.yml', None), ('ping', 'floor_ping.yml', 'ping'), ('stat', 'floor_stat.yml', 'stat'),
             ('cert_verification', 'cert_nochange.yml', 'cert_verification')]
    for rnd in range(rounds):
        for variant, playbook, action in plays:
            r = runner.play(playbook, inv, 'floor-%s-h%d-r%d' % (variant, h, rnd), forks=forks, expect_changed=False)
            results.add('floor', variant, h, 'run', r, task=module_seconds(r, action) if action else None, round=rnd)
        log('H=%-2d floor round %d: %s' % (h, rnd + 1, ', '.join(
            '%s %.2fs' % (v, results.values('floor', v, h, 'run')[-1]) for v, unused_pb, unused_action in plays)))


def bench_audit(runner, results, audit_hosts, rounds, noprobe):
    for probe in (True, False) if noprobe else (True,):
        for rnd in range(rounds):
            for units, host in audit_hosts:
                inv = runner.inventory([host], host)
                r = runner.play('verification_info.yml', inv, 'audit-%s-probe%s-r%d' % (host, probe, rnd),
                                ['bench_probe=%s' % probe], expect_changed=False)
                results.add('audit', host, units, 'probe' if probe else 'noprobe', r,
                            task=module_seconds(r, 'verification_info'), round=rnd)
            log('audit probe=%s round %d: %s' % (probe, rnd + 1, ', '.join(
                '%s %.2fs' % (host, results.values('audit', host, units, 'probe' if probe else 'noprobe',
                                                   'task')[-1]) for units, host in audit_hosts)))


PROFILED = (('stat', 'ansible.builtin.stat', 'ansible.modules.stat'),
            ('cert_verification', 'pep493.https.cert_verification',
             'ansible_collections.pep493.https.plugins.modules.cert_verification'),
            ('service_verification', 'pep493.https.service_verification',
             'ansible_collections.pep493.https.plugins.modules.service_verification'),
            ('verification_info', 'pep493.https.verification_info',
             'ansible_collections.pep493.https.plugins.modules.verification_info'))


def copy_strace(host):
    """The controller's strace (and its libraries) into the container, when the two can share it."""
    strace = shutil.which('strace')
    if not strace:
        return None
    libs = re.findall(r'=> (/\S+)', capture(['ldd', strace]))
    checked([(host, 'mkdir -p /opt/bench/lib')], 'preparing strace')
    for path in [strace] + libs:
        quiet(['podman', 'cp', os.path.realpath(path), '%s:/opt/bench/lib/%s' % (host, os.path.basename(path))])
    wrapper = '#!/bin/sh\nLD_LIBRARY_PATH=/opt/bench/lib exec /opt/bench/lib/strace "$@"\n'
    rc, out, err = parallel([(host, "printf '%s' '" + wrapper + "' > /opt/bench/strace && chmod +x /opt/bench/strace "
                                    "&& /opt/bench/strace -V")])[host]
    return '/opt/bench/strace' if rc == 0 else None


def bench_profile(runner, host, rounds):
    """Where a no-change call's time goes: transport, interpreter, payload, child processes."""
    inv = runner.inventory([host], host)
    ex = '@' + runner.exceptions_file(UNIT_COUNT)
    runner.play('ours.yml', inv, 'profile-apply', [ex])
    prof = {'host': host, 'n': UNIT_COUNT}
    # The controller's view of each call, pipelined as in every other run.
    task_times = dict((p[0], []) for p in PROFILED)
    for rnd in range(rounds):
        r = runner.play('profile.yml', inv, 'profile-tasks-r%d' % rnd, [ex], expect_changed=False)
        for m in task_times:
            task_times[m].append(module_seconds(r, m))
    prof['task'] = dict((m, statistics.median(v)) for m, v in task_times.items())
    execs = []
    for unused_attempt in range(max(5, rounds)):
        t0 = time.perf_counter()
        quiet(['podman', 'exec', host, 'true'])
        execs.append(time.perf_counter() - t0)
    prof['podman_exec'] = statistics.median(execs)
    # The payloads themselves, kept on the host and run there directly.
    checked([(host, 'rm -rf /root/.ansible/tmp')], 'clearing the remote tmp')
    runner.play('profile.yml', inv, 'profile-keep', [ex], expect_changed=False,
                env_extra={'ANSIBLE_KEEP_REMOTE_FILES': '1', 'ANSIBLE_PIPELINING': '0'})
    strace = copy_strace(host)
    for tool in ('payload_times.py', 'profile_module.py'):
        quiet(['podman', 'cp', os.path.join(HERE, 'tools', tool), host + ':/opt/bench/'], check=True)
    prof['payload'] = {}
    for m, unused_action, fqn in PROFILED:
        rc, out, err = parallel([(host, 'set -e; p=$(ls /root/.ansible/tmp/*/AnsiballZ_%s.py); '
                                        'python3 /opt/bench/payload_times.py "$p" %d %s'
                                  % (m, max(5, rounds), strace or ''))])[host]
        if rc != 0:
            die('timing the %s payload failed: %s' % (m, err.strip()[-400:]))
        data = json.loads(out)
        rc, out, err = parallel([(host, 'set -e; p=$(ls /root/.ansible/tmp/*/AnsiballZ_%s.py); cd "${p%%/*}"; '
                                        'python3 "$p" explode >/dev/null; python3 /opt/bench/profile_module.py '
                                        'debug_dir %s 25' % (m, fqn))])[host]
        if rc == 0:
            data['cprofile'] = out
            first = out.splitlines()[0] if out else ''
            mm = re.search(r'result (\d+) bytes', first)
            data['result_bytes'] = int(mm.group(1)) if mm else None
        prof['payload'][m] = data
    return prof


def profile_report(prof):
    out = []
    w = out.append
    w('### Where a no-change call goes (one host, N=%d exceptions applied)' % prof['n'])
    w('')
    w('`podman exec %s true` from the controller: %s (the transport, paid once per module call, and '
      'again for every loop item).' % (prof['host'][len(PREFIX):], fmt(prof['podman_exec'])))
    w('')
    w('| module | task (controller) | payload on the host | of which Python start | child processes '
      '(seconds) | rest: unpack, imports, own work | result |')
    w('|---|---|---|---|---|---|---|')
    for m in [p[0] for p in PROFILED]:
        d = prof['payload'][m]
        kids = d.get('children')
        kid_text = '; '.join('`%s` %.3f' % (k['command'], k['seconds']) for k in kids) if kids else (
            'none' if kids is not None else 'not traced (no strace)')
        kid_sum = sum(k['seconds'] for k in kids or [])
        w('| %s | %s | %s | %s | %s | %s | %s |' % (
            m, fmt(prof['task'][m]), fmt(d['payload']), fmt(d['python_start']), kid_text,
            fmt(d['payload'] - d['python_start'] - kid_sum),
            '%.1f KB' % (d['result_bytes'] / 1024.0) if d.get('result_bytes') else '-'))
    w('')
    w('Task minus payload is the transport and the controller: forking a worker, templating, '
      '`podman exec`, reading the result.')
    w('')
    return '\n'.join(out) + '\n'


# --- report ------------------------------------------------------------------------------

def fmt(x, unit='s'):
    return '-' if x is None else ('%.2f%s' % (x, unit))


def ratio(a, b):
    return None if a is None or not b else a / b


def machine_info():
    model = '?'
    with open('/proc/cpuinfo') as f:
        for line in f:
            if line.startswith('model name'):
                model = line.split(':', 1)[1].strip()
                break
    mem = '?'
    with open('/proc/meminfo') as f:
        for line in f:
            if line.startswith('MemTotal'):
                mem = '%.1f GiB' % (int(line.split()[1]) / 1024 / 1024)
    ansible = capture([os.path.join(os.environ.get('PEP493_VENV', os.path.join(REPO, '.venv')), 'bin',
                                    'ansible-playbook'), '--version']).splitlines()[0]
    podman = capture(['podman', '--version']).strip()
    return {'nproc': os.cpu_count(), 'cpu': model, 'memory': mem, 'kernel': platform.release(),
            'ansible': ansible, 'podman': podman, 'python': platform.python_version()}


def uptime():
    return capture(['uptime']).strip()


def report(results, cfg, info, meta):
    out = []
    w = out.append
    w('Run: %s UTC, `benchmarks/run %s`, %d rounds, %s, took %s.'
      % (meta['date'], meta['argv'], cfg['rounds'], meta['image'], meta['duration']))
    w('')
    w('Machine: %d CPUs (%s), %s memory, kernel %s; %s; %s; controller Python %s.'
      % (info['nproc'], info['cpu'], info['memory'], info['kernel'], info['ansible'], info['podman'], info['python']))
    w('')
    w('Load (`uptime`) before: `%s`; after: `%s`.' % (meta['load_before'], meta['load_after']))
    w('')
    w('All figures are medians over the rounds. "wall" is the whole `ansible-playbook` process (what an '
      'operator waits for); "play" excludes its start-up (Python, plugin and collection loading, about the '
      'same for every playbook).')
    w('')
    hs = sorted(set(k[0] for r in results.rows if r['section'] == 'policy' for k in [r['key']]))
    if hs:
        w('### Policy: the role (ours) against the same end state by hand')
        w('')
        w('| H | N | ours first | by hand first | ratio | ours re-run | by hand re-run | ratio (wall) | ratio (play) |')
        w('|---|---|---|---|---|---|---|---|---|')
        keys = sorted(set(r['key'] for r in results.rows if r['section'] == 'policy'))
        for key in keys:
            h, n = key
            of = results.median('policy', 'ours', key, 'first')
            bf = results.median('policy', 'byhand', key, 'first')
            orr = results.median('policy', 'ours', key, 'rerun')
            br = results.median('policy', 'byhand', key, 'rerun')
            orp = results.median('policy', 'ours', key, 'rerun', 'play')
            brp = results.median('policy', 'byhand', key, 'rerun', 'play')
            w('| %d | %d | %s | %s | %s | %s | %s | %s | %s |' % (
                h, n, fmt(of), fmt(bf), fmt(ratio(of, bf), ''), fmt(orr), fmt(br), fmt(ratio(orr, br), ''),
                fmt(ratio(orp, brp), '')))
        w('')
        w('Growth of ours (re-run, wall; play in brackets):')
        w('')
        for h in hs:
            ns = sorted(n for (hh, n) in keys if hh == h)
            base = results.median('policy', 'ours', (h, ns[0]), 'rerun')
            basep = results.median('policy', 'ours', (h, ns[0]), 'rerun', 'play')
            parts = []
            for n in ns[1:]:
                v = results.median('policy', 'ours', (h, n), 'rerun')
                vp = results.median('policy', 'ours', (h, n), 'rerun', 'play')
                parts.append('N=%d %+.0f%% (%+.0f%%)' % (n, 100 * (v / base - 1), 100 * (vp / basep - 1)))
            w('- H=%d, from N=%d: %s' % (h, ns[0], ', '.join(parts)))
        for n in sorted(set(key[1] for key in keys)):
            hh = sorted(h for (h, nn) in keys if nn == n)
            if len(hh) > 1:
                base = results.median('policy', 'ours', (hh[0], n), 'rerun')
                w('- N=%d, from H=%d: %s' % (n, hh[0], ', '.join(
                    'H=%d %+.0f%%' % (h, 100 * (results.median('policy', 'ours', (h, n), 'rerun') / base - 1))
                    for h in hh[1:])))
        w('')
        w('Where the role\'s re-run time goes (H=1, median task seconds over the rounds):')
        w('')
        w('| N | ' + ' | '.join(['cert_verification', 'service_verification', 'other tasks', 'play']) + ' |')
        w('|---|---|---|---|---|')
        for key in keys:
            if key[0] != 1:
                continue
            rows = [r for r in results.rows if r['section'] == 'policy' and r['variant'] == 'ours'
                    and r['key'] == key and r['phase'] == 'rerun']
            parts = {'cert': [], 'svc': [], 'other': []}
            for r in rows:
                c = module_seconds(r, 'cert_verification')
                v = module_seconds(r, 'service_verification')
                parts['cert'].append(c)
                parts['svc'].append(v)
                parts['other'].append(sum(t['seconds'] for t in r['tasks']) - c - v)
            cells = [fmt(statistics.median(parts[k])) for k in ('cert', 'svc', 'other')]
            cells.append(fmt(results.median('policy', 'ours', key, 'rerun', 'play')))
            w('| %d | %s |' % (key[1], ' | '.join(cells)))
        w('')
    audit_keys = sorted(set(r['key'] for r in results.rows if r['section'] == 'ours_audit'))
    for key in audit_keys:
        a = results.median('ours_audit', 'ours', key, 'rerun')
        b = results.median('ours_audit', 'ours+audit', key, 'rerun')
        w('The role with its default `pep493_https_audit: true` (one more module call, verification_info), '
          're-run, H=%d N=%d: %s against %s without it (%+.0f%%).' % (key[0], key[1], fmt(b), fmt(a),
                                                                      100 * (b / a - 1)))
        w('')
    fh = sorted(set(r['key'] for r in results.rows if r['section'] == 'floor'))
    if fh:
        w('### Floor: one module call that does nothing, per host')
        w('')
        w('| H | empty play | ping | stat | cert_verification | ping task | stat task | cert_verification task '
          '| cert / stat (task) | cert / stat (wall) |')
        w('|---|---|---|---|---|---|---|---|---|---|')
        for h in fh:
            m = dict((v, results.median('floor', v, h, 'run')) for v in ('empty', 'ping', 'stat', 'cert_verification'))
            t = dict((v, results.median('floor', v, h, 'run', 'task')) for v in ('ping', 'stat', 'cert_verification'))
            w('| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
                h, fmt(m['empty']), fmt(m['ping']), fmt(m['stat']), fmt(m['cert_verification']), fmt(t['ping']),
                fmt(t['stat']), fmt(t['cert_verification']), fmt(ratio(t['cert_verification'], t['stat']), ''),
                fmt(ratio(m['cert_verification'], m['stat']), '')))
        w('')
        key = (1, 50)
        o = results.median('policy', 'ours', key, 'rerun')
        if o is not None and 1 in fh:
            w('Ours (re-run, H=1, N=50) against the floor: %.1f x ping, %.1f x stat (wall).'
              % (o / results.median('floor', 'ping', 1, 'run'), o / results.median('floor', 'stat', 1, 'run')))
            w('')
    ak = [r for r in results.rows if r['section'] == 'audit']
    if ak:
        w('### verification_info on a host with few and many units')
        w('')
        w('Each bench unit is a started oneshot service; on the `u` hosts each also has a drop-in of ours '
          '(`PYTHONHTTPSVERIFY=0`, so the audit reports every one of them); the `p` hosts have plain units. '
          'The image itself brings about 60 more loaded services. The ratio column compares each host with '
          'the first host of its kind.')
        w('')
        w('| host | bench units | probes | task | wall | task / first host of its kind |')
        w('|---|---|---|---|---|---|')
        hosts = []
        for r in ak:
            if (r['variant'], r['key']) not in hosts:
                hosts.append((r['variant'], r['key']))
        for phase in [ph for ph in ('probe', 'noprobe') if any(r['phase'] == ph for r in ak)]:
            base = {}
            for host, units in hosts:
                t = results.median('audit', host, units, phase, 'task')
                kind = host[len(PREFIX)]
                base.setdefault(kind, t)
                w('| %s | %d | %s | %s | %s | %s |' % (
                    host[len(PREFIX):], units, 'yes' if phase == 'probe' else 'no', fmt(t),
                    fmt(results.median('audit', host, units, phase)), fmt(ratio(t, base[kind]), '')))
        w('')
    w('### Targets')
    w('')
    for line in targets(results):
        w('- ' + line)
    return '\n'.join(out) + '\n'


def targets(results):
    lines = []

    def verdict(ok):
        return 'met' if ok else '**missed**'
    o = results.median('policy', 'ours', (1, 50), 'rerun')
    b = results.median('policy', 'byhand', (1, 50), 'rerun')
    if o and b:
        op = results.median('policy', 'ours', (1, 50), 'rerun', 'play')
        bp = results.median('policy', 'byhand', (1, 50), 'rerun', 'play')
        lines.append('Re-run N=50, H=1: ours %.2fs, by hand %.2fs: %.3f x (play only: %.3f x); target <= 0.10: %s.'
                     % (o, b, o / b, op / bp, verdict(o / b <= 0.10)))
    a = results.median('policy', 'ours', (1, 1), 'rerun')
    z = results.median('policy', 'ours', (1, 200), 'rerun')
    if a and z:
        ap = results.median('policy', 'ours', (1, 1), 'rerun', 'play')
        zp = results.median('policy', 'ours', (1, 200), 'rerun', 'play')
        lines.append('Ours from N=1 to N=200 (re-run, H=1): %.2fs -> %.2fs, %+.1f%% (play only: %+.1f%%); '
                     'target <= +10%%: %s.' % (a, z, 100 * (z / a - 1), 100 * (zp / ap - 1), verdict(z / a <= 1.10)))
    c = results.median('floor', 'cert_verification', 1, 'run', 'task')
    s = results.median('floor', 'stat', 1, 'run', 'task')
    if c and s:
        lines.append('No-change cert_verification against the stat floor (H=1, task time): %.2fs / %.2fs = %.2f x; '
                     'target <= 1.5: %s.' % (c, s, c / s, verdict(c / s <= 1.5)))
    units = sorted(set(r['key'] for r in results.rows if r['section'] == 'audit'))
    if len(units) >= 2:
        few, many = units[0], units[-1]
        for kind, what in (('u', 'units that each carry an exception'), ('p', 'plain units')):
            a = results.median('audit', '%s%s%d' % (PREFIX, kind, few), few, 'probe', 'task')
            b = results.median('audit', '%s%s%d' % (PREFIX, kind, many), many, 'probe', 'task')
            if a and b:
                lines.append('verification_info, %d against %d %s (task time): %.2fs / %.2fs = %.2f x; '
                             'target <= 1.5: %s.' % (many, few, what, b, a, b / a, verdict(b / a <= 1.5)))
    return lines


def write_results(text):
    old = ''
    if os.path.exists(RESULTS):
        with open(RESULTS) as f:
            old = f.read()
    if BEGIN in old and END in old:
        new = old[:old.index(BEGIN)] + BEGIN + '\n' + text + END + old[old.index(END) + len(END):]
    else:
        new = '# Benchmark results\n\n' + BEGIN + '\n' + text + END + '\n' + old
    with open(RESULTS, 'w') as f:
        f.write(new)


# --- main ----------------------------------------------------------------------------------

def int_list(text):
    return [int(x) for x in text.split(',') if x]


def main():
    p = argparse.ArgumentParser(prog='benchmarks/run', description=__doc__.splitlines()[0])
    p.add_argument('--full', action='store_true',
                   help='the whole matrix: H=1,4,16 x N=1,10,50,200, 5 rounds (by hand in 2), extras')
    p.add_argument('--hosts', type=int_list, help='host counts, e.g. 1,4')
    p.add_argument('--n', type=int_list, dest='ns', help='exception counts, e.g. 1,10,50,200')
    p.add_argument('--byhand-n', type=int_list, dest='byhand_ns', help='exception counts that also run by hand')
    p.add_argument('--rounds', type=int, help='rounds per pair (A B A B ...)')
    p.add_argument('--byhand-rounds', type=int, help='rounds that include the by-hand runs (the first ones)')
    p.add_argument('--byhand-max-hosts', type=int, help='run by hand only on host counts up to this')
    p.add_argument('--byhand-first-max-n', type=int,
                   help='time by hand\'s first run only up to this N; above, only its re-run on the role\'s state')
    p.add_argument('--extras', action='store_true',
                   help='also the role with its audit on, and verification_info without probes')
    p.add_argument('--only', default='policy,floor,audit,profile', help='sections: policy,floor,audit,profile')
    p.add_argument('--image', default='localhost/pep493-bookworm:latest')
    p.add_argument('--keep', action='store_true', help='leave the containers running')
    p.add_argument('--no-write', action='store_true', help='print the table, leave RESULTS.md as it is')
    args = p.parse_args()

    cfg = dict(MODES['full' if args.full else 'quick'])
    for k in ('hosts', 'ns', 'byhand_ns', 'rounds', 'byhand_rounds', 'byhand_max_hosts', 'byhand_first_max_n'):
        if getattr(args, k) is not None:
            cfg[k] = getattr(args, k)
    if args.rounds and args.byhand_rounds is None:
        cfg['byhand_rounds'] = args.rounds
    if args.hosts:
        cfg['floor_hosts'] = args.hosts
        if args.byhand_max_hosts is None:
            cfg['byhand_max_hosts'] = max(args.hosts)
    if args.extras:
        cfg['audit_noprobe'] = cfg['ours_audit'] = True
    if args.ns and args.byhand_ns is None:
        cfg['byhand_ns'] = [n for n in cfg['byhand_ns'] if n in args.ns]
    sections = args.only.split(',')
    if max(cfg['ns']) > UNIT_COUNT:
        die('at most %d exceptions (there are %d units per host)' % (UNIT_COUNT, UNIT_COUNT))

    os.makedirs(OUTPUT, exist_ok=True)
    start = time.time()
    meta = {'date': datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M'),
            'argv': ' '.join(sys.argv[1:]) or '(quick)', 'image': args.image, 'load_before': uptime()}
    info = machine_info()
    log('bench: %s; %s' % (info['ansible'], meta['load_before']))

    fleet = Fleet(args.image, args.keep)
    nhosts = 0
    if 'policy' in sections:
        nhosts = max(cfg['hosts'])
    if 'floor' in sections:
        nhosts = max([nhosts] + cfg['floor_hosts'])
    policy_hosts = ['%sh%02d' % (PREFIX, i) for i in range(1, nhosts + 1)]
    audit_hosts = []
    if 'audit' in sections:
        audit_hosts = [(u, '%su%d' % (PREFIX, u)) for u in cfg['audit_units']]
        audit_hosts += [(u, '%sp%d' % (PREFIX, u)) for u in cfg['audit_units']]
    profile_hosts = [PREFIX + 'prof'] if 'profile' in sections else []
    names = policy_hosts + [pair[1] for pair in audit_hosts] + profile_hosts
    log('bench: starting %d containers from %s' % (len(names), args.image))
    fleet.start(names)
    jobs = [(h, create_units_script('bench-svc', UNIT_COUNT, False)) for h in policy_hosts + profile_hosts]
    jobs += [(h, create_units_script('bench-unit', u, not h.startswith(PREFIX + 'p'))) for u, h in audit_hosts]
    checked(jobs, 'creating the bench units')
    log('bench: containers ready after %.0fs' % (time.time() - start))

    runner = Runner(args)
    results = Results()
    # One untimed run of each playbook first: the controller's bytecode and the hosts' page cache.
    if policy_hosts:
        inv1 = runner.inventory(policy_hosts[:1], 'h1')
        for pb in ('ours.yml', 'byhand.yml', 'floor_stat.yml'):
            runner.play(pb, inv1, 'warmup-' + pb, ['@' + runner.exceptions_file(1)])
    for unused_units, host in audit_hosts:
        runner.play('verification_info.yml', runner.inventory([host], host), 'warmup-' + host)
    if 'policy' in sections:
        for h in cfg['hosts']:
            bench_policy(runner, results, policy_hosts, h, cfg['ns'],
                         cfg['byhand_ns'] if h <= cfg['byhand_max_hosts'] else [], cfg['rounds'], cfg['byhand_rounds'],
                         cfg['byhand_first_max_n'])
        if cfg['ours_audit'] and 1 in cfg['hosts'] and 50 in cfg['ns']:
            bench_ours_audit(runner, results, policy_hosts, 50, cfg['rounds'])
    if 'floor' in sections:
        for h in cfg['floor_hosts']:
            bench_floor(runner, results, policy_hosts, h, cfg['rounds'])
    if 'audit' in sections:
        bench_audit(runner, results, audit_hosts, cfg['rounds'], cfg['audit_noprobe'])
    prof = bench_profile(runner, profile_hosts[0], cfg['rounds']) if profile_hosts else None

    fleet.remove()
    meta['load_after'] = uptime()
    meta['duration'] = '%.0f s (%d playbook runs)' % (time.time() - start, runner.count)
    text = report(results, cfg, info, meta) + ('\n' + profile_report(prof) if prof else '')
    with open(os.path.join(OUTPUT, 'results.json'), 'w') as f:
        json.dump({'meta': meta, 'machine': info, 'rows': results.rows, 'profile': prof}, f, default=str)
    sys.stdout.write('\n' + text)
    if not args.no_write:
        write_results(text)
        log('bench: table written to %s' % os.path.relpath(RESULTS, REPO))


if __name__ == '__main__':
    main()
