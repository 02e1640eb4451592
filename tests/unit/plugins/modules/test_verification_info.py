# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""verification_info against a throw-away root, and with a stand-in systemctl."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import tempfile

import pytest
import yaml

from ansible.module_utils import basic
from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._host import interpreters
from ansible_collections.pep493.https.plugins.module_utils._host import runtime
from ansible_collections.pep493.https.plugins.module_utils._host import systemctl
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.plugins.modules import verification_info
from ansible_collections.pep493.https.tests.unit.tree import fake_proc, snapshot, write

CFG = '/etc/python/cert-verification.cfg'
UNITS = '/etc/systemd/system'


def ours(verify=False, reason='vendor CA not trusted yet', expires='2020-01-31'):
    return dropin.render_dropin(verify, reason, dates.validate_expires(expires))


def fleet_host(root):
    """A host tree with one of everything the audit reports."""
    write(root, CFG, b'[https]\nverify=disable\n', 0o644)
    write(root, CFG + '.rpmnew', b'[https]\nverify=platform_default\n')
    write(root, '/etc/environment', b'LANG=C.UTF-8\nPYTHONHTTPSVERIFY=0\n')
    write(root, '/etc/profile.d/proxy.sh', b'export PYTHONHTTPSVERIFY="1"\n')
    write(root, '/usr/bin/legacy-agent', b'#!/usr/bin/python2.7\nimport urllib2\n', 0o755)
    write(root, '/usr/lib/systemd/system/agent.service', b'[Service]\nExecStart=/usr/bin/legacy-agent --daemon\n')
    write(root, UNITS + '/agent.service.d/zz-pep493-https.conf', ours())
    write(root, '/usr/lib/systemd/system/web.service', b'[Service]\nExecStart=/usr/bin/python3 -m web\n')
    write(root, UNITS + '/web.service.d/zz-pep493-https.conf', ours(expires='2999-01-01'))
    write(root, '/usr/lib/systemd/system/batch.service',
          b'[Service]\nEnvironmentFile=-/etc/default/batch\nExecStart=/usr/bin/python2.7 /opt/batch.py\n')
    write(root, '/etc/default/batch', b'PYTHONHTTPSVERIFY=0\n')
    write(root, '/usr/lib/systemd/system/quiet.service', b'[Service]\nExecStart=/bin/true\n')
    write(root, '/usr/lib/systemd/system/broken.service', b'[Service]\nExecStart=/bin/true\n')
    os.symlink('/gone/broken.d', os.path.join(str(root), UNITS.lstrip('/'), 'broken.service.d'))


def documented_keys():
    """RETURN as a tree of key names: {key: subtree or None}."""
    def tree(entries):
        return dict((key, tree(value['contains']) if 'contains' in value else None) for key, value in entries.items())
    return tree(yaml.safe_load(verification_info.RETURN))


def assert_documented(value, doc, where):
    if isinstance(value, dict):
        assert set(value) == set(doc), '%s: returned %s, documented %s' % (where, sorted(value), sorted(doc))
        for key, item in value.items():
            if doc[key] is not None:
                assert_documented(item, doc[key], '%s.%s' % (where, key))
    elif isinstance(value, list):
        for item in value:
            assert_documented(item, doc, where + '[]')


def test_every_returned_key_is_documented_and_every_documented_key_returned(run_module, tmp_path):
    fleet_host(tmp_path)
    result = run_module.ok(verification_info, dict(root=str(tmp_path)))
    for service in result['services']:
        assert service['errors'] == [] or isinstance(service['errors'][0], str)
    returned = dict((k, v) for k, v in result.items() if k not in ('changed', 'invocation', 'warnings', 'deprecations'))
    assert_documented(returned, documented_keys(), 'result')
    assert result['services'] and result['global'], 'the fixture must exercise every list'
    assert result['config']['errors'] == []
    bad = run_module.ok(verification_info, dict(root=str(tmp_path), path='/etc/python/bad.cfg'))
    assert bad['config']['exists'] is False


