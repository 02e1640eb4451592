# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which configured CA fixes an untrusted endpoint: matched by issuer and key identifier, then
proven by a second probe against real TLS servers on loopback, made by this test's own interpreter
(Python 2.7 on the legacy leg, 3 on the other)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import io
import os
import subprocess
import sys
import tempfile

import pytest

from ansible_collections.pep493.https.plugins.module_utils._forecast import ca_fix
from ansible_collections.pep493.https.plugins.module_utils._forecast import targets as forecast
from ansible_collections.pep493.https.plugins.module_utils._forecast import tlsprobe
from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._trust import x509
from ansible_collections.pep493.https.tests.unit import ca_pki
from ansible_collections.pep493.https.tests.unit import tls_servers

PATH = {'PATH': '/usr/bin:/bin', 'LC_ALL': 'C'}
SYSTEM_BUNDLE = 'etc/ssl/certs/ca-certificates.crt'


def read(path):
    with open(path, 'rb') as handle:
        return handle.read()


@pytest.fixture(scope='module')
def fixture(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp('certs'))
    certs = tls_servers.make_certificates(folder)
    # a CA of the same name as the test CA, another key, and no key identifier to tell them apart
    subprocess.check_call(['openssl', 'req', '-x509'] + tls_servers.EC + [
        '-keyout', 'rekeyed.key', '-out', 'rekeyed.pem', '-days', '30', '-subj', '/CN=Forecast Test CA',
        '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
        '-addext', 'subjectKeyIdentifier=none', '-addext', 'authorityKeyIdentifier=none'],
        cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    certs['rekeyed'] = (os.path.join(folder, 'rekeyed.pem'), os.path.join(folder, 'rekeyed.key'))
    certs['chained'] = chained(folder)
    servers = dict((name, tls_servers.Server('tls', certs[name]))
                   for name in ('self_signed', 'private', 'mismatch', 'chained'))
    yield certs, servers
    for server in servers.values():
        server.close()


def chained(folder):
    """(chain, key) of a server whose certificate an intermediate CA issued, the test CA its root:
    the server sends its certificate and the intermediate, as a CA hierarchy's servers do."""
    def openssl(*args):
        subprocess.check_call(('openssl',) + args, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with open(os.path.join(folder, 'intermediate.ext'), 'w') as handle:
        handle.write('basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n'
                     'subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid,issuer\n')
    with open(os.path.join(folder, 'chained.ext'), 'w') as handle:
        handle.write('subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n'
                     'keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n'
                     'subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid,issuer\n')
    for name, issuer, subject in (('intermediate', 'ca', '/CN=Forecast Test Issuing CA'),
                                  ('chained', 'intermediate', '/CN=chained')):
        openssl('req', *(tls_servers.EC + ['-keyout', name + '.key', '-out', name + '.csr', '-subj', subject]))
        openssl('x509', '-req', '-in', name + '.csr', '-CA', issuer + '.pem', '-CAkey', issuer + '.key',
                '-set_serial', str(len(name)), '-out', name + '.pem', '-days', '30', '-extfile', name + '.ext')
    with open(os.path.join(folder, 'chained-full.pem'), 'wb') as handle:
        handle.write(read(os.path.join(folder, 'chained.pem')) + read(os.path.join(folder, 'intermediate.pem')))
    return os.path.join(folder, 'chained-full.pem'), os.path.join(folder, 'chained.key')


@pytest.fixture
def host_root(tmp_path):
    """A tree whose system bundle holds an unrelated CA (the test CA is not in it)."""
    path = tmp_path / 'root' / SYSTEM_BUNDLE
    path.parent.mkdir(parents=True)
    path.write_bytes(ca_pki.pem('other'))
    return hostfiles.HostFiles(str(tmp_path / 'root'))


def configured(certs, name='acme-root', which='ca', services=()):
    return ca_fix.ConfiguredCa(name, x509.load_certificates(read(certs[which][0]))[0], set(services))


def probed(servers, names=('private',), service='legacy.service', environment=None, server_name='localhost'):
    target = forecast.Target(service, sys.executable, dict(environment or PATH))
    for name in names:
        target.add_endpoint('127.0.0.1', servers[name].port, server_name, forecast.DECLARED)
    forecast.probe_targets([target], 5.0, 30.0, 50)
    return target


def test_the_probe_hands_over_the_peer_certificate(fixture):
    certs, servers = fixture
    [endpoint] = probed(servers).endpoints
    assert endpoint['result'] == 'untrusted'
    peer = ca_fix.peer_certificate(endpoint)
    assert peer.sha256_fingerprint == x509.load_certificates(read(certs['private'][0]))[0].sha256_fingerprint


def test_a_host_wide_ca_that_issued_the_certificate_is_proven_to_fix_it(fixture, host_root):
    certs, servers = fixture
    target = probed(servers)
    assert ca_fix.try_cas([target], [configured(certs)], host_root, 5.0, 30.0) == 1
    [endpoint] = target.endpoints
    assert endpoint['result'] == 'untrusted'      # what the host gives today stays
    assert endpoint['fixed_by'] == 'acme-root'
    trust = endpoint['trust']
    assert (trust['ca'], trust['scope'], trust['result'], trust['error']) == ('acme-root', 'host', 'ok', None)
    assert trust['matched_by'] == 'issuer name and key identifier' and trust['subject'] == 'CN = Forecast Test CA'
    found, why = forecast.verdict(dict_usage(target), False)
    assert found == 'ok' and why.startswith('fixed by trusting acme-root: '), why


def dict_usage(target, governed=True):
    target.usage = dict(governed=governed, why='it uses urllib2 (agent.py line 3)', stacks={})
    return target


def test_without_a_ca_that_names_the_issuer_nothing_is_probed_again(fixture, host_root):
    certs, servers = fixture
    target = probed(servers, ('self_signed',))
    calls = []
    assert ca_fix.try_cas([target], [configured(certs)], host_root, 5.0, 30.0, run=calls.append) == 0
    assert calls == [] and 'trust' not in target.endpoints[0]
    found, why = forecast.verdict(dict_usage(target), False)
    assert found == 'would_break' and 'trusting' not in why


def test_a_root_ca_whose_intermediate_issued_the_certificate_is_proven_to_fix_it(fixture, host_root):
    # the certificate names the intermediate, no CA of the policy: the root is tried for the chain
    # the server sends, and the second probe proves it
    certs, servers = fixture
    target = probed(servers, ('chained',))
    assert ca_fix.try_cas([target], [configured(certs, 'acme-rekeyed', 'rekeyed'), configured(certs)],
                          host_root, 5.0, 30.0) == 2
    [endpoint] = target.endpoints
    assert endpoint['result'] == 'untrusted' and endpoint['fixed_by'] == 'acme-root'
    trust = endpoint['trust']
    assert (trust['ca'], trust['result'], trust['matched_by']) == ('acme-root', 'ok', ca_fix.BY_CHAIN)
    found, why = forecast.verdict(dict_usage(target), False)
    assert found == 'ok' and why.startswith('fixed by trusting acme-root: '), why


def test_a_ca_tried_for_the_chain_that_does_not_fix_it_is_not_reported(fixture, host_root):
    # neither CA issued the chain: nothing is claimed, as when no CA was tried
    certs, servers = fixture
    target = probed(servers, ('chained',))
    assert ca_fix.try_cas([target], [configured(certs, 'acme-rekeyed', 'rekeyed')], host_root, 5.0, 30.0) == 1
    [endpoint] = target.endpoints
    assert 'trust' not in endpoint and 'fixed_by' not in endpoint
    found, why = forecast.verdict(dict_usage(target), False)
    assert found == 'would_break' and 'trusting' not in why


def test_a_ca_of_the_same_name_that_the_second_probe_does_not_confirm_stays_a_break(fixture, host_root):
    certs, servers = fixture
    target = probed(servers)
    ca_fix.try_cas([target], [configured(certs, 'acme-rekeyed', 'rekeyed')], host_root, 5.0, 30.0)
    [endpoint] = target.endpoints
    assert endpoint['fixed_by'] is None
    assert endpoint['trust']['matched_by'] == 'issuer name only' and endpoint['trust']['result'] == 'untrusted'
    found, why = forecast.verdict(dict_usage(target), False)
    assert found == 'would_break'
    assert 'trusting acme-rekeyed (it names the issuer, issuer name only) does not fix it: untrusted' in why


def test_of_two_candidates_the_one_the_second_probe_confirms_is_named(fixture, host_root):
    certs, servers = fixture
    target = probed(servers)
    cas = [configured(certs, 'acme-rekeyed', 'rekeyed'), configured(certs)]
    assert ca_fix.try_cas([target], cas, host_root, 5.0, 30.0) == 2
    assert target.endpoints[0]['fixed_by'] == 'acme-root' and target.endpoints[0]['trust']['ca'] == 'acme-root'


def test_a_trusted_chain_for_another_name_is_not_a_fix(fixture, host_root):
    certs, servers = fixture
    target = probed(servers, ('mismatch',))
    ca_fix.try_cas([target], [configured(certs)], host_root, 5.0, 30.0)
    [endpoint] = target.endpoints
    assert endpoint['result'] == 'untrusted' and endpoint['fixed_by'] is None
    assert endpoint['trust']['result'] == 'hostname_mismatch'
    found, why = forecast.verdict(dict_usage(target), False)
    assert found == 'would_break' and 'does not fix it: hostname_mismatch' in why


def test_a_service_s_own_ca_applies_to_that_service_only(fixture, host_root):
    certs, servers = fixture
    own = configured(certs, 'legacy-ca', services=['legacy.service'])
    legacy, other = probed(servers), probed(servers, service='other.service')
    ca_fix.try_cas([legacy, other], [own], host_root, 5.0, 30.0)
    assert legacy.endpoints[0]['fixed_by'] == 'legacy-ca' and legacy.endpoints[0]['trust']['scope'] == 'service'
    assert 'trust' not in other.endpoints[0]


def test_host_wide_scripts_get_host_wide_cas_only(fixture, host_root):
    certs, servers = fixture
    scripts = probed(servers, service=None)
    ca_fix.try_cas([scripts], [configured(certs, 'legacy-ca', services=['legacy.service'])], host_root, 5.0, 30.0)
    assert 'trust' not in scripts.endpoints[0]
    ca_fix.try_cas([scripts], [configured(certs)], host_root, 5.0, 30.0)
    assert scripts.endpoints[0]['fixed_by'] == 'acme-root'


def test_a_host_wide_ca_does_not_reach_a_service_with_its_own_ssl_cert_file(fixture, host_root, tmp_path):
    certs, servers = fixture
    target = probed(servers, environment=dict(PATH, SSL_CERT_FILE=certs['self_signed'][0]))
    calls = []
    assert ca_fix.try_cas([target], [configured(certs)], host_root, 5.0, 30.0, run=calls.append) == 0
    trust = target.endpoints[0]['trust']
    assert target.endpoints[0]['fixed_by'] is None and trust['result'] is None and calls == []
    assert trust['error'] == ("not probed again: its SSL_CERT_FILE names '%s', not the system bundle "
                              "/etc/ssl/certs/ca-certificates.crt that a host-wide CA joins" % certs['self_signed'][0])
    # a service's own CA replaces its SSL_CERT_FILE, as its drop-in does
    ca_fix.try_cas([target], [configured(certs, 'own', services=['legacy.service'])], host_root, 5.0, 30.0)
    assert target.endpoints[0]['fixed_by'] == 'own'


def test_without_a_system_bundle_nothing_is_proven(fixture, tmp_path):
    certs, servers = fixture
    target = probed(servers)
    (tmp_path / 'empty').mkdir()
    ca_fix.try_cas([target], [configured(certs)], hostfiles.HostFiles(str(tmp_path / 'empty')), 5.0, 30.0)
    endpoint = target.endpoints[0]
    assert endpoint['fixed_by'] is None and endpoint['trust']['result'] is None
    assert endpoint['trust']['error'].startswith('not probed again: no system CA bundle found')


def test_without_a_system_bundle_a_ca_tried_for_the_chain_is_not_reported(fixture, tmp_path):
    certs, servers = fixture
    target = probed(servers, ('chained',))
    (tmp_path / 'empty').mkdir()
    assert ca_fix.try_cas([target], [configured(certs)], hostfiles.HostFiles(str(tmp_path / 'empty')), 5.0, 30.0) == 0
    assert 'trust' not in target.endpoints[0] and 'fixed_by' not in target.endpoints[0]


def test_the_second_probe_reads_the_system_bundle_and_the_ca_from_a_private_folder_removed_after(
        fixture, host_root, tmp_path, monkeypatch):
    certs, servers = fixture
    target = probed(servers)
    monkeypatch.setattr(tempfile, 'tempdir', str(tmp_path / 'temp'))
    (tmp_path / 'temp').mkdir()
    seen = []

    def run(groups, timeout, budget):
        for group in groups:
            path = group.environment['SSL_CERT_FILE']
            seen.append((oct(os.stat(os.path.dirname(path)).st_mode & 0o777), read(path)))
        return tlsprobe.run_groups(groups, timeout, budget)

    ca_fix.try_cas([target], [configured(certs)], host_root, 5.0, 30.0, run=run)
    [(mode, bundle)] = seen
    assert mode in ('0700', '0o700')
    assert ca_pki.pem('other') in bundle and read(certs['ca'][0]).strip() in bundle.replace(b'\r', b'')
    assert os.listdir(str(tmp_path / 'temp')) == []
    assert target.endpoints[0]['fixed_by'] == 'acme-root'


def fake_requests(site, where='/nonexistent'):
    (site / 'requests').mkdir(parents=True)
    io.open(str(site / 'requests' / '__init__.py'), 'w').write(u"__version__ = '2.27.1'\n")
    io.open(str(site / 'requests' / 'certs.py'), 'w').write(u"def where():\n    return %r\n" % where)


def test_requests_gets_a_service_s_own_ca_but_not_a_host_wide_one_when_it_has_its_own_bundle(
        fixture, host_root, tmp_path):
    certs, servers = fixture
    fake_requests(tmp_path / 'site')
    environment = dict(PATH, PYTHONPATH=str(tmp_path / 'site'), REQUESTS_CA_BUNDLE=certs['self_signed'][0])
    host_wide, own = probed(servers, environment=environment), probed(servers, environment=environment)
    assert host_wide.endpoints[0]['requests']['result'] == 'untrusted'
    ca_fix.try_cas([host_wide], [configured(certs)], host_root, 5.0, 30.0)
    ca_fix.try_cas([own], [configured(certs, 'own', services=['legacy.service'])], host_root, 5.0, 30.0)
    assert host_wide.endpoints[0]['trust']['requests']['result'] == 'untrusted'
    assert own.endpoints[0]['trust']['requests']['result'] == 'ok'
    stacks = dict(requests=dict(used=True), stdlib=dict(used=True))
    host_wide.usage = own.usage = dict(governed=True, why='it uses urllib2 and requests', stacks=stacks)
    assert forecast.verdict(own, False)[0] == 'ok'
    found, why = forecast.verdict(host_wide, False)
    assert found == 'already_failing' and 'requests' in why


def test_the_forecast_s_cas_are_checked_as_ca_trust_checks_them():
    now = ca_pki.now_after_making()
    [ca] = ca_fix.validate_cas([dict(name='acme', content=ca_pki.text('acme'), services=['legacy'])], now,
                               lambda name: name + '.service')
    assert ca.services == set(['legacy.service']) and ca.scope == 'service'
    for item, message in (
            (dict(name='', content=ca_pki.text('acme')), "cas[0].name '': give the name"),
            (dict(name='a\nb', content=ca_pki.text('acme')), "cas[0].name 'a\\nb': give the name"),
            (dict(name='leaf', content=ca_pki.text('leaf')), "cas[0].content: 'CN = leaf.example' is not a CA"),
            (dict(name='old', content=ca_pki.text('expired')), "cas[0].content: 'O = Acme, CN = Acme Expired Root' "
                                                               "expired on 2021-01-01 00:00:00 UTC"),
            (dict(name='junk', content='junk'), 'cas[0].content: holds no certificate')):
        with pytest.raises(ValueError) as caught:
            ca_fix.validate_cas([item], now)
        assert str(caught.value).startswith(message), caught.value
    assert ca_fix.validate_cas([], dates.utc_now()) == []
    # a name beyond ASCII is taken as it is, given as text or as its UTF-8 bytes (Python 2's options)
    for name in (u'Caf\xe9 Root', u'Caf\xe9 Root'.encode('utf-8')):
        [ca] = ca_fix.validate_cas([dict(name=name, content=ca_pki.text('acme'))], now)
        assert ca.name == u'Caf\xe9 Root' and ca.scope == 'host'
