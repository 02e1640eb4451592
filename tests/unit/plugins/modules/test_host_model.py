# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The three modules see one host: the same files under ``root``, the same units, the same
environment and the same "effective" answer. Each case here is a place where they once
disagreed with each other or with systemd (files only, under a throw-away root)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.plugins.modules import cert_verification, service_verification
from ansible_collections.pep493.https.plugins.modules import verification_info
from ansible_collections.pep493.https.tests.unit.tree import read as get, snapshot, write

UNITS = '/etc/systemd/system'
LIB = '/usr/lib/systemd/system'
CFG = '/etc/python/cert-verification.cfg'


def ours(verify=False):
    return dropin.render_dropin(verify, 'vendor CA', dates.validate_expires('2999-01-01'))


def audit(run_module, root, **kwargs):
    kwargs['root'] = str(root)
    result = run_module.ok(verification_info, kwargs)
    return result, dict((s['unit'], s) for s in result['services'])


# --- EnvironmentFile= -----------------------------------------------------------------------------

def test_environment_file_glob_is_expanded(run_module, tmp_path):
    write(tmp_path, LIB + '/globbed.service',
          b'[Service]\nEnvironmentFile=/etc/app/*.env\nExecStart=/usr/bin/python2.7 /srv/a\n')
    write(tmp_path, '/etc/app/10-base.env', b'PYTHONHTTPSVERIFY=1\n')
    write(tmp_path, '/etc/app/20-site.env', b'PYTHONHTTPSVERIFY=0\n')
    result, units = audit(run_module, tmp_path)
    unit = units['globbed.service']
    # files sorted by name, the later one wins
    assert (unit['value'], unit['source'], unit['source_kind']) == ('0', '/etc/app/20-site.env', 'environment_file')
    assert unit['effective'] is True and unit['errors'] == []


def test_environment_file_glob_without_match(run_module, tmp_path):
    write(tmp_path, LIB + '/nomatch.service', b'[Service]\nEnvironmentFile=/etc/app/*.env\n'
                                              b'Environment=PYTHONHTTPSVERIFY=0\nExecStart=/usr/bin/python2.7 a\n')
    write(tmp_path, LIB + '/optional.service', b'[Service]\nEnvironmentFile=-/etc/app/*.env\n'
                                               b'Environment=PYTHONHTTPSVERIFY=0\nExecStart=/usr/bin/python2.7 a\n')
    result, units = audit(run_module, tmp_path)
    assert units['optional.service']['value'] == '0' and units['optional.service']['errors'] == []
    # systemd refuses to start a unit whose non-optional environment file matches nothing
    assert units['nomatch.service']['value'] is None and units['nomatch.service']['effective'] is False
    assert any('/etc/app/*.env' in e for e in units['nomatch.service']['errors'])


@pytest.mark.parametrize('content, value', [
    # a comment line ending in a backslash swallows the next line (systemd 247; 254 changed it)
    (b'# note \\\nPYTHONHTTPSVERIFY=0\n', None),
    # a double-quoted value may span lines
    (b'PYTHONHTTPSVERIFY="0\n"\n', '0\n'),
    # "\0" inside double quotes keeps its backslash (only \" \\ \` \$ are unescaped)
    (b'PYTHONHTTPSVERIFY="\\0"\n', '\\0'),
    # quotes are only special right after "=": 0"" stays as it is
    (b'PYTHONHTTPSVERIFY=0""\n', '0""'),
])
def test_environment_file_syntax_as_systemd_reads_it(run_module, tmp_path, content, value):
    write(tmp_path, LIB + '/envfile.service',
          b'[Service]\nEnvironmentFile=/etc/default/envfile\nExecStart=/usr/bin/python2.7 /srv/a\n')
    write(tmp_path, '/etc/default/envfile', content)
    result, units = audit(run_module, tmp_path)
    assert units['envfile.service']['value'] == value


# --- UnsetEnvironment=, PassEnvironment= ----------------------------------------------------------