def test_fleet_host_under_root(run_module, tmp_path):
    fleet_host(tmp_path)
    before = snapshot(tmp_path)
    result = run_module.ok(verification_info, dict(root=str(tmp_path)))
    assert snapshot(tmp_path) == before
    assert result['changed'] is False and result['probed'] is False and result['systemd_running'] is False
    assert result['interpreters'] == []

    config = result['config']
    assert (config['path'], config['exists'], config['verify'], config['mode']) == (CFG, True, 'disable', '0644')
    assert config['rpmnew'] == CFG + '.rpmnew' and config['readers'] is None

    services = dict((s['unit'], s) for s in result['services'])
    assert sorted(services) == ['agent.service', 'batch.service', 'web.service']
    agent = services['agent.service']
    assert agent['managed'] and agent['expired'] and agent['value'] == '0' and agent['verify'] is False
    assert agent['reason'] == 'vendor CA not trusted yet' and agent['expires'] == '2020-01-31'
    assert agent['source'] == UNITS + '/agent.service.d/zz-pep493-https.conf' and agent['source_kind'] == 'dropin'
    assert agent['executable'] == '/usr/bin/legacy-agent'
    assert agent['python3'] is False and agent['effective'] is True   # its #! line names python2.7
    assert agent['main_pid'] is None and agent['pending_restart'] is False and agent['load_state'] == 'loaded'
    web = services['web.service']
    assert web['managed'] and not web['expired'] and web['python3'] is True and web['effective'] is False
    batch = services['batch.service']
    assert not batch['managed'] and batch['source'] == '/etc/default/batch'
    assert batch['source_kind'] == 'environment_file'

    assert [(g['source'], g['value'], g['disables']) for g in result['global']] == [
        ('etc_environment', '0', True), ('profile_d', '1', False)]
    assert result['scan_errors'] == [
        '/etc/systemd/system/broken.service.d is a symbolic link to /gone/broken.d, which does not exist']

    summary = result['summary']
    assert summary['host_default'] is None and summary['python2_interpreters'] is None
    assert (summary['exceptions'], summary['opt_outs'], summary['managed'], summary['unmanaged']) == (3, 3, 2, 1)
    assert (summary['expired'], summary['ineffective'], summary['pending_restart'], summary['global_opt_outs']) == (
        1, 1, 0, 1)
    text = '\n'.join(summary['findings'])
    for expected in ('agent.service: the exception expired on 2020-01-31',
                     'web.service runs Python 3 (/usr/bin/python3)',
                     'batch.service: verification is off (PYTHONHTTPSVERIFY=0 from /etc/default/batch)',
                     '/etc/environment line 2 sets PYTHONHTTPSVERIFY=0',
                     CFG + ' says verify=disable', CFG + '.rpmnew exists',
                     'Incomplete: /etc/systemd/system/broken.service.d is a symbolic link'):
        assert expected in text


def test_check_mode_gives_the_same_report_and_changes_nothing(run_module, tmp_path):
    fleet_host(tmp_path)
    before = snapshot(tmp_path)
    normal = run_module.ok(verification_info, dict(root=str(tmp_path)))
    checked = run_module.ok(verification_info, dict(root=str(tmp_path)), check_mode=True)
    assert snapshot(tmp_path) == before
    normal.pop('invocation', None)
    checked.pop('invocation', None)
    assert checked == normal and checked['changed'] is False


def test_services_option_limits_the_scan(run_module, tmp_path):
    fleet_host(tmp_path)
    result = run_module.ok(verification_info, dict(root=str(tmp_path), services=['web', 'quiet.service']))
    assert [s['unit'] for s in result['services']] == ['web.service']


def test_template_dropin_reported_for_the_template(run_module, tmp_path):
    write(tmp_path, '/usr/lib/systemd/system/worker@.service', b'[Service]\nExecStart=/usr/bin/python2.7 /w %i\n')
    write(tmp_path, UNITS + '/worker@.service.d/zz-pep493-https.conf', ours(expires='2999-12-31'))
    result = run_module.ok(verification_info, dict(root=str(tmp_path), services=['worker@.service']))
    [worker] = result['services']
    assert worker['unit'] == 'worker@.service' and worker['managed'] and worker['effective'] is True


