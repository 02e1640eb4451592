# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""service_verification with a CA: the service's own bundle (system bundle + the CA) and the drop-in
naming it, kept in step with the system bundle, removed with the exception, and every refusal."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import stat

import pytest

from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.plugins.module_utils._trust import service_bundle, store, x509
from ansible_collections.pep493.https.plugins.modules import service_verification, verification_info
from ansible_collections.pep493.https.tests.unit import ca_pki
from ansible_collections.pep493.https.tests.unit.tree import read, snapshot, write

SYSTEM = {'debian': 'etc/ssl/certs/ca-certificates.crt', 'rhel': 'etc/pki/tls/certs/ca-bundle.crt'}
SYSTEM_DATA = b'# a system bundle\n' + b'-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'
FUTURE = '2999-12-31'
DROPIN = 'etc/systemd/system/legacy-app.service.d/zz-pep493-https.conf'
BUNDLE = 'etc/pki/pep493-https/legacy-app.service.pem'


def cert(name):
    return x509.load_certificates(ca_pki.pem(name))[0]


def host(tmp_path, family='debian', data=SYSTEM_DATA):
    root = os.path.realpath(str(tmp_path))
    write(root, SYSTEM[family], data)
    return root


def call(root, **kwargs):
    options = dict(name='legacy-app', ca=ca_pki.text('acme'), reason='vendor API on the Acme CA', expires=FUTURE)
    options.update(kwargs)
    options['root'] = root
    return options


@pytest.mark.parametrize('family', ['debian', 'rhel'])
def test_ca_writes_the_bundle_and_a_dropin_naming_it_once(run_module, tmp_path, family):
    root = host(tmp_path, family)
    result = run_module.ok(service_verification, call(root))
    acme = cert('acme')
    path = '/' + BUNDLE
    assert read(os.path.join(root, DROPIN)) == dropin.render_dropin(
        True, 'vendor API on the Acme CA', FUTURE, ca=(acme.sha256_fingerprint, path))
    text = read(os.path.join(root, DROPIN)).decode('ascii')
    for line in ('Environment=PYTHONHTTPSVERIFY=1', 'Environment=SSL_CERT_FILE=' + path,
                 'Environment=REQUESTS_CA_BUNDLE=' + path):
        assert line in text.split('\n')
    bundle = read(os.path.join(root, BUNDLE))
    assert bundle == service_bundle.render_bundle('/' + SYSTEM[family], SYSTEM_DATA, acme)
    assert SYSTEM_DATA in bundle and bundle.endswith(service_bundle.certificate_pem(acme))
    assert [c.sha256_fingerprint for c in x509.load_certificates(bundle[bundle.index(b'-----BEGIN CERTIFICATE-----\nM'):])] \
        == [acme.sha256_fingerprint]
    assert stat.S_IMODE(os.stat(os.path.join(root, BUNDLE)).st_mode) == 0o644
    shown = result['services'][0]
    assert (result['changed'], shown['verify'], shown['action']) == (True, True, 'created')
    assert shown['ca'] == dict(subject=ca_pki.SUBJECTS['acme'], sha256_fingerprint=acme.sha256_fingerprint,
                               not_after=acme.not_after.date().isoformat(), bundle=path, bundle_action='created')
    assert not [w for w in result['warnings'] if 'insecure' in w]

    before = snapshot(root)
    again = run_module.ok(service_verification, call(root))
    assert (again['changed'], again['services'][0]['action'], again['services'][0]['ca']['bundle_action']) == \
        (False, 'unchanged', 'unchanged')
    assert snapshot(root) == before


