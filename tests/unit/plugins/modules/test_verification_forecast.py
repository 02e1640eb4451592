# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""verification_forecast as a module: its input checks and a whole run against loopback servers."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import sys

import pytest

from ansible_collections.pep493.https.plugins.modules import verification_forecast
from ansible_collections.pep493.https.tests.unit import ca_pki
from ansible_collections.pep493.https.tests.unit import tls_servers
from ansible_collections.pep493.https.tests.unit.tree import write


@pytest.mark.parametrize('args, words', [
    (dict(timeout=0), 'timeout must be more than 0 and at most 300 seconds'),
    (dict(budget=-1), 'budget must be more than 0 and at most 3600 seconds'),
    (dict(timeout=float('inf')), 'timeout must be more than 0 and at most 300 seconds, not inf'),
    (dict(budget=float('inf')), 'budget must be more than 0 and at most 3600 seconds, not inf'),
    (dict(timeout=float('nan')), 'timeout must be more than 0 and at most 300 seconds, not nan'),
    (dict(endpoints=[dict(endpoint='127.0.0.1:443', server_name='localhost\n')]), 'endpoints[0].server_name'),
    (dict(observe_seconds=60, budget=60), 'observe_seconds must be from 0 to less than budget'),
    (dict(max_endpoints=0), 'max_endpoints must be 1 or more'),
    (dict(services=['bad/name']), 'services: '),
    (dict(keep_unverified=['']), 'keep_unverified: '),
    (dict(endpoints=[dict(endpoint='host:70000')]), 'endpoints[0].endpoint'),
    (dict(endpoints=[dict(endpoint='host', services=['a b'])]), 'endpoints[0].services: '),
    (dict(cas=[dict(name='acme', content='junk')]), 'cas[0].content: holds no certificate'),
    (dict(cas=[dict(name='acme', content=ca_pki.text('leaf'))]), "cas[0].content: 'CN = leaf.example' is not a CA"),
    (dict(cas=[dict(name='acme', content=ca_pki.text('acme'), services=['a b'])]), 'cas[0].services: '),
    (dict(cas=[dict(name='\x1b[31m', content=ca_pki.text('acme'))]), "cas[0].name '\\x1b[31m': give the name"),
])
def test_bad_input_is_refused_naming_it(run_module, args, words):
    result = run_module.fail(verification_forecast, args)
    assert words in result['msg']


def test_host_wide_endpoints_are_probed_with_the_given_interpreter(run_module, tmp_path):
    certs = tls_servers.make_certificates(str(tmp_path))
    server = tls_servers.Server('tls', certs['self_signed'])
    refused = tls_servers.free_port()
    try:
        result = run_module.ok(verification_forecast, dict(
            interpreter=sys.executable, services=[], timeout=5,
            endpoints=[dict(endpoint='127.0.0.1:%d' % server.port, server_name='localhost'),
                       dict(endpoint='127.0.0.1:%d' % refused)]), check_mode=True)
    finally:
        server.close()
    assert result['changed'] is False and result['services'] == []
    wide = result['host_wide']
    assert wide['service'] is None and wide['interpreter'] == sys.executable
    found = [(e['result'], e['hostname_checked']) for e in wide['endpoints']]
    # declared by its address alone: that address is the name checked
    assert found == [('untrusted', True), ('unreachable', True)]
    assert wide['endpoints'][0]['peer']['issuer'] == 'commonName=localhost'
    assert wide['verdict'] == 'already_failing'       # a clean environment verifies by default
    assert result['summary']['probed_endpoints'] == 2
    assert result['summary']['already_failing'] == 1


def test_a_configured_ca_that_fixes_an_untrusted_endpoint_is_named_and_proven(run_module, tmp_path):
    certs = tls_servers.make_certificates(str(tmp_path))
    server = tls_servers.Server('tls', certs['private'])
    with open(certs['ca'][0]) as handle:
        ca = handle.read()
    try:
        result = run_module.ok(verification_forecast, dict(
            interpreter=sys.executable, services=[], timeout=5, cas=[dict(name='forecast-test-ca', content=ca)],
            endpoints=[dict(endpoint='127.0.0.1:%d' % server.port, server_name='localhost')]))
    finally:
        server.close()
    wide = result['host_wide']
    [endpoint] = wide['endpoints']
    assert endpoint['result'] == 'untrusted' and endpoint['fixed_by'] == 'forecast-test-ca'
    assert endpoint['trust']['result'] == 'ok' and 'certificate' not in endpoint
    assert wide['verdict'] == 'ok' and wide['fixed_by'] == ['forecast-test-ca']
    assert wide['why'].startswith('fixed by trusting forecast-test-ca: ')
    assert result['summary']['fixed'] == 1 and result['summary']['ok'] == 1
    assert result['summary']['findings'] == ['host-wide scripts: fixed by trusting forecast-test-ca']


def test_under_root_services_are_listed_and_nothing_is_run(run_module, tmp_path):
    write(tmp_path, '/etc/systemd/system/legacy.service', b'[Service]\nExecStart=/usr/bin/python2.7 /srv/legacy\n')
    write(tmp_path, '/etc/systemd/system/modern.service', b'[Service]\nExecStart=/usr/bin/python3 /srv/modern\n')
    result = run_module.ok(verification_forecast, dict(root=str(tmp_path), endpoints=[
        dict(endpoint='127.0.0.1:%d' % tls_servers.free_port(), services=['legacy'])]))
    [entry] = result['services']
    assert entry['service'] == 'legacy.service' and entry['verdict'] == 'unknown'
    assert entry['endpoints'][0]['result'] is None
    assert entry['endpoints'][0]['error'] == 'not probed: under root nothing is run'
    assert result['summary']['probed_endpoints'] == 0 and result['systemd_running'] is False


def test_a_root_that_is_not_a_folder_is_refused(run_module, tmp_path):
    result = run_module.fail(verification_forecast, dict(root=str(tmp_path / 'missing')))
    assert 'root' in result['msg'] and 'is not a directory' in result['msg']
