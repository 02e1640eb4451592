# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The environment a service's process gets, rule by rule (systemd.exec(5), "Environment")."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.pep493.https.plugins.module_utils._host import environment as service_env
from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._host import units
from ansible_collections.pep493.https.tests.unit.tree import write

LIB = '/usr/lib/systemd/system'
ETC = '/etc/systemd/system'
VAR = 'PYTHONHTTPSVERIFY'


def environment(root, unit='app.service', manager=None, pid1=None, pam=False):
    files = hostfiles.HostFiles(str(root))
    loaded = units.UnitTree(files).load(unit)
    config = service_env.unit_config(loaded)
    return config, service_env.service_environment(config, files, manager or {}, pid1, pam_sets_variable=pam)


def value(root, **kwargs):
    config, env = environment(root, **kwargs)
    found, setting = env.get(VAR)
    if isinstance(found, service_env.Unknown):
        return 'unknown'
    return found, (setting.kind if setting else None)


def unit(root, text, name='app.service', folder=LIB):
    write(root, '%s/%s' % (folder, name), b'[Service]\n' + text + b'\nExecStart=/usr/bin/python2.7 /srv/a\n')


def test_environment_in_order_later_wins_and_empty_resets(tmp_path):
    unit(tmp_path, b'Environment=PYTHONHTTPSVERIFY=1\nEnvironment="PYTHONHTTPSVERIFY=0" OTHER=x')
    assert value(tmp_path) == ('0', 'unit')
    write(tmp_path, ETC + '/app.service.d/10-reset.conf', b'[Service]\nEnvironment=\n')
    assert value(tmp_path) == (None, None)
    write(tmp_path, ETC + '/app.service.d/20-set.conf', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=1\n')
    assert value(tmp_path) == ('1', 'dropin')


def test_manager_then_pass_then_environment_then_files(tmp_path):
    unit(tmp_path, b'')
    assert value(tmp_path, manager={VAR: '0'}) == ('0', 'manager')
    unit(tmp_path, b'PassEnvironment=PYTHONHTTPSVERIFY')
    assert value(tmp_path, manager={VAR: '0'}, pid1={VAR: '1'}) == ('1', 'pass_environment')
    assert value(tmp_path, manager={VAR: '0'}, pid1={}) == ('0', 'manager')       # not in PID 1's: nothing passed
    assert value(tmp_path, manager={VAR: '0'}, pid1=None) == 'unknown'            # PID 1 cannot be read
    unit(tmp_path, b'PassEnvironment=PYTHONHTTPSVERIFY\nEnvironment=PYTHONHTTPSVERIFY=0')
    assert value(tmp_path, pid1={VAR: '1'}) == ('0', 'unit')
    unit(tmp_path, b'Environment=PYTHONHTTPSVERIFY=0\nEnvironmentFile=/etc/default/app')
    write(tmp_path, '/etc/default/app', b'PYTHONHTTPSVERIFY=1\n')
    assert value(tmp_path) == ('1', 'environment_file')


def test_pass_environment_reset_and_names(tmp_path):
    unit(tmp_path, b'PassEnvironment=PYTHONHTTPSVERIFY\nPassEnvironment=\nPassEnvironment=OTHER')
    assert value(tmp_path, pid1={VAR: '0'}) == (None, None)


def test_unset_environment_by_name_or_exact_assignment_last_of_all(tmp_path):
    unit(tmp_path, b'UnsetEnvironment=PYTHONHTTPSVERIFY\nEnvironment=PYTHONHTTPSVERIFY=0')
    assert value(tmp_path) == (None, 'unset_environment')
    unit(tmp_path, b'UnsetEnvironment=PYTHONHTTPSVERIFY=1\nEnvironment=PYTHONHTTPSVERIFY=0')
    assert value(tmp_path) == ('0', 'unit')
    unit(tmp_path, b'UnsetEnvironment=PYTHONHTTPSVERIFY=0\nEnvironment=PYTHONHTTPSVERIFY=0')
    assert value(tmp_path) == (None, 'unset_environment')
    unit(tmp_path, b'UnsetEnvironment=PYTHONHTTPSVERIFY\nUnsetEnvironment=\nEnvironment=PYTHONHTTPSVERIFY=0')
    assert value(tmp_path) == ('0', 'unit')
    unit(tmp_path, b'UnsetEnvironment=PYTHONHTTPSVERIFY')
    assert value(tmp_path, manager={VAR: '0'}) == (None, 'unset_environment')


def test_environment_files_globs_optional_and_order(tmp_path):
    unit(tmp_path, b'EnvironmentFile=/etc/app/*.env\nEnvironmentFile=-/etc/app/missing\n'
                   b'EnvironmentFile=/etc/app/last')
    write(tmp_path, '/etc/app/20.env', b'PYTHONHTTPSVERIFY=1\n')
    write(tmp_path, '/etc/app/10.env', b'PYTHONHTTPSVERIFY=0\nA=1\n')
    write(tmp_path, '/etc/app/last', b'B=2\n')
    config, env = environment(tmp_path)
    assert env.starts and env.get(VAR)[0] == '1' and env.get(VAR)[1].path == '/etc/app/20.env'
    assert env.get('A')[0] == '1' and env.get('B')[0] == '2'
    assert env.mentioned_in == ['/etc/app/10.env', '/etc/app/20.env']


def test_environment_file_reset_and_relative_and_specifiers(tmp_path):
    unit(tmp_path, b'EnvironmentFile=/etc/default/a\nEnvironmentFile=\nEnvironmentFile=-relative',
         name='w@x.service')
    assert value(tmp_path, unit='w@x.service') == (None, None)
    write(tmp_path, '/etc/default/w-x', b'PYTHONHTTPSVERIFY=0\n')
    unit(tmp_path, b'EnvironmentFile=/etc/default/%p-%i', name='w@x.service')
    assert value(tmp_path, unit='w@x.service') == ('0', 'environment_file')
    unit(tmp_path, b'EnvironmentFile=/etc/default/%H')
    assert value(tmp_path) == 'unknown'


@pytest.mark.parametrize('line, why', [
    (b'EnvironmentFile=/etc/none', 'matches no file'),
    (b'EnvironmentFile=/etc/none/*.env', 'matches no file'),
    (b'EnvironmentFile=/etc/bad', 'not valid UTF-8'),
    (b'EnvironmentFile=/etc/dir', 'directory'),
])
def test_a_file_systemd_cannot_load_keeps_the_service_from_starting(tmp_path, line, why):
    write(tmp_path, '/etc/bad', b'A=\xff\n')
    write(tmp_path, '/etc/dir/x', b'')
    unit(tmp_path, line + b'\nEnvironment=PYTHONHTTPSVERIFY=0')
    config, env = environment(tmp_path)
    assert not env.starts and why in env.errors[0]
    unit(tmp_path, line.replace(b'=/', b'=-/') + b'\nEnvironment=PYTHONHTTPSVERIFY=0')
    config, env = environment(tmp_path)
    assert env.starts and env.get(VAR)[0] == '0'


def test_a_file_over_4_mib_is_refused_by_systemd_247(tmp_path):
    write(tmp_path, '/etc/big', b'#' * (4 * 1024 * 1024) + b'\nPYTHONHTTPSVERIFY=0\n')
    unit(tmp_path, b'EnvironmentFile=/etc/big')
    config, env = environment(tmp_path)
    assert not env.starts and 'larger than 4 MiB' in env.errors[0]


def test_specifiers_in_environment(tmp_path):
    unit(tmp_path, b'Environment=PYTHONHTTPSVERIFY=%i', name='w@0.service')
    assert value(tmp_path, unit='w@0.service') == ('0', 'unit')
    unit(tmp_path, b'Environment=PYTHONHTTPSVERIFY=%H')
    assert value(tmp_path) == 'unknown'
    unit(tmp_path, b'Environment=PYTHONHTTPSVERIFY=%y OTHER=1')          # an unknown specifier: ignored
    assert value(tmp_path) == (None, None)


def test_invalid_assignments_and_bad_words(tmp_path):
    unit(tmp_path, b'Environment=PYTHONHTTPSVERIFY=0 "unbalanced\nEnvironment=1BAD=1')
    assert value(tmp_path) == ('0', 'unit')
    unit(tmp_path, b'Environment=X=\\q PYTHONHTTPSVERIFY=0')                 # the bad escape ends the line
    assert value(tmp_path) == (None, None)


def test_pam_may_set_it_from_etc_environment(tmp_path):
    unit(tmp_path, b'PAMName=login\nEnvironment=PYTHONHTTPSVERIFY=1')
    assert value(tmp_path, pam=True) == 'unknown'
    assert value(tmp_path, pam=False) == ('1', 'unit')


def test_exec_lines(tmp_path):
    write(tmp_path, LIB + '/app.service', b'[Service]\n'
          b'ExecStartPre=-/usr/bin/python2.7 /srv/pre ; /bin/true\n'
          b'ExecStart=/first\nExecStart=\n'
          b'ExecStart=@/usr/bin/python2.7 agent-name -u "two words" \\; x\n'
          b'ExecStart=:+!relative $ARG\n')
    config, env = environment(tmp_path)
    assert [(c.path, c.argv) for c in config.exec_start_pre] == [
        ('/usr/bin/python2.7', ['/usr/bin/python2.7', '/srv/pre']), ('/bin/true', ['/bin/true'])]
    assert [(c.path, c.argv, c.expand) for c in config.exec_start] == [
        ('/usr/bin/python2.7', ['agent-name', '-u', 'two words', ';', 'x'], True),
        ('relative', ['relative', '$ARG'], False)]


@pytest.mark.parametrize('line', [b'ExecStart=/a/', b'ExecStart=/bin/x "unbalanced', b'ExecStart=/x/%H',
                                  b'ExecStart=sub/dir'])
def test_exec_lines_systemd_refuses_stop_the_unit_loading(tmp_path, line):
    write(tmp_path, LIB + '/app.service', b'[Service]\n' + line + b'\n')
    config, env = environment(tmp_path)
    assert config.fatal and 'does not load the unit' in config.fatal
    write(tmp_path, LIB + '/app.service', b'[Service]\n' + line.replace(b'=', b'=-', 1) + b'\n')
    config, env = environment(tmp_path)
    assert config.fatal is None


def test_a_broken_fragment_is_fatal_a_broken_dropin_is_not(tmp_path):
    write(tmp_path, LIB + '/app.service', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=1\n[Broken\n')
    config, env = environment(tmp_path)
    assert config.fatal and 'section header' in config.fatal
    write(tmp_path, LIB + '/app.service', b'[Service]\nExecStart=/bin/true\n')
    write(tmp_path, ETC + '/app.service.d/x.conf', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n\xff\n'
                                                   b'Environment=PYTHONHTTPSVERIFY=1\n')
    config, env = environment(tmp_path)
    assert config.fatal is None and env.get(VAR)[0] == '0'
