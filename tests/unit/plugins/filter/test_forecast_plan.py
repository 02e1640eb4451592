# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""forecast_plan: fail, except and warn, and the life of an automatic exception."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.pep493.https.plugins.filter import forecast
from ansible_collections.pep493.https.plugins.plugin_utils import policy_plan as planning
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.tests.unit import ca_pki

DAY = datetime.date(2026, 6, 1)
PLAN = planning.plan_policy('enable', [dict(name='ambari-agent', verify=False, reason='CHG-1: vendor CA',
                                            expires='2026-12-31')], DAY)


def entry(name, verdict, results=(), exception=None, policy_verifies=True, verifies_today=False,
          why='it uses urllib2'):
    endpoints = [dict(endpoint='10.0.0.%d:443' % index, result=result, error='x',
                      peer=dict(issuer='commonName=Corp CA') if result != 'unreachable' else None)
                 for index, result in enumerate(results, 1)]
    return dict(service=name, verdict=verdict, endpoints=endpoints, exception=exception,
                policy_verifies=policy_verifies, verifies_today=verifies_today, why=why)


def forecast_of(*entries, **kwargs):
    return dict(services=list(entries), host_wide=kwargs.get('host_wide'))


def run(result, on_break, days=30, on_unknown='keep'):
    return forecast.forecast_plan(result, PLAN, on_break, days, DAY.isoformat(), on_unknown)


def test_fail_names_service_endpoint_failure_and_issuer():
    found = run(forecast_of(entry('legacy.service', 'would_break', ['ok', 'untrusted'])), 'fail')
    assert found['problems'] == ['legacy.service would break on 10.0.0.2:443 (untrusted; issuer commonName=Corp CA): '
                                 'trust its CA or this certificate']
    assert found['granted'] == [] and found['services'] == PLAN['services']
    assert [b['endpoint'] for b in found['breaks']] == ['10.0.0.2:443']


def test_except_grants_a_time_boxed_exception_with_the_reason():
    found = run(forecast_of(entry('legacy.service', 'would_break', ['expired', 'hostname_mismatch'])), 'except', 14)
    [granted] = found['granted']
    assert granted == dict(name='legacy.service', verify=False, expires='2026-06-15',
                           reason='forecast: would break on 10.0.0.1:443 (expired, issuer commonName=Corp CA) and 1 more')
    assert dropin.validate_reason(granted['reason']) == granted['reason']
    assert found['problems'] == [] and granted in found['services'] and granted in found['allowed']
    assert found['services'][:len(PLAN['services'])] == PLAN['services']


def test_warn_changes_nothing_and_says_why():
    found = run(forecast_of(entry('legacy.service', 'would_break', ['untrusted'])), 'warn')
    assert found['problems'] == [] and found['granted'] == [] and len(found['warnings']) == 1


def test_only_would_break_counts_as_a_break():
    result = forecast_of(entry('a.service', 'ok', ['ok']), entry('b.service', 'already_failing', ['untrusted']),
                         entry('c.service', 'unaffected', ['untrusted']))
    for mode in ('fail', 'except', 'warn'):
        found = run(result, mode)
        assert (found['problems'], found['granted'], found['removed'], found['warnings']) == ([], [], [], [])


def test_a_service_that_cannot_be_forecast_keeps_its_exception_and_is_named():
    """Never fail open: a service that does not verify today and cannot be forecast is kept as it
    is (a time-boxed automatic exception), and the operator is told which and why."""
    found = run(forecast_of(entry('legacy.service', 'unknown', ['timeout'], why='1 endpoint(s) could not be proven')),
                'fail')
    assert found['problems'] == []
    assert found['granted'] == [dict(name='legacy.service', verify=False, expires='2026-07-01',
                                     reason='forecast: cannot tell: 1 endpoint(s) could not be proven')]
    assert found['warnings'] == ['legacy.service cannot be forecast (1 endpoint(s) could not be proven): its exception '
                                 'is kept until 2026-07-01 (pep493_https_on_unknown: keep)']


