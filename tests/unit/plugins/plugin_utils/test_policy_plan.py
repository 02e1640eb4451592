# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The policy rules shared by the modules and the role: planning, the clock, compliance."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime

import pytest
from hypothesis import given, strategies as st

from ansible_collections.pep493.https.plugins.plugin_utils import compliance as judge
from ansible_collections.pep493.https.plugins.plugin_utils import policy_plan as planning
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.plugins.module_utils._syntax import unit_names
from ansible_collections.pep493.https.plugins.module_utils._syntax import exceptions
from ansible_collections.pep493.https.tests.unit.fuzz import FUZZ

TODAY = datetime.date(2026, 6, 15)


def exc(name, reason='vendor agent pins an old CA', expires='2026-12-31', verify=False):
    return dict(name=name, verify=verify, reason=reason, expires=expires)


def plan_of(exceptions, day=TODAY, require_justification=True, expired='remove'):
    return planning.plan_exceptions(exceptions, day, require_justification, expired)


# --- policy_plan -----------------------------------------------------------------------------

def test_plan_canonical_names_and_split_by_expiry():
    result = plan_of([exc('legacy-app'), exc('old.service', expires='2026-06-14'), exc('today', expires='2026-06-15')])
    assert result['problems'] == []
    assert [e['name'] for e in result['active']] == ['legacy-app.service', 'today.service']
    assert [e['name'] for e in result['expired']] == ['old.service']
    assert result['allowed'] == result['active']
    assert result['services'] == result['active'] + [dict(name='old.service', state='absent')]
    assert result['active'][0] == dict(name='legacy-app.service', verify=False,
                                       reason='vendor agent pins an old CA', expires='2026-12-31')


def test_plan_keep_passes_expired_entries_on():
    result = plan_of([exc('a'), exc('b', expires='2020-01-01')], expired='keep')
    assert [e['name'] for e in result['services']] == ['a.service', 'b.service']
    assert result['allowed'] == result['services']
    assert all('state' not in e for e in result['services'])
    assert result['problems'] == []


def test_plan_fail_names_the_expired_entry():
    result = plan_of([exc('b', expires='2020-01-01')], expired='fail')
    assert len(result['problems']) == 1
    assert 'b.service' in result['problems'][0] and '2020-01-01' in result['problems'][0]


@pytest.mark.parametrize('entry, missing', [
    (dict(name='x'), 'no reason and no expires'),
    (dict(name='x', reason='why'), 'no expires'),
    (dict(name='x', expires='2027-01-01'), 'no reason'),
    (dict(name='x', reason='   ', expires='2027-01-01'), 'no reason'),
])
def test_plan_requires_reason_and_expiry_naming_the_entry(entry, missing):
    result = plan_of([exc('fine'), entry])
    assert len(result['problems']) == 1
    assert 'pep493_https_exceptions[1] (x.service)' in result['problems'][0]
    assert missing in result['problems'][0]


def test_plan_without_justification_requirement_accepts_bare_entries():
    result = plan_of([dict(name='x')], require_justification=False)
    assert result['problems'] == []
    assert result['services'] == [dict(name='x.service', verify=False, reason=None, expires=None)]


def test_plan_refuses_bad_dates_duplicates_and_missing_names():
    result = plan_of([exc('a', expires='2026-02-30'), exc('b', expires='next week'),
                      exc('c'), exc('c.service'), dict(verify=False)])
    text = ' | '.join(result['problems'])
    assert len(result['problems']) == 4, text
    assert 'a.service' in text and 'not a real date' in text
    assert 'b.service' in text and 'YYYY-MM-DD' in text
    assert 'is already given in pep493_https_exceptions[2]' in text
    assert 'pep493_https_exceptions[4] has no name' in text


def test_plan_accepts_yaml_dates():
    result = plan_of([exc('a', expires=datetime.date(2027, 1, 2))], datetime.date(2026, 1, 1))
    assert result['active'][0]['expires'] == '2027-01-02'