def test_unset_environment_removes_the_variable(run_module, tmp_path):
    write(tmp_path, LIB + '/unset.service', b'[Service]\nUnsetEnvironment=PYTHONHTTPSVERIFY\n'
                                            b'ExecStart=/usr/bin/python2.7 /srv/a\n')
    write(tmp_path, UNITS + '/unset.service.d/zz-pep493-https.conf', ours())
    write(tmp_path, LIB + '/exact.service', b'[Service]\nUnsetEnvironment=PYTHONHTTPSVERIFY=1\n'
                                            b'ExecStart=/usr/bin/python2.7 /srv/a\n')
    write(tmp_path, UNITS + '/exact.service.d/zz-pep493-https.conf', ours())
    result, units = audit(run_module, tmp_path)
    unset = units['unset.service']
    assert unset['value'] is None and unset['value_known'] is True and unset['managed'] is True
    assert unset['source_kind'] == 'unset_environment' and unset['source'] == LIB + '/unset.service'
    # "NAME=value" removes only that exact assignment
    assert units['exact.service']['value'] == '0'
    assert result['summary']['opt_outs'] == 1


def test_pass_environment_cannot_be_told_under_root(run_module, tmp_path):
    write(tmp_path, LIB + '/pass.service', b'[Service]\nPassEnvironment=PYTHONHTTPSVERIFY\n'
                                           b'ExecStart=/usr/bin/python2.7 /srv/a\n')
    write(tmp_path, LIB + '/passset.service', b'[Service]\nPassEnvironment=PYTHONHTTPSVERIFY\n'
                                              b'Environment=PYTHONHTTPSVERIFY=1\nExecStart=/usr/bin/python2.7 a\n')
    result, units = audit(run_module, tmp_path)
    # PID 1's own environment is not in the tree: say so instead of guessing
    assert units['pass.service']['value'] is None and units['pass.service']['value_known'] is False
    # Environment= wins over PassEnvironment=
    assert units['passset.service']['value'] == '1' and units['passset.service']['value_known'] is True


# --- the one "effective" rule ---------------------------------------------------------------------

@pytest.mark.parametrize('exec_start, effective', [
    ('/usr/bin/python2.7 -E /srv/a', False),
    ('/usr/bin/python2.7 -Es /srv/a', False),
    ('/usr/bin/python2.7 -tt -E /srv/a', False),
    ('/usr/bin/python2.7 -sE /srv/a', False),
    ('/usr/bin/python2.7 -s /srv/a', True),
    ('/usr/bin/python2.7 /srv/a -E', True),
    ('/usr/bin/python2.7 -c "import x" -E', True),
    ('/usr/bin/env -i /usr/bin/python2.7 /srv/a', False),
    ('/usr/bin/env -u PYTHONHTTPSVERIFY /usr/bin/python2.7 /srv/a', False),
    ('/usr/bin/env --unset=PYTHONHTTPSVERIFY python2.7 /srv/a', False),
    ('/usr/bin/env -i PYTHONHTTPSVERIFY=0 /usr/bin/python2.7 /srv/a', False),
    ('/usr/bin/env LANG=C /usr/bin/python2.7 /srv/a', True),
    ('/bin/sh -c "exec python2.7 /srv/a"', None),
])
def test_effective_follows_python_flags_and_env_wrappers(run_module, tmp_path, exec_start, effective):
    write(tmp_path, LIB + '/app.service', ('[Service]\nExecStart=%s\n' % exec_start).encode('utf-8'))
    write(tmp_path, UNITS + '/app.service.d/zz-pep493-https.conf', ours())
    result, units = audit(run_module, tmp_path)
    svc = run_module.ok(service_verification, dict(root=str(tmp_path), name='app', verify=False))
    assert units['app.service']['effective'] is effective
    assert svc['services'][0]['effective'] is effective


