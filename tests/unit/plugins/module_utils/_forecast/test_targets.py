# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The forecast: which services are looked at, what they are probed with, and the verdicts,
against real TLS servers on loopback."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import sys
import tempfile

import pytest

from ansible_collections.pep493.https.plugins.module_utils._forecast import endpoints as eps
from ansible_collections.pep493.https.plugins.module_utils._forecast import targets as forecast
from ansible_collections.pep493.https.plugins.module_utils._host import environment as service_env
from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._host import model as hostmodel
from ansible_collections.pep493.https.plugins.module_utils._host import runtime
from ansible_collections.pep493.https.tests.unit import tls_servers
from ansible_collections.pep493.https.tests.unit.tree import fake_proc, write

ETC = '/etc/systemd/system'


def host(root, live):
    proc = fake_proc(tempfile.mkdtemp(prefix='proc-', dir=str(root)), live)
    loaded = dict((cgroup.rsplit('/', 1)[-1], ('loaded', 'active', 'running')) for cgroup, _ppid, _env in live.values())
    return hostmodel.Host(hostfiles.HostFiles(str(root)),
                          hostmodel.Runtime(runtime.Manager({'PATH': '/usr/bin:/bin'}, None, None), loaded,
                                            runtime.ProcessTable(proc), {}))


def target_with(results, governed=True, stacks=None, requests=None, name='legacy.service', sources=None):
    """A probed target: one endpoint per result (``requests``: requests' own result of each;
    ``sources``: 'd' declared or 'o' observed of each, all declared by default)."""
    target = forecast.Target(name, '/usr/bin/python2.7')
    for index, result in enumerate(results):
        observed = sources is not None and sources[index] == 'o'
        target.add_endpoint('10.0.0.%d' % (index + 1), 443, None if observed else 'host%d.example.com' % index,
                            forecast.OBSERVED if observed else forecast.DECLARED)
        target.endpoints[-1].update(result=result, error=None if result == 'ok' else 'why %s' % result,
                                    requests=dict(result=requests[index]) if requests else None)
    target.usage = dict(governed=governed, why='it uses urllib2 (agent.py line 3)' if governed
                        else 'it uses requests, which PYTHONHTTPSVERIFY and the cfg file do not govern',
                        stacks=stacks or {})
    return target


@pytest.mark.parametrize('today, results, governed, expected', [
    (False, ['untrusted'], True, 'would_break'),
    (False, ['ok', 'expired'], True, 'would_break'),
    (False, ['hostname_mismatch', 'timeout'], True, 'would_break'),
    (True, ['untrusted'], True, 'already_failing'),
    (None, ['untrusted'], True, 'unknown'),
    (False, ['untrusted'], None, 'unknown'),       # would break if its code used urllib2: cannot tell
    (False, ['ok'], True, 'ok'),
    (False, ['ok'], None, 'ok'),                   # passes whatever it uses
    (True, ['ok', 'not_tls'], True, 'already_failing'),   # declared HTTPS, and it does not speak TLS
    (False, ['not_tls'], True, 'already_failing'),
    (False, ['ok', 'timeout'], True, 'unknown'),
    (False, ['ok', 'handshake_failed'], True, 'unknown'),   # a cut handshake proves nothing
    (False, ['name_unknown'], True, 'unknown'),             # seen by its address: its name not checked
    (False, ['unreachable'], True, 'unknown'),
    (False, ['ok', None], True, 'unknown'),
    (False, [], True, 'unknown'),
    (True, [], True, 'unknown'),
    (False, ['untrusted'], False, 'unaffected'),    # the knobs govern nothing it uses
    (False, [], False, 'unaffected'),
])
def test_verdicts(today, results, governed, expected):
    found, why = forecast.verdict(target_with(results, governed), today)
    assert found == expected, why
    assert why