def test_a_changed_system_bundle_rebuilds_the_service_bundle(run_module, tmp_path):
    root = host(tmp_path)
    run_module.ok(service_verification, call(root))
    dropin_before = read(os.path.join(root, DROPIN))
    state, _header = service_bundle.bundle_state(service_bundle_files(root), '/' + BUNDLE)
    assert state == service_bundle.CURRENT
    changed = SYSTEM_DATA + b'# one more CA\n'
    write(root, SYSTEM['debian'], changed)
    assert service_bundle.bundle_state(service_bundle_files(root), '/' + BUNDLE)[0] == service_bundle.STALE
    result = run_module.ok(service_verification, call(root))
    assert (result['changed'], result['services'][0]['action'], result['services'][0]['ca']['bundle_action']) == \
        (True, 'updated', 'updated')
    assert read(os.path.join(root, BUNDLE)) == service_bundle.render_bundle('/' + SYSTEM['debian'], changed, cert('acme'))
    assert read(os.path.join(root, DROPIN)) == dropin_before
    assert service_bundle.bundle_state(service_bundle_files(root), '/' + BUNDLE)[0] == service_bundle.CURRENT


def service_bundle_files(root):
    from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
    return hostfiles.HostFiles(root)


def test_absent_removes_the_dropin_and_the_bundle(run_module, tmp_path):
    root = host(tmp_path)
    run_module.ok(service_verification, call(root))
    result = run_module.ok(service_verification, dict(name='legacy-app', state='absent', root=root))
    assert result['changed'] is True
    assert not os.path.exists(os.path.join(root, DROPIN))
    assert not os.path.exists(os.path.join(root, BUNDLE))
    assert read(os.path.join(root, SYSTEM['debian'])) == SYSTEM_DATA


def test_exclusive_removal_takes_the_bundle_too(run_module, tmp_path):
    root = host(tmp_path)
    run_module.ok(service_verification, call(root))
    run_module.ok(service_verification, dict(root=root, services=[dict(name='other', verify=True)], exclusive=True))
    assert not os.path.exists(os.path.join(root, DROPIN))
    assert not os.path.exists(os.path.join(root, BUNDLE))


def test_from_ca_to_an_opt_out_removes_the_bundle(run_module, tmp_path):
    root = host(tmp_path)
    run_module.ok(service_verification, call(root))
    result = run_module.ok(service_verification, call(root, ca=None, verify=False))
    assert result['services'][0]['ca'] is None and result['changed'] is True
    assert b'PYTHONHTTPSVERIFY=0' in read(os.path.join(root, DROPIN))
    assert b'SSL_CERT_FILE' not in read(os.path.join(root, DROPIN))
    assert not os.path.exists(os.path.join(root, BUNDLE))


def test_check_mode_writes_nothing_and_diff_shows_the_bundle_header(run_module, tmp_path):
    root = host(tmp_path)
    before = snapshot(root)
    result = run_module.ok(service_verification, call(root), check_mode=True, diff=True)
    assert snapshot(root) == before
    assert result['changed'] is True and result['services'][0]['ca']['bundle_action'] == 'created'
    headers = [entry['after_header'] for entry in result['diff']]
    assert headers == [os.path.join(root, DROPIN), os.path.join(root, BUNDLE)]
    assert result['diff'][1]['after'].startswith(service_bundle.MARKER.decode('ascii'))
    assert 'sha256:' in result['diff'][1]['after'] and 'BEGIN CERTIFICATE' not in result['diff'][1]['after']


@pytest.mark.parametrize('options, message', [
    (dict(verify=False), 'name (legacy-app.service): ca and verify=false contradict each other: a CA makes the '
                         'service verify HTTPS against it; drop verify, or drop ca for an opt-out'),
    (dict(ca='garbage'), 'name (legacy-app.service): ca: holds no certificate (no -----BEGIN CERTIFICATE----- block, '
                         'and not DER)'),
    (dict(ca='leaf'), "name (legacy-app.service): ca: 'CN = leaf.example' is not a CA certificate (its "
                      "basicConstraints says CA:FALSE)"),
    (dict(ca='expired'), "name (legacy-app.service): ca: '%s' expired on 2021-01-01 00:00:00 UTC"
                         % ca_pki.SUBJECTS['expired']),
])
def test_a_bad_ca_is_refused_naming_the_item_and_nothing_is_written(run_module, tmp_path, options, message):
    root = host(tmp_path)
    if options.get('ca') in ('leaf', 'expired'):
        options = dict(ca=ca_pki.text(options['ca']))
    before = snapshot(root)
    result = run_module.fail(service_verification, call(root, **options))
    assert result['msg'] == 'Nothing was changed: ' + message
    assert snapshot(root) == before