def test_plan_rejects_unknown_expired_policy():
    with pytest.raises(planning.PolicyError):
        plan_of([], expired='ignore')


# --- compliance -----------------------------------------------------------------------------

def info(verify='enable', services=(), valid=True, host_default=True, global_=None):
    return dict(config=dict(path='/etc/python/cert-verification.cfg', verify=verify, valid=valid),
                services=list(services), summary=dict(host_default=host_default, findings=[]),
                **{'global': global_ or {}})


def svc(unit, value='0', managed=True, **kw):
    data = dict(unit=unit, value=value, managed=managed, expired=False, pending_restart=False, effective=True)
    data.update(kw)
    return data


def test_compliant_host():
    result = judge.compliance(info(), 'enable', [])
    assert result == dict(state='compliant', compliant=True, reasons=[], warnings=[])


def test_allowed_exception_makes_compliant_with_exceptions():
    allowed = [dict(name='legacy.service', verify=False)]
    result = judge.compliance(info(services=[svc('legacy.service')]), 'enable', allowed)
    assert result['state'] == 'compliant_with_exceptions'
    assert result['compliant'] is True


def test_wrong_cfg_value_is_non_compliant():
    result = judge.compliance(info(verify='platform_default'), 'enable', [])
    assert result['state'] == 'non_compliant'
    assert 'verify=platform_default' in result['reasons'][0]


def test_malformed_cfg_is_non_compliant():
    result = judge.compliance(info(verify='platform_default', valid=False), 'enable', [])
    assert result['compliant'] is False
    assert 'malformed' in result['reasons'][0]


def test_unlisted_opt_out_is_non_compliant_and_names_its_source():
    result = judge.compliance(info(services=[svc('rogue.service', managed=False, source='/etc/x.conf')]),
                              'enable', [])
    assert result['state'] == 'non_compliant'
    assert 'rogue.service' in result['reasons'][0] and '/etc/x.conf' in result['reasons'][0]


def test_managed_leftover_tolerated_only_when_not_exclusive():
    host = info(services=[svc('left.service')])
    assert judge.compliance(host, 'enable', [], exclusive=True)['state'] == 'non_compliant'
    loose = judge.compliance(host, 'enable', [], exclusive=False)
    assert loose['compliant'] is True
    assert 'left.service' in loose['warnings'][0]


def test_expired_exception_in_effect():
    host = info(services=[svc('old.service', expired=True, expires='2020-01-01')])
    assert judge.compliance(host, 'enable', [], expired='remove')['state'] == 'non_compliant'
    kept = judge.compliance(host, 'enable', [dict(name='old.service', verify=False)], expired='keep')
    assert kept['compliant'] is True


def test_exception_with_wrong_value_is_non_compliant():
    host = info(services=[svc('forced.service', value='0')])
    result = judge.compliance(host, 'enable', [dict(name='forced', verify=True)])
    assert result['state'] == 'non_compliant'
    assert 'the policy says 1' in result['reasons'][0]


def test_pending_restart_and_ineffective_are_reported():
    host = info(services=[svc('a.service', pending_restart=True), svc('py3.service', effective=False)])
    allowed = [dict(name='a', verify=False), dict(name='py3', verify=False)]
    result = judge.compliance(host, 'enable', allowed)
    assert result['state'] == 'pending_restart'
    assert result['compliant'] is True
    assert result['reasons'] == []


def test_missing_exception_is_a_warning():
    result = judge.compliance(info(), 'enable', [dict(name='later', verify=False)])
    assert result['state'] == 'compliant'
    assert 'later.service' in result['warnings'][0] and 'not in place' in result['warnings'][0]


def test_missing_cfg_file_is_named_as_missing():
    host = info(verify='missing')
    host['config']['exists'] = False
    result = judge.compliance(host, 'enable', [])
    assert result['reasons'] == ['/etc/python/cert-verification.cfg does not exist, the policy says verify=enable']