# An observed connection that does not speak TLS is plain HTTP or another protocol, which
# verification does not touch (or HTTPS to the wrong port, failing either way): it is left out,
# and a service with nothing else is unknown, never ok. A declared endpoint is HTTPS by the
# operator's word: not speaking TLS, it fails today and after.
@pytest.mark.parametrize('today, results, sources, governed, stacks, expected', [
    (False, ['not_tls'], 'o', True, None, 'unknown'),
    (False, ['not_tls', 'ok'], 'od', True, None, 'ok'),
    (False, ['not_tls', 'untrusted'], 'od', True, None, 'would_break'),
    (False, ['not_tls', 'not_tls'], 'od', True, None, 'already_failing'),
    (False, ['not_tls'], 'o', None, None, 'unknown'),
    # a stack the knobs do not govern: enforcing changes nothing, but what it gets today is told
    (False, ['not_tls'], 'd', False, None, 'already_failing'),
    (False, ['timeout'], 'd', False, None, 'already_failing'),
    (False, ['handshake_failed'], 'd', False, None, 'already_failing'),
    (False, ['unreachable'], 'd', False, None, 'already_failing'),
    (False, ['not_tls'], 'o', False, None, 'unknown'),
    (False, ['timeout'], 'o', False, None, 'unknown'),
    (False, ['handshake_failed'], 'o', False, None, 'unknown'),
    (False, ['ok', None], 'dd', False, None, 'unknown'),        # not probed
    (False, ['not_tls', 'ok'], 'od', False, None, 'unaffected'),
    (False, ['untrusted'], 'd', False, None, 'unaffected'),     # nothing it uses verifies
    (False, ['name_unknown'], 'o', False, None, 'unaffected'),
    # a stack that verifies whatever the knobs say, on a connection whose name is not known
    (False, ['name_unknown'], 'o', False, dict(urllib3=dict(used=True, verifies_without_knobs=True)), 'unknown'),
    (False, ['name_unknown'], 'o', False, dict(requests=dict(used=True, verifies_without_knobs=True)), 'unknown'),
    (False, ['ok'], 'd', False, dict(urllib3=dict(used=True, verifies_without_knobs=True)), 'unaffected'),
])
def test_verdicts_by_source(today, results, sources, governed, stacks, expected):
    requests = [None if r is None else ('name_unknown' if r == 'name_unknown' else r) for r in results]
    if not (stacks or {}).get('requests'):
        requests = None
    found, why = forecast.verdict(target_with(results, governed, stacks, requests=requests, sources=sources), today)
    assert found == expected, why
    assert why


def test_a_stack_that_verifies_anyway_and_fails_today_is_already_failing():
    requests_used = dict(requests=dict(used=True, verifies_without_knobs=True))
    found, why = forecast.verdict(target_with(['ok'], False, requests_used, requests=['untrusted']), False)
    assert found == 'already_failing' and 'requests' in why and 'enforcing changes nothing' in why
    found, why = forecast.verdict(target_with(['ok'], True, requests_used, requests=['untrusted']), False)
    assert found == 'already_failing'
    urllib3 = dict(urllib3=dict(used=True, verifies_without_knobs=True))
    assert forecast.verdict(target_with(['expired'], False, urllib3), False)[0] == 'already_failing'
    old_urllib3 = dict(urllib3=dict(used=True, verifies_without_knobs=False))
    assert forecast.verdict(target_with(['expired'], False, old_urllib3), False)[0] == 'unaffected'


@pytest.mark.parametrize('value, ignored, honours, default, expected', [
    ('0', False, True, True, False),          # its exception turns verification off
    ('1', False, True, False, True),          # any other value turns it on
    ('', False, True, False, True),
    (None, False, True, False, False),        # unset: the host default (the cfg file on RHEL 7)
    (None, False, True, True, True),
    ('0', True, True, True, True),            # python -E: the variable is ignored
    ('0', False, False, True, True),          # an interpreter that does not read the variable
    (service_env.Unknown('PAM'), False, True, True, None),
    (None, False, True, None, None),          # the default could not be told
])
def test_verifies_today(value, ignored, honours, default, expected):
    target = forecast.Target('a.service', value=value, ignored=ignored)
    target.answer = dict(honours_env=honours, default_verifies=default)
    assert forecast.verifies_today(target) is expected


def test_declared_endpoints_get_their_server_name_and_units():
    found = forecast.validate_endpoints([
        dict(endpoint='ldap.example.com:636', server_name=None, services=['app']),
        dict(endpoint='10.0.0.7', server_name=None, services=[]),
        dict(endpoint='10.0.0.8:8443', server_name='api.example.com', services=['web.service']),
    ])
    assert found == [('ldap.example.com', 636, 'ldap.example.com', ['app.service']),
                     ('10.0.0.7', 443, None, []),
                     ('10.0.0.8', 8443, 'api.example.com', ['web.service'])]


