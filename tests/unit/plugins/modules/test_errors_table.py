# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One test per row of docs/errors.md: the module refuses that input with exactly that message,
and writes nothing. ``<root>`` in the table stands for the throw-away root of the test."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import io
import json
import os
import re
import socket

import pytest


from ansible_collections.pep493.https.plugins.module_utils._syntax import cfg
from ansible_collections.pep493.https.plugins.module_utils._write import history
from ansible_collections.pep493.https.plugins.module_utils._write import safe_file
from ansible_collections.pep493.https.plugins.module_utils._trust import store, x509
from ansible_collections.pep493.https.plugins.modules import ca_trust, cert_verification, service_verification
from ansible_collections.pep493.https.plugins.modules import verification_forecast
from ansible_collections.pep493.https.tests.unit import ca_pki
from ansible_collections.pep493.https.tests.unit.module_args import patch_module_args

# under plugins/modules: ansible-test runs it on Python 2.7 too (only module tests run there)
DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..', 'docs')
TABLE = os.path.join(DOCS, 'errors.md')
RELIABILITY = os.path.join(DOCS, 'reliability.md')
MODULES = {'cert_verification': cert_verification, 'service_verification': service_verification, 'ca_trust': ca_trust,
           'verification_forecast': verification_forecast}
CFG = 'etc/python/cert-verification.cfg'
BACKUP = '.1.2026-01-01@00:00:00~'
DROPIN_DIR = 'etc/systemd/system/legacy-app.service.d'
DROPIN = DROPIN_DIR + '/zz-pep493-https.conf'
SHIPPED = b"[https]\nverify=platform_default\n"
OURS = (b'# Managed by pep493.https.service_verification; edits here are overwritten.\n'
        b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=1\n')


def put(root, rel, data=SHIPPED):
    path = os.path.join(root, rel)
    if not os.path.isdir(os.path.dirname(path)):
        os.makedirs(os.path.dirname(path))
    with open(path, 'wb') as handle:
        handle.write(data)


def link(root, rel, target):
    path = os.path.join(root, rel)
    if not os.path.isdir(os.path.dirname(path)):
        os.makedirs(os.path.dirname(path))
    os.symlink(target.replace('<root>', root), path)


def mkdirs(root, rel):
    os.makedirs(os.path.join(root, rel))


def bound_socket(root, rel):
    mkdirs(root, os.path.dirname(rel))
    server = socket.socket(socket.AF_UNIX)
    server.bind(os.path.join(root, rel))
    server.close()  # the socket file stays


def fail_errno(monkeypatch, target, name, code):
    def raiser(*args, **kwargs):
        raise OSError(code, os.strerror(code))
    monkeypatch.setattr(target, name, raiser)


def fail_backup(root, monkeypatch):
    """The record of the file exists already: the backup is the first file this run writes."""
    put(root, CFG + history.RECORD_SUFFIX, history.render_record(SHIPPED, '2026-01-01@00:00:00Z'))
    fail_errno(monkeypatch, safe_file.os, 'write', errno.ENOSPC)


class Pem(object):
    """The PEM text of test certificates (tests/unit/ca_pki.py), made when a test runs, not at import."""

    def __init__(self, *names):
        self.names = names

    def text(self):
        return ''.join(ca_pki.text(name) for name in self.names)


def resolved(value, root):
    """``value`` with each Pem replaced by its text and ``<root>`` by the test's root."""
    if isinstance(value, Pem):
        return value.text()
    if isinstance(value, list):
        return [resolved(entry, root) for entry in value]
    if isinstance(value, dict):
        return dict((key, resolved(entry, root)) for key, entry in value.items())
    if isinstance(value, str):
        return value.replace('<root>', root)
    return value


def rhel(root, monkeypatch=None):
    ca_pki.lay_out(root, 'rhel')


def anchored(data, ours=True, name='acme'):
    """Set-up: a store laid out like RHEL's with ``data`` (bytes, or a Pem: written as this module
    writes it when ``ours``, else as it is) at ``name``."""
    def setup(root, monkeypatch):
        content = data
        if isinstance(data, Pem):
            content = store.render_anchor(name, x509.load_certificates(data.text())[0]) if ours else data.text().encode('ascii')
        put(ca_pki.lay_out(root, 'rhel'), name + '.pem', content)
    return setup


def system_bundle(root, monkeypatch=None):
    put(root, 'etc/ssl/certs/ca-certificates.crt', b'# the system bundle\n')


SVC_CA = dict(name='legacy-app', ca=Pem('acme'), reason='vendor CA', expires='2999-12-31')
SHADOW_LIKE = b''.join(b'%s:$6$%s:19000::\n' % (user, b'h' * 100) for user in (b'root', b'daemon', b'adm'))
SVC = dict(name='legacy-app', verify=False, reason='vendor CA')
# id: (module, arguments, set-up(root, monkeypatch))
CASES = {
    'cfg-verify-missing': ('cert_verification', dict(), None),
    'cfg-verify-unknown': ('cert_verification', dict(verify='Enable'), None),
    'cfg-state-unknown': ('cert_verification', dict(verify='enable', state='gone'), None),
    'cfg-verify-with-absent': ('cert_verification', dict(verify='enable', state='absent'), None),
    'cfg-verify-with-restored': ('cert_verification', dict(verify='enable', state='restored'), None),
    'cfg-restore-only-malformed': ('cert_verification', dict(state='restored'),
                                   lambda r, m: (put(r, CFG), put(r, CFG + BACKUP, b'verify=disable\n[https]\n'))),
    'cfg-restore-disable': ('cert_verification', dict(state='restored'),
                            lambda r, m: (put(r, CFG), put(r, CFG + BACKUP, b'[https]\nverify=disable\n'))),
    'cfg-mode-bad': ('cert_verification', dict(verify='enable', mode='0999'), lambda r, m: put(r, CFG)),
    'cfg-owner-unknown': ('cert_verification', dict(verify='enable', owner='no-such-user-pep493'), None),
    'cfg-attributes-unknown': ('cert_verification', dict(verify='enable', attributes='+Q'), None),
    'cfg-path-relative': ('cert_verification', dict(verify='enable', path='etc/x.cfg'), None),
    'cfg-root-not-a-folder': ('cert_verification', dict(verify='enable', root='<root>/nowhere'), None),
    'cfg-root-empty': ('cert_verification', dict(verify='enable', root=''), None),
    'cfg-create-false': ('cert_verification', dict(verify='enable', create=False), None),
    'cfg-text-before-section': ('cert_verification', dict(verify='enable'),
                                lambda r, m: put(r, CFG, b'verify=disable\n[https]\n')),
    'cfg-many-bad-lines': ('cert_verification', dict(verify='enable'),
                           lambda r, m: put(r, CFG, SHADOW_LIKE)),
    'cfg-junk-line': ('cert_verification', dict(verify='enable'),
                      lambda r, m: put(r, CFG, b'[https]\nverify=disable\nthis is junk\n')),
    'cfg-file-symlink': ('cert_verification', dict(verify='enable'),
                         lambda r, m: (put(r, 'etc/python/real.cfg'), link(r, CFG, 'real.cfg'))),
    'cfg-folder-symlink': ('cert_verification', dict(verify='enable'),
                           lambda r, m: (mkdirs(r, 'etc/real'), link(r, 'etc/python', 'real'))),
    'cfg-link-dangling': ('cert_verification', dict(verify='enable', follow=True),
                          lambda r, m: link(r, 'etc/python', '/etc/none')),
    'cfg-link-out-dotdot': ('cert_verification', dict(verify='enable', follow=True),
                            lambda r, m: link(r, 'etc/python', '../../..')),
    'cfg-link-loop': ('cert_verification', dict(verify='enable', follow=True),
                      lambda r, m: link(r, 'etc', 'etc')),
    'cfg-directory': ('cert_verification', dict(verify='enable'), lambda r, m: mkdirs(r, CFG)),
    'cfg-socket': ('cert_verification', dict(verify='enable'), lambda r, m: bound_socket(r, CFG)),
    'cfg-fifo': ('cert_verification', dict(verify='enable'),
                 lambda r, m: (mkdirs(r, 'etc/python'), os.mkfifo(os.path.join(r, CFG)))),
    'cfg-file-as-folder': ('cert_verification', dict(verify='enable'), lambda r, m: put(r, 'etc/python')),
    'cfg-link-to-file-as-folder': ('cert_verification', dict(verify='enable', follow=True),
                                   lambda r, m: (put(r, 'srv/plain'), link(r, 'etc/python', '../srv/plain'))),
    'cfg-trailing-slash': ('cert_verification', dict(verify='enable', path='/' + CFG + '/'), None),
    'cfg-path-above-root': ('cert_verification', dict(verify='enable', path='/../' + CFG), None),
    'cfg-too-large': ('cert_verification', dict(verify='enable'),
                      lambda r, m: put(r, CFG, b'[https]\n' + b'#' * cfg.MAX_CFG_SIZE + b'\n')),
    'cfg-unreadable': ('cert_verification', dict(verify='enable'),
                       lambda r, m: (put(r, CFG), fail_errno(m, safe_file.os, 'open', errno.EACCES))),
    'cfg-read-only': ('cert_verification', dict(verify='enable'),
                      lambda r, m: (put(r, CFG), fail_errno(m, safe_file.tempfile, 'mkstemp', errno.EROFS))),
    'cfg-disk-full': ('cert_verification', dict(verify='enable'),
                      lambda r, m: (put(r, CFG), fail_errno(m, safe_file.os, 'fsync', errno.ENOSPC))),
    'cfg-backup-fails': ('cert_verification', dict(verify='enable', backup=True),
                         lambda r, m: (put(r, CFG), fail_backup(r, m))),
    'ca-cas-missing': ('ca_trust', dict(), rhel),
    'ca-state-unknown': ('ca_trust', dict(cas=[dict(name='acme', content=Pem('acme'), state='gone')]), rhel),
    'ca-name-missing': ('ca_trust', dict(cas=[dict(content=Pem('acme'))]), rhel),
    'ca-name-path': ('ca_trust', dict(cas=[dict(name='../acme', content=Pem('acme'))]), rhel),
    'ca-name-extension': ('ca_trust', dict(cas=[dict(name='acme.crt', content=Pem('acme'))]), rhel),
    'ca-name-twice': ('ca_trust', dict(cas=[dict(name='acme', content=Pem('acme')),
                                            dict(name='acme', content=Pem('other'))]), rhel),
    'ca-content-missing': ('ca_trust', dict(cas=[dict(name='acme')]), rhel),
    'ca-content-garbage': ('ca_trust', dict(cas=[dict(name='acme', content='see the wiki')]), rhel),
    'ca-content-private-key': ('ca_trust', dict(cas=[dict(name='acme', content=Pem('acme.key', 'acme'))]), rhel),
    'ca-content-two-certificates': ('ca_trust', dict(cas=[dict(name='acme', content=Pem('acme', 'other'))]), rhel),
    'ca-content-not-a-ca': ('ca_trust', dict(cas=[dict(name='acme', content=Pem('leaf'))]), rhel),
    'fc-ca-name-control': ('verification_forecast', dict(cas=[dict(name='\x1b[31m', content=Pem('acme'))]), None),
    'fc-ca-content-garbage': ('verification_forecast', dict(cas=[dict(name='acme', content='see the wiki')]), None),
    'fc-ca-content-private-key': ('verification_forecast', dict(cas=[dict(name='acme', content=Pem('acme.key', 'acme'))]),
                                  None),
    'fc-ca-content-not-a-ca': ('verification_forecast', dict(cas=[dict(name='acme', content=Pem('leaf'))]), None),
    'fc-ca-content-expired': ('verification_forecast', dict(cas=[dict(name='acme', content=Pem('expired'))]), None),
    'fc-ca-services-bad': ('verification_forecast', dict(cas=[dict(name='acme', content=Pem('acme'),
                                                                   services=['legacy app'])]), None),
    'ca-content-no-constraints': ('ca_trust', dict(cas=[dict(name='acme', content=Pem('plain'))]), rhel),
    'ca-content-expired': ('ca_trust', dict(cas=[dict(name='acme', content=Pem('expired'))]), rhel),
    'ca-content-not-yet-valid': ('ca_trust', dict(cas=[dict(name='acme', content=Pem('future'))]), rhel),
    'ca-content-trusted-format': ('ca_trust', dict(cas=[dict(name='acme', content=Pem('trusted'))]), rhel),
    'ca-same-ca-twice': ('ca_trust', dict(cas=[dict(name='acme', content=Pem('acme')),
                                               dict(name='old', content=Pem('acme'), state='absent')]), rhel),
    'ca-expiry-days-negative': ('ca_trust', dict(cas=[dict(name='acme', content=Pem('acme'))], expiry_warning_days=-1),
                                rhel),
    'ca-root-empty': ('ca_trust', dict(cas=[dict(name='acme', content=Pem('acme'))], root=''), None),
    'ca-root-not-a-folder': ('ca_trust', dict(cas=[dict(name='acme', content=Pem('acme'))], root='<root>/nowhere'), None),
    'ca-no-store': ('ca_trust', dict(cas=[dict(name='acme', content=Pem('acme'))]),
                    lambda r, m: put(r, ca_pki.DEBIAN_TOOL, b'')),
    'ca-two-stores': ('ca_trust', dict(cas=[dict(name='acme', content=Pem('acme'))]),
                      lambda r, m: (ca_pki.lay_out(r, 'rhel'), ca_pki.lay_out(r, 'debian'))),
    'ca-foreign-file': ('ca_trust', dict(cas=[dict(name='acme', content=Pem('acme'))]), anchored(Pem('acme'), ours=False)),
    'ca-foreign-file-absent': ('ca_trust', dict(cas=[dict(name='acme', state='absent')]),
                               anchored(b'# from the wiki\n')),
    'ca-absent-other-ca': ('ca_trust', dict(cas=[dict(name='acme', content=Pem('other'), state='absent')]),
                           anchored(Pem('acme'))),
    'ca-folder-unsafe': ('ca_trust', dict(cas=[dict(name='acme', content=Pem('acme'))]),
                         lambda r, m: os.chmod(ca_pki.lay_out(r, 'rhel'), 0o775)),
    'ca-anchor-symlink': ('ca_trust', dict(cas=[dict(name='acme', content=Pem('acme'))]),
                          lambda r, m: os.symlink('/etc/pki/tls/certs/ca-bundle.crt',
                                                  os.path.join(ca_pki.lay_out(r, 'rhel'), 'acme.pem'))),
    'ca-debian-link-clash': ('ca_trust', dict(cas=[dict(name='ACCVRAIZ1', content=Pem('acme'))]),
                             lambda r, m: (ca_pki.lay_out(r, 'debian'),
                                           link(r, 'etc/ssl/certs/ACCVRAIZ1.pem',
                                                '/usr/share/ca-certificates/mozilla/ACCVRAIZ1.crt'))),
    'ca-read-only': ('ca_trust', dict(cas=[dict(name='acme', content=Pem('acme'))]),
                     lambda r, m: (rhel(r), fail_errno(m, safe_file.tempfile, 'mkstemp', errno.EROFS))),
    'svc-name-and-services': ('service_verification', dict(SVC, services=[dict(name='b', verify=True)]), None),
    'svc-no-name': ('service_verification', dict(verify=False), None),
    'svc-name-dotdot': ('service_verification', dict(SVC, name='../x'), None),
    'svc-name-path': ('service_verification', dict(SVC, name='/etc/passwd'), None),
    'svc-name-space': ('service_verification', dict(SVC, name='a b'), None),
    'svc-name-newline': ('service_verification', dict(SVC, name='a\nb'), None),
    'svc-name-equals': ('service_verification', dict(SVC, name='a=b'), None),
    'svc-name-percent': ('service_verification', dict(SVC, name='a%i'), None),
    'svc-name-control': ('service_verification', dict(SVC, name='a\x1bb'), None),
    'svc-name-empty': ('service_verification', dict(SVC, name=''), None),
    'svc-name-too-long': ('service_verification', dict(SVC, name='x' * 300), None),
    'svc-name-folder-too-long': ('service_verification', dict(SVC, name='x' * 246), None),
    'svc-name-socket': ('service_verification', dict(SVC, name='legacy-app.socket'), None),
    'svc-name-no-prefix': ('service_verification', dict(SVC, name='@.service'), None),
    'svc-instance-bad': ('service_verification', dict(SVC, name='worker@a b'), None),
    'svc-verify-missing': ('service_verification', dict(name='legacy-app'), None),
    'svc-absent-with-verify': ('service_verification', dict(name='legacy-app', state='absent', verify=True), None),
    'svc-reason-two-lines': ('service_verification', dict(SVC, reason='vendor CA\nEnvironment=X=1'), None),
    'svc-reason-invisible': ('service_verification', dict(SVC, reason=u'vendor\u200bCA'), None),
    'svc-reason-too-long': ('service_verification', dict(SVC, reason='r' * 201), None),
    'svc-reason-backslash': ('service_verification', dict(SVC, reason='see \\'), None),
    'svc-expires-not-a-date': ('service_verification', dict(SVC, expires='next week'), None),
    'svc-expires-wide-digits': ('service_verification',
                                dict(SVC, expires=u'\uff12\uff10\uff13\uff10-\uff10\uff11-\uff10\uff11'), None),
    'svc-expires-unreal': ('service_verification', dict(SVC, expires='2030-02-30'), None),
    'svc-dropin-name-path': ('service_verification', dict(SVC, dropin_name='../x.conf'), None),
    'svc-dropin-name-suffix': ('service_verification', dict(SVC, dropin_name='x.txt'), None),
    'svc-dropin-name-too-long': ('service_verification', dict(SVC, dropin_name='d' * 251 + '.conf'), None),
    'svc-unit-dir-relative': ('service_verification', dict(SVC, unit_dir='etc/systemd/system'), None),
    'svc-exclusive-without-services': ('service_verification', dict(SVC, exclusive=True), None),
    'svc-service-twice': ('service_verification',
                          dict(services=[dict(name='a', verify=True), dict(name='a.service', verify=False)]), None),
    'svc-batch-one-bad': ('service_verification',
                          dict(services=[dict(name='good', verify=True), dict(name='bad name', verify=False)]), None),
    'svc-foreign-file': ('service_verification', dict(SVC), lambda r, m: put(r, DROPIN, b'[Service]\nX=1\n')),
    'svc-folder-symlink': ('service_verification', dict(SVC), lambda r, m: link(r, DROPIN_DIR, '/tmp')),
    'svc-dropin-symlink': ('service_verification', dict(SVC),
                           lambda r, m: (put(r, DROPIN_DIR + '/real.conf', OURS), link(r, DROPIN, 'real.conf'))),
    'svc-folder-unsafe': ('service_verification', dict(SVC),
                          lambda r, m: (mkdirs(r, DROPIN_DIR), os.chmod(os.path.join(r, DROPIN_DIR), 0o777))),
    'svc-fifo': ('service_verification', dict(SVC),
                 lambda r, m: (mkdirs(r, DROPIN_DIR), os.mkfifo(os.path.join(r, DROPIN)))),
    'svc-ca-with-verify-false': ('service_verification', dict(SVC_CA, verify=False), system_bundle),
    'svc-ca-garbage': ('service_verification', dict(SVC_CA, ca='see the wiki'), system_bundle),
    'svc-ca-not-a-ca': ('service_verification', dict(SVC_CA, ca=Pem('leaf')), system_bundle),
    'svc-ca-expired': ('service_verification', dict(SVC_CA, ca=Pem('expired')), system_bundle),
    'svc-ca-private-key': ('service_verification', dict(SVC_CA, ca=Pem('acme.key', 'acme')), system_bundle),
    'svc-ca-no-system-bundle': ('service_verification', dict(SVC_CA), None),
    'svc-ca-foreign-bundle': ('service_verification', dict(SVC_CA),
                              lambda r, m: (system_bundle(r), put(r, 'etc/pki/pep493-https/legacy-app.service.pem',
                                                                  b'mine\n'))),
    'svc-ca-bundle-folder-unsafe': ('service_verification', dict(SVC_CA),
                                    lambda r, m: (system_bundle(r), mkdirs(r, 'etc/pki/pep493-https'),
                                                  os.chmod(os.path.join(r, 'etc/pki/pep493-https'), 0o777))),
    'svc-read-only': ('service_verification', dict(SVC),
                      lambda r, m: (put(r, DROPIN, OURS), fail_errno(m, safe_file.tempfile, 'mkstemp', errno.EROFS))),
    'svc-handmade-name': ('service_verification', dict(SVC, remove_handmade=['legacy app']), None),
    'svc-handmade-continued': ('service_verification', dict(SVC, remove_handmade=['legacy-app']),
                               lambda r, m: put(r, DROPIN_DIR + '/override.conf',
                                                b'[Service]\nEnvironment=A=1 \\\n  PYTHONHTTPSVERIFY=0\n')),
    'svc-handmade-link': ('service_verification', dict(SVC, remove_handmade=['legacy-app']),
                          lambda r, m: (put(r, 'etc/override.conf', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n'),
                                        link(r, DROPIN_DIR + '/override.conf', '../../override.conf'))),
}


def table_rows(modules=tuple(MODULES)):
    """{id: message} from docs/errors.md (rows ``| `id` | module | input | `message` |``) whose module
    is one of ``modules`` (None: every row; the policy role's rows are checked by
    tests/unit/plugins/action/test_verification_policy.py, on the controller's Python)."""
    rows = {}
    with io.open(TABLE, encoding='utf-8') as handle:
        for line in handle:
            match = re.match(r'^\| `([a-z0-9-]+)` \| ([a-z_]+) \|.*\| `(.*)` \|\s*$', line)
            if match and (modules is None or match.group(2) in modules):
                rows[match.group(1)] = match.group(3).replace('\\|', '|')
    return rows


def snapshot(root):
    seen = []
    for folder, dirs, files in os.walk(root):
        seen.extend(os.path.join(folder, name) for name in dirs + files)
    return sorted(seen)


def run_failing(module, args, capsys):
    args = dict(args, _ansible_check_mode=False, _ansible_diff=False)
    capsys.readouterr()
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            module.main()
    return json.loads(capsys.readouterr().out)


def normalised(message, root):
    return message.replace(root, '<root>')  # the same text on Python 2.7 and 3: no u'...' to undo


def test_every_row_has_a_case_and_every_case_a_row():
    assert sorted(table_rows()) == sorted(CASES)


def test_every_row_names_a_module_or_the_policy_role():
    assert sorted(table_rows(None)) == sorted(list(CASES) + list(table_rows(['policy'])))


def test_the_reliability_figures_give_the_size_of_the_table():
    with io.open(RELIABILITY, encoding='utf-8') as handle:
        figures = re.findall(r'^\| bad-input table \| (\d+) rows, (\d+) tests \|$', handle.read(), re.M)
    # each policy row has its one test in test_verification_policy.py (which checks that it has)
    tests = len(CASES) + len(table_rows(['policy']))
    assert figures == [(str(len(table_rows(None))), str(tests))], 'docs/reliability.md says %r' % figures


@pytest.mark.parametrize('case', sorted(CASES))
def test_refused_with_the_documented_message(case, tmp_path, monkeypatch, capsys):
    module, args, setup = CASES[case]
    root = os.path.realpath(str(tmp_path))
    args = resolved(args, root)
    args.setdefault('root', root)
    if setup:
        setup(root, monkeypatch)
    before = snapshot(root)
    result = run_failing(MODULES[module], args, capsys)
    monkeypatch.undo()
    assert result.get('failed'), result
    assert normalised(result['msg'], root) == table_rows()[case]
    assert snapshot(root) == before
