# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The audit logic: parsers as pure functions, the unit-folder scan and service records
against a throw-away root, the summary and its findings."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import os
import subprocess
import time

import pytest
from hypothesis import given, settings, strategies as st

from ansible_collections.pep493.https.plugins.module_utils import audit, dropin, hostfiles, systemd
from ansible_collections.pep493.https.tests.unit.tree import write

TODAY = datetime.date(2026, 6, 1)

# Real `systemctl show --all -p ...` output (systemd 252) for a unit with odd quoting in its
# Environment= lines, two EnvironmentFile= lines and a drop-in, followed by an unrelated unit.
ODD_SHOW = (
    'MainPID=77\n'
    'ExecStart={ path=/bin/sleep ; argv[]=/bin/sleep 1000 ; ignore_errors=no ; start_time=[Thu 2026-12-03 07:35:47 UTC]'
    ' ; stop_time=[n/a] ; pid=77 ; code=(null) ; status=0/0 }\n'
    'Environment="A=with space" "B=single \\"q\\"" "C=back\\\\slash" "D=semi;colon" PYTHONHTTPSVERIFY=0 '
    '"E=\\$HOME" F=%percent "G=tab\\there" "H=new\\nline" EMPTY=\n'
    'EnvironmentFiles=/etc/default/odd (ignore_errors=yes)\n'
    'EnvironmentFiles=/etc/default/odd2 (ignore_errors=no)\n'
    'Id=odd.service\n'
    'LoadState=loaded\n'
    'ActiveState=active\n'
    'FragmentPath=/etc/systemd/system/odd.service\n'
    'DropInPaths=/etc/systemd/system/odd.service.d/50-x.conf\n'
    'NeedDaemonReload=no\n'
    '\n'
    'MainPID=0\n'
    'Environment=\n'
    'EnvironmentFiles=\n'
    'Id=console-getty.service\n'
    'LoadState=loaded\n'
    'ActiveState=inactive\n'
    'FragmentPath=/lib/systemd/system/console-getty.service\n'
    'DropInPaths=\n'
    'NeedDaemonReload=no\n'
)

ODD_UNIT = (
    b'[Service]\n'
    b'Environment="A=with space" \'B=single "q"\' C=back\\\\slash "D=semi;colon" PYTHONHTTPSVERIFY=1\n'
    b'Environment=E=$HOME F=%%percent "G=tab\\there" "H=new\\nline" EMPTY=\n'
    b'EnvironmentFile=-/etc/default/odd\n'
    b'EnvironmentFile=/etc/default/odd2\n'
    b'ExecStart=/bin/sleep 1000\n'
)
ODD_DROPIN = b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n'


def ours(verify=False, reason='vendor CA not yet trusted', expires='2026-12-31'):
    return dropin.render_dropin(verify, reason, dropin.validate_expires(expires) if expires else None)


def no_environ(pid):
    raise AssertionError('no process may be looked at here')


# --- /proc/<pid>/environ ---------------------------------------------------------------------

def test_environ_blob_parses_names_values_and_keeps_the_first_duplicate():
    blob = b'PATH=/usr/bin\0PYTHONHTTPSVERIFY=0\0EQ=a=b\0NL=two\nlines\0PYTHONHTTPSVERIFY=1\0'
    assert audit.parse_environ(blob) == {
        'PATH': '/usr/bin', 'PYTHONHTTPSVERIFY': '0', 'EQ': 'a=b', 'NL': 'two\nlines'}


def test_environ_blob_skips_entries_without_name_or_equals_and_survives_odd_bytes():
    blob = b'\0=nameless\0JUSTTEXT\0EMPTY=\0BIN=\xff\xfe\0'
    env = audit.parse_environ(blob)
    assert env == {'EMPTY': '', 'BIN': u'\ufffd\ufffd'}
    assert audit.parse_environ(b'') == {}


_NAMES = st.text(alphabet='ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789', min_size=1, max_size=12)
_VALUES = st.text(alphabet=st.characters(blacklist_characters='\0', blacklist_categories=('Cs',)), max_size=20)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(_NAMES, _VALUES, max_size=8))
def test_environ_blob_round_trips(env):
    blob = b''.join(k.encode('utf-8') + b'=' + v.encode('utf-8') + b'\0' for k, v in env.items())
    assert audit.parse_environ(blob) == env


def test_read_process_environ_of_a_real_process_and_of_a_gone_one():
    env = {'PATH': '/usr/bin:/bin', 'PYTHONHTTPSVERIFY': '0'}
    child = subprocess.Popen(['sleep', '30'], env=env)
    try:
        for _attempt in range(200):     # until the child has exec'd with its own environment
            found, error = audit.read_process_environ(child.pid)
            if found and 'PYTHONHTTPSVERIFY' in found:
                break
            time.sleep(0.01)
    finally:
        child.kill()
        child.wait()
    assert error is None and found['PYTHONHTTPSVERIFY'] == '0'
    found, error = audit.read_process_environ(child.pid)
    assert found is None and 'gone' in error