@pytest.mark.parametrize('entry, words', [
    (dict(endpoint='host:99999', server_name=None, services=[]), 'endpoints[0].endpoint'),
    (dict(endpoint='host:443', server_name='10.0.0.1', services=[]), 'endpoints[0].server_name'),
    (dict(endpoint='host:443', server_name='', services=[]), 'endpoints[0].server_name'),
])
def test_bad_declared_endpoints_name_the_entry(entry, words):
    with pytest.raises(eps.EndpointError) as info:
        forecast.validate_endpoints([entry])
    assert words in str(info.value)


def _units(root):
    write(root, ETC + '/legacy.service', b'[Service]\nEnvironment=SSL_CERT_FILE=/srv/ca.pem APP=1\n'
                                         b'ExecStart=/usr/bin/python2.7 /srv/legacy\n')
    write(root, ETC + '/kept.service', b'[Service]\nExecStart=/usr/bin/env python2 /srv/kept\n')
    write(root, ETC + '/modern.service', b'[Service]\nExecStart=/usr/bin/python3 /srv/modern\n')
    write(root, ETC + '/pam.service', b'[Service]\nPAMName=login\nExecStart=/usr/bin/python2.7 /srv/pam\n')
    write(root, '/etc/environment', b'PYTHONHTTPSVERIFY=0\n')
    return host(root, {
        100: ('/system.slice/legacy.service', 1, {'PYTHONHTTPSVERIFY': '0', 'SSL_CERT_FILE': '/srv/ca.pem'}),
        101: ('/system.slice/legacy.service', 100, {}),
        200: ('/system.slice/kept.service', 1, {}),
        300: ('/system.slice/modern.service', 1, {}),
    })


def test_python2_services_are_forecast_with_their_interpreter_environment_and_value(tmp_path):
    model = _units(tmp_path)
    declared = forecast.validate_endpoints([
        dict(endpoint='ldap.example.com:636', server_name=None, services=['legacy', 'modern']),
        dict(endpoint='repo.example.com', server_name=None, services=[]),
    ])
    targets, host_wide, warnings = forecast.build_targets(model, declared, keep_unverified=['kept'],
                                                          exists=lambda path: path == '/usr/bin/python2')
    by_name = dict((t.name, t) for t in targets)
    assert sorted(by_name) == ['legacy.service', 'pam.service']     # kept: keeps its exception; modern: Python 3
    legacy = by_name['legacy.service']
    assert legacy.interpreter == '/usr/bin/python2.7'
    assert legacy.value == '0' and legacy.pids == [100, 101]
    # what decides what it loads and trusts, not the rest (APP=1)
    assert legacy.environment == {'PATH': '/usr/bin:/bin', 'SSL_CERT_FILE': '/srv/ca.pem'}
    assert [e['endpoint'] for e in legacy.endpoints] == ['ldap.example.com:636']
    assert isinstance(by_name['pam.service'].value, service_env.Unknown)
    assert host_wide.name is None and [e['endpoint'] for e in host_wide.endpoints] == ['repo.example.com:443']
    assert host_wide.why is not None            # no interpreter was given for the host's own scripts
    assert warnings == ['modern.service: its declared endpoints are not probed: no command of it is known to run '
                        'Python 2, and Python 3 is not affected by PEP 493']
    missing = forecast.validate_endpoints([dict(endpoint='ldap.example.com:636', server_name=None, services=['gone'])])
    dummy, dummy, warnings = forecast.build_targets(model, missing, keep_unverified=[], exists=lambda path: False)
    assert warnings == ['gone.service: its declared endpoints are not probed: systemd has no unit of that name '
                        '(its load state is not-found)']
    everyone, _host, _warnings = forecast.build_targets(model, [], keep_unverified=['kept'], all_python2=True,
                                                        exists=lambda path: path == '/usr/bin/python2')
    kept = [t for t in everyone if t.name == 'kept.service'][0]
    assert kept.policy_verifies is False and kept.interpreter == '/usr/bin/python2'


