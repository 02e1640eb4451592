# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""cert_verification against a throw-away root."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import socket
import stat

import pytest

from ansible_collections.pep493.https.plugins.module_utils._host import interpreters as probe
from ansible_collections.pep493.https.plugins.module_utils._syntax import cfg
from ansible_collections.pep493.https.plugins.module_utils._write import plan
from ansible_collections.pep493.https.plugins.module_utils._write import safe_file
from ansible_collections.pep493.https.plugins.modules import cert_verification
from ansible_collections.pep493.https.tests.unit.tree import read as get, snapshot, write

CFG = '/etc/python/cert-verification.cfg'


def cfg_file(root):
    return os.path.join(str(root), 'etc', 'python', 'cert-verification.cfg')


def put(root, content):
    return write(root, CFG, content)


SHIPPED = (b"# Possible values are:\n# 'enable' ...\n\n[https]\nverify=platform_default\n")


def test_creates_file_with_header_modes_and_no_temp_files(run_module, tmp_path):
    result = run_module.ok(cert_verification, dict(root=str(tmp_path), verify='enable'))
    path = cfg_file(tmp_path)
    assert result['changed'] and result['created']
    assert result['previous'] == 'missing' and result['verify'] == 'enable'
    assert result['path'] == path
    content = get(path)
    assert content == cfg.new_cfg('enable')
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644
    assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o755
    assert os.listdir(os.path.dirname(path)) == ['cert-verification.cfg']
    assert result['probed'] is False and result['consumers'] == []


def test_second_run_is_unchanged(run_module, tmp_path):
    run_module.ok(cert_verification, dict(root=str(tmp_path), verify='enable'))
    before = snapshot(tmp_path)
    result = run_module.ok(cert_verification, dict(root=str(tmp_path), verify='enable'))
    assert not result['changed'] and result['previous'] == 'enable'
    assert snapshot(tmp_path) == before


def test_edits_only_the_verify_line_and_reports_previous(run_module, tmp_path):
    path = put(tmp_path, SHIPPED)
    os.chmod(path, 0o640)
    result = run_module.ok(cert_verification, dict(root=str(tmp_path), verify='enable'))
    assert result['changed'] and result['previous'] == 'platform_default' and not result['created']
    assert get(path) == SHIPPED.replace(b'platform_default', b'enable')
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640


def test_mode_option_applies(run_module, tmp_path):
    path = put(tmp_path, SHIPPED.replace(b'platform_default', b'enable'))
    result = run_module.ok(cert_verification, dict(root=str(tmp_path), verify='enable', mode='0600'))
    assert result['changed']
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_check_mode_reports_and_changes_nothing(run_module, tmp_path):
    put(tmp_path, SHIPPED)
    before = snapshot(tmp_path)
    result = run_module.ok(cert_verification, dict(root=str(tmp_path), verify='disable', mode='0600'),
                           check_mode=True, diff=True)
    assert result['changed'] and result['verify'] == 'disable'
    assert snapshot(tmp_path) == before
    content_diff, attr_diff = result['diff']
    assert 'verify=disable' in content_diff['after'] and 'verify=platform_default' in content_diff['before']
    assert attr_diff['after']['mode'] == '0600'


def test_check_mode_on_missing_file_creates_nothing(run_module, tmp_path):
    result = run_module.ok(cert_verification, dict(root=str(tmp_path), verify='enable'), check_mode=True, diff=True)
    assert result['changed'] and result['created']
    assert os.listdir(str(tmp_path)) == []
    assert result['diff'][0]['before'] == '' and 'verify=enable' in result['diff'][0]['after']


def test_disable_warns(run_module, tmp_path):
    result = run_module.ok(cert_verification, dict(root=str(tmp_path), verify='disable'))
    assert any('insecure' in w or 'turns HTTPS certificate verification off' in w for w in result['warnings'])


def test_backup_keeps_previous_file(run_module, tmp_path):
    path = put(tmp_path, SHIPPED)
    result = run_module.ok(cert_verification, dict(root=str(tmp_path), verify='enable', backup=True))
    assert get(result['backup_file']) == SHIPPED
    assert os.path.dirname(result['backup_file']) == os.path.dirname(path)


def test_no_backup_without_change(run_module, tmp_path):
    put(tmp_path, SHIPPED)
    result = run_module.ok(cert_verification, dict(root=str(tmp_path), verify='platform_default', backup=True))
    assert not result['changed'] and 'backup_file' not in result
    assert len(os.listdir(os.path.dirname(cfg_file(tmp_path)))) == 1