def test_every_exec_start_and_exec_start_pre_counts_in_both_modules(run_module, tmp_path):
    write(tmp_path, LIB + '/twostep.service', b'[Service]\nType=oneshot\n'
                                              b'ExecStart=/usr/bin/python3 /srv/prep\n'
                                              b'ExecStart=/usr/bin/python2.7 /srv/agent\n')
    write(tmp_path, LIB + '/pre.service', b'[Service]\nExecStartPre=/usr/bin/python2.7 /srv/register\n'
                                          b'ExecStart=/usr/bin/python3 /srv/agent\n')
    write(tmp_path, LIB + '/py3only.service', b'[Service]\nExecStartPre=/usr/bin/python3 /srv/check\n'
                                              b'ExecStart=/usr/bin/python3 /srv/agent\n')
    for unit in ('twostep', 'pre', 'py3only'):
        write(tmp_path, UNITS + '/%s.service.d/zz-pep493-https.conf' % unit, ours())
    result, units = audit(run_module, tmp_path)
    svc = run_module.ok(service_verification, dict(root=str(tmp_path), services=[
        dict(name=u, verify=False) for u in ('twostep', 'pre', 'py3only')]))
    from_svc = dict((s['name'], s['effective']) for s in svc['services'])
    from_audit = dict((u, units[u]['effective']) for u in from_svc)
    assert from_svc == from_audit == {'twostep.service': True, 'pre.service': True, 'py3only.service': False}
    assert not any('runs Python 3' in f and 'twostep' in f for f in result['summary']['findings'])


# --- units ----------------------------------------------------------------------------------------

def test_an_alias_is_one_record(run_module, tmp_path):
    write(tmp_path, LIB + '/real.service', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n'
                                           b'ExecStart=/usr/bin/python2.7 /srv/a\n')
    write(tmp_path, UNITS + '/real.service.d/zz-pep493-https.conf', ours(verify=True))
    os.symlink(LIB + '/real.service', os.path.join(str(tmp_path), UNITS.lstrip('/'), 'nick.service'))
    result, units = audit(run_module, tmp_path)
    assert sorted(units) == ['real.service'] and units['real.service']['value'] == '1'


