# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The writing modules against hostile trees: backups, links, folders, sizes (issue 11)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import json
import os
import stat
import time

from ansible_collections.pep493.https.plugins.module_utils._syntax import cfg
from ansible_collections.pep493.https.plugins.module_utils._write import history
from ansible_collections.pep493.https.plugins.module_utils._write import safe_file
from ansible_collections.pep493.https.plugins.modules import cert_verification, service_verification
from ansible_collections.pep493.https.tests.unit.tree import read, snapshot, write

CFG = '/etc/python/cert-verification.cfg'
SHIPPED = b"[https]\nverify=platform_default\n"
OUTSIDE = b'root:x:0:0:secret\n'


def cfg_file(root):
    return os.path.join(str(root), 'etc', 'python', 'cert-verification.cfg')


def backup_names(path, seconds):
    """The names a backup of ``path`` made by this process may take in the next ``seconds``."""
    now = time.time()
    return ['%s.%d.%s~' % (path, os.getpid(), time.strftime('%Y-%m-%d@%H:%M:%S', time.localtime(now + step)))
            for step in range(seconds)]


def test_a_planted_backup_link_is_never_written_through(run_module, tmp_path):
    """backup: true, and a repair (which always backs up), with every name the backup may take
    in the next seconds planted as a link to a file outside root."""
    root = tmp_path / 'root'
    outside = write(tmp_path, 'outside/shadow', OUTSIDE, mode=0o600)
    for content, args in ((SHIPPED, dict(verify='enable', backup=True)),
                          (b'junk\n' + SHIPPED, dict(verify='enable', repair=True))):
        path = write(root, CFG, content)
        for name in backup_names(path, 3):
            if not os.path.lexists(name):
                os.symlink(outside, name)
        result, code = run_module(cert_verification, dict(args, root=str(root)))
        assert read(outside) == OUTSIDE
        assert stat.S_IMODE(os.stat(outside).st_mode) == 0o600
        if code == 0:
            backup = result['backup_file']
            assert not os.path.islink(backup) and read(backup) == content
        else:
            assert 'cannot back up' in result['msg'] and read(path) == content, result


def test_the_backup_keeps_mode_and_owner_and_is_never_a_link(run_module, tmp_path):
    path = write(tmp_path, CFG, SHIPPED, mode=0o640)
    result = run_module.ok(cert_verification, dict(root=str(tmp_path), verify='enable', backup=True))
    info = os.lstat(result['backup_file'])
    assert stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o640
    assert (info.st_uid, info.st_gid) == (os.stat(path).st_uid, os.stat(path).st_gid)
    assert read(result['backup_file']) == SHIPPED


def test_a_failed_backup_keeps_older_backups_of_the_same_pid(run_module, tmp_path, monkeypatch):
    path = write(tmp_path, CFG, SHIPPED)
    older = write(tmp_path, CFG + '.%d.2020-01-01@00:00:00~' % os.getpid(), b'[https]\nverify=enable\n')
    record = write(tmp_path, CFG + history.RECORD_SUFFIX, history.render_record(SHIPPED, '2020-01-01@00:00:00Z'))

    def full(*args):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    for name in ('write', 'sendfile'):  # every way a copy reaches the disk
        if hasattr(os, name):
            monkeypatch.setattr(os, name, full)
    result = run_module.fail(cert_verification, dict(root=str(tmp_path), verify='enable', backup=True))
    monkeypatch.undo()
    assert 'cannot back up %s' % path in result['msg'] and 'No space left on device' in result['msg']
    assert read(older) == b'[https]\nverify=enable\n'
    assert sorted(os.listdir(os.path.dirname(path))) == sorted(os.path.basename(name) for name in (path, older, record))
    assert read(path) == SHIPPED


def hard_linked(tmp_path, path, mode, owner):
    """A file outside root sharing ``path``'s inode, with ``mode`` and ``owner``."""
    outside = os.path.join(str(tmp_path), 'outside', 'linked')
    if not os.path.isdir(os.path.dirname(outside)):
        os.makedirs(os.path.dirname(outside))
    os.link(path, outside)
    os.chmod(outside, mode)
    os.chown(outside, *owner)
    return outside


def attributes(path):
    info = os.stat(path)
    return stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid, info.st_nlink