@pytest.mark.parametrize('on_unknown, problems, granted', [('enforce', 0, 0), ('fail', 1, 0), ('keep', 0, 1)])
def test_on_unknown_decides_what_an_unforecast_service_gets(on_unknown, problems, granted):
    found = run(forecast_of(entry('legacy.service', 'unknown', ['timeout'])), 'fail', on_unknown=on_unknown)
    assert (len(found['problems']), len(found['granted'])) == (problems, granted)
    assert len(found['warnings']) == 1 - problems


def test_an_unforecast_service_that_verifies_today_has_nothing_to_keep():
    found = run(forecast_of(entry('legacy.service', 'unknown', [], verifies_today=True)), 'fail')
    assert found['granted'] == [] and found['problems'] == []
    assert found['warnings'] == ['legacy.service cannot be forecast (it uses urllib2); it verifies today, so '
                                 'enforcing does not change it']


def test_services_of_the_policys_own_list_are_left_to_it():
    found = run(forecast_of(entry('ambari-agent.service', 'would_break', ['untrusted'])), 'fail')
    assert found['problems'] == []


AUTO = dict(reason='forecast: would break on 10.0.0.1:443 (untrusted)', expires='2026-06-20')


def test_an_automatic_exception_keeps_its_date_while_the_cause_remains():
    found = run(forecast_of(entry('legacy.service', 'would_break', ['untrusted'], AUTO)), 'except', 90)
    assert found['granted'][0]['expires'] == '2026-06-20'


def test_an_automatic_exception_is_removed_once_the_cause_is_gone():
    found = run(forecast_of(entry('legacy.service', 'ok', ['ok'], AUTO)), 'except')
    assert found['removed'] == [dict(name='legacy.service', state='absent')]
    assert dict(name='legacy.service', state='absent') in found['services']
    assert all(item['name'] != 'legacy.service' for item in found['allowed'])


def test_an_automatic_exception_stays_while_the_forecast_cannot_tell():
    found = run(forecast_of(entry('legacy.service', 'unknown', ['timeout'], AUTO)), 'fail')
    assert found['granted'] == [dict(name='legacy.service', verify=False, reason=AUTO['reason'], expires='2026-06-20')]
    enforced = run(forecast_of(entry('legacy.service', 'unknown', ['timeout'], AUTO)), 'fail', on_unknown='enforce')
    assert enforced['removed'] == [dict(name='legacy.service', state='absent')]


def test_a_lapsed_automatic_exception_is_not_renewed():
    lapsed = dict(AUTO, expires='2026-05-31')
    found = run(forecast_of(entry('legacy.service', 'would_break', ['untrusted'], lapsed)), 'except')
    assert found['granted'] == []
    assert found['problems'][0].startswith('legacy.service: its automatic exception expired on 2026-05-31')


def test_an_exception_of_the_operator_is_never_removed():
    own = dict(reason='CHG-7: vendor CA', expires='2026-12-31')
    found = run(forecast_of(entry('legacy.service', 'ok', ['ok'], own)), 'except')
    assert found['removed'] == [] and found['granted'] == []


def test_host_wide_breaks_cannot_get_an_exception_and_are_reported():
    wide = entry(None, 'would_break', ['untrusted'])
    assert run(forecast_of(host_wide=wide), 'fail')['problems'][0].startswith('a host-wide script would break on')
    found = run(forecast_of(host_wide=wide), 'except')
    assert found['granted'] == [] and len(found['warnings']) == 1


def test_a_long_issuer_keeps_the_reason_within_the_drop_in_rules():
    long_entry = entry('legacy.service', 'would_break', ['untrusted'])
    long_entry['endpoints'][0]['peer']['issuer'] = 'commonName=' + 'x' * 300 + '\\'
    reason = run(forecast_of(long_entry), 'except')['granted'][0]['reason']
    assert len(reason) <= 200 and dropin.validate_reason(reason) == reason