@pytest.mark.parametrize('content, verify, lines', [
    (b'verify=disable\n[https]\nverify=enable\n', 'malformed', [1]),
    (b'[https]\nverify=enable\njunk line\n', 'malformed', [3]),
    (b'[https]\nverify=Disable\n', 'platform_default', []),
    (b'', 'platform_default', []),
])
def test_cfg_file_as_rhel7_reads_it(run_module, tmp_path, content, verify, lines):
    write(tmp_path, CFG, content)
    result = run_module.ok(verification_info, dict(root=str(tmp_path)))
    assert result['config']['verify'] == verify
    assert [e['line'] for e in result['config']['errors']] == lines
    assert result['config']['valid'] is (not lines)
    if lines:
        named = ('lines ' if len(lines) > 1 else 'line ') + ', '.join(str(n) for n in lines)
        assert any('is malformed (%s)' % named in f for f in result['summary']['findings'])


def test_unreadable_and_odd_files_are_reported_not_raised(run_module, tmp_path):
    os.makedirs(os.path.join(str(tmp_path), CFG.lstrip('/')))               # a folder where the file should be
    write(tmp_path, '/etc/environment', b'\xff\xfePYTHONHTTPSVERIFY=\xff\n')
    write(tmp_path, UNITS + '/odd.service', b'[Service]\nEnvironment="PYTHONHTTPSVERIFY=0\n')  # unbalanced quote
    os.symlink('odd.service', os.path.join(str(tmp_path), UNITS.lstrip('/'), 'loop.service.d'))
    os.symlink('/etc/profile.d', os.path.join(str(tmp_path), 'etc', 'profile.d'))            # a link loop
    result = run_module.ok(verification_info, dict(root=str(tmp_path)))
    assert result['config']['verify'] == 'platform_default' and 'is a directory, not a file' in result['config']['error']
    assert [s['unit'] for s in result['services']] == ['odd.service']
    assert any('loop.service.d is not a folder' in e for e in result['scan_errors'])
    assert any('/etc/profile.d' in e for e in result['scan_errors'])


@pytest.mark.parametrize('args, message', [
    (dict(path='etc/python/cert-verification.cfg'), 'must be an absolute file path'),
    (dict(path='/etc/python/'), 'must be an absolute file path'),
    (dict(services=['ok', '../etc/passwd']), '../etc/passwd'),
    (dict(services=['sshd.socket']), '.socket unit'),
])
def test_bad_input_fails_with_the_value_named(run_module, tmp_path, args, message):
    args = dict(args, root=str(tmp_path))
    result = run_module.fail(verification_info, args)
    assert message in result['msg']


def test_root_that_is_not_a_folder(run_module, tmp_path):
    result = run_module.fail(verification_info, dict(root=str(tmp_path / 'nope')))
    assert 'is not a directory' in result['msg']


# --- with a stand-in systemd -------------------------------------------------------------------

