# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""verification_info against a throw-away root, and with a stand-in systemctl."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml

from ansible.module_utils import basic
from ansible_collections.pep493.https.plugins.modules import verification_info
from ansible_collections.pep493.https.plugins.module_utils import audit, dropin
from ansible_collections.pep493.https.tests.unit.tree import snapshot, write

CFG = '/etc/python/cert-verification.cfg'
UNITS = '/etc/systemd/system'


def ours(verify=False, reason='vendor CA not trusted yet', expires='2020-01-31'):
    return dropin.render_dropin(verify, reason, dropin.validate_expires(expires))


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
    assert agent['main_pid'] is None and agent['pending_restart'] is False and agent['load_state'] is None
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
        assert any('is malformed (line %d)' % lines[0] in f for f in result['summary']['findings'])


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
    (dict(path='etc/python/cert-verification.cfg'), 'must be absolute'),
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


# --- with a stand-in systemctl -----------------------------------------------------------------

def show_block(unit, environment='', main_pid=0, dropins='', fragment=None, files=''):
    return ('Id=%s\nLoadState=loaded\nActiveState=%s\nMainPID=%d\nEnvironment=%s\nEnvironmentFiles=%s\n'
            'FragmentPath=%s\nDropInPaths=%s\nExecStart={ path=/usr/bin/python2.7 ; argv[]=/usr/bin/python2.7 /app ; '
            'ignore_errors=no ; start_time=[n/a] ; stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }\n'
            'NeedDaemonReload=no\n'
            % (unit, 'active' if main_pid else 'inactive', main_pid, environment, files,
               fragment or '/usr/lib/systemd/system/' + unit, dropins))


class FakeSystemd(object):
    """Stands in for systemd: the host's files come from a tree, systemctl from canned text."""

    def __init__(self, monkeypatch, root, units=10, environ=None, show_rc=0, manager='LANG=C', nominated=()):
        self.calls = []
        self.nominated = list(nominated)
        self.root = str(root)
        dropin_path = UNITS + '/legacy.service.d/zz-pep493-https.conf'
        write(root, '/usr/lib/systemd/system/legacy.service', b'[Service]\nExecStart=/usr/bin/python2.7 /app\n')
        write(root, dropin_path, ours(expires='2999-01-01'))
        blocks = [show_block('legacy.service', 'PYTHONHTTPSVERIFY=0', 4242, dropin_path)]
        blocks += [show_block('filler%d.service' % n, 'LANG=C', 100 + n) for n in range(units)]
        self.show = '\n'.join(blocks)
        self.show_rc = show_rc
        self.manager = 'Environment=%s\n' % manager
        self.environ = environ if environ is not None else {}
        real_host_files = audit.HostFiles
        monkeypatch.setattr(verification_info.audit, 'HostFiles', lambda root=None: real_host_files(self.root))
        monkeypatch.setattr(verification_info.systemd, 'systemd_running', lambda root=None: not root)
        monkeypatch.setattr(verification_info.audit, 'read_process_environ', self.read_environ)
        monkeypatch.setattr(verification_info.audit, 'units_of_processes', self.units_of_processes)
        monkeypatch.setattr(basic.AnsibleModule, 'get_bin_path', lambda module, name, *a, **k: '/bin/' + name)
        monkeypatch.setattr(basic.AnsibleModule, 'run_command', self.run_command)

    def units_of_processes(self, expected=None, proc='/proc'):
        return list(self.nominated)

    def read_environ(self, pid, proc='/proc'):
        if pid not in self.environ:
            return None, 'cannot read /proc/%d/environ: permission denied' % pid
        return self.environ[pid], None

    def run_command(self, args, **kwargs):
        self.calls.append(list(args))
        assert args[0] == '/bin/systemctl' and args[1] == 'show'
        if args[-1] == '--property=Environment':
            return 0, self.manager, ''
        assert args[2] == '--all' and args[3] == '--property=' + ','.join(audit.SHOW_PROPERTIES)
        assert args[4:] == ['legacy.service'] + self.nominated, 'only the units that may matter are shown'
        return self.show_rc, self.show if self.show_rc == 0 else '', 'Failed to get properties' if self.show_rc else ''


