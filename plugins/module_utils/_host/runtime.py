# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What is running: the services systemd has loaded and the processes of each.

A constant number of processes whatever the number of units: ``systemctl list-units`` (every
loaded service and its state, one D-Bus call), ``systemctl show`` of the manager itself (its
environment, unit search path and when it last loaded the units), and one pass over ``/proc``
(each process's environment, cgroup and parent). ``systemctl show`` of single units is avoided:
it costs about 12 ms per unit named on systemd 247.

Which process is a service's main one is read from the process tree: the one process of the
service's cgroup whose parent is outside it (the one systemd started). When a service has
several such processes the caller asks systemd (``units_to_ask``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import json
import os

from ansible_collections.pep493.https.plugins.module_utils._syntax import envfile
from ansible_collections.pep493.https.plugins.module_utils._syntax import systemd
from ansible_collections.pep493.https.plugins.module_utils._syntax import unit_names

VARIABLE = envfile.VARIABLE
PROC = '/proc'
_VARIABLE_B = VARIABLE.encode('ascii')
RUNNING_STATES = ('active', 'activating', 'reloading', 'deactivating')
MANAGER_PROPERTIES = ('Environment', 'UnitPath', 'UnitsLoadStartTimestamp')


def systemd_running(root=None):
    """True when systemd is PID 1 here (sd_booted(3)) and no ``root`` redirects the files."""
    return not root and os.path.isdir('/run/systemd/system')


class Manager(object):
    """The running manager: ``environment`` ({name: value}), ``unit_path`` (its search path),
    ``loaded_at`` (when it last loaded the units, in seconds since the epoch, or None)."""

    def __init__(self, environment=None, unit_path=None, loaded_at=None):
        self.environment = environment
        self.unit_path = unit_path
        self.loaded_at = loaded_at


def parse_manager_json(text):
    """A Manager from ``busctl --json=short get-property ... Environment UnitPath
    UnitsLoadStartTimestamp`` (one JSON object per property, in that order); None when the
    output is not that."""
    try:
        values = [json.loads(line)['data'] for line in text.splitlines() if line.strip()]
        environment = {}
        for entry in values[0]:
            assignment = systemd.env_assignment(entry)
            if assignment:
                environment[assignment[0]] = assignment[1]
        return Manager(environment, list(values[1]) or None, values[2] / 1e6 if values[2] else None)
    except (ValueError, KeyError, IndexError, TypeError):
        return None


def parse_manager(text):
    """A Manager from ``systemctl show -p Environment,UnitPath,UnitsLoadStartTimestamp``:
    systemctl prints the timestamp to the second only, too coarse to compare with file times,
    so ``loaded_at`` stays None."""
    blocks = systemd.parse_show(text)
    block = blocks[0] if blocks else {}
    environment = systemd.parse_environment(block.get('Environment', ''))
    unit_path = block.get('UnitPath', '').split() or None
    return Manager(environment, unit_path, None)


# ---------------------------------------------------------------------------------------------
# /proc
# ---------------------------------------------------------------------------------------------

class Process(object):
    __slots__ = ('pid', 'ppid', 'unit', 'cgroup', 'value', 'has_value', 'error')

    def __init__(self, pid):
        self.pid = pid
        self.ppid = None
        self.unit = None
        self.cgroup = None
        self.value = None
        self.has_value = False
        self.error = None


class ProcessTable(object):
    """One pass over ``proc``: each process's service (from its cgroup), parent, and
    PYTHONHTTPSVERIFY (read from its environ once). Processes of user sessions are left out."""

    def __init__(self, proc=None):
        proc = proc or PROC
        self.proc = proc
        self.processes = {}
        self.by_unit = {}
        try:
            names = [name for name in os.listdir(proc) if name.isdigit()]
        except OSError:
            names = []
        for name in names:
            process = self._read(int(name))
            if process is None:
                continue
            self.processes[process.pid] = process
            if process.unit:
                self.by_unit.setdefault(process.unit, []).append(process)

    def _read(self, pid):
        process = Process(pid)
        cgroup = _read_file('%s/%d/cgroup' % (self.proc, pid))
        if cgroup is None:
            return None
        process.cgroup, process.unit = service_of_cgroup(cgroup)
        if process.unit is None:
            return process     # not a service's: neither its parent nor its environment matter
        try:
            blob = _read_all('%s/%d/environ' % (self.proc, pid))
        except (IOError, OSError) as exc:
            process.error = environ_error(exc, '%s/%d/environ' % (self.proc, pid), pid)
            return process
        process.has_value, process.value = environ_variable(blob)
        return process

    def units_with_variable(self):
        """Services one of whose processes has the variable set."""
        return sorted(set(p.unit for p in self.processes.values() if p.unit and p.has_value))

    def main_pid(self, unit):
        """(pid or None, ambiguous): the one process of ``unit`` whose parent is outside it (a
        service with a single process needs no look at parents)."""
        processes = self.by_unit.get(unit, ())
        if len(processes) == 1:
            return processes[0].pid, False
        inside = set(p.pid for p in processes)
        roots = [p for p in processes if self._parent(p) not in inside]
        if len(roots) == 1:
            return roots[0].pid, False
        return None, len(roots) > 1

    def _parent(self, process):
        if process.ppid is None:
            stat_line = _read_file('%s/%d/stat' % (self.proc, process.pid)) or b''
            fields = stat_line[stat_line.rfind(b')') + 2:].split()
            process.ppid = int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else 0
        return process.ppid

    def value_of(self, pid):
        """(value or None, error or None) of PYTHONHTTPSVERIFY in the process ``pid``."""
        process = self.processes.get(pid)
        if process is None:
            return read_environ_value(pid, self.proc)
        if process.error:
            return None, process.error
        return process.value, None


def environ_variable(blob):
    """(set, value) of PYTHONHTTPSVERIFY in an environ blob; the first one counts, as for getenv()."""
    start = 0 if blob.startswith(_VARIABLE_B + b'=') else blob.find(b'\0' + _VARIABLE_B + b'=') + 1
    if start == 0 and not blob.startswith(_VARIABLE_B + b'='):
        return False, None
    value = blob[start + len(_VARIABLE_B) + 1:].split(b'\0', 1)[0]
    return True, value.decode('utf-8', 'replace')


def _read_file(path):
    try:
        return _read_all(path)
    except (IOError, OSError):
        return None


def _read_all(path):
    """The whole of a /proc file (its size is not known beforehand); os.read, without the
    buffered file object, as the pass over /proc reads two files per process."""
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                return b''.join(chunks)
            chunks.append(chunk)
    finally:
        os.close(fd)


def service_of_cgroup(data):
    """(cgroup path, service) of a /proc/<pid>/cgroup; the service is None for user sessions."""
    for line in data.decode('utf-8', 'replace').splitlines():
        # cgroup v2 "0::/system.slice/app.service", v1 "1:name=systemd:/system.slice/app.service"
        hierarchy, _sep, rest = line.partition(':')
        controllers, _sep, path = rest.partition(':')
        if hierarchy != '0' and controllers != 'name=systemd':
            continue
        services = [part for part in path.split('/') if part.endswith(unit_names.SUFFIX)]
        if services and '/user.slice/' not in path + '/':
            return path, services[-1]
        return path, None
    return None, None


def environ_error(exc, path, pid):
    if exc.errno in (errno.ENOENT, errno.ESRCH):
        return 'process %d is gone' % pid
    if exc.errno == errno.EACCES:
        return 'cannot read %s: permission denied' % path
    return 'cannot read %s: %s' % (path, exc.strerror or exc)


def read_environ_value(pid, proc=None):
    path = '%s/%d/environ' % (proc or PROC, pid)
    try:
        with open(path, 'rb') as handle:
            environ = envfile.parse_environ(handle.read())
    except (IOError, OSError) as exc:
        return None, environ_error(exc, path, pid)
    return environ.get(VARIABLE), None


def read_pid1_environment(proc=None):
    """PID 1's own environment (what ``PassEnvironment=`` passes on), or None when unreadable."""
    data = _read_file('%s/1/environ' % (proc or PROC))
    return envfile.parse_environ(data) if data is not None else None


# ---------------------------------------------------------------------------------------------
# Files changed since systemd loaded them
# ---------------------------------------------------------------------------------------------

GENERATOR_FOLDERS = ('/run/systemd/generator.early', '/run/systemd/generator', '/run/systemd/generator.late')


def last_load(files, manager_loaded_at=None):
    """When systemd last loaded the unit files (seconds since the epoch), or None.

    The manager's UnitsLoadStartTimestamp is set at boot only; every daemon-reload empties and
    recreates the generator folders right before loading the units again (manager_reload() in
    systemd 247), so their modification time is when the last load began.
    """
    times = [manager_loaded_at] if manager_loaded_at else []
    for folder in GENERATOR_FOLDERS:
        info = files.stat(folder)
        if info is not None:
            times.append(info.st_mtime)
    return max(times) if times else None


def changed_since(files, paths, loaded_at):
    """Whether one of ``paths`` (a unit's files and drop-in folders) was modified after
    ``loaded_at``: what systemd calls NeedDaemonReload (its files, or the set of its drop-ins,
    changed since the last daemon-reload). None when ``loaded_at`` is unknown."""
    if loaded_at is None:
        return None
    for path in paths:
        info = files.stat(path)
        if info is not None and info.st_mtime > loaded_at:
            return True
    return False