class FakeSystemd(object):
    """Stands in for a running systemd: the host's files come from a tree, busctl and systemctl
    from canned text, /proc from a stand-in folder."""

    def __init__(self, monkeypatch, root, units=10, processes=None, manager=('LANG=C',), busctl=True,
                 list_rc=0, loaded_at=None):
        self.calls = []
        self.root = str(root)
        write(root, '/usr/lib/systemd/system/legacy.service', b'[Service]\nExecStart=/usr/bin/python2.7 /app\n')
        write(root, UNITS + '/legacy.service.d/zz-pep493-https.conf', ours(expires='2999-01-01'))
        self.loaded = {'legacy.service': ('loaded', 'active', 'running')}
        for n in range(units):
            self.loaded['filler%d.service' % n] = ('loaded', 'active', 'running')
        self.manager = list(manager)
        self.busctl = busctl
        self.list_rc = list_rc
        self.loaded_at = loaded_at
        table = {1: ('/init.scope', 0, {'container': 'podman'})}
        table.update(processes if processes is not None else {4242: ('/system.slice/legacy.service', 1,
                                                                     {'PYTHONHTTPSVERIFY': '0'})})
        proc = fake_proc(tempfile.mkdtemp(prefix='proc-', dir=self.root), table)
        real_host_files = hostfiles.HostFiles
        monkeypatch.setattr(hostfiles, 'HostFiles', lambda root=None, overlay=None, show_real=False: real_host_files(
            self.root, overlay, show_real))
        monkeypatch.setattr(runtime, 'systemd_running', lambda root=None: not root)
        monkeypatch.setattr(runtime, 'PROC', proc)
        monkeypatch.setattr(basic.AnsibleModule, 'get_bin_path',
                            lambda module, name, *a, **k: '/bin/' + name if name != 'busctl' or self.busctl else None)
        monkeypatch.setattr(basic.AnsibleModule, 'run_command', self.run_command)

    def run_command(self, args, **kwargs):
        self.calls.append(list(args))
        if args[0] == '/bin/busctl':
            assert args[1:] == systemctl.BUSCTL_MANAGER
            stamp = int(self.loaded_at * 1e6) if self.loaded_at else 0
            return 0, ('{"type":"as","data":%s}\n{"type":"as","data":[]}\n{"type":"t","data":%d}\n'
                       % (json.dumps(self.manager), stamp)), ''
        assert args[0] == '/bin/systemctl'
        if args[1:] == systemctl.SYSTEMCTL_MANAGER:
            return 0, 'Environment=%s\nUnitPath=\n' % ' '.join(self.manager), ''
        if args[1:] == systemctl.LIST_UNITS:
            lines = ['%s %s %s %s desc' % ((unit,) + state) for unit, state in sorted(self.loaded.items())]
            return self.list_rc, '\n'.join(lines) + '\n' if self.list_rc == 0 else '', 'Failed' if self.list_rc else ''
        raise AssertionError('unexpected command %s' % args)


def test_two_processes_whatever_the_number_of_units(run_module, tmp_path, monkeypatch):
    counts = []
    for units in (10, 300):
        for n in range(units):
            write(tmp_path, '/usr/lib/systemd/system/filler%d.service' % n, b'[Service]\nExecStart=/bin/sleep 1d\n')
        fake = FakeSystemd(monkeypatch, tmp_path, units=units)
        result = run_module.ok(verification_info, dict(probe=False))
        counts.append([call[1] if call[0] == '/bin/systemctl' else 'busctl' for call in fake.calls])
        assert result['systemd_running'] is True and result['scan_errors'] == []
        assert [s['unit'] for s in result['services']] == ['legacy.service']
    assert counts == [['busctl', 'list-units'], ['busctl', 'list-units']]


def test_pending_restart_from_the_running_process(run_module, tmp_path, monkeypatch):
    FakeSystemd(monkeypatch, tmp_path, processes={4242: ('/system.slice/legacy.service', 1, {'PATH': '/bin'})})
    [legacy] = run_module.ok(verification_info, dict(probe=False))['services']
    assert legacy['main_pid'] == 4242 and legacy['running_value'] is None and legacy['pending_restart'] is True
    assert legacy['managed'] and legacy['load_state'] == 'loaded' and legacy['active_state'] == 'active'

    FakeSystemd(monkeypatch, tmp_path)
    [legacy] = run_module.ok(verification_info, dict(probe=False))['services']
    assert legacy['running_value'] == '0' and legacy['pending_restart'] is False

    FakeSystemd(monkeypatch, tmp_path, processes={4242: ('/system.slice/legacy.service', 1, None)})
    result = run_module.ok(verification_info, dict(probe=False))
    [legacy] = result['services']
    assert legacy['pending_restart'] is None and 'cannot read' in legacy['running_value_error']
    assert result['summary']['pending_restart'] == 0