def test_no_system_bundle_is_refused(run_module, tmp_path):
    root = os.path.realpath(str(tmp_path))
    result = run_module.fail(service_verification, call(root))
    assert result['msg'] == ('Nothing was changed: name (legacy-app.service): ca: no system CA bundle found (looked for '
                             '%s/etc/pki/tls/certs/ca-bundle.crt and %s/etc/ssl/certs/ca-certificates.crt); install the '
                             'ca-certificates package' % (root, root))
    assert os.listdir(root) == []


def test_a_foreign_file_at_the_bundle_is_left_alone(run_module, tmp_path):
    root = host(tmp_path)
    write(root, BUNDLE, b'mine\n')
    before = snapshot(root)
    result = run_module.fail(service_verification, call(root))
    assert result['msg'].startswith('Nothing was changed: name (legacy-app.service): ca: %s exists but was not written '
                                    'by this module' % os.path.join(root, BUNDLE))
    assert snapshot(root) == before


def test_the_system_bundles_are_the_trust_stores_own():
    assert service_bundle.SYSTEM_BUNDLES == tuple(family.bundle for family in store.FAMILIES)


def test_a_unit_name_with_an_escape_gets_a_digest_for_its_bundle():
    assert service_bundle.bundle_path('legacy-app.service') == '/etc/pki/pep493-https/legacy-app.service.pem'
    escaped = service_bundle.bundle_path('a\\x2db.service')
    assert escaped.startswith('/etc/pki/pep493-https/unit-') and '\\' not in escaped
    assert escaped != service_bundle.bundle_path('a\\x2dc.service')


def test_the_audit_reports_a_trusting_exception_and_its_stale_bundle(run_module, tmp_path):
    root = host(tmp_path)
    write(root, 'usr/lib/systemd/system/legacy-app.service',
          b'[Service]\nExecStart=/usr/bin/python3 /opt/app.py\n')
    run_module.ok(service_verification, call(root))
    report = run_module.ok(verification_info, dict(root=root, probe=False))
    record = [s for s in report['services'] if s['unit'] == 'legacy-app.service'][0]
    acme = cert('acme')
    assert (record['managed'], record['value'], record['verify']) == (True, '1', True)
    assert record['ca'] == dict(sha256_fingerprint=acme.sha256_fingerprint, subject=ca_pki.SUBJECTS['acme'],
                                bundle='/' + BUNDLE, bundle_state='current')
    summary = report['summary']
    assert (summary['trusting'], summary['stale_bundles'], summary['opt_outs'], summary['ineffective']) == (1, 0, 0, 0)
    assert not [f for f in summary['findings'] if f.startswith('legacy-app.service')]

    write(root, SYSTEM['debian'], SYSTEM_DATA + b'# a CA more\n')
    stale = run_module.ok(verification_info, dict(root=root, probe=False))
    record = [s for s in stale['services'] if s['unit'] == 'legacy-app.service'][0]
    assert record['ca']['bundle_state'] == 'stale' and stale['summary']['stale_bundles'] == 1
    assert [f for f in stale['summary']['findings'] if f.startswith('legacy-app.service')] == [
        'legacy-app.service: the CA bundle /%s its exception trusts (%s) is stale (the system bundle changed since it '
        'was built: CAs added to or removed from the host are not in it); run pep493.https.service_verification (the '
        'policy) again to rebuild it from the system bundle.' % (BUNDLE, '/' + DROPIN)]

    os.remove(os.path.join(root, BUNDLE))
    gone = run_module.ok(verification_info, dict(root=root, probe=False))
    assert [s for s in gone['services'] if s['unit'] == 'legacy-app.service'][0]['ca']['bundle_state'] == 'missing'
