# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""verification_forecast on one host with few and with many endpoints, beside verification_info.

Makes certificates with ``openssl`` under .cache/bench-forecast/ and starts loopback servers in
this process (tests/unit/tls_servers.py): MANY TLS servers whose certificate chains to a private
CA, and BLACK black holes (they accept and never answer). Then runs, each as its own process
(``python -m`` of the module with an argument file, as Ansible runs it on the host, no Ansible
around it), alternately (A B C A B C ...) for several rounds, the first dropped:

- verification_info on this host;
- verification_forecast with FEW and with MANY declared endpoints of the host's own, probed by
  the Python 2 at .cache/pybin/python2.7 (two handshakes each: the private CA is not trusted,
  every result must be ``untrusted``).

Then the bounds, once each: one black-holed endpoint (it must cost one timeout, and its server
must see exactly one connection: nothing retried), MANY endpoints of which the last one is a
black hole (it must cost one timeout at most, beside the others' probes), and BLACK black-holed endpoints with a budget
shorter than BLACK timeouts (it must cost at most the budget; every endpoint ``timeout``).
Prints medians and ratios; figures, not assertions: it fails only when a result is not the
expected one.

    .venv/bin/python benchmarks/forecast_endpoints.py [--few 1] [--many 50] [--rounds 7]
        [--timeout 2] [--black 50] [--budget 5] [--record benchmarks/forecast_endpoints.md]
"""

from __future__ import print_function

import argparse
import datetime
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
WORK = os.path.join(REPO, '.cache', 'bench-forecast')
PYTHON2 = os.path.join(REPO, '.cache', 'pybin', 'python2.7')
MODULES = 'ansible_collections.pep493.https.plugins.modules.'
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, 'tests', 'unit'))

from exceptions_one_host import ansible_version, shared_env  # noqa: E402  pylint: disable=wrong-import-position
import tls_servers  # noqa: E402  pylint: disable=wrong-import-position


def module(env, name, args, label):
    """One run of a module as a process: wall and CPU seconds (its children included), its result."""
    path = os.path.join(WORK, 'args-%s.json' % label)
    with open(path, 'w') as handle:
        json.dump({'ANSIBLE_MODULE_ARGS': args}, handle)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([os.path.join(env['PEP493_VENV'], 'bin', 'python'), '-m', MODULES + name, path],
                          env=dict(env, PYTHONPATH=os.path.join(REPO, '.cache', 'self')), cwd=WORK,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    try:
        result = json.loads(proc.stdout)
    except ValueError:
        raise SystemExit('%s (%s): exit %d, no JSON result:\n%s%s'
                         % (name, label, proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:]))
    if proc.returncode != 0 or result.get('failed'):
        raise SystemExit('%s (%s): exit %d: %s' % (name, label, proc.returncode, result.get('msg')))
    return wall, cpu, result


def forecast_args(ports, timeout, budget):
    return dict(endpoints=[dict(endpoint='127.0.0.1:%d' % port, server_name='localhost') for port in ports],
                interpreter=PYTHON2, timeout=timeout, budget=budget, max_endpoints=max(len(ports), 1))


def endpoint_results(result):
    return [e['result'] for e in (result.get('host_wide') or {}).get('endpoints', [])]


def checked_forecast(env, ports, timeout, budget, label, expected):
    """One forecast run; ``expected``: one result for every endpoint, or a list of one per endpoint."""
    wall, cpu, result = module(env, 'verification_forecast', forecast_args(ports, timeout, budget), label)
    found = endpoint_results(result)
    expected = expected if isinstance(expected, list) else [expected] * len(ports)
    if found != expected or result['summary']['probed_endpoints'] != len(ports):
        raise SystemExit('verification_forecast (%s): expected %s, got %s (probed %s)'
                         % (label, expected, found, result['summary']['probed_endpoints']))
    return wall, cpu


def contexts_cost(count):
    """Seconds Python 2 takes for ``count`` ssl.create_default_context(): each loads the system's CA
    store, what one context per endpoint would cost (the probe builds one of each kind per process)."""
    return float(subprocess.check_output([PYTHON2, '-c', 'import ssl, sys, time\nstart = time.time()\n'
                                          'for _i in range(%d): ssl.create_default_context()\n'
                                          'sys.stdout.write(str(time.time() - start))' % count]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--few', type=int, default=1)
    parser.add_argument('--many', type=int, default=50)
    parser.add_argument('--rounds', type=int, default=7)
    parser.add_argument('--timeout', type=float, default=2.0, help='the forecast\'s timeout per endpoint')
    parser.add_argument('--black', type=int, default=50, help='black-holed endpoints for the budget bound')
    parser.add_argument('--budget', type=float, default=5.0, help='the budget of the many black holes\' run')
    parser.add_argument('--record', help='also write the table to this Markdown file')
    args = parser.parse_args()
    if not os.access(PYTHON2, os.X_OK):
        raise SystemExit('%s: no Python 2 to probe with' % PYTHON2)
    env = shared_env()
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    certs = tls_servers.make_certificates(WORK)
    servers = [tls_servers.Server('tls', certs['private']) for _i in range(max(args.few, args.many))]
    holes = [tls_servers.Server('black_hole') for _i in range(max(args.black, 1))]
    ports = [server.port for server in servers]
    cases = [('info', None), ('few', ports[:args.few]), ('many', ports[:args.many])]
    runs = dict((key, []) for key, _ports in cases)
    try:
        load_before = os.getloadavg()
        for _round in range(args.rounds + 1):       # the first round warms caches and is dropped
            for key, chosen in cases:
                if chosen is None:
                    wall, cpu, result = module(env, 'verification_info', {}, key)
                    if result.get('scan_errors'):
                        raise SystemExit('verification_info: %s' % result['scan_errors'])
                else:
                    wall, cpu = checked_forecast(env, chosen, args.timeout, 60, key, 'untrusted')
                runs[key].append((wall, cpu))
        one = checked_forecast(env, [holes[0].port], args.timeout, 60, 'one-black-hole', 'timeout')
        one_connections = holes[0].connections
        mixed_ports = ports[:args.many - 1] + [holes[0].port]
        mixed = checked_forecast(env, mixed_ports, args.timeout, 60, 'mixed',
                                 ['untrusted'] * (len(mixed_ports) - 1) + ['timeout'])
        mixed_connections = holes[0].connections - one_connections
        before = [h.connections for h in holes]
        black = checked_forecast(env, [h.port for h in holes[:args.black]], args.timeout, args.budget,
                                 'black-holes', 'timeout')
        black_connections = [h.connections - n for h, n in zip(holes, before)][:args.black]
        contexts = statistics.median(contexts_cost(args.many) for _i in range(3))
        load_after = os.getloadavg()
    finally:
        for server in servers + holes:
            server.close()
        shutil.rmtree(WORK, ignore_errors=True)

    def median(key, field):
        return statistics.median(run[field] for run in runs[key][1:])
    lines = [
        '| run | endpoints | median wall (s) | median CPU (s) | / verification_info, wall |',
        '| --- | ---: | ---: | ---: | ---: |',
        '| verification_info | - | %.3f | %.3f | 1.00 |' % (median('info', 0), median('info', 1)),
    ]
    for key in ('few', 'many'):
        lines.append('| verification_forecast | %d | %.3f | %.3f | %.2f |' % (
            len(dict(cases)[key]), median(key, 0), median(key, 1), median(key, 0) / median('info', 0)))
    lines += [
        '',
        '| bound | endpoints | timeout (s) | budget (s) | wall (s) | connections per black hole (most) | '
        'black holes reached |',
        '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
        '| one black hole | 1 | %g | 60 | %.3f | %d | %d |' % (
            args.timeout, one[0], one_connections, 1 if one_connections else 0),
        '| TLS servers and one black hole | %d | %g | 60 | %.3f | %d | 1 |' % (
            len(mixed_ports), args.timeout, mixed[0], mixed_connections),
        '| black holes only | %d | %g | %g | %.3f | %d | %d |' % (
            args.black, args.timeout, args.budget, black[0], max(black_connections),
            sum(1 for n in black_connections if n)),
        '',
        '%d against %d endpoints: %.2f x wall, %.2f x CPU (%d ssl.create_default_context() of Python 2, '
        'one per endpoint, would take %.2f s alone; the probe builds one of each kind); one black hole: %.2f s over its timeout; %d black holes: '
        '%.2f s for a budget of %g s (%g s if each cost its timeout). %d rounds, alternating; each run a process '
        '(Python %s, ansible-core %s), probes by Python 2.7 at .cache/pybin; loopback servers; %s, %d CPUs; '
        'load %.1f before, %.1f after; %s UTC.' % (
            len(dict(cases)['many']), len(dict(cases)['few']), median('many', 0) / median('few', 0),
            median('many', 1) / median('few', 1), args.many, contexts, one[0] - args.timeout, args.black, black[0], args.budget,
            args.black * args.timeout, args.rounds, platform.python_version(), ansible_version(env),
            platform.platform(), os.cpu_count() or 0, load_before[0], load_after[0],
            datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M')),
    ]
    print('\n'.join(lines))
    if args.record:
        with open(args.record, 'w') as handle:
            handle.write('# The forecast with few and with many endpoints, beside verification_info\n\n'
                         + '\n'.join(lines) + '\n\nWritten by `benchmarks/forecast_endpoints.py --record`; what '
                         'the figures mean: `RESULTS.md`.\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