def test_observed_endpoints_join_the_declared_ones_once(tmp_path):
    target = forecast.Target('legacy.service')
    target.pids = [100]
    target.add_endpoint('10.0.0.9', 636, 'ldap.example.com', forecast.DECLARED)
    forecast.add_observed([target], 0, observe=lambda pids, seconds: {'legacy.service': [('10.0.0.9', 636),
                                                                                         ('10.0.0.10', 443)]})
    assert [(e['endpoint'], e['source'], e['hostname_checked']) for e in target.endpoints] == [
        ('10.0.0.9:636', 'declared', True), ('10.0.0.10:443', 'observed', False)]


@pytest.fixture(scope='module')
def servers(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp('certs'))
    certs = tls_servers.make_certificates(folder)
    running = dict((name, tls_servers.Server('tls', certs[name])) for name in ('self_signed', 'private', 'mismatch'))
    yield certs, running
    for server in running.values():
        server.close()


def _target(name, value, servers, names, environment=None):
    target = forecast.Target(name, sys.executable, dict(environment or {'PATH': '/usr/bin:/bin'}), value)
    for server in names:
        target.add_endpoint('127.0.0.1', servers[server].port, 'localhost', forecast.DECLARED)
    # its code uses urllib2, the standard library's HTTPS (found by walking it on a real host)
    target.usage = dict(governed=True, why='it uses urllib2 (agent.py line 3)', stacks={})
    return target


def test_verdicts_against_real_servers(servers):
    certs, running = servers
    trusted = {'PATH': '/usr/bin:/bin', 'SSL_CERT_FILE': certs['ca'][0]}
    targets = [
        _target('exception.service', '0', running, ['self_signed']),
        _target('verifying.service', '1', running, ['self_signed']),
        _target('trusted.service', '0', running, ['private'], trusted),
        _target('mismatch.service', '0', running, ['private', 'mismatch'], trusted),
        _target('quiet.service', '0', running, []),
    ]
    probed = forecast.probe_targets(targets, 5.0, 30.0, 50)
    entries = dict((e['service'], e) for e in (forecast.target_report(t) for t in targets))
    assert probed == 5
    # Python 3 reads no PYTHONHTTPSVERIFY: an "exception" there verifies today
    unverified = 'would_break' if sys.version_info[0] == 2 else 'already_failing'
    assert dict((n, e['verdict']) for n, e in entries.items()) == {
        'exception.service': unverified, 'verifying.service': 'already_failing', 'trusted.service': 'ok',
        'mismatch.service': unverified, 'quiet.service': 'unknown'}
    assert [e['result'] for e in entries['mismatch.service']['endpoints']] == ['ok', 'hostname_mismatch']
    summary = forecast.summarize(list(entries.values()))
    breaking = 2 if unverified == 'would_break' else 0
    assert (summary['would_break'], summary['already_failing'], summary['ok'], summary['unknown']) == (
        breaking, 3 - breaking, 1, 1)
    assert 'exception.service: %s %s 127.0.0.1:%d (untrusted); issuer commonName=localhost' % (
        unverified.replace('_', ' '), 'on' if breaking else 'against', running['self_signed'].port) in summary['findings']


def test_the_cap_leaves_endpoints_unprobed_and_the_verdict_unknown():
    calls = []

    def fake_run(groups, timeout, budget):
        for group in groups:
            calls.append(len(group.endpoints))
            group.answer = dict(version='2.7.18', honours_env=True, default_verifies=True, error=None,
                                results=[dict(result='ok', error=None, peer=None) for _e in group.endpoints])

    first = forecast.Target('a.service', '/usr/bin/python2.7', value='0')
    second = forecast.Target('b.service', '/usr/bin/python2.7', value='0')
    for port in (1, 2):
        first.add_endpoint('10.0.0.1', port, None, forecast.OBSERVED)
    second.add_endpoint('10.0.0.2', 443, None, forecast.OBSERVED)
    assert forecast.probe_targets([first, second], 1.0, 5.0, 2, run=fake_run) == 2
    assert calls == [2]                         # one process for one interpreter and environment
    assert forecast.target_report(first)['verdict'] == 'ok'
    b_entry = forecast.target_report(second)
    assert b_entry['verdict'] == 'unknown' and 'cap of 2' in b_entry['endpoints'][0]['error']


