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
import signal
import subprocess
import sys
import tempfile

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


def killed_at(name, args, point, timeout=RUN_TIMEOUT, umask=None):
    """Run ``name`` and have it SIGKILL itself just before its ``point``-th file operation.

    ``point`` 0 only counts: returns (Run, number of file operations of a full run).
    """
    args_file = write_args(args)
    cmd = [PYTHON, KILLPOINT, name, args_file, str(point)] + ([oct(umask)] if umask is not None else [])
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    result = finish(proc, args_file, timeout)
    ops = None
    for line in result.err.splitlines():
        if line.startswith('killpoint-ops='):
            ops = int(line.split('=', 1)[1])
    return result, ops


def killed_after(name, args, delay, timeout=RUN_TIMEOUT):
    """Start ``name``; once its imports are done, wait ``delay`` seconds and SIGKILL it."""
    import time
    args_file = write_args(args)
    proc = subprocess.Popen([PYTHON, KILLPOINT, name, args_file, 'ready'], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        proc.stderr.read(6)  # "ready\n", written after the imports
        time.sleep(delay)
        try:
            os.kill(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        out, err = proc.communicate(timeout=timeout)
    finally:
        os.unlink(args_file)
    return Run(proc.returncode, parse_result(out), out, err.decode('utf-8', 'replace'))


def simultaneous(requests, gate_folder):
    """Run every (module, args) of ``requests`` at once: all start main() at the same moment."""
    import time
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