def test_absent_removes_verify_keeps_rest(run_module, tmp_path):
    path = put(tmp_path, SHIPPED + b"[other]\nkey=1\n")
    result = run_module.ok(cert_verification, dict(root=str(tmp_path), state='absent'))
    assert result['changed'] and result['verify'] == 'platform_default'
    assert get(path) == SHIPPED.replace(b'verify=platform_default\n', b'') + b"[other]\nkey=1\n"


def test_absent_on_missing_file_creates_nothing(run_module, tmp_path):
    result = run_module.ok(cert_verification, dict(root=str(tmp_path), state='absent'))
    assert not result['changed'] and result['previous'] == 'missing'
    assert os.listdir(str(tmp_path)) == []


@pytest.mark.parametrize('args, words', [
    (dict(), 'verify'),
    (dict(verify='Enable'), 'verify'),
    (dict(verify='enable', state='gone'), 'state'),
    (dict(verify='enable', state='absent'), 'verify=enable is not used with state=absent'),
    (dict(verify='enable', path='relative/file.cfg'), 'must be absolute'),
])
def test_bad_arguments_fail_clearly_and_change_nothing(run_module, tmp_path, args, words):
    args = dict(args, root=str(tmp_path))
    result = run_module.fail(cert_verification, args)
    assert words in result['msg']
    assert os.listdir(str(tmp_path)) == []


def test_create_false_on_missing_file_fails(run_module, tmp_path):
    result = run_module.fail(cert_verification, dict(root=str(tmp_path), verify='enable', create=False))
    assert 'does not exist and create=false' in result['msg']
    assert os.listdir(str(tmp_path)) == []


def test_malformed_file_fails_with_line_and_is_untouched(run_module, tmp_path):
    content = b"[https]\nverify=disable\nthis is junk\n"
    path = put(tmp_path, content)
    before = snapshot(tmp_path)
    result = run_module.fail(cert_verification, dict(root=str(tmp_path), verify='enable'))
    assert 'line 3' in result['msg'] and 'repair=true' in result['msg'] and path in result['msg']
    assert result['errors'][0]['line'] == 3
    assert snapshot(tmp_path) == before


def test_repair_comments_out_and_backs_up(run_module, tmp_path):
    content = b"oops\n[https]\nverify=disable\nthis is junk\n"
    path = put(tmp_path, content)
    result = run_module.ok(cert_verification, dict(root=str(tmp_path), verify='enable', repair=True))
    assert result['previous'] == 'malformed' and result['repaired_lines'] == [1, 4]
    assert get(path) == b"#oops\n[https]\nverify=enable\n#this is junk\n"
    assert get(result['backup_file']) == content


def test_symlinked_file_is_refused_unless_follow(run_module, tmp_path):
    real = os.path.join(str(tmp_path), 'etc', 'python', 'real.cfg')
    put(tmp_path, SHIPPED)
    os.rename(cfg_file(tmp_path), real)
    os.symlink('real.cfg', cfg_file(tmp_path))
    result = run_module.fail(cert_verification, dict(root=str(tmp_path), verify='enable'))
    assert 'symbolic link' in result['msg'] and 'follow=true' in result['msg']
    assert get(real) == SHIPPED
    result = run_module.ok(cert_verification, dict(root=str(tmp_path), verify='enable', follow=True))
    assert result['path'] == real
    assert os.path.islink(cfg_file(tmp_path))
    assert cfg.effective_verify(get(real)) == 'enable'


def test_symlinked_folder_is_refused(run_module, tmp_path):
    os.makedirs(os.path.join(str(tmp_path), 'etc', 'elsewhere'))
    os.symlink('elsewhere', os.path.join(str(tmp_path), 'etc', 'python'))
    result = run_module.fail(cert_verification, dict(root=str(tmp_path), verify='enable'))
    assert 'its folder' in result['msg']
    assert os.listdir(os.path.join(str(tmp_path), 'etc', 'elsewhere')) == []


def test_links_never_lead_out_of_root_even_with_follow(run_module, tmp_path):
    root = tmp_path / 'root'
    outside = tmp_path / 'outside'
    os.makedirs(str(root / 'etc'))
    os.makedirs(str(outside))
    # an absolute target is looked for inside root (chroot semantics): there it does not exist
    os.symlink(str(outside), str(root / 'etc' / 'python'))
    result = run_module.fail(cert_verification, dict(root=str(root), verify='enable', follow=True))
    assert 'which does not exist' in result['msg']
    assert os.listdir(str(outside)) == []
    # ".." may not climb above root
    os.unlink(str(root / 'etc' / 'python'))
    os.symlink('../../outside', str(root / 'etc' / 'python'))
    result = run_module.fail(cert_verification, dict(root=str(root), verify='enable', follow=True))
    assert 'outside root' in result['msg']
    assert os.listdir(str(outside)) == []


