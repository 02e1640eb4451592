# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The host model joined up (hostmodel.Host) and the services the audit reports (records):
which services, and every field of a record, under root and with a stand-in of what runs."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import os
import tempfile

import pytest

from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._host import model as hostmodel
from ansible_collections.pep493.https.plugins.module_utils._host import runtime
from ansible_collections.pep493.https.plugins.module_utils._report import services as records
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.tests.unit.tree import fake_proc, write

TODAY = datetime.date(2026, 6, 1)
ETC = '/etc/systemd/system'
LIB = '/usr/lib/systemd/system'
PY2 = b'[Service]\nExecStart=/usr/bin/python2.7 /srv/app\n'


def ours(verify=False, expires='2026-12-31'):
    return dropin.render_dropin(verify, 'vendor CA not yet trusted', dates.validate_expires(expires))


def host(root, live=None, loaded_at=None, manager=None):
    """A Host under ``root``; ``live`` {pid: (cgroup, ppid, environ)} makes systemd "run"."""
    files = hostfiles.HostFiles(str(root))
    if live is None:
        return hostmodel.Host(files)
    proc = fake_proc(tempfile.mkdtemp(prefix='proc-', dir=str(root)), live)
    loaded = dict((cgroup.rsplit('/', 1)[-1], ('loaded', 'active', 'running')) for cgroup, _ppid, _env
                  in live.values() if cgroup.endswith('.service'))
    return hostmodel.Host(files, hostmodel.Runtime(runtime.Manager(manager or {}, None, loaded_at), loaded,
                                                   runtime.ProcessTable(proc), {}))


def scan(model, wanted=None):
    return dict((r['unit'], r) for r in records.scan_services(model, TODAY, wanted))


def test_a_managed_exception_in_full(tmp_path):
    write(tmp_path, LIB + '/legacy.service', PY2)
    write(tmp_path, ETC + '/legacy.service.d/zz-pep493-https.conf', ours())
    write(tmp_path, LIB + '/quiet.service', b'[Service]\nExecStart=/bin/true\n')
    found = scan(host(tmp_path))
    assert sorted(found) == ['legacy.service']
    legacy = found['legacy.service']
    assert legacy == {
        'unit': 'legacy.service', 'load_state': 'loaded', 'active_state': None, 'fragment_path': LIB + '/legacy.service',
        'dropin_paths': [ETC + '/legacy.service.d/zz-pep493-https.conf'],
        'mentioned_in': [ETC + '/legacy.service.d/zz-pep493-https.conf'], 'value': '0', 'value_known': True,
        'verify': False, 'source': ETC + '/legacy.service.d/zz-pep493-https.conf', 'source_kind': 'dropin',
        'managed': True, 'dropin': ETC + '/legacy.service.d/zz-pep493-https.conf', 'managed_value': '0', 'ca': None,
        'overridden': False, 'reason': 'vendor CA not yet trusted', 'expires': '2026-12-31', 'expired': False,
        'needs_daemon_reload': None, 'main_pid': None, 'running_value': None, 'running_value_error': None,
        'pending_restart': False, 'executable': '/usr/bin/python2.7', 'python3': False, 'effective': True,
        'effect': 'python2', 'effect_why': None, 'errors': []}


@pytest.mark.parametrize('code, effective, effect', [
    (b'import requests\nrequests.get("https://example.com")\n', False, 'not-governed'),
    (b'import urllib3\n', False, 'not-governed'),
    (b'import urllib2\nurllib2.urlopen("https://example.com")\n', True, 'python2'),
    (b'import vendored_client\n', True, 'python2'),        # cannot be told: the exception may matter
])
def test_an_exception_for_code_the_variable_does_not_govern_does_nothing(tmp_path, code, effective, effect):
    """requests and urllib3 ignore PYTHONHTTPSVERIFY: an exception for a service whose code uses
    only those is reported ineffective, with what its code uses."""
    write(tmp_path, LIB + '/legacy.service', PY2)
    write(tmp_path, ETC + '/legacy.service.d/zz-pep493-https.conf', ours())
    write(tmp_path, '/srv/app', code)
    write(tmp_path, '/usr/lib/python2.7/dist-packages/requests/__init__.py', b'import urllib3\n')
    write(tmp_path, '/usr/lib/python2.7/dist-packages/urllib3/__init__.py', b'import ssl\n')
    legacy = scan(host(tmp_path))['legacy.service']
    assert (legacy['effective'], legacy['effect']) == (effective, effect)
    if effect == 'not-governed':
        assert 'which PYTHONHTTPSVERIFY and the cfg file do not govern' in legacy['effect_why']


