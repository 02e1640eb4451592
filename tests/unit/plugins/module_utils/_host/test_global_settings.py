# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Host-wide settings: the cfg report and every host-wide place that sets the variable."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._host import global_settings as hostwide
from ansible_collections.pep493.https.tests.unit.tree import write

CFG = '/etc/python/cert-verification.cfg'


def snapshot_of(root):
    """A HostFiles of ``root`` as it is now (resolutions are kept for the object's life)."""
    return hostfiles.HostFiles(str(root))


def test_config_report_missing_malformed_duplicates_rpmnew_unreadable(tmp_path):
    missing = hostwide.read_config(snapshot_of(tmp_path), CFG)
    assert (missing['exists'], missing['verify'], missing['mode']) == (False, 'missing', None)
    write(tmp_path, CFG, b'verify=disable\n[https]\nverify=enable\njunk\n', 0o640)
    write(tmp_path, CFG + '.rpmnew', b'[https]\nverify=platform_default\n')
    bad = hostwide.read_config(snapshot_of(tmp_path), CFG)
    assert bad['verify'] == 'malformed' and not bad['valid'] and bad['mode'] == '0640'
    assert [(e['line'], e['kind']) for e in bad['errors']] == [(1, 'missing_section_header'), (4, 'parsing_error')]
    assert bad['rpmnew'] == CFG + '.rpmnew'
    write(tmp_path, CFG, b'[https]\nverify=disable\n[https]\nverify = enable ; x\n')
    dup = hostwide.read_config(snapshot_of(tmp_path), CFG)
    assert (dup['verify'], dup['duplicates'], dup['https_sections']) == ('enable', True, 2)
    os.remove(os.path.join(str(tmp_path), CFG.lstrip('/')))
    os.mkdir(os.path.join(str(tmp_path), CFG.lstrip('/')))
    unreadable = hostwide.read_config(snapshot_of(tmp_path), CFG)
    assert unreadable['verify'] == 'platform_default' and 'is a directory' in unreadable['error']


def test_planned_config_keeps_the_owner_and_a_new_file_is_roots(tmp_path):
    planned = hostwide.read_config(snapshot_of(tmp_path), CFG, (b'[https]\nverify=enable\n', '0644'))
    assert (planned['exists'], planned['verify'], planned['owner'], planned['mode']) == (True, 'enable', 'root', '0644')
    write(tmp_path, CFG, b'[https]\nverify=disable\n', 0o600)
    planned = hostwide.read_config(snapshot_of(tmp_path), CFG, (b'[https]\nverify=enable\n', '0644'))
    assert (planned['verify'], planned['mode']) == ('enable', '0600')


def test_config_owner_and_group_come_from_the_tree_under_root(tmp_path):
    write(tmp_path, '/etc/passwd', b'root:x:0:0:root:/root:/bin/sh\n')
    write(tmp_path, '/etc/group', b'root:x:0:\n')
    write(tmp_path, CFG, b'[https]\nverify=enable\n', 0o600)
    report = hostwide.read_config(hostfiles.HostFiles(str(tmp_path)), CFG)
    assert (report['owner'], report['group'], report['mode'], report['verify']) == ('root', 'root', '0600', 'enable')
    os.remove(os.path.join(str(tmp_path), 'etc/passwd'))
    report = hostwide.read_config(hostfiles.HostFiles(str(tmp_path)), CFG)
    assert report['owner'] == str(os.getuid())


def test_global_scan_of_files_with_line_numbers(tmp_path):
    write(tmp_path, '/etc/environment', b'LANG=C\nPYTHONHTTPSVERIFY=0\n')
    write(tmp_path, '/etc/profile.d/legacy.sh', b'# legacy tools\nexport PYTHONHTTPSVERIFY=0\n')
    write(tmp_path, '/etc/profile.d/other.sh', b'export EDITOR=vi\n')
    os.makedirs(os.path.join(str(tmp_path), 'etc/profile.d/subdir'))
    write(tmp_path, '/etc/systemd/system.conf', b'[Manager]\n#DefaultEnvironment=\n')
    write(tmp_path, '/usr/lib/systemd/system.conf.d/10-vendor.conf',
          b'[Manager]\nDefaultEnvironment=PYTHONHTTPSVERIFY=1\n')
    write(tmp_path, '/etc/systemd/system.conf.d/20-local.conf',
          b'[Manager]\n# note\nDefaultEnvironment="PYTHONHTTPSVERIFY=0"\nDefaultEnvironment=\n')
    found, errors = hostwide.scan_global(hostfiles.HostFiles(str(tmp_path)))
    assert errors == []
    assert [(s['source'], s['path'], s['line'], s['action'], s['value'], s['disables']) for s in found] == [
        ('etc_environment', '/etc/environment', 2, 'set', '0', True),
        ('profile_d', '/etc/profile.d/legacy.sh', 2, 'set', '0', True),
        ('system_conf', '/usr/lib/systemd/system.conf.d/10-vendor.conf', 2, 'set', '1', False),
        ('system_conf', '/etc/systemd/system.conf.d/20-local.conf', 3, 'set', '0', True),
        ('system_conf', '/etc/systemd/system.conf.d/20-local.conf', 4, 'reset', None, False),
    ]
    assert hostwide.manager_settings({'PYTHONHTTPSVERIFY': '0'})[0]['disables'] is True
    assert hostwide.manager_settings({}) == [] and hostwide.manager_settings(None) == []


def test_default_environment_as_the_manager_reads_it(tmp_path):
    write(tmp_path, '/etc/systemd/system.conf', b'[Manager]\nDefaultEnvironment=A=1 PYTHONHTTPSVERIFY=0\n')
    write(tmp_path, '/etc/systemd/system.conf.d/10.conf', b'[Manager]\nDefaultEnvironment=B=2\n')
    files = hostfiles.HostFiles(str(tmp_path))
    environment = hostwide.default_environment(files)
    assert environment['PYTHONHTTPSVERIFY'] == '0' and environment['B'] == '2' and 'PATH' in environment
    write(tmp_path, '/etc/systemd/system.conf.d/20.conf', b'[Manager]\nDefaultEnvironment=\n')
    assert sorted(hostwide.default_environment(snapshot_of(tmp_path))) == ['PATH']


def test_pam_env_files(tmp_path):
    assert hostwide.pam_sets_variable(snapshot_of(tmp_path)) is False
    write(tmp_path, '/etc/security/pam_env.conf', b'PYTHONHTTPSVERIFY DEFAULT=0\n')
    assert hostwide.pam_sets_variable(snapshot_of(tmp_path)) is True


def test_a_fifo_where_a_file_should_be_is_reported_not_waited_on(tmp_path):
    os.makedirs(os.path.join(str(tmp_path), 'etc'))
    os.mkfifo(os.path.join(str(tmp_path), 'etc/environment'))
    assert hostwide.scan_global(hostfiles.HostFiles(str(tmp_path)))[1] == [
        '/etc/environment is not a regular file (a FIFO); remove it or point the module elsewhere']


def test_disables_only_the_exact_string_zero():
    assert hostwide.disables('0')
    for value in ('1', '', 'false', 'no', ' 0', '00', 'disable', None):
        assert not hostwide.disables(value)