def test_directory_in_place_of_file_fails(run_module, tmp_path):
    os.makedirs(cfg_file(tmp_path))
    result = run_module.fail(cert_verification, dict(root=str(tmp_path), verify='enable'))
    assert 'is a directory' in result['msg']


def test_read_only_file_system_leaves_file_intact(run_module, tmp_path, monkeypatch):
    path = put(tmp_path, SHIPPED)

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, 'Read-only file system')
    monkeypatch.setattr(safe_file.tempfile, 'mkstemp', read_only)
    result = run_module.fail(cert_verification, dict(root=str(tmp_path), verify='enable'))
    assert 'Read-only file system' in result['msg']
    assert get(path) == SHIPPED


def test_failure_between_write_and_move_leaves_old_file_and_no_temp(run_module, tmp_path, monkeypatch):
    path = put(tmp_path, SHIPPED)

    def disk_full(fd):
        raise OSError(errno.ENOSPC, 'No space left on device')
    monkeypatch.setattr(safe_file.os, 'fsync', disk_full)
    result = run_module.fail(cert_verification, dict(root=str(tmp_path), verify='enable'))
    assert 'No space left on device' in result['msg']
    assert get(path) == SHIPPED
    assert os.listdir(os.path.dirname(path)) == ['cert-verification.cfg']


def test_bad_read_back_aborts_before_move(run_module, tmp_path, monkeypatch):
    path = put(tmp_path, SHIPPED)
    monkeypatch.setattr(plan, 'cfg_read_back_check', lambda wanted: (lambda content: 'simulated mismatch'))
    result = run_module.fail(cert_verification, dict(root=str(tmp_path), verify='enable'))
    assert 'simulated mismatch' in result['msg']
    assert get(path) == SHIPPED
    assert os.listdir(os.path.dirname(path)) == ['cert-verification.cfg']


def test_consumers_come_from_a_real_probe(run_module, tmp_path, monkeypatch):
    """Without root, interpreters are probed; a fake interpreter that reads our path is a consumer."""
    target = os.path.join(str(tmp_path), 'cert-verification.cfg')
    bindir = tmp_path / 'bin'
    os.makedirs(str(bindir))
    reader = bindir / 'python2.7'
    reader.write_text(u'#!/bin/sh\necho \'{"version": "2.7.5", "honours_env": true, "reads_config": "%s", '
                      u'"verifies_by_default": true}\'\n' % target)
    other = bindir / 'python3'
    other.write_text(u'#!/bin/sh\necho \'{"version": "3.6.8", "honours_env": false, "reads_config": null, '
                     u'"verifies_by_default": true}\'\n')
    os.chmod(str(reader), 0o755)
    os.chmod(str(other), 0o755)
    monkeypatch.setattr(probe, 'CANDIDATE_GLOBS', (str(bindir / 'python*'),))
    result = run_module.ok(cert_verification, dict(path=target, verify='enable'))
    assert result['probed'] is True
    assert result['consumers'] == [dict(path=str(reader), version='2.7.5', verifies_by_default=True)]
    assert not any('no Python on this host reads it' in w for w in result.get('warnings', []))
    os.unlink(str(reader))
    result = run_module.ok(cert_verification, dict(path=target, verify='platform_default'), check_mode=True)
    assert result['consumers'] == []
    assert [w for w in result['warnings'] if 'no Python' in w] == [
        '%s would be changed, but no Python on this host reads it (only RHEL/CentOS 7 system python and SCL '
        'python27 do; no Python 3 does), so it has no effect here.' % target]
    # the machine's own name is not the inventory's (a container's is its ID): the action says which host
    assert not any(socket.gethostname() in w for w in result['warnings'])
    result = run_module.ok(cert_verification, dict(path=target, verify='platform_default'))
    assert [w for w in result['warnings'] if 'no Python' in w] == [
        '%s written, but no Python on this host reads it (only RHEL/CentOS 7 system python and SCL '
        'python27 do; no Python 3 does), so it has no effect here.' % target]
    # an unchanged file: nothing to say
    result = run_module.ok(cert_verification, dict(path=target, verify='platform_default'))
    assert result['changed'] is False and result['consumers'] == []
    assert not any('no Python' in w for w in result['warnings'])