def test_cfg_attributes_never_change_a_hard_linked_file(run_module, tmp_path):
    root = tmp_path / 'root'
    path = write(root, CFG, b'[https]\nverify=enable\n')
    outside = hard_linked(tmp_path, path, 0o600, (4242, 4343))
    for check_mode in (True, False):
        result = run_module.ok(cert_verification, dict(root=str(root), verify='enable', mode='0644', owner='0',
                                                       group='0'), check_mode=check_mode)
        assert result['changed']
        assert attributes(outside)[:3] == (0o600, 4242, 4343)
        assert read(outside) == b'[https]\nverify=enable\n'
    assert attributes(path) == (0o644, 0, 0, 1)
    assert read(path) == b'[https]\nverify=enable\n'
    again = run_module.ok(cert_verification, dict(root=str(root), verify='enable', mode='0644', owner='0', group='0'))
    assert not again['changed']


def test_dropin_attributes_never_change_a_hard_linked_file(run_module, tmp_path):
    root = tmp_path / 'root'
    root.mkdir()
    args = dict(root=str(root), name='legacy-app', verify=False, reason='vendor CA')
    path = run_module.ok(service_verification, args)['services'][0]['path']
    content = read(path)
    outside = hard_linked(tmp_path, path, 0o664, (4242, 4343))
    result = run_module.ok(service_verification, args)
    assert result['changed']
    assert attributes(outside)[:3] == (0o664, 4242, 4343) and read(outside) == content
    assert attributes(path) == (0o644, 0, 0, 1) and read(path) == content


def test_an_unsafe_dropin_folder_is_refused_before_any_write(run_module, tmp_path):
    """A <unit>.d folder others may write (0777, 0775) or owned by another user: whoever can
    write it could replace the drop-in, so nothing of the batch is written."""
    units = os.path.join(str(tmp_path), 'etc', 'systemd', 'system')
    folder = os.path.join(units, 'bad.service.d')
    services = [dict(name='good1', verify=False, reason='vendor CA'), dict(name='bad', verify=False, reason='x')]
    for mode, owner, words in ((0o777, (0, 0), 'mode 0777'), (0o775, (0, 0), 'mode 0775'),
                               (0o755, (4242, 4343), 'owner 4242:4343')):
        if not os.path.isdir(folder):
            os.makedirs(folder)
        os.chmod(folder, mode)
        os.chown(folder, *owner)
        before = snapshot(tmp_path)
        for check_mode in (True, False):
            result = run_module.fail(service_verification, dict(root=str(tmp_path), services=services),
                                     check_mode=check_mode)
            assert result['msg'].startswith('Nothing was changed'), result
            assert folder in result['msg'] and words in result['msg'] and 'root:root 0755' in result['msg']
            assert snapshot(tmp_path) == before
    os.chmod(folder, 0o755)
    os.chown(folder, 0, 0)
    done = run_module.ok(service_verification, dict(root=str(tmp_path), services=services))
    assert [item['action'] for item in done['services']] == ['created', 'created']


def test_a_malformed_file_is_quoted_one_line_cut_short(run_module, tmp_path):
    """A shadow-like file hard-linked at the cfg path: the failure names the first offending
    line, cut to cfg.QUOTE_LIMIT characters, and no other line's text."""
    secrets = [('user%d:$6$%s:19000:0:99999:7:::' % (n, 'h' * 200)) for n in range(1000)]
    path = write(tmp_path, CFG, ('\n'.join(secrets) + '\n').encode('ascii'))
    result = run_module.fail(cert_verification, dict(root=str(tmp_path), verify='enable'))
    everything = json.dumps(result)
    assert "line 1: text before any [section] header" in result['msg']
    assert "%s'..." % secrets[0][:cfg.QUOTE_LIMIT] in result['msg']
    assert secrets[0][:cfg.QUOTE_LIMIT + 1] not in everything
    assert 'user1:' not in everything and 'and 999 more malformed lines' in result['msg']
    assert len(everything) < 4096, len(everything)
    assert read(path).startswith(b'user0:')


def test_a_file_over_the_size_limit_is_refused_before_it_is_parsed(run_module, tmp_path, monkeypatch):
    path = write(tmp_path, CFG, b'[https]\nverify=disable\n' + b'#' * cfg.MAX_CFG_SIZE)

    def no_parse(*args):
        raise AssertionError('parsed a file over the limit')
    monkeypatch.setattr(cfg, 'parse_cfg', no_parse)
    for check_mode in (True, False):
        result = run_module.fail(cert_verification, dict(root=str(tmp_path), verify='enable'), check_mode=check_mode)
        assert result['msg'] == '%s is too large (%d bytes; files over %d bytes are not read)' % (
            path, os.path.getsize(path), cfg.MAX_CFG_SIZE)
    assert read(path).startswith(b'[https]\nverify=disable\n')