def test_global_opt_out_as_verification_info_reports_it():
    host = info(global_=[{'source': 'etc_environment', 'path': '/etc/environment', 'line': 3, 'action': 'set',
                          'value': '0', 'disables': True},
                         {'source': 'manager_environment', 'path': None, 'action': 'set', 'value': '1',
                          'disables': False},
                         {'source': 'profile_d', 'path': '/etc/profile.d/x.sh', 'action': 'mention', 'value': None,
                          'disables': False}])
    result = judge.compliance(host, 'enable', [])
    assert result['reasons'] == ['PYTHONHTTPSVERIFY=0 is set host-wide in /etc/environment: it turns verification '
                                 'off for every Python 2 program that inherits it']


def test_global_opt_out_anywhere_is_non_compliant():
    host = info(global_={'environment': [{'path': '/etc/environment', 'value': '0'}],
                         'manager': {'value': '1'}})
    result = judge.compliance(host, 'enable', [])
    assert result['state'] == 'non_compliant'
    assert '/etc/environment' in result['reasons'][0]
    assert len(result['reasons']) == 1


def test_python2_not_verifying_is_non_compliant_under_enable_only():
    host = info(verify='platform_default', host_default=False)
    assert judge.compliance(info(host_default=False), 'enable', [])['state'] == 'non_compliant'
    assert judge.compliance(host, 'platform_default', [])['state'] == 'compliant'


def test_unreachable_host_is_not_judged_on_an_empty_result():
    result = judge.compliance({'unreachable': True, 'msg': 'Container not found', 'changed': False}, 'enable', [])
    assert result == dict(state='unreachable', compliant=False, reasons=['no audit result: Container not found'],
                          warnings=[])


def test_compliance_rejects_garbage():
    with pytest.raises(planning.PolicyError):
        judge.compliance('not a result')


# --- one set of rules: what the module refuses, the plan refuses --------------------------

@pytest.mark.parametrize('entry, words', [
    (exc('legacy app'), "contains ' '"),
    (exc('sshd.socket'), 'is a .socket unit'),
    (exc('x', reason='r' * 250), '250 characters long'),
    (exc('x', reason='ends in a backslash \\'), 'ends with a backslash'),
    (exc('x', reason='bell \x07 inside'), 'control character'),
])
def test_plan_refuses_what_the_module_refuses(entry, words):
    result = plan_of([exc('fine'), entry])
    assert len(result['problems']) == 1, result['problems']
    assert result['problems'][0].startswith('pep493_https_exceptions[1]')
    assert words in result['problems'][0]
    assert [e['name'] for e in result['services']] == ['fine.service']


def test_plan_converts_values_as_the_module_argument_spec_does():
    result = plan_of([dict(name=1234, verify='yes', reason=42, expires=datetime.date(2027, 1, 2))])
    assert result['problems'] == []
    assert result['active'] == [dict(name='1234.service', verify=True, reason='42', expires='2027-01-02')]


@pytest.mark.parametrize('entry, words', [
    ('legacy-app', 'pep493_https_exceptions[0] is not a mapping'),
    (dict(name='x', reason='r', expires='2027-01-01', expire='2027-02-01'), 'unknown key(s) expire'),
    (dict(name='x', reason='r', expires='2027-01-01', verify='perhaps'), "verify 'perhaps' is not a boolean"),
    (dict(name='x', reason=['a', 'b'], expires='2027-01-01'), 'reason is a list, not text'),
    (dict(name={'a': 1}, reason='r', expires='2027-01-01'), 'name is a mapping, not text'),
])
def test_plan_refuses_entries_of_the_wrong_shape(entry, words):
    result = plan_of([entry])
    assert len(result['problems']) == 1 and words in result['problems'][0], result['problems']
    assert result['services'] == []


