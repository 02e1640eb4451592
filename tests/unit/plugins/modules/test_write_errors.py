# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every failure of the writing modules through their own error path: the file, the cause,
and what a batch wrote before it; never a traceback nor a bare "chown failed" (issue 11)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import socket

from ansible_collections.pep493.https.plugins.module_utils._write import safe_file
from ansible_collections.pep493.https.plugins.modules import cert_verification, service_verification, verification_info
from ansible_collections.pep493.https.tests.unit.tree import read, write

CFG = '/etc/python/cert-verification.cfg'
SHIPPED = b"[https]\nverify=platform_default\n"


def refuse(monkeypatch, name, code, only=None):
    """os.<name> fails with ``code`` (for paths containing ``only``, when given)."""
    real = getattr(os, name)

    def failing(*args, **kwargs):
        if only is None or any(only in str(arg) for arg in args):
            raise OSError(code, os.strerror(code))
        return real(*args, **kwargs)
    monkeypatch.setattr(os, name, failing)


def clean_failure(result, *words):
    assert 'exception' not in result and 'Traceback' not in result['msg'], result
    for word in words:
        assert word in result['msg'], (word, result['msg'])


def test_an_immutable_cfg_fails_naming_the_file_and_the_cause(run_module, tmp_path, monkeypatch):
    path = write(tmp_path, CFG, SHIPPED)
    refuse(monkeypatch, 'rename', errno.EPERM)
    result = run_module.fail(cert_verification, dict(root=str(tmp_path), verify='enable'))
    monkeypatch.undo()
    clean_failure(result, 'cannot replace %s' % path, 'Operation not permitted', 'it is unchanged')
    assert read(path) == SHIPPED and os.listdir(os.path.dirname(path)) == ['cert-verification.cfg']


def test_only_the_mode_on_a_read_only_file_system(run_module, tmp_path, monkeypatch):
    path = write(tmp_path, CFG, SHIPPED)
    refuse(monkeypatch, 'chmod', errno.EROFS)
    refuse(monkeypatch, 'lchmod', errno.EROFS) if hasattr(os, 'lchmod') else None
    result = run_module.fail(cert_verification, dict(root=str(tmp_path), verify='platform_default', mode='0600'))
    monkeypatch.undo()
    clean_failure(result, 'cannot set the mode, owner, group or attributes of %s' % path, 'Read-only file system')


def test_a_failing_chown_names_the_file_and_the_cause(run_module, tmp_path, monkeypatch):
    path = write(tmp_path, CFG, SHIPPED)
    refuse(monkeypatch, 'lchown', errno.EPERM)
    refuse(monkeypatch, 'chown', errno.EPERM)
    result = run_module.fail(cert_verification, dict(root=str(tmp_path), verify='platform_default', owner='4242'))
    monkeypatch.undo()
    clean_failure(result, 'cannot set the mode, owner, group or attributes of %s' % path, 'Operation not permitted')


def test_an_immutable_dropin_mid_batch_lists_what_was_written(run_module, tmp_path, monkeypatch):
    services = [dict(name=name, verify=False) for name in ('first', 'second', 'third')]
    (tmp_path / 'etc').mkdir()
    refuse(monkeypatch, 'rename', errno.EPERM, only='second.service.d')
    result = run_module.fail(service_verification, dict(root=str(tmp_path), services=services))
    monkeypatch.undo()
    clean_failure(result, 'cannot replace %s' % os.path.join(str(tmp_path), 'etc/systemd/system/second.service.d'),
                  'Operation not permitted', 'drop-ins written or removed before the error: first.service')
    assert 'third' not in result['msg']


def test_a_socket_at_the_cfg_path_says_it_is_a_socket(run_module, tmp_path):
    folder = os.path.join(str(tmp_path), 'etc', 'python')
    os.makedirs(folder)
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(os.path.join(folder, 'cert-verification.cfg'))
        for state in ('present', 'restored'):
            args = dict(root=str(tmp_path), state=state)
            if state == 'present':
                args['verify'] = 'enable'
            result = run_module.fail(cert_verification, args)
            clean_failure(result, 'cert-verification.cfg is not a regular file (a socket)')
            assert result['path'].startswith(str(tmp_path)), result  # never the host's own file
    finally:
        server.close()


def test_the_dropin_folder_removed_under_a_write_is_made_again(run_module, tmp_path, monkeypatch):
    """absent on the same unit at the same moment removes the .d folder between mkdir and mkstemp."""
    (tmp_path / 'etc').mkdir()
    real = safe_file.tempfile.mkstemp
    removed = []

    def racing(*args, **kwargs):
        if not removed:
            removed.append(kwargs['dir'])
            os.rmdir(kwargs['dir'])
        return real(*args, **kwargs)
    monkeypatch.setattr(safe_file.tempfile, 'mkstemp', racing)
    result = run_module.ok(service_verification, dict(root=str(tmp_path), name='legacy-app', verify=False))
    monkeypatch.undo()
    assert removed and result['services'][0]['action'] == 'created'
    assert read(result['services'][0]['path']).endswith(b'Environment=PYTHONHTTPSVERIFY=0\n')


def test_an_empty_root_is_refused_not_taken_as_the_host(run_module):
    for module, args in ((cert_verification, dict(verify='enable')),
                         (service_verification, dict(name='legacy-app', verify=False)),
                         (verification_info, dict())):
        result = run_module.fail(module, dict(args, root=''), check_mode=True)
        clean_failure(result, 'root is empty')
