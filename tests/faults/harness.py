# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run the collection's modules as real, separate processes, the way a target host does.

Each run writes its arguments to a JSON file and starts ``python <module>.py args.json``
(ansible-core's direct module invocation), with the collection importable through
``PYTHONPATH`` (set by ``tests/faults/run``). Every run is bounded by a timeout.
"""

import json
import os
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKOUT = os.path.dirname(os.path.dirname(HERE))
PYTHON = os.environ.get('PEP493_FAULTS_PYTHON', sys.executable)
KILLPOINT = os.path.join(HERE, 'killpoint.py')
RUN_TIMEOUT = 60


def module_file(name):
    return os.path.join(CHECKOUT, 'plugins', 'modules', name + '.py')


def has_module(name):
    return os.path.exists(module_file(name))


def write_args(args, check_mode=False, diff=False, folder=None):
    args = dict(args, _ansible_check_mode=check_mode, _ansible_diff=diff)
    fd, path = tempfile.mkstemp(prefix='args.', suffix='.json', dir=folder)
    with os.fdopen(fd, 'w') as handle:
        json.dump({'ANSIBLE_MODULE_ARGS': args}, handle)
    return path


def parse_result(out):
    """The module's JSON result: the last line of stdout that is a JSON object."""
    for line in reversed(out.decode('utf-8', 'replace').splitlines()):
        line = line.strip()
        if line.startswith('{'):
            return json.loads(line)
    return None


class Run(object):
    def __init__(self, returncode, result, out, err):
        self.returncode = returncode
        self.result = result
        self.out = out
        self.err = err

    @property
    def ok(self):
        return self.returncode == 0 and self.result is not None and not self.result.get('failed')

    @property
    def failed(self):
        return self.returncode != 0 and self.result is not None and bool(self.result.get('failed'))

    @property
    def msg(self):
        return (self.result or {}).get('msg', '')

    def __repr__(self):
        return 'Run(rc=%r, result=%r, stderr=%r)' % (self.returncode, self.result, self.err[-2000:])


def command(name, args_file, prefix=None):
    return list(prefix or []) + [PYTHON, module_file(name), args_file]


def start(name, args, check_mode=False, diff=False, prefix=None, env=None, **popen):
    """Start one module process; returns (Popen, args_file)."""
    args_file = write_args(args, check_mode, diff)
    proc = subprocess.Popen(command(name, args_file, prefix), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, **popen)
    return proc, args_file


def finish(proc, args_file, timeout=RUN_TIMEOUT):
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError('module run exceeded %ss: %r' % (timeout, err[-2000:]))
    finally:
        os.unlink(args_file)
    return Run(proc.returncode, parse_result(out), out, err.decode('utf-8', 'replace'))


def run(name, args, check_mode=False, diff=False, prefix=None, env=None, timeout=RUN_TIMEOUT, **popen):
    proc, args_file = start(name, args, check_mode, diff, prefix, env, **popen)
    return finish(proc, args_file, timeout)


class KillServer(object):
    """One process that imports ``name`` once and forks a child per run (killpoint.py serve):
    crash tests can afford hundreds of real, separate runs."""

    def __init__(self, name, folder):
        self.folder = folder
        self.proc = subprocess.Popen([PYTHON, KILLPOINT, name, 'serve'], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, universal_newlines=True)

    def run(self, args, point=None, delay=None, umask=None, timeout=RUN_TIMEOUT):
        """One run killed before its ``point``-th file operation, or ``delay`` seconds after
        its start; returns (Run, file operations seen by a run that was not killed)."""
        args_file = write_args(args, folder=self.folder)
        out = args_file + '.out'
        request = dict(args_file=args_file, out=out, point=point, delay=delay, umask=umask)
        self.proc.stdin.write(json.dumps(request) + '\n')
        self.proc.stdin.flush()
        timer = threading.Timer(timeout, self.proc.kill)
        timer.start()
        try:
            answer = self.proc.stdout.readline()
        finally:
            timer.cancel()
        assert answer, 'the kill server died or a run exceeded %ss' % timeout
        with open(out, 'rb') as handle:
            output = handle.read()
        os.unlink(out)
        os.unlink(args_file)
        ops = None
        for line in output.decode('utf-8', 'replace').splitlines():
            if line.startswith('killpoint-ops='):
                ops = int(line.split('=', 1)[1])
        run = Run(json.loads(answer)['returncode'], parse_result(output), output, output.decode('utf-8', 'replace'))
        return run, ops

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(RUN_TIMEOUT)


def simultaneous(requests, gate_folder):
    """Run every (module, args) of ``requests`` at once: all start main() at the same moment."""
    gate = os.path.join(gate_folder, 'gate')
    procs = []
    for name, args in requests:
        args_file = write_args(args)
        proc = subprocess.Popen([PYTHON, KILLPOINT, name, args_file, 'gate:' + gate],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        procs.append((proc, args_file))
    for proc, args_file in procs:
        assert proc.stderr.read(6) == b'ready\n', proc
    open(gate, 'w').close()
    try:
        return [finish(proc, args_file) for proc, args_file in procs]
    finally:
        os.unlink(gate)


def temp_leftovers(folder):
    """Files a writer may leave behind: ours (.<name>.*.tmp) and atomic_move's (.ansible_tmp*)."""
    if not os.path.isdir(folder):
        return []
    return sorted(n for n in os.listdir(folder) if n.endswith('.tmp') or n.startswith('.ansible_tmp'))