def test_plan_of_a_list_that_is_not_a_list():
    assert plan_of('legacy-app')['problems'] == ['pep493_https_exceptions is not a list of exceptions']


# --- the whole policy of a host --------------------------------------------------------------

def test_policy_refuses_a_host_wide_disable_without_its_acknowledgement():
    refused = planning.plan_policy('disable', [exc('a')], TODAY)
    assert len(refused['problems']) == 1
    assert 'pep493_https_allow_insecure_host_default: true' in refused['problems'][0]
    assert '/etc/python/cert-verification.cfg' in refused['problems'][0]
    assert planning.plan_policy('disable', [exc('a')], TODAY, allow_insecure='true')['problems'] == []
    assert planning.plan_policy('disable', [], TODAY, allow_insecure=True)['problems'] == []


def test_policy_refuses_an_unknown_value_and_reports_every_problem_at_once():
    result = planning.plan_policy('Enable', [exc('a b'), exc('c', reason='')], TODAY)
    assert len(result['problems']) == 3, result['problems']
    assert result['problems'][0] == "pep493_https_verify 'Enable' is not one of enable, disable, platform_default"
    assert 'pep493_https_exceptions[0]' in result['problems'][1]
    assert 'pep493_https_exceptions[1] (c.service) has no reason' in result['problems'][2]


def test_policy_plan_defaults_to_the_collection_clock(monkeypatch):
    monkeypatch.setattr(dates, 'today', lambda now=None: datetime.date(2030, 1, 1))
    assert [e['name'] for e in planning.plan_policy('enable', [exc('a')])['expired']] == ['a.service']


# --- one set of rules: what service_verification refuses, the plan refuses ------------------

def module_verdict(entry):
    """service_verification's own input validation of one services[] item (module_utils/plan.py)."""
    defaults = dict(verify=None, state='present', reason=None, expires=None)
    found, errors = exceptions.requests(None, [dict(entry, state=None)], defaults)
    return errors


NAMES = st.one_of(
    st.text(alphabet='abcXYZ019:_.\\-@ /=%\n\t\x00', max_size=20),
    st.sampled_from(['legacy app', 'sshd.socket', 'cron.timer', 'a@.service', 'a@b.service', '@.service', 'x' * 260,
                     'ünicode', 'a.service.service', 'tmp.mount', '-', 'a\\x2db']),
)
REASONS = st.one_of(
    st.none(),
    st.text(max_size=10),
    st.text(alphabet='ab \\\t\x07\u2028\u00e9', max_size=30),
    st.sampled_from(['r' * 200, 'r' * 201, 'ends in \\', ' padded ', 'CHG-1: ok']),
)
DATES = st.one_of(st.none(), st.sampled_from(['2027-01-01', '2026-02-30', '27-1-1', 'next week', '2027-1-01', '']))


@FUZZ
@given(NAMES, REASONS, DATES, st.booleans())
def test_plan_accepts_exactly_what_the_module_accepts(name, reason, expires, verify):
    entry = dict(name=name, verify=verify, reason=reason, expires=expires)
    result = planning.plan_exceptions([entry], TODAY, require_justification=False)
    refused_by_module = module_verdict(entry)
    assert bool(result['problems']) == bool(refused_by_module), (result['problems'], refused_by_module)
    if not refused_by_module:
        item = result['services'][0]
        assert item['name'] == unit_names.validate_unit_name(name)
        assert item['reason'] == dropin.validate_reason(reason)


AUTOMATIC = 'forecast: would break on 10.0.0.1:443 (untrusted)'