@pytest.mark.parametrize('on_break, days, words', [
    ('stop', 30, 'pep493_https_on_predicted_break'),
    ('except', 0, 'pep493_https_forecast_exception_days'),
    ('except', 'soon', 'pep493_https_forecast_exception_days'),
    ('except', True, 'pep493_https_forecast_exception_days'),
    ('except', 30, 'pep493_https_on_unknown'),
])
def test_bad_settings_are_refused_naming_them(on_break, days, words):
    with pytest.raises(AnsibleFilterError) as info:
        forecast.forecast_plan(forecast_of(), PLAN, on_break, days, DAY.isoformat(),
                               'guess' if words == 'pep493_https_on_unknown' else 'keep')
    assert words in str(info.value)


def test_an_endpoint_a_configured_ca_fixes_is_no_break_and_one_it_does_not_fix_says_so():
    broken = entry('legacy.service', 'would_break', ['untrusted', 'untrusted'])
    fixed, unfixed = broken['endpoints']
    fixed.update(fixed_by='acme', trust=dict(ca='acme', matched_by='issuer name and key identifier', result='ok',
                                             error=None, requests=None))
    unfixed.update(fixed_by=None, trust=dict(ca='acme', matched_by='issuer name only', result='untrusted',
                                             error='self-signed', requests=None))
    found = run(forecast_of(broken), 'fail')
    assert [b['endpoint'] for b in found['breaks']] == ['10.0.0.2:443']
    assert found['problems'] == ['legacy.service would break on 10.0.0.2:443 (untrusted; issuer commonName=Corp CA): '
                                 'trust its CA or this certificate; trusting acme (it names the issuer, issuer name '
                                 'only) does not fix it: untrusted: self-signed']


def test_an_automatic_exception_goes_once_a_configured_ca_fixes_the_service():
    exception = dict(reason='forecast: would break on 10.0.0.1:443 (untrusted)', expires='2026-06-20')
    fixed = entry('legacy.service', 'ok', ['untrusted'], exception=exception)
    fixed['endpoints'][0].update(fixed_by='acme', trust=dict(ca='acme', result='ok', error=None, requests=None))
    found = run(forecast_of(fixed), 'except')
    assert found['granted'] == [] and found['removed'] == [dict(name='legacy.service', state='absent')]


def test_fixed_lists_what_the_forecast_says_a_ca_fixes_ok_or_unaffected_and_nothing_else():
    def proven(name, verdict, fixed):
        found = entry(name, verdict, ['untrusted'])
        found['endpoints'][0].update(fixed_by='acme')
        found.update(fixed_by=['acme'], fixed=fixed)
        return found
    result = forecast_of(proven('agent.service', 'ok', True), proven('client.service', 'unaffected', True),
                         # requests passed anyway: the CA fixed only the standard library's handshake
                         proven('other.service', 'unaffected', False),
                         host_wide=proven(None, 'ok', True))
    assert run(result, 'fail')['fixed'] == [
        dict(service=service, fixed_by=['acme'], endpoints=['10.0.0.1:443'])
        for service in (None, 'agent.service', 'client.service')]


def test_the_forecast_is_given_the_host_wide_cas_to_trust_and_each_exception_s_own():
    own = planning.plan_policy('enable', [dict(name='vendor', ca=ca_pki.text('acme'), reason='vendor CA',
                                               expires='2026-12-31')], DAY)
    trusted = [dict(name='other-root', content=ca_pki.text('other')), dict(name='old', state='absent'),
               dict(name='gone', content=ca_pki.text('acme'), state='absent')]
    assert forecast.forecast_cas(own, trusted) == [
        dict(name='other-root', content=ca_pki.text('other'), services=[]),
        dict(name='O = Acme, CN = Acme Internal Root', content=ca_pki.text('acme'), services=['vendor.service'])]
    assert forecast.forecast_cas(PLAN) == []
    with pytest.raises(AnsibleFilterError):
        forecast.forecast_cas(PLAN, 'acme')