def test_two_systemctl_calls_whatever_the_number_of_units(run_module, tmp_path, monkeypatch):
    counts = []
    for units in (10, 300):
        for n in range(units):
            write(tmp_path, '/usr/lib/systemd/system/filler%d.service' % n, b'[Service]\nExecStart=/bin/sleep 1d\n')
        fake = FakeSystemd(monkeypatch, tmp_path, units=units, environ={4242: {'PYTHONHTTPSVERIFY': '0'}})
        result = run_module.ok(verification_info, dict(probe=False))
        counts.append(len(fake.calls))
        assert result['systemd_running'] is True and result['scan_errors'] == []
        assert [s['unit'] for s in result['services']] == ['legacy.service']
    assert counts == [2, 2]


def test_pending_restart_from_the_running_process(run_module, tmp_path, monkeypatch):
    FakeSystemd(monkeypatch, tmp_path, environ={4242: {'PATH': '/bin'}})
    [legacy] = run_module.ok(verification_info, dict(probe=False))['services']
    assert legacy['main_pid'] == 4242 and legacy['running_value'] is None and legacy['pending_restart'] is True
    assert legacy['managed'] and legacy['load_state'] == 'loaded'

    FakeSystemd(monkeypatch, tmp_path, environ={4242: {'PYTHONHTTPSVERIFY': '0'}})
    [legacy] = run_module.ok(verification_info, dict(probe=False))['services']
    assert legacy['running_value'] == '0' and legacy['pending_restart'] is False

    FakeSystemd(monkeypatch, tmp_path, environ={})
    result = run_module.ok(verification_info, dict(probe=False))
    [legacy] = result['services']
    assert legacy['pending_restart'] is None and 'permission denied' in legacy['running_value_error']
    assert result['summary']['pending_restart'] == 0


def test_units_nominated_by_their_processes_are_shown(run_module, tmp_path, monkeypatch):
    fake = FakeSystemd(monkeypatch, tmp_path, environ={4242: {'PYTHONHTTPSVERIFY': '0'}}, nominated=['filler3.service'])
    run_module.ok(verification_info, dict(probe=False))
    assert fake.calls[-1][-2:] == ['legacy.service', 'filler3.service']


def test_manager_environment_opt_out(run_module, tmp_path, monkeypatch):
    FakeSystemd(monkeypatch, tmp_path, manager='LANG=C "PYTHONHTTPSVERIFY=0"')
    result = run_module.ok(verification_info, dict(probe=False))
    assert result['global'] == [dict(source='manager_environment', path=None, line=None, action='set', value='0',
                                     disables=True)]
    assert result['summary']['global_opt_outs'] == 1


def test_failing_systemctl_is_reported_and_files_still_answer(run_module, tmp_path, monkeypatch):
    FakeSystemd(monkeypatch, tmp_path, show_rc=1)
    result = run_module.ok(verification_info, dict(probe=False))
    assert any('systemctl show failed (exit 1)' in e for e in result['scan_errors'])
    [legacy] = result['services']
    assert legacy['value'] == '0' and legacy['managed'] and legacy['load_state'] is None


def test_no_systemd_and_no_python2(run_module, tmp_path, monkeypatch):
    write(tmp_path, UNITS + '/legacy.service', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n')
    real_host_files = audit.HostFiles
    monkeypatch.setattr(verification_info.audit, 'HostFiles', lambda root=None: real_host_files(str(tmp_path)))
    monkeypatch.setattr(verification_info.systemd, 'systemd_running', lambda root=None: False)
    monkeypatch.setattr(verification_info.probe, 'candidate_interpreters', lambda extra=None: list(extra or []))
    result = run_module.ok(verification_info, dict(interpreters=['/nonexistent/python2.7']))
    assert result['probed'] is True and result['systemd_running'] is False
    [broken] = result['interpreters']
    assert broken['error'].startswith('cannot run')
    assert result['summary']['host_default'] is None and result['summary']['python2_interpreters'] == 0
    assert [s['unit'] for s in result['services']] == ['legacy.service']
    assert any('/nonexistent/python2.7 could not be probed' in f for f in result['summary']['findings'])