def test_the_audit_honours_the_exceptions_the_forecast_granted():
    """One source of truth: what enforce granted (on_predicted_break: except, on_unknown: keep)
    does not fail the audit gate, until its date; the operator's own rules still apply to the rest."""
    granted = svc('legacy.service', reason=AUTOMATIC, expires='2026-07-01')
    result = judge.compliance(info(services=[granted]), 'enable', [], automatic=True)
    assert result['state'] == 'compliant_with_exceptions' and result['compliant'] is True
    assert result['warnings'] == ['legacy.service keeps an automatic exception of the forecast until 2026-07-01 (%s)'
                                  % AUTOMATIC]
    assert judge.compliance(info(services=[granted]), 'enable', [])['state'] == 'non_compliant'
    lapsed = svc('legacy.service', reason=AUTOMATIC, expires='2026-05-31', expired=True)
    assert judge.compliance(info(services=[lapsed]), 'enable', [], automatic=True)['state'] == 'non_compliant'
    hand_made = svc('legacy.service', managed=False, reason=AUTOMATIC, source='/etc/x.conf')
    assert judge.compliance(info(services=[hand_made]), 'enable', [], automatic=True)['state'] == 'non_compliant'


def test_break_glass_is_an_exception_of_at_most_fourteen_days_and_never_a_second_entry():
    glass = dict(name='legacy', reason='INC-1: broke after enforce', expires='2026-06-29')
    plan = planning.plan_policy('enable', [], TODAY, break_glass=[glass])
    assert plan['problems'] == []
    assert plan['allowed'] == [dict(name='legacy.service', verify=False, reason='INC-1: broke after enforce',
                                    expires='2026-06-29')]
    late = planning.plan_policy('enable', [], TODAY, break_glass=[dict(glass, expires='2026-06-30')])
    assert late['problems'] == [
        'pep493_https_break_glass (legacy.service) expires 2026-06-30, more than 14 days from today (2026-06-15): a '
        'break-glass exception is short; give a date up to 2026-06-29, or put the exception in pep493_https_exceptions']
    # past its date it is removed like any expired exception
    past = planning.plan_policy('enable', [], TODAY, break_glass=[dict(glass, expires='2026-06-01')])
    assert past['problems'] == [] and past['services'] == [dict(name='legacy.service', state='absent')]
    twice = planning.plan_policy('enable', [dict(glass, verify=False)], TODAY, break_glass=[glass])
    assert twice['problems'] == ['legacy.service is both in pep493_https_exceptions and in pep493_https_break_glass; '
                                 'list it once']
    bare = planning.plan_policy('enable', [], TODAY, break_glass=[dict(name='legacy', expires='2026-06-20')])
    assert bare['problems'][0].startswith('pep493_https_break_glass[0] (legacy.service) has no reason')


def test_an_exception_with_a_ca_verifies_and_keeps_its_ca_for_the_module():
    from ansible_collections.pep493.https.tests.unit import ca_pki
    pem = ca_pki.text('acme')
    plan = planning.plan_exceptions([dict(name='vendor', ca=pem, reason='vendor CA', expires='2099-12-31')],
                                    datetime.date(2030, 1, 1))
    assert plan['problems'] == []
    assert plan['services'] == [dict(name='vendor.service', verify=True, ca=pem, reason='vendor CA',
                                     expires='2099-12-31')]
    refused = planning.plan_exceptions([dict(name='vendor', ca=pem, verify=False, reason='r', expires='2099-12-31'),
                                        dict(name='other', ca='not a pem', reason='r', expires='2099-12-31')],
                                       datetime.date(2030, 1, 1))
    assert refused['problems'] == [
        'pep493_https_exceptions[0] (vendor.service): ca and verify=false contradict each other: a CA makes the '
        'service verify HTTPS against it; drop verify, or drop ca for an opt-out',
        'pep493_https_exceptions[1] (other.service): ca: holds no certificate (no -----BEGIN CERTIFICATE----- block, '
        'and not DER)']
    judged = judge.compliance(dict(config=dict(path='/etc/python/cert-verification.cfg', exists=True, verify='enable',
                                               valid=True), services=[dict(unit='vendor.service', value='1')],
                                   summary=dict(host_default=True)), 'enable', plan['allowed'])
    assert judged['state'] == 'compliant', judged
