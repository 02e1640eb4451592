# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The three modules see one host: the same files under ``root``, the same units, the same
environment and the same "effective" answer. Each case here is a place where they once
disagreed with each other or with systemd (files only, under a throw-away root)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os


from ansible_collections.pep493.https.plugins.modules import cert_verification, service_verification
from ansible_collections.pep493.https.plugins.modules import verification_info
from ansible_collections.pep493.https.plugins.module_utils import dropin
from ansible_collections.pep493.https.tests.unit.tree import read as get, snapshot, write

UNITS = '/etc/systemd/system'
LIB = '/usr/lib/systemd/system'
CFG = '/etc/python/cert-verification.cfg'


def ours(verify=False):
    return dropin.render_dropin(verify, 'vendor CA', dropin.validate_expires('2999-01-01'))


def audit(run_module, root, **kwargs):
    kwargs['root'] = str(root)
    result = run_module.ok(verification_info, kwargs)
    return result, dict((s['unit'], s) for s in result['services'])


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
    from ansible_collections.pep493.https.plugins.module_utils import hostfiles
    write(tmp_path, CFG, b'[https]\n' + b'#' * hostfiles.MAX_FILE_SIZE + b'\nverify=disable\n')
    result, units = audit(run_module, tmp_path)
    assert result['config']['verify'] is None and 'too large' in result['config']['error']
    failed = run_module.fail(cert_verification, dict(root=str(tmp_path), verify='enable'))
    assert 'too large' in failed['msg']


# --- never blocking on what is not a file ---------------------------------------------------------

def test_a_fifo_as_exec_start_program_does_not_hang(run_module, tmp_path):
    write(tmp_path, LIB + '/fifo.service', b'[Service]\nExecStart=/srv/fifo-agent\n')
    os.makedirs(os.path.join(str(tmp_path), 'srv'))
    os.mkfifo(os.path.join(str(tmp_path), 'srv', 'fifo-agent'))
    write(tmp_path, UNITS + '/fifo.service.d/zz-pep493-https.conf', ours())
    svc = run_module.ok(service_verification, dict(root=str(tmp_path), name='fifo', verify=False))
    assert svc['services'][0]['effective'] is None
    result, units = audit(run_module, tmp_path)
    assert units['fifo.service']['effective'] is None


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