def test_read_process_environ_reports_unreadable(tmp_path):
    proc = tmp_path / 'proc'
    (proc / '42').mkdir(parents=True)
    (proc / '42' / 'environ').mkdir()          # reading a folder fails like any unreadable file
    found, error = audit.read_process_environ(42, proc=str(proc))
    assert found is None and 'cannot read' in error


# --- EnvironmentFile=, /etc/environment, profile.d, system.conf --------------------------------

def test_environment_file_as_systemd_reads_it():
    data = (b'# comment\n; also a comment\nFOO = "a b" \nexport PYTHONHTTPSVERIFY=1\n'
            b"QUOTED='x y'\nPYTHONHTTPSVERIFY=0\nCONT=one\\\ntwo\nbad name=1\n")
    parsed = audit.parse_environment_file(data)
    assert ('FOO' in [n for _l, n, _v in parsed]) and (3, 'FOO', 'a b') in parsed
    assert (5, 'QUOTED', 'x y') in parsed
    assert (6, 'PYTHONHTTPSVERIFY', '0') in parsed
    assert (7, 'CONT', 'onetwo') in parsed
    # systemd ignores "export NAME=..." and invalid names ("Ignoring invalid environment assignment").
    assert not [n for _l, n, _v in parsed if n.startswith('export') or ' ' in n]
    assert audit.environment_file_value(data) == ('0', 6)


def test_environment_file_last_assignment_wins():
    assert audit.environment_file_value(b'PYTHONHTTPSVERIFY=0\nPYTHONHTTPSVERIFY="1"\n') == ('1', 2)
    assert audit.environment_file_value(b'OTHER=0\n') == (None, None)


def test_etc_environment_allows_export_and_strips_quotes():
    data = b'PATH="/usr/bin"\n# PYTHONHTTPSVERIFY=0\nexport PYTHONHTTPSVERIFY="0"\nX\n'
    assert audit.parse_etc_environment(data) == [(1, 'PATH', '/usr/bin'), (3, 'PYTHONHTTPSVERIFY', '0')]


@pytest.mark.parametrize('line, expected', [
    (b'export PYTHONHTTPSVERIFY=0', [(1, 'set', '0')]),
    (b'PYTHONHTTPSVERIFY="0"; export PYTHONHTTPSVERIFY', [(1, 'set', '0')]),
    (b"  declare -x PYTHONHTTPSVERIFY='1'", [(1, 'set', '1')]),
    (b'setenv PYTHONHTTPSVERIFY 0', [(1, 'set', '0')]),
    (b'unset PYTHONHTTPSVERIFY', [(1, 'unset', None)]),
    (b'export PYTHONHTTPSVERIFY', [(1, 'mention', None)]),
    (b'PYTHONHTTPSVERIFY=${LEGACY:-0}', [(1, 'set', '${LEGACY:-0}')]),
    (b'# export PYTHONHTTPSVERIFY=0', []),
    (b'export NOT_PYTHONHTTPSVERIFY=0', [(1, 'mention', None)]),
])
def test_shell_snippets(line, expected):
    assert audit.parse_shell_settings(line + b'\n') == expected


def test_system_conf_default_environment():
    data = (b'[Manager]\n#DefaultEnvironment=PYTHONHTTPSVERIFY=1\nDefaultEnvironment="A=b c" PYTHONHTTPSVERIFY=0\n'
            b'DefaultEnvironment=\n[Other]\nDefaultEnvironment=PYTHONHTTPSVERIFY=1\n')
    assert audit.system_conf_settings(data) == [('set', '0'), ('reset', None)]


def test_disables_only_the_exact_string_zero():
    assert audit.disables('0')
    for value in ('1', '', 'false', 'no', ' 0', '00', 'disable', None):
        assert not audit.disables(value)


# --- systemctl show and unit files ----------------------------------------------------------

def test_show_environment_files_from_parse_show():
    block = systemd.parse_show(ODD_SHOW)[0]
    assert audit.show_environment_files(block['EnvironmentFiles']) == [
        ('/etc/default/odd', True), ('/etc/default/odd2', False)]
    assert audit.show_environment_files('') == []


def test_unit_configuration_applies_dropins_in_order_and_resets():
    unit = (b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=1 X=2\nEnvironmentFile=-/etc/default/a\n'
            b'ExecStart=/usr/bin/python2.7 /opt/app.py\n')
    first = b'[Service]\nEnvironment=\nEnvironment="PYTHONHTTPSVERIFY=0"\n'
    second = b'[Service]\nEnvironmentFile=\nEnvironmentFile=/etc/default/b\nExecStart=\nExecStart=/usr/bin/python3 x\n'
    state = audit.unit_configuration([('/u', 'unit', unit), ('/d1', 'dropin', first), ('/d2', 'dropin', second)])
    assert (state['value'], state['source'], state['source_kind']) == ('0', '/d1', 'dropin')
    assert state['environment_files'] == [('/etc/default/b', False)]
    assert state['exec_argv'] == ['/usr/bin/python3', 'x']
    reset = audit.unit_configuration([('/u', 'unit', unit), ('/d', 'dropin', b'[Service]\nEnvironment=\n')])
    assert reset['value'] is None and reset['environment_files'] == [('/etc/default/a', True)]
    assert reset['exec_argv'] == ['/usr/bin/python2.7', '/opt/app.py']


