# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Odd things where the file should be: unreadable, a directory, a FIFO, a folder that is a
file, a file of another user; and a run by a user who may not write. Clear errors, nothing
changed, no hang (every run has a timeout)."""

import os
import stat

import pytest

import harness

CFG = ('etc', 'python', 'cert-verification.cfg')
DROPIN = ('etc', 'systemd', 'system', 'legacy-app.service.d', 'zz-pep493-https.conf')
SHIPPED = b"# Possible values are:\n# 'enable' ...\n\n[https]\nverify=platform_default\n"
OUR_DROPIN = (b'# Managed by pep493.https.service_verification; edits here are overwritten.\n'
              b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=1\n')
# root without the capabilities that let it read and write any file (as on NFS with root_squash)
NO_DAC = ['setpriv', '--inh-caps=-dac_override,-dac_read_search', '--bounding-set=-dac_override,-dac_read_search']
MODULES = {
    'cert_verification': (CFG, SHIPPED, dict(verify='enable')),
    'service_verification': (DROPIN, OUR_DROPIN, dict(name='legacy-app', verify=False, reason='vendor CA')),
}


def where(root, parts):
    return os.path.join(root, *parts)


def put(path, data, mode=0o644):
    if not os.path.isdir(os.path.dirname(path)):
        os.makedirs(os.path.dirname(path))
    with open(path, 'wb') as handle:
        handle.write(data)
    os.chmod(path, mode)


def tree(root):
    seen = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            content = None
            if stat.S_ISREG(info.st_mode):
                with open(path, 'rb') as handle:
                    content = handle.read()
            seen[path] = (info.st_mode, info.st_uid, info.st_gid, content)
    return seen


def fails_clearly(run, *words):
    assert run.failed, run
    assert 'Traceback' not in run.err, run
    for word in words:
        assert word in run.msg, (word, run.msg)


@pytest.mark.parametrize('module', sorted(MODULES))
def test_unreadable_existing_file(root, module):
    parts, content, args = MODULES[module]
    put(where(root, parts), content, mode=0o000)
    before = tree(root)
    run = harness.run(module, dict(args, root=root), prefix=NO_DAC, timeout=30)
    fails_clearly(run, 'cannot read', 'permission denied', where(root, parts))
    assert tree(root) == before


@pytest.mark.parametrize('module', sorted(MODULES))
def test_directory_where_the_file_should_be(root, module):
    parts, content, args = MODULES[module]
    os.makedirs(where(root, parts))
    before = tree(root)
    run = harness.run(module, dict(args, root=root), timeout=30)
    fails_clearly(run, 'is a directory', where(root, parts))
    assert tree(root) == before


@pytest.mark.parametrize('module', sorted(MODULES))
def test_file_where_the_folder_should_be(root, module):
    parts, content, args = MODULES[module]
    put(where(root, parts[:-1]), b'not a folder\n')
    before = tree(root)
    run = harness.run(module, dict(args, root=root), timeout=30)
    fails_clearly(run, where(root, parts[:-1]) + ' is a file, not a folder')
    assert tree(root) == before


@pytest.mark.parametrize('module', sorted(MODULES))
def test_fifo_where_the_file_should_be_does_not_hang(root, module):
    parts, content, args = MODULES[module]
    os.makedirs(where(root, parts[:-1]))
    os.mkfifo(where(root, parts))
    before = tree(root)
    run = harness.run(module, dict(args, root=root), timeout=20)
    fails_clearly(run, 'not a regular file', where(root, parts))
    assert tree(root) == before


def test_cert_file_of_another_user_keeps_its_owner_group_and_mode(root):
    path = where(root, CFG)
    put(path, SHIPPED, mode=0o640)
    os.chown(path, 4242, 4343)
    run = harness.run('cert_verification', dict(root=root, verify='enable', backup=True), timeout=30)
    assert run.ok, run
    info = os.stat(path)
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (4242, 4343, 0o640)
    backup = os.stat(run.result['backup_file'])
    assert (backup.st_uid, backup.st_gid, stat.S_IMODE(backup.st_mode)) == (4242, 4343, 0o640)


def test_dropin_of_another_user_is_rewritten_0644_root_owned(root):
    """A drop-in of ours with a group-writable mode and a foreign owner: the module owns the
    file, so it ends up 0644 and root:root like any drop-in it writes (its owner could
    otherwise add ExecStart= to a root service)."""
    path = where(root, DROPIN)
    put(path, OUR_DROPIN, mode=0o664)
    os.chown(path, 4242, 4343)
    run = harness.run('service_verification', dict(root=root, name='legacy-app', verify=False,
                                                   reason='vendor CA'), timeout=30)
    assert run.ok, run
    assert run.result['changed']
    info = os.stat(path)
    assert (stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid) == (0o644, 0, 0)
    again = harness.run('service_verification', dict(root=root, name='legacy-app', verify=False,
                                                     reason='vendor CA'), timeout=30)
    assert again.ok and not again.result['changed'], again


@pytest.mark.parametrize('module', sorted(MODULES))
def test_folder_of_another_user_gets_a_clear_error(root, module):
    """The folder belongs to another user (0755). The cfg's folder: without DAC override root may
    not write. A drop-in folder: refused before any write, since its owner could replace the drop-in."""
    parts, content, args = MODULES[module]
    put(where(root, parts), content)
    os.chown(where(root, parts[:-1]), 4242, 4242)
    before = tree(root)
    run = harness.run(module, dict(args, root=root), prefix=NO_DAC, timeout=30)
    cause = 'whoever can write it could replace the drop-in' if module == 'service_verification' else 'Permission denied'
    fails_clearly(run, cause, where(root, parts[:-1]))
    assert tree(root) == before