def test_the_diff_of_a_large_file_is_omitted_and_the_result_says_so(run_module, tmp_path):
    old = b'[https]\nverify=disable\n' + b'# a comment line\n' * (safe_file.DIFF_MAX // 16)
    path = write(tmp_path, CFG, old)
    result = run_module.ok(cert_verification, dict(root=str(tmp_path), verify='enable'), diff=True)
    assert read(path) == old.replace(b'verify=disable', b'verify=enable')
    content = result['diff'][0]
    assert 'before' not in content and 'after' not in content, sorted(content)
    assert content['src_larger'] == safe_file.DIFF_MAX and content['dst_larger'] == safe_file.DIFF_MAX
    assert result['diff_omitted'] == ['%s: %d bytes before, %d after; diffs over %d bytes are omitted'
                                      % (path, len(old), len(old) - 1, safe_file.DIFF_MAX)]
    small = run_module.ok(cert_verification, dict(root=str(tmp_path), verify='disable'), diff=False)
    assert 'diff_omitted' not in small


BAD_FILE_ARGS = [
    (dict(mode='0999'), "mode '0999'"),
    (dict(mode='u=rwz'), "mode 'u=rwz'"),
    (dict(mode='77777'), "mode '77777'"),
    (dict(owner='no-such-user-pep493'), "owner 'no-such-user-pep493'"),
    (dict(group='no-such-group-pep493'), "group 'no-such-group-pep493'"),
    (dict(attributes='+Q'), "attributes '+Q'"),
]


def test_bad_file_attributes_change_nothing_in_check_mode_or_not(run_module, tmp_path):
    """Validated before the first write: no content change, no backup, no record, and check
    mode reports the error instead of changed: true."""
    write(tmp_path, CFG, SHIPPED)
    before = snapshot(tmp_path)
    for bad, words in BAD_FILE_ARGS:
        for check_mode in (True, False):
            result = run_module.fail(cert_verification, dict(bad, root=str(tmp_path), verify='enable', backup=True),
                                     check_mode=check_mode)
            assert result['msg'].startswith('Nothing was changed: ') and words in result['msg'], (bad, result)
            assert snapshot(tmp_path) == before, bad


def test_good_file_attributes_pass_validation(run_module, tmp_path):
    path = write(tmp_path, CFG, SHIPPED)
    for good in (dict(mode='0640'), dict(mode='u=rw,g=r,o='), dict(mode='640'), dict(owner='0', group='0'),
                 dict(owner='root', group='root')):
        run_module.ok(cert_verification, dict(good, root=str(tmp_path), verify='enable'))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640


def test_names_past_the_file_system_limit_are_refused_before_any_write(run_module, tmp_path):
    """<name>.service.d and <dropin_name> are each one file name: at most 255 bytes."""
    longest = 'x' * (255 - len('.service.d'))
    for services, dropin_name, words in (
            ([dict(name='good1', verify=False), dict(name=longest + 'y', verify=False)], None,
             'its drop-in folder (<name>.service.d) would be 256 bytes long'),
            ([dict(name='good1', verify=False)], 'd' * 251 + '.conf', 'is 256 bytes long')):
        args = dict(root=str(tmp_path), services=services)
        if dropin_name:
            args['dropin_name'] = dropin_name
        result = run_module.fail(service_verification, args)
        assert result['msg'].startswith('Nothing was changed: ') and words in result['msg'], result
        assert 'at most 255' in result['msg']
        assert not os.path.exists(os.path.join(str(tmp_path), 'etc')), result
    done = run_module.ok(service_verification, dict(root=str(tmp_path), dropin_name='d' * 250 + '.conf',
                                                    services=[dict(name=longest, verify=False)]))
    assert os.path.basename(done['services'][0]['path']) == 'd' * 250 + '.conf'
    assert read(done['services'][0]['path']).endswith(b'Environment=PYTHONHTTPSVERIFY=0\n')


def test_a_dropin_removed_right_after_its_rename_is_no_error(run_module, tmp_path, monkeypatch):
    """A run with state=absent on the same unit may remove the new drop-in between the rename and
    the mode this run then sets: that order (written, then removed) is a valid outcome, not a
    failure."""
    from ansible.module_utils.basic import AnsibleModule
    real_move = AnsibleModule.atomic_move

    def move_then_removed(self, src, dest, *args, **kwargs):
        real_move(self, src, dest, *args, **kwargs)
        if dest.endswith('.conf'):
            os.remove(dest)
    monkeypatch.setattr(AnsibleModule, 'atomic_move', move_then_removed)
    args = dict(root=str(tmp_path), name='legacy-app', verify=False, reason='vendor CA', expires='2030-01-01',
                restart='never')
    result = run_module.ok(service_verification, args)
    assert result['changed']
