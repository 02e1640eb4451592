# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What is running: the manager's properties, the process table, files changed since load."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import subprocess
import time

from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._host import runtime
from ansible_collections.pep493.https.tests.unit.tree import fake_proc, write

# busctl --json=short get-property ... Environment UnitPath UnitsLoadStartTimestamp (systemd 247)
BUSCTL = ('{"type":"as","data":["LANG=C.UTF-8","PATH=/usr/bin","PYTHONHTTPSVERIFY=0","X=a b"]}\n'
          '{"type":"as","data":["/etc/systemd/system","/lib/systemd/system"]}\n'
          '{"type":"t","data":1796322248691307}\n')


def test_manager_from_busctl():
    manager = runtime.parse_manager_json(BUSCTL)
    assert manager.environment == {'LANG': 'C.UTF-8', 'PATH': '/usr/bin', 'PYTHONHTTPSVERIFY': '0', 'X': 'a b'}
    assert manager.unit_path == ['/etc/systemd/system', '/lib/systemd/system']
    assert abs(manager.loaded_at - 1796322248.691307) < 1e-6
    assert runtime.parse_manager_json('not json') is None and runtime.parse_manager_json('') is None


def test_manager_from_systemctl_has_no_precise_load_time():
    manager = runtime.parse_manager('Environment=LANG=C "X=a b"\nUnitPath=/a /b\n'
                                    'UnitsLoadStartTimestamp=Thu 2026-12-03 18:23:57 UTC\n')
    assert manager.environment == {'LANG': 'C', 'X': 'a b'} and manager.unit_path == ['/a', '/b']
    assert manager.loaded_at is None


def test_process_table_services_main_processes_and_values(tmp_path):
    proc = fake_proc(tmp_path / 'proc', {
        1: ('/init.scope', 0, {'PATH': '/bin', 'container': 'podman'}),
        10: ('/system.slice/legacy.service', 1, {'PYTHONHTTPSVERIFY': '0'}),
        11: ('/system.slice/legacy.service', 10, {'PYTHONHTTPSVERIFY': '0'}),        # a child of the main one
        20: ('/system.slice/two.service', 1, {}),
        21: ('/system.slice/two.service', 1, {}),                                     # two roots: ambiguous
        30: ('/system.slice/w@2.service/sub', 1, {'PYTHONHTTPSVERIFY': '1'}),         # a delegated subgroup
        40: ('/user.slice/user-0.slice/session-1.scope', 1, {'PYTHONHTTPSVERIFY': '0'}),
        50: ('/system.slice/locked.service', 1, None),
    })
    table = runtime.ProcessTable(proc)
    assert table.units_with_variable() == ['legacy.service', 'w@2.service']
    assert table.main_pid('legacy.service') == (10, False)
    assert table.main_pid('two.service') == (None, True)
    assert table.main_pid('gone.service') == (None, False)
    assert table.value_of(10) == ('0', None) and table.value_of(20) == (None, None)
    value, error = table.value_of(50)
    assert value is None and 'cannot read' in error
    assert runtime.read_pid1_environment(proc) == {'PATH': '/bin', 'container': 'podman'}
    assert runtime.ProcessTable(str(tmp_path / 'none')).processes == {}


def test_cgroup_lines_v1_and_v2():
    assert runtime.service_of_cgroup(b'12:pids:/x\n1:name=systemd:/system.slice/a.service\n') == (
        '/system.slice/a.service', 'a.service')
    assert runtime.service_of_cgroup(b'0::/system.slice/b.service\n') == ('/system.slice/b.service', 'b.service')
    assert runtime.service_of_cgroup(b'0::/user.slice/user-0.slice/user@0.service/app.slice/x.service\n')[1] is None


def test_a_real_process_and_a_gone_one():
    child = subprocess.Popen(['sleep', '30'], env={'PATH': '/usr/bin:/bin', 'PYTHONHTTPSVERIFY': '0'})
    try:
        for _attempt in range(200):     # until the child has exec'd with its own environment
            value, error = runtime.read_environ_value(child.pid)
            if value == '0':
                break
            time.sleep(0.01)
    finally:
        child.kill()
        child.wait()
    assert (value, error) == ('0', None)
    value, error = runtime.read_environ_value(child.pid)
    assert value is None and 'gone' in error


def test_files_changed_since_the_last_load(tmp_path):
    write(tmp_path, '/etc/systemd/system/a.service', b'')
    files = hostfiles.HostFiles(str(tmp_path))
    mtime = os.stat(os.path.join(str(tmp_path), 'etc/systemd/system/a.service')).st_mtime
    assert runtime.changed_since(files, ['/etc/systemd/system/a.service'], mtime - 1) is True
    assert runtime.changed_since(files, ['/etc/systemd/system/a.service', '/none'], mtime + 1) is False
    assert runtime.changed_since(files, ['/etc/systemd/system/a.service'], None) is None


def test_systemd_running_is_false_under_a_root(tmp_path):
    assert runtime.systemd_running(str(tmp_path)) is False
    assert runtime.systemd_running() is os.path.isdir('/run/systemd/system')


def test_the_last_load_is_when_the_generator_folders_were_made_again(tmp_path):
    files = hostfiles.HostFiles(str(tmp_path))
    assert runtime.last_load(files) is None
    assert runtime.last_load(files, 100.0) == 100.0
    os.makedirs(os.path.join(str(tmp_path), 'run/systemd/generator'))
    os.makedirs(os.path.join(str(tmp_path), 'run/systemd/generator.late'))
    os.utime(os.path.join(str(tmp_path), 'run/systemd/generator'), (500.0, 500.0))
    os.utime(os.path.join(str(tmp_path), 'run/systemd/generator.late'), (700.0, 700.0))
    assert runtime.last_load(hostfiles.HostFiles(str(tmp_path)), 100.0) == 700.0


def test_the_variable_in_an_environ_blob():
    assert runtime.environ_variable(b'PYTHONHTTPSVERIFY=0\0A=1\0') == (True, '0')
    assert runtime.environ_variable(b'A=1\0PYTHONHTTPSVERIFY=\0') == (True, '')
    assert runtime.environ_variable(b'A=1\0PYTHONHTTPSVERIFY=1\0PYTHONHTTPSVERIFY=0\0') == (True, '1')
    assert runtime.environ_variable(b'XPYTHONHTTPSVERIFY=0\0PYTHONHTTPSVERIFYX=1\0') == (False, None)
    assert runtime.environ_variable(b'') == (False, None)
    assert runtime.environ_variable(b'PYTHONHTTPSVERIFY=\xff') == (True, u'\ufffd')