def test_a_service_without_an_interpreter_is_unknown_with_why():
    target = forecast.Target('rooted.service', None, value='0')
    target.why = 'it runs in its own root'
    target.add_endpoint('10.0.0.1', 443, None, forecast.DECLARED)
    forecast.probe_targets([target], 1.0, 5.0, 50, run=lambda groups, timeout, budget: None)
    entry = forecast.target_report(target)
    assert entry['verdict'] == 'unknown'
    assert entry['endpoints'][0]['error'] == 'not probed: it runs in its own root'


def test_an_endpoint_a_configured_ca_fixes_counts_as_its_second_probe_saw_it():
    fixed = target_with(['untrusted', 'untrusted'])
    first, second = fixed.endpoints
    first.update(fixed_by='acme', trust=dict(ca='acme', matched_by='issuer name and key identifier', result='ok',
                                             error=None, requests=None))
    found, why = forecast.verdict(fixed, False)
    assert found == 'would_break' and '10.0.0.2:443' in why     # the second endpoint still breaks
    second.update(fixed_by='acme', trust=dict(first['trust']))
    found, why = forecast.verdict(fixed, False)
    assert (found, why) == ('ok', 'fixed by trusting acme: every endpoint passes verification, its name checked '
                                  'once it is trusted')
    assert forecast.after_trust(first)['result'] == 'ok' and first['result'] == 'untrusted'


def proven(endpoint, ca='acme', result='ok', requests=None):
    """``endpoint`` as ca_fix leaves it when the second probe with ``ca`` gave ``result`` (and ``requests``)."""
    endpoint.update(fixed_by=ca, trust=dict(ca=ca, matched_by='issuer name and key identifier', result=result,
                                            error=None, requests=dict(result=requests) if requests else None))


def test_a_service_on_requests_that_a_ca_makes_work_is_fixed_though_unaffected_by_the_knobs():
    requests_used = dict(requests=dict(used=True, verifies_without_knobs=True))
    target = target_with(['untrusted'], False, requests_used, requests=['untrusted'])
    assert forecast.verdict(target, False)[0] == 'already_failing' and not forecast.is_fixed(target, False)
    proven(target.endpoints[0], requests='ok')
    found, why = forecast.verdict(target, False)
    assert found == 'unaffected' and forecast.is_fixed(target, False)
    assert why.startswith('fixed by trusting acme: it uses requests') and why.endswith(
        'without it, it fails verification today'), why
    entry = forecast.target_report(target)
    assert (entry['verdict'], entry['fixed'], entry['fixed_by']) == ('unaffected', True, ['acme'])
    assert forecast.summarize([dict(entry, policy_verifies=True)])['fixed'] == 1


def test_a_ca_that_fixes_only_what_the_service_does_not_use_fixes_nothing_of_it():
    # requests passes today with its own bundle; the CA fixes the standard library's handshake alone
    requests_used = dict(requests=dict(used=True, verifies_without_knobs=True))
    target = target_with(['untrusted'], False, requests_used, requests=['ok'])
    proven(target.endpoints[0], requests='ok')
    found, why = forecast.verdict(target, False)
    assert found == 'unaffected' and not forecast.is_fixed(target, False) and 'trusting' not in why
    entry = forecast.target_report(target)
    assert (entry['fixed'], entry['fixed_by']) == (False, ['acme'])
    assert forecast.summarize([dict(entry, policy_verifies=True)])['fixed'] == 0


def test_the_summary_counts_and_names_what_configured_cas_fix_and_what_they_leave():
    fixed = dict(service='agent.service', verdict='ok', policy_verifies=True, fixed_by=['acme'], fixed=True,
                 endpoints=[], why='')
    endpoint = dict(endpoint='10.0.0.1:443', result='untrusted', peer=dict(issuer='CN=Corp CA'), fixed_by=None,
                    trust=dict(ca='acme', matched_by='issuer name only', result='hostname_mismatch', error='wrong name',
                               requests=None))
    broken = dict(service='legacy.service', verdict='would_break', policy_verifies=True, fixed_by=[], fixed=False, why='',
                  endpoints=[endpoint])
    summary = forecast.summarize([fixed, broken])
    assert summary['fixed'] == 1 and summary['ok'] == 1 and summary['would_break'] == 1
    assert summary['findings'] == [
        'legacy.service: would break on 10.0.0.1:443 (untrusted); issuer CN=Corp CA; trusting acme (it names the '
        'issuer, issuer name only) does not fix it: hostname_mismatch: wrong name',
        'agent.service: fixed by trusting acme']