def test_overridden_and_expired(tmp_path):
    write(tmp_path, LIB + '/legacy.service', PY2)
    write(tmp_path, ETC + '/legacy.service.d/zz-pep493-https.conf', ours(expires='2026-05-31'))
    write(tmp_path, ETC + '/legacy.service.d/zzz-local.conf', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=1\n')
    legacy = scan(host(tmp_path))['legacy.service']
    assert legacy['expired'] and legacy['overridden'] and legacy['value'] == '1' and legacy['managed_value'] == '0'
    assert legacy['source'] == ETC + '/legacy.service.d/zzz-local.conf'


def test_a_missing_environment_file_keeps_the_service_from_starting(tmp_path):
    write(tmp_path, ETC + '/a.service', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=1\nEnvironmentFile=/etc/default/a\n'
                                        b'EnvironmentFile=/etc/default/none\nExecStart=/usr/bin/python2.7 a\n')
    write(tmp_path, '/etc/default/a', b'PYTHONHTTPSVERIFY=0\n')
    record = scan(host(tmp_path))['a.service']
    assert record['value'] is None and record['effective'] is False and record['effect'] == 'cannot-start'
    assert record['mentioned_in'] == ['/etc/default/a', ETC + '/a.service']
    assert len(record['errors']) == 1 and '/etc/default/none' in record['errors'][0]


def test_the_manager_environment_is_the_fallback(tmp_path):
    write(tmp_path, ETC + '/app.service', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=1\nEnvironment=\n'
                                          b'EnvironmentFile=-/etc/default/app\nExecStart=/usr/bin/python2.7 a\n')
    write(tmp_path, '/etc/systemd/system.conf', b'[Manager]\nDefaultEnvironment=PYTHONHTTPSVERIFY=0\n')
    record = scan(host(tmp_path))['app.service']
    assert (record['value'], record['source'], record['source_kind']) == ('0', None, 'manager')


def test_a_template_alone_and_through_its_running_instances(tmp_path):
    write(tmp_path, LIB + '/w@.service', PY2)
    conf = ETC + '/w@.service.d/zz-pep493-https.conf'
    write(tmp_path, conf, ours())
    assert list(scan(host(tmp_path))) == ['w@.service']
    found = scan(host(tmp_path, {10: ('/system.slice/system-w.slice/w@1.service', 1, {'PYTHONHTTPSVERIFY': '0'})}))
    assert list(found) == ['w@1.service']
    assert (found['w@1.service']['managed'], found['w@1.service']['source'], found['w@1.service']['main_pid']) == (
        True, conf, 10)
    assert found['w@1.service']['pending_restart'] is False and found['w@1.service']['running_value'] == '0'


def test_pending_restart_both_ways(tmp_path):
    write(tmp_path, LIB + '/added.service', PY2)
    write(tmp_path, ETC + '/added.service.d/zz-pep493-https.conf', ours())
    write(tmp_path, LIB + '/removed.service', b'[Service]\nEnvironmentFile=-/etc/default/removed\n'
                                              b'ExecStart=/usr/bin/python2.7 a\n')
    write(tmp_path, LIB + '/clean.service', PY2)
    model = host(tmp_path, {
        10: ('/system.slice/added.service', 1, {'PATH': '/bin'}),
        20: ('/system.slice/removed.service', 1, {'PYTHONHTTPSVERIFY': '0'}),
        30: ('/system.slice/clean.service', 1, {'PATH': '/bin'}),
    })
    found = scan(model)
    assert sorted(found) == ['added.service', 'removed.service']
    assert found['added.service']['pending_restart'] is True and found['added.service']['running_value'] is None
    removed = found['removed.service']
    assert removed['value'] is None and removed['running_value'] == '0' and removed['pending_restart'] is True
    assert removed['mentioned_in'] == []


def test_the_same_value_from_the_manager_is_nothing_to_report(tmp_path):
    write(tmp_path, LIB + '/clean.service', PY2)
    model = host(tmp_path, {30: ('/system.slice/clean.service', 1, {'PYTHONHTTPSVERIFY': '0'})},
                 manager={'PYTHONHTTPSVERIFY': '0'})
    assert scan(model) == {}


def test_an_unreadable_process_environment(tmp_path):
    write(tmp_path, LIB + '/legacy.service', PY2)
    write(tmp_path, ETC + '/legacy.service.d/zz-pep493-https.conf', ours())
    record = scan(host(tmp_path, {10: ('/system.slice/legacy.service', 1, None)}))['legacy.service']
    assert record['pending_restart'] is None and 'cannot read' in record['running_value_error']


def test_an_alias_is_one_service_and_a_not_found_unit_only_by_its_own_folder(tmp_path):
    write(tmp_path, LIB + '/real.service', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\nExecStart=/usr/bin/python2.7 a\n')
    write(tmp_path, ETC + '/service.d/10-all.conf', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=1\n')
    write(tmp_path, ETC + '/ghost.service.d/zz-pep493-https.conf', ours())
    os.symlink(LIB + '/real.service', os.path.join(str(tmp_path), ETC.lstrip('/'), 'nick.service'))
    model = host(tmp_path, {10: ('/system.slice/real.service', 1, {'PYTHONHTTPSVERIFY': '1'})})
    model.runtime.loaded['missing.service'] = ('not-found', 'inactive', 'dead')
    found = scan(model)
    assert sorted(found) == ['ghost.service', 'real.service']
    assert found['ghost.service']['load_state'] == 'not-found' and found['ghost.service']['effective'] is None
    assert found['real.service']['value'] == '1'


def test_a_not_found_units_own_folder_counts_also_when_it_is_a_link(tmp_path):
    write(tmp_path, '/opt/conf/ghost.d/zz-pep493-https.conf', ours())
    os.makedirs(os.path.join(str(tmp_path), ETC.lstrip('/')))
    os.symlink('/opt/conf/ghost.d', os.path.join(str(tmp_path), ETC.lstrip('/'), 'ghost.service.d'))
    found = scan(host(tmp_path, {}))
    assert sorted(found) == ['ghost.service']
    assert found['ghost.service']['dropin_paths'] == ['/opt/conf/ghost.d/zz-pep493-https.conf']


def test_needs_daemon_reload_from_file_times(tmp_path):
    write(tmp_path, LIB + '/legacy.service', PY2)
    write(tmp_path, ETC + '/legacy.service.d/zz-pep493-https.conf', ours())
    mtime = os.stat(os.path.join(str(tmp_path), ETC.lstrip('/'), 'legacy.service.d/zz-pep493-https.conf')).st_mtime
    live = {10: ('/system.slice/legacy.service', 1, {'PYTHONHTTPSVERIFY': '0'})}
    assert scan(host(tmp_path, live, loaded_at=mtime - 5))['legacy.service']['needs_daemon_reload'] is True
    assert scan(host(tmp_path, live, loaded_at=mtime + 5))['legacy.service']['needs_daemon_reload'] is False


def test_a_masked_unit_with_dropins_always_needs_a_reload_as_systemd_247_says(tmp_path):
    write(tmp_path, LIB + '/gone.service', PY2)
    write(tmp_path, ETC + '/gone.service.d/zz-pep493-https.conf', ours())
    os.symlink('/dev/null', os.path.join(str(tmp_path), ETC.lstrip('/'), 'gone.service'))
    model = host(tmp_path, {}, loaded_at=4102444800.0)
    model.runtime.loaded['gone.service'] = ('masked', 'inactive', 'dead')
    gone = scan(model)['gone.service']
    assert gone['needs_daemon_reload'] is True and gone['load_state'] == 'masked' and gone['value'] is None
    assert gone['managed'] is True and gone['overridden'] is False and gone['effect'] == 'masked'


def test_wanted_units_only(tmp_path):
    write(tmp_path, LIB + '/a.service', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n')
    write(tmp_path, LIB + '/b.service', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n')
    assert list(scan(host(tmp_path), ['b.service'])) == ['b.service']


def test_files_of_unrelated_units_are_read_once_whatever_their_number(tmp_path):
    write(tmp_path, LIB + '/legacy.service', PY2)
    write(tmp_path, ETC + '/legacy.service.d/zz-pep493-https.conf', ours())
    reads = []

    class Counting(hostfiles.HostFiles):
        def read(self, path, limit=None):
            reads.append(path)
            return hostfiles.HostFiles.read(self, path, limit)

    for count in (10, 300):
        for n in range(count):
            write(tmp_path, LIB + '/filler%d.service' % n, b'[Service]\nExecStart=/bin/sleep 1d\n')
        del reads[:]
        found = records.scan_services(hostmodel.Host(Counting(str(tmp_path))), TODAY)
        assert [r['unit'] for r in found] == ['legacy.service']
        assert len(reads) == len(set(reads)), 'a file was read twice'
        assert len(reads) <= count + 8
