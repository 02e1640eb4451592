# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""service_verification against a throw-away root, and with a recorded systemctl."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import shutil
import stat
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ansible.module_utils import basic
from ansible_collections.pep493.https.plugins.module_utils._host import runtime
from ansible_collections.pep493.https.plugins.module_utils._host import units
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.plugins.module_utils._syntax import unit_names
from ansible_collections.pep493.https.plugins.modules import service_verification
from ansible_collections.pep493.https.tests.unit.tree import read as get, snapshot, write

UNIT_DIR = 'etc/systemd/system'
NAME = dropin.DEFAULT_DROPIN_NAME
PAST = '2020-01-31'
FUTURE = '2999-12-31'


def dropin_file(root, unit, name=NAME):
    return os.path.join(str(root), UNIT_DIR, unit + '.d', name)


def put(path, content):
    return write('/', path, content)


def args(root, **kwargs):
    kwargs['root'] = str(root)
    return kwargs


def unit_file(root, unit, exec_start, folder='lib/systemd/system'):
    text = '[Unit]\nDescription=x\n\n[Service]\nExecStart=%s\n' % exec_start
    return put(os.path.join(str(root), folder, unit), text.encode('ascii'))


def test_create_writes_exact_content_modes_and_reports(run_module, tmp_path):
    result = run_module.ok(service_verification, args(tmp_path, name='legacy-app', verify=False,
                                                      reason='self-signed vendor server', expires=FUTURE))
    path = dropin_file(tmp_path, 'legacy-app.service')
    assert result['changed'] is True
    assert get(path) == dropin.render_dropin(False, 'self-signed vendor server', FUTURE)
    assert b'Environment=PYTHONHTTPSVERIFY=0\n' in get(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644
    assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o755
    assert os.listdir(os.path.dirname(path)) == [NAME]
    [unit] = result['services']
    assert unit['name'] == 'legacy-app.service' and unit['path'] == path
    assert unit['action'] == 'created' and unit['verify'] is False
    assert 'reason' not in unit and 'expires' not in unit and 'exec_start' not in unit  # the request is not echoed
    assert unit['expired'] is False and unit['unit_known'] is False and unit['effective'] is None
    assert result['systemd_running'] is False and result['reloaded'] is False
    assert result['restarted'] == [] and result['pending_restart'] == [] and result['removed'] == []
    assert 'systemd is not running here (root is set)' in result['msg']
    assert any('insecure' in w and 'legacy-app.service' in w for w in result['warnings'])


def test_one_insecure_warning_names_every_unverified_service(run_module, tmp_path):
    services = [dict(name='a', verify=False, reason='vendor CA', expires=FUTURE), dict(name='b', verify=True),
                dict(name='c', verify=False), dict(name='d', verify=False, reason='vendor CA', expires=FUTURE)]
    result = run_module.ok(service_verification, args(tmp_path, services=services, exclusive=True))
    insecure = [w for w in result['warnings'] if 'insecure' in w]
    assert insecure == ['PYTHONHTTPSVERIFY=0 turns HTTPS certificate verification off for the Python 2 code of 3 '
                        'services (insecure) - until %s: a.service, d.service; no reason given, no expiry date: '
                        'c.service.' % FUTURE]


def test_a_removed_dropin_reports_what_it_said(run_module, tmp_path):
    run_module.ok(service_verification, args(tmp_path, name='old', verify=False, reason='gone soon', expires=FUTURE))
    result = run_module.ok(service_verification, args(tmp_path, services=[], exclusive=True))
    [gone] = result['removed']
    assert gone['name'] == 'old.service' and gone['action'] == 'removed'
    assert gone['reason'] == 'gone soon' and gone['expires'] == FUTURE


def test_second_run_is_unchanged_to_the_byte(run_module, tmp_path):
    run_module.ok(service_verification, args(tmp_path, name='legacy-app', verify=False, reason='r', expires=FUTURE))
    before = snapshot(tmp_path)
    result = run_module.ok(service_verification, args(tmp_path, name='legacy-app', verify=False, reason='r',
                                                      expires=FUTURE))
    assert result['changed'] is False and result['services'][0]['action'] == 'unchanged'
    assert snapshot(tmp_path) == before


def test_verify_true_writes_one_and_does_not_warn_insecure(run_module, tmp_path):
    result = run_module.ok(service_verification, args(tmp_path, name='billing.service', verify=True))
    assert get(dropin_file(tmp_path, 'billing.service')).endswith(b'Environment=PYTHONHTTPSVERIFY=1\n')
    assert not [w for w in result['warnings'] if 'insecure' in w]
    assert result['services'][0]['verify'] is True


def test_update_reason_rewrites_only_the_header(run_module, tmp_path):
    run_module.ok(service_verification, args(tmp_path, name='a', verify=False, reason='old reason'))
    result = run_module.ok(service_verification, args(tmp_path, name='a', verify=False, reason='new reason'),
                           diff=True)
    path = dropin_file(tmp_path, 'a.service')
    assert result['changed'] and result['services'][0]['action'] == 'updated'
    assert b'# reason: new reason\n' in get(path) and b'old reason' not in get(path)
    [diff] = result['diff']
    assert '# reason: old reason' in diff['before'] and '# reason: new reason' in diff['after']
    assert diff['before_header'] == path and diff['after_header'] == path


def test_update_verify_flips_the_value(run_module, tmp_path):
    run_module.ok(service_verification, args(tmp_path, name='a', verify=False))
    result = run_module.ok(service_verification, args(tmp_path, name='a', verify=True))
    assert result['services'][0]['action'] == 'updated'
    assert dropin.parse_dropin(get(dropin_file(tmp_path, 'a.service')))['value'] == '1'


def test_wrong_mode_is_repaired(run_module, tmp_path):
    run_module.ok(service_verification, args(tmp_path, name='a', verify=True))
    path = dropin_file(tmp_path, 'a.service')
    os.chmod(path, 0o600)
    result = run_module.ok(service_verification, args(tmp_path, name='a', verify=True), diff=True)
    assert result['services'][0]['action'] == 'updated'
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644
    assert 'mode 0600, becomes 0644' in result['diff'][0]['before_header']


def test_remove_deletes_file_and_empty_folder(run_module, tmp_path):
    run_module.ok(service_verification, args(tmp_path, name='a', verify=False))
    result = run_module.ok(service_verification, args(tmp_path, name='a', state='absent'), diff=True)
    path = dropin_file(tmp_path, 'a.service')
    assert result['changed'] and result['services'][0]['action'] == 'removed'
    assert not os.path.exists(path) and not os.path.exists(os.path.dirname(path))
    assert os.path.isdir(os.path.join(str(tmp_path), UNIT_DIR))
    assert result['diff'][0]['after'] == '' and 'PYTHONHTTPSVERIFY=0' in result['diff'][0]['before']
    again = run_module.ok(service_verification, args(tmp_path, name='a', state='absent'))
    assert not again['changed'] and again['services'][0]['action'] == 'unchanged'


def test_remove_keeps_folder_with_other_files(run_module, tmp_path):
    run_module.ok(service_verification, args(tmp_path, name='a', verify=False))
    other = put(os.path.join(os.path.dirname(dropin_file(tmp_path, 'a.service')), 'limits.conf'),
                b'[Service]\nLimitNOFILE=4096\n')
    run_module.ok(service_verification, args(tmp_path, name='a', state='absent'))
    assert not os.path.exists(dropin_file(tmp_path, 'a.service'))
    assert get(other) == b'[Service]\nLimitNOFILE=4096\n'


def test_foreign_file_is_refused_for_present_and_absent(run_module, tmp_path):
    foreign = b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n'
    path = put(dropin_file(tmp_path, 'a.service'), foreign)
    before = snapshot(tmp_path)
    for params in (dict(verify=False), dict(verify=True), dict(state='absent')):
        result = run_module.fail(service_verification, args(tmp_path, name='a', **params))
        assert 'not managed by this module' in result['msg'] and path in result['msg']
        assert snapshot(tmp_path) == before
    assert get(path) == foreign


def test_batch_with_one_bad_item_writes_nothing(run_module, tmp_path):
    services = [dict(name='good-one', verify=False, reason='r'),
                dict(name='../etc/passwd', verify=False),
                dict(name='good-two', verify=True),
                dict(name='bad-reason', verify=False, reason='two\nlines'),
                dict(name='bad-date', verify=False, expires='2026-02-30')]
    result = run_module.fail(service_verification, args(tmp_path, services=services))
    assert not os.path.exists(os.path.join(str(tmp_path), 'etc'))
    assert "'../etc/passwd'" in result['msg'] and 'services[1]' in result['msg']
    assert 'services[3]' in result['msg'] and "'\\n'" in result['msg']
    assert 'services[4]' in result['msg'] and '2026-02-30' in result['msg']
    assert len(result['errors']) == 3 and result['msg'].startswith('Nothing was changed')


def test_batch_with_a_foreign_file_writes_nothing(run_module, tmp_path):
    put(dropin_file(tmp_path, 'b.service'), b'[Service]\n')
    before = snapshot(tmp_path)
    services = [dict(name='a', verify=False), dict(name='b', verify=False)]
    result = run_module.fail(service_verification, args(tmp_path, services=services))
    assert 'services[1] (b.service)' in result['msg']
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize('bad', ['../x', '/etc/passwd', 'a b', 'a\nb', 'a=b', 'a%i', 'a\x07', '', 'x' * 300,
                                 'sshd.socket'])
def test_bad_unit_names_fail_naming_the_value(run_module, tmp_path, bad):
    result = run_module.fail(service_verification, args(tmp_path, name=bad, verify=False))
    assert dropin.show(bad) in result['msg'] or (bad == '' and 'empty' in result['msg'])
    assert os.listdir(str(tmp_path)) == []


def test_duplicate_units_are_refused(run_module, tmp_path):
    services = [dict(name='a', verify=False), dict(name='a.service', verify=True)]
    result = run_module.fail(service_verification, args(tmp_path, services=services))
    assert 'already given in services[0]' in result['msg']


def test_missing_verify_and_stray_options_are_errors(run_module, tmp_path):
    result = run_module.fail(service_verification, args(tmp_path, name='a'))
    assert 'verify is required' in result['msg']
    result = run_module.fail(service_verification, args(tmp_path, name='a', state='absent', verify=False))
    assert 'not used with state=absent' in result['msg']
    result = run_module.fail(service_verification, args(tmp_path, name='a', verify=False, exclusive=True))
    assert 'exclusive=true needs services' in result['msg']
    result = run_module.fail(service_verification, args(tmp_path, name='a', verify=False, dropin_name='../x.conf'))
    assert 'dropin_name' in result['msg']
    assert os.listdir(str(tmp_path)) == []


def test_services_inherit_top_level_defaults(run_module, tmp_path):
    result = run_module.ok(service_verification, args(
        tmp_path, verify=False, reason='fleet default', expires=FUTURE,
        services=[dict(name='a'), dict(name='b', verify=True, reason='own reason'), dict(name='c', state='absent')]))
    assert [s['action'] for s in result['services']] == ['created', 'created', 'unchanged']
    assert dropin.parse_dropin(get(dropin_file(tmp_path, 'a.service'))) == dict(
        verify=False, value='0', reason='fleet default', expires=dates.validate_expires(FUTURE), ca=None, ca_bundle=None)
    assert dropin.parse_dropin(get(dropin_file(tmp_path, 'b.service')))['reason'] == 'own reason'


def test_exclusive_removes_only_our_unlisted_dropins(run_module, tmp_path):
    run_module.ok(service_verification, args(tmp_path, services=[
        dict(name='keep', verify=False), dict(name='drop', verify=False), dict(name='worker@', verify=False)]))
    foreign = put(dropin_file(tmp_path, 'foreign.service'), b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n')
    other_name = put(dropin_file(tmp_path, 'drop.service', 'limits.conf'), b'[Service]\n')
    socket_dir = put(os.path.join(str(tmp_path), UNIT_DIR, 'x.socket.d', NAME), get(dropin_file(tmp_path, 'keep.service')))
    result = run_module.ok(service_verification, args(tmp_path, exclusive=True, services=[
        dict(name='keep', verify=False), dict(name='new', verify=True)]), diff=True)
    assert sorted(r['name'] for r in result['removed']) == ['drop.service', 'worker@.service']
    assert all(r['action'] == 'removed' for r in result['removed'])
    assert not os.path.exists(dropin_file(tmp_path, 'drop.service'))
    assert not os.path.exists(os.path.dirname(dropin_file(tmp_path, 'worker@.service')))
    assert os.path.exists(dropin_file(tmp_path, 'keep.service')) and os.path.exists(dropin_file(tmp_path, 'new.service'))
    assert os.path.exists(foreign) and os.path.exists(other_name) and os.path.exists(socket_dir)
    assert [s['action'] for s in result['services']] == ['unchanged', 'created']
    assert len(result['diff']) == 3
    again = run_module.ok(service_verification, args(tmp_path, exclusive=True, services=[
        dict(name='keep', verify=False), dict(name='new', verify=True)]))
    assert not again['changed'] and again['removed'] == []


def test_exclusive_with_empty_list_removes_all_of_ours(run_module, tmp_path):
    run_module.ok(service_verification, args(tmp_path, services=[dict(name='a', verify=False),
                                                                 dict(name='b', verify=True)]))
    result = run_module.ok(service_verification, args(tmp_path, exclusive=True, services=[]))
    assert sorted(r['name'] for r in result['removed']) == ['a.service', 'b.service']
    assert os.listdir(os.path.join(str(tmp_path), UNIT_DIR)) == []


def test_expired_exception_is_written_and_warned(run_module, tmp_path):
    result = run_module.ok(service_verification, args(tmp_path, name='a', verify=False, reason='r', expires=PAST))
    assert result['services'][0]['expired'] is True
    assert any('expired on %s' % PAST in w for w in result['warnings'])
    fresh = run_module.ok(service_verification, args(tmp_path, name='b', verify=False, expires=FUTURE))
    assert fresh['services'][0]['expired'] is False
    assert not any('expired' in w for w in fresh['warnings'])


def test_check_mode_writes_nothing_and_reports_what_would_change(run_module, tmp_path):
    run_module.ok(service_verification, args(tmp_path, services=[dict(name='old', verify=False),
                                                                 dict(name='upd', verify=False, reason='a')]))
    os.chmod(dropin_file(tmp_path, 'upd.service'), 0o600)
    before = snapshot(tmp_path)
    result = run_module.ok(service_verification, args(tmp_path, exclusive=True, services=[
        dict(name='new', verify=False), dict(name='upd', verify=False, reason='b'), dict(name='gone', state='absent')]),
        check_mode=True, diff=True)
    assert snapshot(tmp_path) == before
    assert result['changed'] is True
    assert [s['action'] for s in result['services']] == ['created', 'updated', 'unchanged']
    assert [r['name'] for r in result['removed']] == ['old.service']
    assert len(result['diff']) == 3
    assert 'would be changed' in result['msg']


def test_check_mode_of_a_removal_writes_nothing(run_module, tmp_path):
    run_module.ok(service_verification, args(tmp_path, name='a', verify=False))
    before = snapshot(tmp_path)
    result = run_module.ok(service_verification, args(tmp_path, name='a', state='absent'), check_mode=True)
    assert result['changed'] and result['services'][0]['action'] == 'removed'
    assert snapshot(tmp_path) == before


def test_python3_unit_is_reported_not_effective(run_module, tmp_path):
    unit_file(tmp_path, 'py3.service', '/usr/bin/python3 /srv/app.py')
    unit_file(tmp_path, 'py2.service', '/usr/bin/python2.7 /srv/app.py')
    put(os.path.join(str(tmp_path), 'srv/agent'), b'#!/usr/bin/env python3\nprint(1)\n')
    unit_file(tmp_path, 'script.service', '/srv/agent --x', folder='etc/systemd/system')
    unit_file(tmp_path, 'worker@.service', '/usr/bin/python3 -u /srv/w.py')
    result = run_module.ok(service_verification, args(tmp_path, services=[
        dict(name=n, verify=False) for n in ('py3', 'py2', 'script', 'worker@7', 'unknown')]))
    effective = dict((s['name'], (s['unit_known'], s['effective'])) for s in result['services'])
    assert effective == {'py3.service': (True, False), 'py2.service': (True, True), 'script.service': (True, False),
                         'worker@7.service': (True, False), 'unknown.service': (False, None)}
    no_effect = [w for w in result['warnings'] if 'no effect on Python 3' in w]
    assert len(no_effect) == 3 and any('/srv/agent' in w for w in no_effect)


def test_symlinked_dropin_folder_is_refused(run_module, tmp_path):
    target = os.path.join(str(tmp_path), 'elsewhere')
    os.makedirs(target)
    os.makedirs(os.path.join(str(tmp_path), UNIT_DIR))
    os.symlink(target, os.path.join(str(tmp_path), UNIT_DIR, 'a.service.d'))
    result = run_module.fail(service_verification, args(tmp_path, name='a', verify=False))
    assert 'symbolic link' in result['msg'] and 'follow' not in result['msg']
    assert os.listdir(target) == []


class FakeSystemctl(object):
    """Records every systemctl command; answers `list-units` from a table of unit states."""

    def __init__(self, units, fail=None):
        self.units = units
        self.fail = fail
        self.calls = []

    def __call__(self, args, **kwargs):
        assert isinstance(args, list), 'systemctl must be run with an argument list'
        self.calls.append(args[1:])
        if self.fail and args[1] == self.fail:
            return 1, '', 'Failed to %s: Access denied' % self.fail
        if args[1] == 'list-units':
            assert args[2:] == ['--all', '--plain', '--no-legend', '--full', '--type=service']
            lines = ['%s %s %s %s %s' % (unit, state[0], state[1], 'running' if state[1] == 'active' else 'dead', unit)
                     for unit, state in sorted(self.units.items())]
            return 0, '\n'.join(lines) + '\n', ''
        return 0, '', ''


PY2_UNIT = '/usr/bin/python2.7 /srv/a'
PY3_UNIT = '/usr/bin/python3 /srv/a'


@pytest.fixture
def live(monkeypatch, tmp_path):
    """A host where systemd runs: its unit folders in tmp_path, systemctl recorded."""
    search_path = (os.path.join(str(tmp_path), UNIT_DIR), os.path.join(str(tmp_path), 'lib/systemd/system'))
    monkeypatch.setattr(units, 'UNIT_SEARCH_PATH', search_path)

    def setup(states, fail=None, exec_start=PY2_UNIT):
        for unit, state in states.items():
            if state[0] == 'loaded':
                unit_file(tmp_path, unit, state[2] if len(state) > 2 else exec_start)
        fake = FakeSystemctl(dict((unit, state[:2]) for unit, state in states.items()), fail)
        monkeypatch.setattr(runtime, 'systemd_running', lambda root=None: not root)
        monkeypatch.setattr(basic.AnsibleModule, 'get_bin_path', lambda self, name, *a, **k: '/bin/systemctl')
        monkeypatch.setattr(basic.AnsibleModule, 'run_command', lambda self, args, **kwargs: fake(args, **kwargs))
        return fake
    return setup


def live_args(tmp_path, **kwargs):
    kwargs['unit_dir'] = os.path.join(str(tmp_path), UNIT_DIR)
    return kwargs


LIST = ['list-units', '--all', '--plain', '--no-legend', '--full', '--type=service']


def test_live_one_list_one_reload_and_try_restart_of_changed_running_units(run_module, tmp_path, live):
    fake = live({'run.service': ('loaded', 'active'), 'idle.service': ('loaded', 'inactive'),
                 'same.service': ('loaded', 'active')})
    run_module.ok(service_verification, live_args(tmp_path, name='same', verify=False))
    fake.calls[:] = []
    result = run_module.ok(service_verification, live_args(tmp_path, restart='try-restart', services=[
        dict(name='run', verify=False), dict(name='idle', verify=False), dict(name='same', verify=False),
        dict(name='tpl@', verify=False), dict(name='absent-unit', verify=True)]))
    assert fake.calls == [LIST, ['daemon-reload'], ['try-restart', '--', 'run.service']]
    assert result['systemd_running'] is True and result['reloaded'] is True
    assert result['restarted'] == ['run.service'] and result['pending_restart'] == []
    known = dict((s['name'], s['unit_known']) for s in result['services'])
    assert known == {'run.service': True, 'idle.service': True, 'same.service': True, 'tpl@.service': False,
                     'absent-unit.service': False}


def test_live_never_restart_lists_pending(run_module, tmp_path, live):
    fake = live({'run.service': ('loaded', 'active')})
    result = run_module.ok(service_verification, live_args(tmp_path, name='run', verify=False))
    assert [c[0] for c in fake.calls] == ['list-units', 'daemon-reload']
    assert result['pending_restart'] == ['run.service'] and result['restarted'] == []


def test_live_restart_restarts_every_known_changed_unit(run_module, tmp_path, live):
    fake = live({'a.service': ('loaded', 'inactive'), 'b.service': ('loaded', 'active')})
    result = run_module.ok(service_verification, live_args(tmp_path, restart='restart', services=[
        dict(name='a', verify=False), dict(name='b', verify=False), dict(name='c', verify=False)]))
    assert fake.calls[-1] == ['restart', '--', 'a.service', 'b.service']
    assert result['restarted'] == ['a.service', 'b.service']


def test_live_nothing_changed_means_no_reload(run_module, tmp_path, live):
    fake = live({})
    run_module.ok(service_verification, live_args(tmp_path, name='a', verify=False))
    fake.calls[:] = []
    result = run_module.ok(service_verification, live_args(tmp_path, name='a', verify=False, restart='restart'))
    assert [c[0] for c in fake.calls] == ['list-units']
    assert result['reloaded'] is False and not result['changed']


def test_live_check_mode_only_asks(run_module, tmp_path, live):
    fake = live({'a.service': ('loaded', 'active')})
    before = snapshot(tmp_path)
    result = run_module.ok(service_verification, live_args(tmp_path, name='a', verify=False, restart='try-restart'),
                           check_mode=True)
    assert [c[0] for c in fake.calls] == ['list-units']
    assert result['reloaded'] is True and result['restarted'] == ['a.service']
    assert snapshot(tmp_path) == before


def test_live_daemon_reload_false(run_module, tmp_path, live):
    fake = live({})
    result = run_module.ok(service_verification, live_args(tmp_path, name='a', verify=False, daemon_reload=False))
    assert [c[0] for c in fake.calls] == ['list-units'] and result['reloaded'] is False


def test_live_python3_from_the_unit_file(run_module, tmp_path, live):
    live({'py3.service': ('loaded', 'inactive')}, exec_start=PY3_UNIT)
    result = run_module.ok(service_verification, live_args(tmp_path, name='py3', verify=False))
    assert result['services'][0]['effective'] is False and result['services'][0]['effect'] == 'python3'
    assert any('no effect on Python 3' in w and 'ExecStart=/usr/bin/python3 /srv/a' in w for w in result['warnings'])


def test_live_overridden_value_is_warned(run_module, tmp_path, live):
    live({'a.service': ('loaded', 'active')})
    put(os.path.join(str(tmp_path), UNIT_DIR, 'a.service.d', 'zzz-local.conf'),
        b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=1\n')
    result = run_module.ok(service_verification, live_args(tmp_path, name='a', verify=False))
    assert any('will get PYTHONHTTPSVERIFY=1, not 0' in w and 'zzz-local.conf sets it after zz-pep493-https.conf' in w
               for w in result['warnings'])


def test_live_reload_failure_is_a_clear_error(run_module, tmp_path, live):
    live({}, fail='daemon-reload')
    result = run_module.fail(service_verification, live_args(tmp_path, name='a', verify=False))
    assert 'systemctl daemon-reload failed' in result['msg'] and 'a.service' in result['msg']
    assert 'Access denied' in result['msg']


def test_live_restart_failure_keeps_the_results(run_module, tmp_path, live):
    live({'a.service': ('loaded', 'active')}, fail='try-restart')
    result = run_module.fail(service_verification, live_args(tmp_path, name='a', verify=False, restart='try-restart'))
    assert 'systemctl try-restart -- a.service failed (exit 1)' in result['msg']
    assert result['reloaded'] is True and result['services'][0]['action'] == 'created'
    assert os.path.exists(result['services'][0]['path'])


def test_live_list_units_failure_restarts_nothing(run_module, tmp_path, live):
    live({'a.service': ('loaded', 'active')}, fail='list-units')
    result = run_module.ok(service_verification, live_args(tmp_path, name='a', verify=False, restart='try-restart'))
    assert result['restarted'] == [] and result['reloaded'] is True
    assert any('list-units failed' in w for w in result['warnings'])


# run_module's capsys is re-read at the start of every run, so sharing it across examples is fine.
SHARED_FIXTURES = [check for check in HealthCheck if check.name == 'function_scoped_fixture']


@settings(max_examples=60, deadline=None, suppress_health_check=SHARED_FIXTURES)
@given(st.text(alphabet=u'ab@.-_:\\/ \n%=\x00\xe9', max_size=12))
def test_any_name_writes_inside_its_dropin_folder_or_nothing(run_module, name):
    root = tempfile.mkdtemp(prefix='pep493-sv-')
    try:
        result, code = run_module(service_verification, dict(root=root, name=name, verify=False))
        written = []
        for folder, dirs, files in os.walk(root):
            written.extend(os.path.relpath(os.path.join(folder, f), root) for f in files)
        if code != 0:
            assert written == [] and result['failed']
            if '\x00' not in name:  # AnsibleModule itself refuses NUL in arguments, before main() checks them
                assert result['msg'].startswith('Nothing was changed')
        else:
            unit = unit_names.validate_unit_name(name)
            assert written == [os.path.join(UNIT_DIR, unit + '.d', NAME)]
            assert result['services'][0]['path'] == os.path.join(os.path.realpath(root), written[0])
    finally:
        shutil.rmtree(root)


def test_modes_hold_under_a_strict_umask(run_module, tmp_path):
    old = os.umask(0o077)
    try:
        run_module.ok(service_verification, args(tmp_path, name='a', verify=False))
    finally:
        os.umask(old)
    path = dropin_file(tmp_path, 'a.service')
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644
    assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o755


def test_an_exception_for_a_service_on_requests_warns_that_it_does_nothing(run_module, tmp_path):
    put(os.path.join(str(tmp_path), 'opt/agent.py'), b'import requests\nrequests.get("https://x")\n')
    put(os.path.join(str(tmp_path), 'usr/lib/python2.7/dist-packages/requests/__init__.py'), b'import urllib3\n')
    unit_file(tmp_path, 'agent.service', '/usr/bin/python2.7 /opt/agent.py')
    result = run_module.ok(service_verification, args(tmp_path, name='agent', verify=False, reason='r',
                                                      expires='2999-01-01'))
    [service] = result['services']
    assert service['effective'] is False and service['effect'] == 'not-governed'
    assert any('agent.service: its Python 2 code uses no HTTPS that PYTHONHTTPSVERIFY governs (it uses requests'
               in warning and 'trust the CA it needs instead' in warning for warning in result['warnings'])