def test_alias_dropins_apply_to_the_unit(run_module, tmp_path):
    write(tmp_path, LIB + '/real.service', b'[Service]\nExecStart=/usr/bin/python2.7 /srv/a\n')
    os.makedirs(os.path.join(str(tmp_path), UNITS.lstrip('/')))
    os.symlink(LIB + '/real.service', os.path.join(str(tmp_path), UNITS.lstrip('/'), 'nick.service'))
    write(tmp_path, UNITS + '/nick.service.d/override.conf', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n')
    result, units = audit(run_module, tmp_path)
    assert sorted(units) == ['real.service'] and units['real.service']['value'] == '0'


def test_a_masked_unit_is_not_an_opt_out(run_module, tmp_path):
    write(tmp_path, LIB + '/gone.service', b'[Service]\nExecStart=/usr/bin/python2.7 /srv/a\n')
    write(tmp_path, UNITS + '/gone.service.d/zz-pep493-https.conf', ours())
    os.symlink('/dev/null', os.path.join(str(tmp_path), UNITS.lstrip('/'), 'gone.service'))
    result, units = audit(run_module, tmp_path)
    gone = units['gone.service']
    assert gone['load_state'] == 'masked' and gone['value'] is None and gone['managed'] is True
    assert result['summary']['opt_outs'] == 0 and result['summary']['exceptions'] == 0


def test_a_top_level_service_dropin_names_no_missing_unit(run_module, tmp_path):
    write(tmp_path, UNITS + '/service.d/10-all.conf', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=1\n')
    write(tmp_path, LIB + '/present.service', b'[Service]\nExecStart=/usr/bin/python2.7 /srv/a\n'
                                              b'Wants=missing.service\n')
    result, units = audit(run_module, tmp_path)
    assert sorted(units) == ['present.service'] and units['present.service']['value'] == '1'


def test_system_conf_findings_name_their_line(run_module, tmp_path):
    write(tmp_path, '/etc/systemd/system.conf', b'[Manager]\n#x\nDefaultEnvironment=PYTHONHTTPSVERIFY=0\n')
    result, units = audit(run_module, tmp_path)
    [setting] = result['global']
    assert setting['line'] == 3
    assert not [f for f in result['summary']['findings'] if 'line None' in f]
    assert any('/etc/systemd/system.conf line 3' in f for f in result['summary']['findings'])


def test_units_in_every_search_folder_are_known_to_both_modules(run_module, tmp_path):
    for folder in ('/run/systemd/transient', '/run/systemd/generator', '/usr/local/lib/systemd/system',
                   '/run/systemd/generator.late', '/etc/systemd/system.control'):
        name = folder.strip('/').replace('/', '-').replace('.', '-') + '.service'
        write(tmp_path, folder + '/' + name, b'[Service]\nExecStart=/usr/bin/python2.7 /srv/a\n')
        svc = run_module.ok(service_verification, dict(root=str(tmp_path), name=name, verify=False))
        assert svc['services'][0]['unit_known'] is True and svc['services'][0]['effective'] is True, folder
        result, units = audit(run_module, tmp_path)
        assert units[name]['effective'] is True, folder


def test_a_fifo_as_exec_start_program_does_not_hang(run_module, tmp_path):
    write(tmp_path, LIB + '/fifo.service', b'[Service]\nExecStart=/srv/fifo-agent\n')
    os.makedirs(os.path.join(str(tmp_path), 'srv'))
    os.mkfifo(os.path.join(str(tmp_path), 'srv', 'fifo-agent'))
    write(tmp_path, UNITS + '/fifo.service.d/zz-pep493-https.conf', ours())
    svc = run_module.ok(service_verification, dict(root=str(tmp_path), name='fifo', verify=False))
    assert svc['services'][0]['effective'] is None
    result, units = audit(run_module, tmp_path)
    assert units['fifo.service']['effective'] is None


# --- files past 1 MiB -----------------------------------------------------------------------------

def test_a_long_cfg_file_is_read_whole(run_module, tmp_path):
    write(tmp_path, CFG, b'[https]\n' + b'# padding\n' * 115000 + b'verify=disable\n')
    result, units = audit(run_module, tmp_path)
    assert result['config']['verify'] == 'disable'


def test_long_dropins_and_etc_environment_are_read_whole(run_module, tmp_path):
    write(tmp_path, LIB + '/long.service', b'[Service]\nExecStart=/usr/bin/python2.7 /srv/a\n')
    write(tmp_path, UNITS + '/long.service.d/50-long.conf',
          b'[Service]\n' + b'# padding\n' * 115000 + b'Environment=PYTHONHTTPSVERIFY=0\n')
    write(tmp_path, '/etc/environment', b'# padding\n' * 115000 + b'PYTHONHTTPSVERIFY=0\n')
    result, units = audit(run_module, tmp_path)
    assert units['long.service']['value'] == '0'
    assert [g['source'] for g in result['global']] == ['etc_environment']


def test_a_file_past_the_size_limit_is_reported_not_half_read(run_module, tmp_path):
    from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
    write(tmp_path, CFG, b'[https]\n' + b'#' * hostfiles.MAX_FILE_SIZE + b'\nverify=disable\n')
    result, units = audit(run_module, tmp_path)
    assert result['config']['verify'] is None and 'too large' in result['config']['error']
    failed = run_module.fail(cert_verification, dict(root=str(tmp_path), verify='enable'))
    assert 'too large' in failed['msg']


# --- one meaning of root, for reading and writing -------------------------------------------------

def test_an_absolute_link_under_root_is_followed_inside_root_by_every_module(run_module, tmp_path):
    write(tmp_path, '/srv/python/cert-verification.cfg', b'[https]\nverify=disable\n')
    os.makedirs(os.path.join(str(tmp_path), 'etc'))
    os.symlink('/srv/python', os.path.join(str(tmp_path), 'etc', 'python'))
    result, units = audit(run_module, tmp_path)
    assert result['config']['verify'] == 'disable'
    written = run_module.ok(cert_verification, dict(root=str(tmp_path), verify='enable', follow=True))
    assert written['path'] == os.path.join(str(tmp_path), 'srv', 'python', 'cert-verification.cfg')
    assert b'verify=enable' in get(written['path'])
    result, units = audit(run_module, tmp_path)
    assert result['config']['verify'] == 'enable'


def test_dotdot_after_a_link_applies_to_the_link_target(run_module, tmp_path):
    # etc/pylink -> ../srv/deep/python ; etc/pylink/../python is srv/deep/python, not etc/python
    write(tmp_path, '/srv/deep/python/cert-verification.cfg', b'[https]\nverify=disable\n')
    write(tmp_path, '/etc/python/cert-verification.cfg', b'[https]\nverify=platform_default\n')
    os.symlink('../srv/deep/python', os.path.join(str(tmp_path), 'etc', 'pylink'))
    path = '/etc/pylink/../python/cert-verification.cfg'
    result, units = audit(run_module, tmp_path, path=path)
    assert result['config']['verify'] == 'disable'
    written = run_module.ok(cert_verification, dict(root=str(tmp_path), path=path, verify='enable', follow=True))
    assert written['path'] == os.path.join(str(tmp_path), 'srv', 'deep', 'python', 'cert-verification.cfg')
    assert get(os.path.join(str(tmp_path), 'etc', 'python', 'cert-verification.cfg')) == (
        b'[https]\nverify=platform_default\n')


def test_a_path_through_a_regular_file_is_refused(run_module, tmp_path):
    # a link to a regular file used as a folder: the kernel says ENOTDIR
    write(tmp_path, '/srv/plain', b'not a folder\n')
    os.makedirs(os.path.join(str(tmp_path), 'etc', 'systemd'))
    os.symlink('../srv/plain', os.path.join(str(tmp_path), 'etc', 'python'))
    os.symlink('../../srv/plain', os.path.join(str(tmp_path), UNITS.lstrip('/')))
    before = snapshot(tmp_path)
    failed = run_module.fail(cert_verification, dict(root=str(tmp_path), verify='enable', follow=True))
    assert 'is a file, not a folder' in failed['msg']
    failed = run_module.fail(service_verification, dict(root=str(tmp_path), name='app', verify=False))
    assert 'is a file, not a folder' in failed['msg']
    assert snapshot(tmp_path) == before


def test_a_trailing_slash_on_a_file_path_is_refused(run_module, tmp_path):
    write(tmp_path, CFG, b'[https]\nverify=disable\n')
    before = snapshot(tmp_path)
    failed = run_module.fail(cert_verification, dict(root=str(tmp_path), path=CFG + '/', verify='enable'))
    assert 'ends with "/"' in failed['msg']
    assert snapshot(tmp_path) == before


# --- the same "effective" in both modules, for any unit tree --------------------------------------

EXEC_WORDS = ['/usr/bin/python2.7', '/usr/bin/python3', '/usr/bin/env', 'python2', '-E', '-s', '-i', '-u',
              'PYTHONHTTPSVERIFY', 'PYTHONHTTPSVERIFY=1', '/srv/script2', '/srv/script3', '/bin/sh', '-c', 'x',
              '$FLAGS', '"-E -s"', ';', '-Es']
PREFIXES = ['', '-', '@', ':', '+', '!!']


@st.composite
def unit_trees(draw):
    lines = []
    for _index in range(draw(st.integers(0, 3))):
        directive = draw(st.sampled_from(['ExecStart', 'ExecStartPre']))
        words = draw(st.lists(st.sampled_from(EXEC_WORDS), min_size=1, max_size=5))
        lines.append('%s=%s%s' % (directive, draw(st.sampled_from(PREFIXES)), ' '.join(words)))
        if draw(st.booleans()):
            lines.append('%s=' % directive)
    lines.append('Environment=FLAGS=%s' % draw(st.sampled_from(['-E', '-s', ''])))
    dropin = draw(st.sampled_from(['', 'ExecStart=\n', 'ExecStart=/usr/bin/python3 x\n']))
    return '[Service]\n%s\n' % '\n'.join(lines), dropin


SHARED = [check for check in HealthCheck if check.name == 'function_scoped_fixture']


@settings(max_examples=60, deadline=None, suppress_health_check=SHARED)
@given(unit_trees())
def test_both_modules_give_the_same_effective_for_any_unit_tree(run_module, tree):
    unit_text, dropin_text = tree
    root = tempfile.mkdtemp(prefix='pep493-same-')
    try:
        write(root, LIB + '/app.service', unit_text.encode('utf-8'))
        if dropin_text:
            write(root, UNITS + '/app.service.d/10-vendor.conf', ('[Service]\n' + dropin_text).encode('utf-8'))
        write(root, '/srv/script2', b'#!/usr/bin/python2.7\n', 0o755)
        write(root, '/srv/script3', b'#!/usr/bin/env python3\n', 0o755)
        svc = run_module.ok(service_verification, dict(root=root, name='app', verify=False))
        result, units = audit(run_module, root)
        assert svc['services'][0]['effective'] is units['app.service']['effective'], (unit_text, dropin_text)
        assert svc['services'][0]['effect'] == units['app.service']['effect']
    finally:
        shutil.rmtree(root)


# --- the planned state is the state after applying the plan ---------------------------------------

def comparable(result):
    result = dict(result)
    for key in ('invocation', 'warnings', 'deprecations', 'changed', 'planned', 'planned_changes'):
        result.pop(key, None)
    return result


def test_the_planned_report_equals_the_report_after_applying_it(run_module, tmp_path):
    write(tmp_path, CFG, b'[https]\nverify=disable\n')
    write(tmp_path, LIB + '/agent.service', b'[Service]\nExecStart=/usr/bin/python2.7 /srv/agent\n')
    write(tmp_path, LIB + '/web.service', b'[Service]\nExecStart=/usr/bin/python3 /srv/web\n')
    write(tmp_path, LIB + '/old.service', b'[Service]\nExecStart=/usr/bin/python2.7 /srv/old\n')
    write(tmp_path, UNITS + '/old.service.d/zz-pep493-https.conf', ours())
    write(tmp_path, LIB + '/over.service', b'[Service]\nExecStart=/usr/bin/python2.7 /srv/over\n')
    write(tmp_path, UNITS + '/over.service.d/zzz-local.conf', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=1\n')
    exceptions = [dict(name='agent', verify=False, reason='vendor CA', expires='2999-01-01'),
                  dict(name='web', verify=False), dict(name='over', verify=False, reason='r')]
    before = snapshot(tmp_path)
    planned = run_module.ok(verification_info, dict(root=str(tmp_path), planned=dict(
        verify='enable', exceptions=exceptions, exclusive=True)))
    assert snapshot(tmp_path) == before, 'the planned report wrote something'
    assert planned['planned'] is True
    assert sorted((c['path'], c['action']) for c in planned['planned_changes']) == [
        (CFG, 'updated'), (UNITS + '/agent.service.d/zz-pep493-https.conf', 'created'),
        (UNITS + '/old.service.d/zz-pep493-https.conf', 'removed'),
        (UNITS + '/over.service.d/zz-pep493-https.conf', 'created'),
        (UNITS + '/web.service.d/zz-pep493-https.conf', 'created')]
    run_module.ok(cert_verification, dict(root=str(tmp_path), verify='enable'))
    run_module.ok(service_verification, dict(root=str(tmp_path), services=exceptions, exclusive=True))
    applied = run_module.ok(verification_info, dict(root=str(tmp_path)))
    assert comparable(planned) == comparable(applied)
    units = dict((s['unit'], s) for s in applied['services'])
    assert units['agent.service']['value'] == '0' and units['over.service']['overridden'] is True
    assert 'old.service' not in units


def test_a_plan_service_verification_would_refuse_fails_with_its_message(run_module, tmp_path):
    write(tmp_path, UNITS + '/app.service.d/zz-pep493-https.conf', b'[Service]\nEnvironment=X=1\n')
    failed = run_module.fail(verification_info, dict(root=str(tmp_path), planned=dict(
        exceptions=[dict(name='app', verify=False)])))
    assert failed['msg'].startswith('planned: Nothing was changed: services[0] (app.service): ')
    assert 'is not managed by this module' in failed['msg']
    failed = run_module.fail(verification_info, dict(root=str(tmp_path), planned=dict(
        exceptions=[dict(name='bad name', verify=False)])))
    assert failed['msg'].startswith("planned.exceptions: exceptions[0]: unit name 'bad name'")