def test_unit_configuration_reads_odd_quoting_and_other_sections():
    state = audit.unit_configuration([('/u', 'unit', ODD_UNIT)])
    assert state['value'] == '1'
    other = audit.unit_configuration([('/u', 'unit', b'[Unit]\nEnvironment=PYTHONHTTPSVERIFY=0\n')])
    assert other['value'] is None


def test_dropin_folders_that_apply_to_a_unit():
    assert audit.dropin_dir_names('a-b-c@x.service') == [
        'a-b-c@x.service.d', 'a-b-c@.service.d', 'a-b-.service.d', 'a-.service.d', 'service.d']
    assert audit.dropin_dir_names('plain.service') == ['plain.service.d', 'service.d']


def test_show_arguments_never_name_a_template_or_an_invalid_unit(tmp_path):
    write(tmp_path, '/etc/systemd/system/app.service', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n')
    write(tmp_path, '/etc/systemd/system/quiet.service', b'[Service]\nExecStart=/bin/true\n')
    write(tmp_path, '/etc/systemd/system/w@.service.d/zz-pep493-https.conf', ours())
    write(tmp_path, '/etc/systemd/system/bad name.service.d/x.conf', ODD_DROPIN)
    inventory = audit.scan_unit_files(audit.HostFiles(str(tmp_path)))
    assert audit.show_arguments(inventory) == ['app.service', 'w@*.service']
    assert audit.show_arguments(inventory, ['w@.service', 'x.service']) == ['w@*.service', 'x.service']
    assert audit.show_arguments(inventory, nominated=['ran.service', 'app.service']) == [
        'app.service', 'w@*.service', 'ran.service']
    write(tmp_path, '/etc/systemd/system/app-.service.d/x.conf', ODD_DROPIN)
    write(tmp_path, '/etc/systemd/system/service.d/y.conf', b'[Service]\nEnvironmentFile=-/etc/default/all\n')
    inventory = audit.scan_unit_files(audit.HostFiles(str(tmp_path)))
    # A top-level service.d drop-in applies to every service: all of them may matter now.
    assert audit.show_arguments(inventory) == [
        'app.service', 'quiet.service', 'w@*.service', 'app-*.service', '*.service']


def test_units_of_processes_from_environ_and_cgroup(tmp_path):
    proc = tmp_path / 'proc'
    table = {
        '10': (b'PATH=/bin\0PYTHONHTTPSVERIFY=0\0', b'0::/system.slice/legacy.service\n'),
        '11': (b'PYTHONHTTPSVERIFY=0\0', b'12:pids:/x\n1:name=systemd:/system.slice/w@2.service\n'),
        '12': (b'PYTHONHTTPSVERIFY=1\0', b'0::/system.slice/manager-default.service\n'),
        '13': (b'PATH=/bin\0', b'0::/system.slice/clean.service\n'),
        '14': (b'PYTHONHTTPSVERIFY=0\0', b'0::/user.slice/user-0.slice/user@0.service/app.slice/mine.service\n'),
        '15': (b'PYTHONHTTPSVERIFY=0\0', b'0::/user.slice/user-0.slice/session-1.scope\n'),
    }
    for pid, (environ, cgroup) in table.items():
        (proc / pid).mkdir(parents=True)
        (proc / pid / 'environ').write_bytes(environ)
        (proc / pid / 'cgroup').write_bytes(cgroup)
    (proc / 'self').mkdir()
    assert audit.units_of_processes('1', proc=str(proc)) == ['legacy.service', 'w@2.service']
    assert audit.units_of_processes(None, proc=str(proc)) == [
        'legacy.service', 'manager-default.service', 'w@2.service']
    assert audit.units_of_processes(None, proc=str(tmp_path / 'none')) == []


# --- the unit-folder scan and service records against a root ------------------------------------

def test_scan_reads_priority_masks_and_template_dropins(tmp_path):
    write(tmp_path, '/usr/lib/systemd/system/app.service', b'[Service]\nExecStart=/usr/bin/python2.7 /app\n')
    write(tmp_path, '/usr/lib/systemd/system/app.service.d/50-vendor.conf', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=1\n')
    write(tmp_path, '/etc/systemd/system/app.service.d/50-vendor.conf', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n')
    write(tmp_path, '/etc/systemd/system/worker@.service.d/zz-pep493-https.conf', ours())
    write(tmp_path, '/usr/lib/systemd/system/worker@.service', b'[Service]\nExecStart=/usr/bin/python3 /w %i\n')
    write(tmp_path, '/usr/lib/systemd/system/gone.service', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n')
    os.symlink('/dev/null', os.path.join(str(tmp_path), 'etc/systemd/system/gone.service'))
    files = audit.HostFiles(str(tmp_path))
    inventory = audit.scan_unit_files(files)
    assert inventory.dropins_of('app.service') == ['/etc/systemd/system/app.service.d/50-vendor.conf']
    assert inventory.dropins_of('worker@3.service') == ['/etc/systemd/system/worker@.service.d/zz-pep493-https.conf']
    assert 'gone.service' in inventory.masked and 'gone.service' not in inventory.units()
    records = audit.scan_services(inventory, files, today=TODAY)
    assert [r['unit'] for r in records] == ['app.service', 'worker@.service']
    app, worker = records
    assert (app['value'], app['source_kind'], app['managed']) == ('0', 'dropin', False)
    assert app['python3'] is False and app['effective'] is True
    assert worker['managed'] and worker['value'] == '0' and worker['effective'] is False
    assert worker['reason'] == 'vendor CA not yet trusted' and worker['expires'] == '2026-12-31'


def test_dangling_dropin_folder_is_reported_not_raised(tmp_path):
    write(tmp_path, '/etc/systemd/system/app.service', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n')
    os.symlink('/nowhere/app.d', os.path.join(str(tmp_path), 'etc/systemd/system/app.service.d'))
    files = audit.HostFiles(str(tmp_path))
    inventory = audit.scan_unit_files(files)
    assert inventory.errors == [
        '/etc/systemd/system/app.service.d is a symbolic link to /nowhere/app.d, which does not exist']
    records = audit.scan_services(inventory, files, today=TODAY)
    assert [r['unit'] for r in records] == ['app.service'] and records[0]['value'] == '0'


@pytest.mark.parametrize('target', ['{outside}', '../../../../../../../../{outside}'])
def test_symlinks_under_root_never_lead_outside_it(tmp_path, target):
    outside = tmp_path / 'outside'
    outside.mkdir()
    (outside / 'environment').write_bytes(b'PYTHONHTTPSVERIFY=0\n')
    root = tmp_path / 'root'
    (root / 'etc').mkdir(parents=True)
    os.symlink(target.format(outside=str(outside / 'environment')), str(root / 'etc' / 'environment'))
    settings_found, errors = audit.scan_global(audit.HostFiles(str(root)))
    assert settings_found == []
    assert len(errors) == 1 and errors[0].startswith('/etc/environment is a symbolic link to ')
    # an absolute target is looked for inside root; ".." may not climb above it
    assert ('which does not exist' if target.startswith('{') else ', outside root ') in errors[0]


def test_absolute_symlinks_resolve_inside_root(tmp_path):
    write(tmp_path, '/lib/systemd/system/real.service', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n')
    os.makedirs(os.path.join(str(tmp_path), 'etc/systemd/system'))
    os.symlink('/lib/systemd/system/real.service', os.path.join(str(tmp_path), 'etc/systemd/system/alias.service'))
    files = audit.HostFiles(str(tmp_path))
    assert files.read('/etc/systemd/system/alias.service').endswith(b'PYTHONHTTPSVERIFY=0\n')
    assert files.resolve('/etc/systemd/system/alias.service').real == os.path.join(
        os.path.realpath(str(tmp_path)), 'lib/systemd/system/real.service')


def test_managed_expired_and_overridden(tmp_path):
    base = '/etc/systemd/system/legacy.service'
    write(tmp_path, base, b'[Service]\nExecStart=/usr/bin/python2.7 /opt/legacy\n')
    write(tmp_path, base + '.d/zz-pep493-https.conf', ours(expires='2026-05-31'))
    files = audit.HostFiles(str(tmp_path))
    record = audit.scan_services(audit.scan_unit_files(files), files, today=TODAY)[0]
    assert record['managed'] and record['expired'] and not record['overridden']
    assert record['source'] == base + '.d/zz-pep493-https.conf'
    same_day = audit.scan_services(audit.scan_unit_files(files), files, today=datetime.date(2026, 5, 31))[0]
    assert not same_day['expired']
    write(tmp_path, base + '.d/zzz-local.conf', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=1\n')
    record = audit.scan_services(audit.scan_unit_files(files), files, today=TODAY)[0]
    assert record['overridden'] and record['value'] == '1' and record['managed_value'] == '0'
    assert record['source'] == base + '.d/zzz-local.conf'


def test_environment_file_overrides_environment_and_missing_one_is_reported(tmp_path):
    write(tmp_path, '/etc/systemd/system/a.service',
          b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=1\nEnvironmentFile=/etc/default/a\nEnvironmentFile=/etc/default/none\n')
    write(tmp_path, '/etc/default/a', b'PYTHONHTTPSVERIFY=0\n')
    files = audit.HostFiles(str(tmp_path))
    record = audit.scan_services(audit.scan_unit_files(files), files, today=TODAY)[0]
    assert (record['value'], record['source'], record['source_kind']) == ('0', '/etc/default/a', 'environment_file')
    assert record['mentioned_in'] == ['/etc/default/a', '/etc/systemd/system/a.service']
    assert len(record['errors']) == 1 and '/etc/default/none' in record['errors'][0]


def show_root(tmp_path):
    write(tmp_path, '/etc/systemd/system/odd.service', ODD_UNIT)
    write(tmp_path, '/etc/systemd/system/odd.service.d/50-x.conf', ODD_DROPIN)
    write(tmp_path, '/etc/default/odd2', b'PYTHONHTTPSVERIFY=0\n')
    return audit.HostFiles(str(tmp_path))


def test_service_from_systemctl_show_with_odd_quoting(tmp_path):
    files = show_root(tmp_path)
    blocks = systemd.parse_show(ODD_SHOW)
    records = audit.scan_services(audit.scan_unit_files(files), files, blocks,
                                  environ_reader=lambda pid: ({'PYTHONHTTPSVERIFY': '0'}, None), today=TODAY)
    assert [r['unit'] for r in records] == ['odd.service']
    odd = records[0]
    assert odd['value'] == '0' and odd['verify'] is False
    assert (odd['source'], odd['source_kind']) == ('/etc/default/odd2', 'environment_file')
    assert (odd['load_state'], odd['active_state'], odd['main_pid']) == ('loaded', 'active', 77)
    assert odd['running_value'] == '0' and odd['pending_restart'] is False
    assert odd['needs_daemon_reload'] is False and odd['executable'] == '/bin/sleep'


def test_pending_restart_when_the_process_predates_the_setting(tmp_path):
    files = show_root(tmp_path)
    blocks = systemd.parse_show(ODD_SHOW)
    record = audit.scan_services(audit.scan_unit_files(files), files, blocks,
                                 environ_reader=lambda pid: ({'PATH': '/bin'}, None), today=TODAY)[0]
    assert record['running_value'] is None and record['pending_restart'] is True
    record = audit.scan_services(audit.scan_unit_files(files), files, blocks,
                                 environ_reader=lambda pid: (None, 'cannot read /proc/77/environ: permission denied'),
                                 today=TODAY)[0]
    assert record['pending_restart'] is None and 'permission denied' in record['running_value_error']


def test_systemd_value_wins_and_source_comes_from_the_files(tmp_path):
    write(tmp_path, '/etc/systemd/system/app.service', b'[Service]\nExecStart=/usr/bin/python2.7 /app\n')
    dropin_path = '/etc/systemd/system/app.service.d/zz-pep493-https.conf'
    write(tmp_path, dropin_path, ours())
    show = ('Id=app.service\nLoadState=loaded\nActiveState=active\nMainPID=0\nEnvironment=PYTHONHTTPSVERIFY=0\n'
            'EnvironmentFiles=\nFragmentPath=/etc/systemd/system/app.service\nDropInPaths=%s\n'
            'ExecStart={ path=/usr/bin/python2.7 ; argv[]=/usr/bin/python2.7 /app ; ignore_errors=no ; '
            'start_time=[n/a] ; stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }\nNeedDaemonReload=yes\n'
            % dropin_path)
    files = audit.HostFiles(str(tmp_path))
    record = audit.scan_services(audit.scan_unit_files(files), files, systemd.parse_show(show),
                                 environ_reader=no_environ, today=TODAY)[0]
    assert record['managed'] and record['source'] == dropin_path and record['source_kind'] == 'dropin'
    assert record['needs_daemon_reload'] is True and record['main_pid'] is None
    assert record['python3'] is False and record['effective'] is True


def test_manager_environment_is_the_fallback(tmp_path):
    write(tmp_path, '/etc/systemd/system/app.service', b'[Service]\nEnvironment=\nEnvironmentFile=-/etc/default/app\n')
    write(tmp_path, '/etc/default/app', b'# PYTHONHTTPSVERIFY is not set here\n')
    files = audit.HostFiles(str(tmp_path))
    record = audit.scan_services(audit.scan_unit_files(files), files, manager_env={'PYTHONHTTPSVERIFY': '0'},
                                 today=TODAY)[0]
    assert (record['value'], record['source'], record['source_kind']) == ('0', None, 'manager')


def test_unrelated_units_cost_no_file_reads(tmp_path):
    """The scan reads each file once; 300 loaded units that do not matter add no read."""
    files = show_root(tmp_path)

    class Counting(audit.HostFiles):
        reads = 0

        def read(self, path, limit=hostfiles.MAX_FILE_SIZE):
            Counting.reads += 1
            return audit.HostFiles.read(self, path, limit)

    def reads_for(units):
        counting = Counting(str(tmp_path))
        inventory = audit.scan_unit_files(counting)
        Counting.reads = 0
        filler = ''.join('\nId=filler%d.service\nLoadState=loaded\nActiveState=active\nEnvironment=\n'
                         'EnvironmentFiles=\nFragmentPath=/lib/systemd/system/filler%d.service\nDropInPaths=\n'
                         'MainPID=%d\n' % (n, n, 100 + n) for n in range(units))
        records = audit.scan_services(inventory, counting, systemd.parse_show(ODD_SHOW + filler),
                                      environ_reader=lambda pid: ({}, None), today=TODAY)
        assert [r['unit'] for r in records] == ['odd.service']
        return Counting.reads

    assert reads_for(10) == reads_for(300)


# --- config -------------------------------------------------------------------------------

def test_config_report_missing_malformed_duplicates_rpmnew_unreadable(tmp_path):
    files = audit.HostFiles(str(tmp_path))
    missing = audit.read_config(files, '/etc/python/cert-verification.cfg')
    assert (missing['exists'], missing['verify'], missing['mode']) == (False, 'missing', None)
    write(tmp_path, '/etc/python/cert-verification.cfg', b'verify=disable\n[https]\nverify=enable\njunk\n', 0o640)
    write(tmp_path, '/etc/python/cert-verification.cfg.rpmnew', b'[https]\nverify=platform_default\n')
    bad = audit.read_config(files, '/etc/python/cert-verification.cfg')
    assert bad['verify'] == 'malformed' and not bad['valid'] and bad['mode'] == '0640'
    assert [(e['line'], e['kind']) for e in bad['errors']] == [(1, 'missing_section_header'), (4, 'parsing_error')]
    assert bad['rpmnew'] == '/etc/python/cert-verification.cfg.rpmnew'
    write(tmp_path, '/etc/python/cert-verification.cfg', b'[https]\nverify=disable\n[https]\nverify = enable ; x\n')
    dup = audit.read_config(files, '/etc/python/cert-verification.cfg')
    assert (dup['verify'], dup['duplicates'], dup['https_sections']) == ('enable', True, 2)
    os.remove(os.path.join(str(tmp_path), 'etc/python/cert-verification.cfg'))
    os.mkdir(os.path.join(str(tmp_path), 'etc/python/cert-verification.cfg'))
    unreadable = audit.read_config(files, '/etc/python/cert-verification.cfg')
    assert unreadable['verify'] == 'platform_default' and unreadable['error']


# --- summary ----------------------------------------------------------------------------------

PY2 = {'path': '/usr/bin/python2.7', 'version': '2.7.5', 'honours_env': True,
       'reads_config': '/etc/python/cert-verification.cfg', 'verifies_by_default': True, 'error': None}
PY3 = {'path': '/usr/bin/python3', 'version': '3.6.8', 'honours_env': False, 'reads_config': None,
       'verifies_by_default': True, 'error': None}
OPT_OUT = audit._setting(audit.GLOBAL_ETC_ENVIRONMENT, '/etc/environment', 3, 'set', '0')


@pytest.mark.parametrize('interpreters, global_settings, probed, expected', [
    ([PY2, PY3], [], True, True),
    ([PY2, PY3], [OPT_OUT], True, False),
    ([dict(PY2, verifies_by_default=False), PY3], [], True, False),
    ([dict(PY2, verifies_by_default=None, error='no answer within 5.0 seconds')], [], True, None),
    ([PY3], [OPT_OUT], True, None),
    ([], [], False, None),
    ([dict(PY2, honours_env=False, reads_config=None, version='2.7.9')], [OPT_OUT], True, True),
])
def test_host_default(interpreters, global_settings, probed, expected):
    assert audit.host_default(interpreters, global_settings, probed) is expected


def record(**overrides):
    base = {'unit': 'legacy.service', 'value': '0', 'source': '/etc/systemd/system/legacy.service.d/zz.conf',
            'source_kind': 'dropin', 'managed': True, 'overridden': False, 'expired': False,
            'expires': '2026-12-31', 'dropin': '/etc/systemd/system/legacy.service.d/zz.conf',
            'pending_restart': False, 'needs_daemon_reload': False, 'effective': True, 'executable': '/usr/bin/python2.7',
            'main_pid': None, 'running_value': None, 'errors': []}
    base.update(overrides)
    return base


def test_summary_counts_and_findings(tmp_path):
    config = audit.config_report('/etc/python/cert-verification.cfg', b'[https]\nverify=disable\n',
                                 readers=['/usr/bin/python2.7'])
    services = [
        record(),
        record(unit='old.service', expired=True, expires='2026-01-31'),
        record(unit='restart.service', pending_restart=True, main_pid=12, running_value=None),
        record(unit='py3.service', effective=False, executable='/usr/bin/python3'),
        record(unit='foreign.service', managed=False, dropin=None, source='/etc/default/foreign',
               source_kind='environment_file'),
        record(unit='odd.service', value='false', managed=False, dropin=None),
        record(unit='global.service', source_kind='manager', managed=False, dropin=None, source=None),
    ]
    summary = audit.summarize(config, [PY2, PY3], services, [OPT_OUT], True, ['cannot list /etc/profile.d: denied'])
    assert summary['host_default'] is False and summary['python2_interpreters'] == 1
    assert (summary['exceptions'], summary['opt_outs'], summary['managed']) == (6, 5, 4)
    assert (summary['expired'], summary['pending_restart'], summary['ineffective']) == (1, 1, 1)
    assert (summary['unmanaged'], summary['global_opt_outs']) == (2, 1)
    text = '\n'.join(summary['findings'])
    assert 'verify=disable' in text
    assert 'old.service: the exception expired on 2026-01-31' in text
    assert 'restart.service: the running process (PID 12) has PYTHONHTTPSVERIFY=unset' in text
    assert 'py3.service runs Python 3 (/usr/bin/python3)' in text
    assert 'foreign.service: verification is off (PYTHONHTTPSVERIFY=0 from /etc/default/foreign)' in text
    assert "odd.service: PYTHONHTTPSVERIFY='false' leaves verification on" in text
    assert '/etc/environment line 3 sets PYTHONHTTPSVERIFY=0 for every login session' in text
    assert 'Incomplete: cannot list /etc/profile.d: denied.' in text
    units = [finding.split(':')[0].split(' ')[0] for finding in summary['findings']]
    assert 'legacy.service' not in units and 'global.service' not in units


def test_clean_host_has_no_findings():
    config = audit.config_report('/etc/python/cert-verification.cfg', b'[https]\nverify=enable\n',
                                 readers=['/usr/bin/python2.7'])
    summary = audit.summarize(config, [PY2, PY3], [record()], [], True)
    assert summary['findings'] == [] and summary['host_default'] is True


def test_global_scan_of_files(tmp_path):
    write(tmp_path, '/etc/environment', b'LANG=C\nPYTHONHTTPSVERIFY=0\n')
    write(tmp_path, '/etc/profile.d/legacy.sh', b'# legacy tools\nexport PYTHONHTTPSVERIFY=0\n')
    write(tmp_path, '/etc/profile.d/other.sh', b'export EDITOR=vi\n')
    os.makedirs(os.path.join(str(tmp_path), 'etc/profile.d/subdir'))
    write(tmp_path, '/etc/systemd/system.conf', b'[Manager]\n#DefaultEnvironment=\n')
    write(tmp_path, '/usr/lib/systemd/system.conf.d/10-vendor.conf', b'[Manager]\nDefaultEnvironment=PYTHONHTTPSVERIFY=1\n')
    write(tmp_path, '/etc/systemd/system.conf.d/20-local.conf', b'[Manager]\nDefaultEnvironment=PYTHONHTTPSVERIFY=0\n')
    found, errors = audit.scan_global(audit.HostFiles(str(tmp_path)))
    assert errors == []
    assert [(s['source'], s['path'], s['line'], s['value'], s['disables']) for s in found] == [
        ('etc_environment', '/etc/environment', 2, '0', True),
        ('profile_d', '/etc/profile.d/legacy.sh', 2, '0', True),
        ('system_conf', '/usr/lib/systemd/system.conf.d/10-vendor.conf', None, '1', False),
        ('system_conf', '/etc/systemd/system.conf.d/20-local.conf', None, '0', True),
    ]
    assert audit.manager_settings({'PYTHONHTTPSVERIFY': '0'})[0]['disables'] is True
    assert audit.manager_settings({}) == [] and audit.manager_settings(None) == []


def test_environ_reader_is_not_used_under_files_only(tmp_path):
    files = show_root(tmp_path)
    records = audit.scan_services(audit.scan_unit_files(files), files, None, None, None, TODAY)
    assert records[0]['main_pid'] is None and records[0]['pending_restart'] is False


def test_removed_setting_still_in_the_running_process_is_reported(tmp_path):
    files = audit.HostFiles(str(tmp_path))
    show = ('Id=legacy.service\nLoadState=loaded\nActiveState=active\nMainPID=31\nEnvironment=\nEnvironmentFiles=\n'
            'FragmentPath=/lib/systemd/system/legacy.service\nDropInPaths=\nNeedDaemonReload=no\n\n'
            'Id=clean.service\nLoadState=loaded\nActiveState=active\nMainPID=32\nEnvironment=\nEnvironmentFiles=\n'
            'FragmentPath=/lib/systemd/system/clean.service\nDropInPaths=\nNeedDaemonReload=no\n')
    environ = {31: {'PYTHONHTTPSVERIFY': '0'}, 32: {'PATH': '/bin'}}
    read = []

    def reader(pid):
        read.append(pid)
        return environ[pid], None

    records = audit.scan_services(audit.scan_unit_files(files), files, systemd.parse_show(show),
                                  environ_reader=reader, today=TODAY)
    assert [r['unit'] for r in records] == ['legacy.service']
    assert records[0]['value'] is None and records[0]['running_value'] == '0'
    assert records[0]['pending_restart'] is True and records[0]['mentioned_in'] == []
    assert sorted(read) == [31, 32], 'each process environment is read once'
    # When the manager's environment gives every service the same value, nothing is pending.
    environ[32] = {'PYTHONHTTPSVERIFY': '0'}
    assert audit.scan_services(audit.scan_unit_files(files), files, systemd.parse_show(show),
                               manager_env={'PYTHONHTTPSVERIFY': '0'}, environ_reader=reader, today=TODAY) == []


def test_a_template_is_reported_through_its_loaded_instances(tmp_path):
    write(tmp_path, '/lib/systemd/system/w@.service', b'[Service]\nExecStart=/usr/bin/python2.7 /w\n')
    conf = '/etc/systemd/system/w@.service.d/zz-pep493-https.conf'
    write(tmp_path, conf, ours())
    files = audit.HostFiles(str(tmp_path))
    show = ('Id=w@1.service\nLoadState=loaded\nActiveState=inactive\nMainPID=0\nEnvironment=PYTHONHTTPSVERIFY=0\n'
            'EnvironmentFiles=\nFragmentPath=/lib/systemd/system/w@.service\nDropInPaths=%s\nNeedDaemonReload=no\n' % conf)
    records = audit.scan_services(audit.scan_unit_files(files), files, systemd.parse_show(show),
                                  environ_reader=no_environ, today=TODAY)
    assert [(r['unit'], r['managed'], r['source']) for r in records] == [('w@1.service', True, conf)]
    alone = audit.scan_services(audit.scan_unit_files(files), files, [], environ_reader=no_environ, today=TODAY)
    assert [r['unit'] for r in alone] == ['w@.service']


def test_config_owner_and_group_come_from_the_tree_under_root(tmp_path):
    write(tmp_path, '/etc/passwd', b'root:x:0:0:root:/root:/bin/sh\n')
    write(tmp_path, '/etc/group', b'root:x:0:\n')
    write(tmp_path, '/etc/python/cert-verification.cfg', b'[https]\nverify=enable\n', 0o600)
    report = audit.read_config(audit.HostFiles(str(tmp_path)), '/etc/python/cert-verification.cfg')
    assert (report['owner'], report['group'], report['mode'], report['verify']) == ('root', 'root', '0600', 'enable')
    os.remove(os.path.join(str(tmp_path), 'etc/passwd'))
    report = audit.read_config(audit.HostFiles(str(tmp_path)), '/etc/python/cert-verification.cfg')
    assert report['owner'] == str(os.getuid())


def test_a_fifo_where_a_file_should_be_is_reported_not_waited_on(tmp_path):
    os.makedirs(os.path.join(str(tmp_path), 'etc/systemd/system'))
    os.mkfifo(os.path.join(str(tmp_path), 'etc/systemd/system/pipe.service'))
    os.mkfifo(os.path.join(str(tmp_path), 'etc/environment'))
    files = audit.HostFiles(str(tmp_path))
    inventory = audit.scan_unit_files(files)
    assert inventory.errors == ['/etc/systemd/system/pipe.service is not a regular file (a FIFO); remove it or point '
                                'the module elsewhere']
    assert audit.scan_global(files)[1] == [
        '/etc/environment is not a regular file (a FIFO); remove it or point the module elsewhere']


def test_a_dropin_masked_with_dev_null_reads_as_empty(tmp_path):
    write(tmp_path, '/usr/lib/systemd/system/app.service.d/50-vendor.conf', ODD_DROPIN)
    os.makedirs(os.path.join(str(tmp_path), 'etc/systemd/system/app.service.d'))
    os.symlink('/dev/null', os.path.join(str(tmp_path), 'etc/systemd/system/app.service.d/50-vendor.conf'))
    files = audit.HostFiles(str(tmp_path))
    inventory = audit.scan_unit_files(files)
    assert inventory.errors == []
    assert inventory.dropins_of('app.service') == ['/etc/systemd/system/app.service.d/50-vendor.conf']
    assert audit.scan_services(inventory, files, today=TODAY) == []
    assert audit.HostFiles().read('/dev/null') == b''


def test_malformed_config_finding_says_when_nobody_here_reads_it():
    data = b'verify=disable\n[https]\n'
    unread = audit.summarize(audit.config_report('/c.cfg', data, readers=[]), [PY3], [], [], True)['findings']
    read = audit.summarize(audit.config_report('/c.cfg', data, readers=['/usr/bin/python2.7']), [PY2], [], [],
                           True)['findings']
    assert len(unread) == 1 and 'is malformed (line 1)' in unread[0] and 'no interpreter on this host' in unread[0]
    assert len(read) == 1 and 'no interpreter on this host' not in read[0]
