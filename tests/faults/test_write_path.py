# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The write path under attack, with real module processes and real file flags (issue 11):
an immutable file, hard links, an unsafe drop-in folder, oversized and malformed files, bad
attribute input, over-long names, an empty root. Each case: a clear error (or the safe
outcome), no traceback, nothing changed that should not be."""

import os
import socket
import stat
import subprocess

import pytest

import harness
from test_files import CFG, DROPIN, OUR_DROPIN, SHIPPED, fails_clearly, put, tree, where

SVC = dict(name='legacy-app', verify=False, reason='vendor CA')


def chattr(flag, path):
    return subprocess.call(['chattr', flag, path], stderr=subprocess.DEVNULL) == 0


@pytest.fixture
def immutable():
    flagged = []

    def make(path):
        if not chattr('+i', path):
            pytest.fail('chattr +i is not possible on %s: this case cannot run here' % path)
        flagged.append(path)
    yield make
    for path in flagged:
        chattr('-i', path)


def test_an_immutable_cfg_is_a_clear_error(root, immutable):
    path = where(root, CFG)
    put(path, SHIPPED)
    immutable(path)
    before = tree(root)
    run = harness.run('cert_verification', dict(root=root, verify='enable'), timeout=30)
    fails_clearly(run, 'cannot replace %s' % path, 'Operation not permitted')
    assert tree(root) == before


def test_an_immutable_dropin_mid_batch_lists_what_was_written(root, immutable):
    second = where(root, ('etc', 'systemd', 'system', 'second.service.d', 'zz-pep493-https.conf'))
    put(second, OUR_DROPIN)
    immutable(second)
    services = [dict(name=name, verify=False) for name in ('first', 'second', 'third')]
    run = harness.run('service_verification', dict(root=root, services=services), timeout=30)
    fails_clearly(run, 'cannot replace %s' % second, 'Operation not permitted',
                  'drop-ins written or removed before the error: first.service')
    assert not os.path.exists(where(root, ('etc', 'systemd', 'system', 'third.service.d')))


def test_hard_linked_cfg_keeps_the_other_file_attributes(root, tmp_path):
    path = where(root, CFG)
    put(path, b'[https]\nverify=enable\n', mode=0o600)
    outside = str(tmp_path / 'outside')
    os.link(path, outside)
    os.chown(outside, 4242, 4343)
    run = harness.run('cert_verification', dict(root=root, verify='enable', mode='0644', owner='0', group='0'),
                      timeout=30)
    assert run.ok and run.result['changed'], run
    info = os.stat(outside)
    assert (stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid) == (0o600, 4242, 4343)
    assert os.stat(path).st_nlink == 1 and stat.S_IMODE(os.stat(path).st_mode) == 0o644


def test_an_unsafe_dropin_folder_is_refused(root):
    path = where(root, DROPIN)
    put(path, OUR_DROPIN)
    os.chmod(os.path.dirname(path), 0o777)
    before = tree(root)
    run = harness.run('service_verification', dict(SVC, root=root), timeout=30)
    fails_clearly(run, os.path.dirname(path), 'mode 0777', 'root:root 0755')
    assert tree(root) == before


def test_a_huge_junk_file_gives_a_small_failure(root):
    path = where(root, CFG)
    put(path, b'secret line\n' * 30000)  # 360000 bytes: over the 256 KiB limit
    run = harness.run('cert_verification', dict(root=root, verify='enable'), timeout=30)
    fails_clearly(run, 'is too large')
    assert len(run.out) < 4096, len(run.out)
    put(path, b'secret line\n' * 2000)
    run = harness.run('cert_verification', dict(root=root, verify='enable'), timeout=30)
    fails_clearly(run, "'secret line'", 'and 1999 more malformed lines')
    assert run.out.count(b'secret line') == 1 and len(run.out) < 4096, len(run.out)


@pytest.mark.parametrize('check_mode', [True, False])
def test_bad_attribute_input_changes_nothing(root, check_mode):
    put(where(root, CFG), SHIPPED)
    before = tree(root)
    for bad in (dict(mode='0999'), dict(owner='no-such-user-pep493'), dict(group='no-such-group-pep493'),
                dict(attributes='+Q')):
        run = harness.run('cert_verification', dict(bad, root=root, verify='enable', backup=True),
                          check_mode=check_mode, timeout=30)
        fails_clearly(run, 'Nothing was changed')
        assert tree(root) == before


def test_a_name_past_the_file_system_limit_writes_nothing(root):
    services = [dict(name='good1', verify=False), dict(name='x' * 246, verify=False)]
    run = harness.run('service_verification', dict(root=root, services=services), timeout=30)
    fails_clearly(run, 'Nothing was changed', 'at most 255 bytes')
    assert os.listdir(root) == []


def test_a_socket_at_the_cfg_path_is_named(root):
    os.makedirs(where(root, CFG[:-1]))
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(where(root, CFG))
        run = harness.run('cert_verification', dict(root=root, verify='enable'), timeout=30)
        fails_clearly(run, 'is not a regular file (a socket)')
    finally:
        server.close()


@pytest.mark.parametrize('module, args', [('cert_verification', dict(verify='enable')),
                                          ('service_verification', SVC), ('verification_info', dict())])
def test_an_empty_root_is_refused(module, args):
    run = harness.run(module, dict(args, root=''), check_mode=True, timeout=60)
    fails_clearly(run, 'root is empty')