def test_a_running_service_whose_setting_is_gone_is_reported(run_module, tmp_path, monkeypatch):
    # the unit names an EnvironmentFile= (so it may matter) but nothing sets the variable any more
    write(tmp_path, '/usr/lib/systemd/system/gone.service',
          b'[Service]\nEnvironmentFile=-/etc/default/gone\nExecStart=/usr/bin/python2.7 /app\n')
    write(tmp_path, UNITS + '/service.d/10-all.conf', b'[Service]\nEnvironmentFile=-/etc/default/all\n')
    fake = FakeSystemd(monkeypatch, tmp_path, processes={
        4242: ('/system.slice/legacy.service', 1, {'PYTHONHTTPSVERIFY': '0'}),
        5151: ('/system.slice/gone.service', 1, {'PYTHONHTTPSVERIFY': '0'})})
    fake.loaded['gone.service'] = ('loaded', 'active', 'running')
    units = dict((s['unit'], s) for s in run_module.ok(verification_info, dict(probe=False))['services'])
    assert sorted(units) == ['gone.service', 'legacy.service']
    gone = units['gone.service']
    assert gone['value'] is None and gone['running_value'] == '0' and gone['pending_restart'] is True


def test_manager_environment_opt_out(run_module, tmp_path, monkeypatch):
    FakeSystemd(monkeypatch, tmp_path, manager=['LANG=C', 'PYTHONHTTPSVERIFY=0'])
    result = run_module.ok(verification_info, dict(probe=False))
    assert result['global'] == [dict(source='manager_environment', path=None, line=None, action='set', value='0',
                                     disables=True)]
    assert result['summary']['global_opt_outs'] == 1


def test_without_busctl_systemctl_gives_the_manager(run_module, tmp_path, monkeypatch):
    fake = FakeSystemd(monkeypatch, tmp_path, busctl=False, manager=['PYTHONHTTPSVERIFY=1'])
    result = run_module.ok(verification_info, dict(probe=False))
    assert [call[1] for call in fake.calls] == ['show', 'list-units']
    assert result['global'][0]['value'] == '1' and result['services'][0]['needs_daemon_reload'] is None


def test_needs_daemon_reload_against_the_last_load(run_module, tmp_path, monkeypatch):
    FakeSystemd(monkeypatch, tmp_path, loaded_at=1.0)
    assert run_module.ok(verification_info, dict(probe=False))['services'][0]['needs_daemon_reload'] is True
    FakeSystemd(monkeypatch, tmp_path, loaded_at=4102444800.0)
    assert run_module.ok(verification_info, dict(probe=False))['services'][0]['needs_daemon_reload'] is False


def test_failing_list_units_is_reported_and_files_still_answer(run_module, tmp_path, monkeypatch):
    FakeSystemd(monkeypatch, tmp_path, list_rc=1)
    result = run_module.ok(verification_info, dict(probe=False))
    assert any('systemctl list-units failed (exit 1)' in e for e in result['scan_errors'])
    [legacy] = result['services']
    assert legacy['value'] == '0' and legacy['managed'] and legacy['active_state'] is None


def test_no_systemd_and_no_python2(run_module, tmp_path, monkeypatch):
    write(tmp_path, UNITS + '/legacy.service', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n')
    real_host_files = hostfiles.HostFiles
    monkeypatch.setattr(hostfiles, 'HostFiles', lambda root=None, overlay=None, show_real=False: real_host_files(
        str(tmp_path), overlay, show_real))
    monkeypatch.setattr(runtime, 'systemd_running', lambda root=None: False)
    monkeypatch.setattr(interpreters, 'candidate_interpreters', lambda extra=None: list(extra or []))
    result = run_module.ok(verification_info, dict(interpreters=['/nonexistent/python2.7']))
    assert result['probed'] is True and result['systemd_running'] is False
    [broken] = result['interpreters']
    assert broken['error'].startswith('cannot run')
    assert result['summary']['host_default'] is None and result['summary']['python2_interpreters'] == 0
    assert [s['unit'] for s in result['services']] == ['legacy.service']
    assert any('/nonexistent/python2.7 could not be probed' in f for f in result['summary']['findings'])
