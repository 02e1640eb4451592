# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The TLS probe against real servers on loopback, run by this test's own interpreter (Python
2.7 on the legacy leg, 3 on the other): every result it can give."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import sys

import pytest

from ansible_collections.pep493.https.plugins.module_utils._forecast import tlsprobe
from ansible_collections.pep493.https.tests.unit import tls_servers

PATH = {'PATH': '/usr/bin:/bin', 'LC_ALL': 'C'}


@pytest.fixture(scope='module')
def fixture(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp('certs'))
    certs = tls_servers.make_certificates(folder)
    servers = dict((name, tls_servers.Server('tls', certs[name]))
                   for name in ('self_signed', 'private', 'mismatch', 'expired'))
    servers['plain'] = tls_servers.Server('plain')
    yield certs, servers
    for server in servers.values():
        server.close()


def probe(endpoints, environment=None, timeout=5.0, budget=30.0, interpreter=None):
    group = tlsprobe.Group(interpreter or sys.executable, dict(environment or PATH), endpoints)
    tlsprobe.run_groups([group], timeout, budget)
    return group.answer


def endpoint(server, name='localhost'):
    return dict(host='127.0.0.1', port=server.port, server_name=name)


def trusting(certs):
    return dict(PATH, SSL_CERT_FILE=certs['ca'][0])


def test_self_signed_is_untrusted_and_its_certificate_is_read(fixture):
    _certs, servers = fixture
    answer = probe([endpoint(servers['self_signed'])])
    [found] = answer['results']
    assert found['result'] == 'untrusted', found
    assert found['peer']['subject'] == 'commonName=localhost'
    assert found['peer']['issuer'] == 'commonName=localhost'
    assert found['peer']['sans'] == ['DNS:localhost']
    assert found['peer']['not_after'].endswith('GMT')
    assert answer['version'] == '%d.%d.%d' % sys.version_info[:3]


def test_private_ca_is_untrusted_until_the_environment_trusts_it(fixture):
    certs, servers = fixture
    [untrusted] = probe([endpoint(servers['private'])])['results']
    [trusted] = probe([endpoint(servers['private'])], trusting(certs))['results']
    assert untrusted['result'] == 'untrusted' and untrusted['peer']['issuer'] == 'commonName=Forecast Test CA'
    assert trusted['result'] == 'ok' and trusted['error'] is None


def test_hostname_mismatch_under_a_trusted_ca(fixture):
    certs, servers = fixture
    [found] = probe([endpoint(servers['mismatch'])], trusting(certs))['results']
    assert found['result'] == 'hostname_mismatch', found
    assert found['peer']['sans'] == ['DNS:wrong.example']


def test_an_ip_endpoint_has_its_chain_checked_not_its_name(fixture):
    certs, servers = fixture
    mismatch, self_signed = probe([endpoint(servers['mismatch'], None), endpoint(servers['self_signed'], None)],
                                  trusting(certs))['results']
    assert mismatch['result'] == 'ok'
    assert self_signed['result'] == 'untrusted'


def test_one_process_mixes_named_and_unnamed_endpoints_without_mixing_their_checks(fixture):
    certs, servers = fixture
    answers = probe([endpoint(servers['mismatch']), endpoint(servers['mismatch'], None),
                     endpoint(servers['private']), endpoint(servers['self_signed'], None),
                     endpoint(servers['mismatch'])], trusting(certs))['results']
    assert [found['result'] for found in answers] == [
        'hostname_mismatch', 'ok', 'ok', 'untrusted', 'hostname_mismatch']


def test_a_process_builds_each_kind_of_context_once(fixture, tmp_path):
    # sitecustomize counts the contexts the probe builds; ten endpoints of both kinds need two
    # verifying contexts (with and without the name check) and one unverified context
    certs, servers = fixture
    counts = tmp_path / 'counts'
    (tmp_path / 'sitecustomize.py').write_text(u"""
import atexit, ssl
made = []
def counted(real, kind):
    def build(*args, **kwargs):
        made.append(kind)
        return real(*args, **kwargs)
    return build
ssl.create_default_context = counted(ssl.create_default_context, 'verify')
ssl._create_unverified_context = counted(ssl._create_unverified_context, 'unverified')
def write():
    with open(%r, 'w') as out:
        out.write(' '.join(sorted(made)))
atexit.register(write)
""" % str(counts))
    endpoints = [endpoint(servers['private'], name) for name in ('localhost', None) * 5]
    answers = probe(endpoints, dict(trusting(certs), PYTHONPATH=str(tmp_path)))['results']
    assert [found['result'] for found in answers] == ['ok'] * 10
    assert counts.read_text().split() == ['unverified', 'verify', 'verify']


def test_expired_under_a_trusted_ca(fixture):
    certs, servers = fixture
    [found] = probe([endpoint(servers['expired'])], trusting(certs))['results']
    assert found['result'] == 'expired', found


def test_plain_tcp_is_not_tls(fixture):
    _certs, servers = fixture
    [found] = probe([endpoint(servers['plain'])])['results']
    assert found['result'] == 'not_tls', found
    assert found['peer'] is None


def test_a_closed_port_is_unreachable():
    [found] = probe([dict(host='127.0.0.1', port=tls_servers.free_port(), server_name=None)])['results']
    assert found['result'] == 'unreachable' and found['error']


def test_a_black_hole_costs_one_connection_and_one_timeout():
    hole = tls_servers.Server('black_hole')
    try:
        [found] = probe([endpoint(hole)], timeout=1.0)['results']
    finally:
        hole.close()
    assert found['result'] == 'timeout'
    assert hole.connections == 1


def test_the_budget_ends_the_probe_and_reports_timeout():
    hole = tls_servers.Server('black_hole')
    try:
        answer = probe([endpoint(hole), endpoint(hole)], timeout=60.0, budget=1.0)
    finally:
        hole.close()
    assert [r['result'] for r in answer['results']] == ['timeout', 'timeout']
    assert 'budget of 1.0 seconds' in answer['results'][0]['error']


def test_results_keep_the_order_of_the_endpoints(fixture):
    certs, servers = fixture
    order = ['self_signed', 'private', 'plain', 'mismatch', 'expired']
    answer = probe([endpoint(servers[name]) for name in order], trusting(certs))
    assert [r['result'] for r in answer['results']] == ['untrusted', 'ok', 'not_tls', 'hostname_mismatch', 'expired']


def test_the_variable_is_removed_from_the_probe_environment():
    environment = tlsprobe.probe_environment(dict(PATH, PYTHONHTTPSVERIFY='0', SSL_CERT_DIR='/etc/ssl/certs'))
    assert environment == dict(PATH, SSL_CERT_DIR='/etc/ssl/certs')


def test_the_default_is_reported_as_the_interpreter_has_it():
    plain = probe([], PATH)
    assert plain['default_verifies'] is True
    if sys.version_info[0] == 2:
        # upstream 2.7.18 honours the variable: the field reads the knob, which is why it is removed
        assert probe([], dict(PATH, PYTHONHTTPSVERIFY='0'))['default_verifies'] is False
        assert plain['honours_env'] is True
    else:
        assert plain['honours_env'] is False


def test_an_interpreter_that_cannot_run_fails_every_endpoint_with_why(tmp_path):
    answer = probe([dict(host='127.0.0.1', port=1, server_name=None)], interpreter=str(tmp_path / 'missing'))
    assert answer['results'][0]['result'] is None
    assert 'cannot run' in answer['results'][0]['error']
