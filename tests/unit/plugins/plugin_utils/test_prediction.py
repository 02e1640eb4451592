# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The prediction the policy role makes before its first write - plan_policy, then
verification_info with ``planned``, then predicted_compliance - is the verdict of the audit
after the change, and it writes nothing (files only, under a throw-away root)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.pep493.https.plugins.plugin_utils import compliance as judge
from ansible_collections.pep493.https.plugins.plugin_utils import policy_plan as planning
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.plugins.modules import cert_verification, service_verification
from ansible_collections.pep493.https.plugins.modules import verification_info
from ansible_collections.pep493.https.tests.unit.tree import snapshot, write

UNITS = '/etc/systemd/system'
LIB = '/usr/lib/systemd/system'
CFG = '/etc/python/cert-verification.cfg'
PAST = '2000-01-01'
FUTURE = '2999-01-01'
VENDOR = b'# shipped by python-libs\n[https]\nverify=platform_default\n'


def ours(verify=False, expires=FUTURE):
    return dropin.render_dropin(verify, 'vendor CA', dates.validate_expires(expires))


def exception(name, verify=False, expires=FUTURE):
    return dict(name=name, verify=verify, reason='vendor CA not trusted yet', expires=expires)


def python2_unit(root, name):
    write(root, '%s/%s.service' % (LIB, name), b'[Service]\nExecStart=/usr/bin/python2.7 /srv/%s\n' % name.encode())


def predict(run_module, root, exceptions=(), verify='enable', exclusive=True, expired='remove', repair=False):
    """What the role does before its first write: (verdict, verification_info result)."""
    plan = planning.plan_policy(verify, list(exceptions), expired=expired)
    assert plan['problems'] == []
    info = run_module.ok(verification_info, dict(root=str(root), planned=dict(
        verify=verify, repair=repair, exceptions=plan['services'], exclusive=exclusive)))
    return judge.predicted_compliance(info, verify, plan['allowed'], exclusive, expired), info


def apply_and_audit(run_module, root, exceptions=(), verify='enable', exclusive=True, expired='remove',
                    repair=False):
    """What the role does after the prediction: write, then audit; the audit's verdict."""
    plan = planning.plan_policy(verify, list(exceptions), expired=expired)
    run_module.ok(cert_verification, dict(root=str(root), verify=verify, repair=repair))
    run_module.ok(service_verification, dict(root=str(root), services=plan['services'], exclusive=exclusive))
    info = run_module.ok(verification_info, dict(root=str(root)))
    return judge.compliance(info, verify, plan['allowed'], exclusive, expired)


def assert_predicts_the_real_run(run_module, root, **policy):
    """The prediction writes nothing and says what the audit after the change says."""
    before = snapshot(root)
    predicted, dummy = predict(run_module, root, **policy)
    assert snapshot(root) == before, 'the prediction wrote something'
    assert predicted.pop('predicted') is True
    assert apply_and_audit(run_module, root, **policy) == predicted
    return predicted


# --- a foreign override the policy does not list -----------------------------------------------

def test_a_hand_made_override_on_an_unlisted_unit_is_predicted_non_compliant(run_module, tmp_path):
    write(tmp_path, CFG, VENDOR.replace(b'platform_default', b'disable'))
    python2_unit(tmp_path, 'agent')
    python2_unit(tmp_path, 'legacy')
    write(tmp_path, UNITS + '/legacy.service.d/override.conf', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n')
    verdict, info = predict(run_module, tmp_path, [exception('agent')])
    assert verdict['state'] == 'non_compliant' and verdict['compliant'] is False
    assert verdict['reasons'] == ['legacy.service has PYTHONHTTPSVERIFY=0 from %s/legacy.service.d/override.conf '
                                  'and no exception in the policy' % UNITS]
    # the rest of the plan is in the prediction: the cfg file and agent's drop-in as they will be
    assert info['config']['verify'] == 'enable'
    assert dict((s['unit'], s['value']) for s in info['services'])['agent.service'] == '0'
    assert sorted(c['action'] for c in info['planned_changes']) == ['created', 'updated']
    assert_predicts_the_real_run(run_module, tmp_path, exceptions=[exception('agent')])


def test_an_override_in_an_environment_file_counts_too(run_module, tmp_path):
    write(tmp_path, LIB + '/envd.service', b'[Service]\nEnvironmentFile=/etc/default/envd\n'
                                           b'ExecStart=/usr/bin/python2.7 /srv/envd\n')
    write(tmp_path, '/etc/default/envd', b'PYTHONHTTPSVERIFY=0\n')
    verdict = assert_predicts_the_real_run(run_module, tmp_path)
    assert verdict['state'] == 'non_compliant'
    assert verdict['reasons'][0].startswith('envd.service has PYTHONHTTPSVERIFY=0 from /etc/default/envd')


def test_the_same_override_on_a_unit_the_policy_lists_complies(run_module, tmp_path):
    python2_unit(tmp_path, 'legacy')
    write(tmp_path, UNITS + '/legacy.service.d/override.conf', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n')
    verdict = assert_predicts_the_real_run(run_module, tmp_path, exceptions=[exception('legacy')])
    assert verdict['state'] == 'compliant_with_exceptions' and verdict['reasons'] == []


def test_a_foreign_override_that_outranks_the_exception_is_predicted(run_module, tmp_path):
    # zzz-local.conf sorts after our zz-pep493-https.conf: systemd takes its value
    python2_unit(tmp_path, 'legacy')
    write(tmp_path, UNITS + '/legacy.service.d/zzz-local.conf', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=1\n')
    verdict = assert_predicts_the_real_run(run_module, tmp_path, exceptions=[exception('legacy')])
    assert verdict['reasons'] == ['legacy.service runs with PYTHONHTTPSVERIFY=1, the policy says 0']


# --- the policy's own exceptions ---------------------------------------------------------------

def test_the_policys_own_exceptions_are_predicted_compliant(run_module, tmp_path):
    write(tmp_path, CFG, VENDOR)
    python2_unit(tmp_path, 'agent')
    python2_unit(tmp_path, 'backup')
    policy = dict(exceptions=[exception('agent'), exception('backup', verify=True)])
    # the host as it is does not comply (platform_default); as the plan leaves it, it does
    as_is = judge.compliance(run_module.ok(verification_info, dict(root=str(tmp_path))), 'enable',
                             planning.plan_policy('enable', policy['exceptions'])['allowed'])
    assert as_is['state'] == 'non_compliant'
    verdict = assert_predicts_the_real_run(run_module, tmp_path, **policy)
    assert verdict == dict(state='compliant_with_exceptions', compliant=True, reasons=[], warnings=[])


def test_a_host_wide_value_the_policy_does_not_set_is_predicted(run_module, tmp_path):
    write(tmp_path, '/etc/environment', b'PYTHONHTTPSVERIFY=0\n')
    verdict = assert_predicts_the_real_run(run_module, tmp_path)
    assert verdict['state'] == 'non_compliant'
    assert [r for r in verdict['reasons'] if 'set host-wide in /etc/environment' in r], verdict


# --- expired exceptions ------------------------------------------------------------------------

def expired_host(root):
    python2_unit(root, 'old')
    write(root, UNITS + '/old.service.d/zz-pep493-https.conf', ours(expires=PAST))


def test_an_expired_exception_is_predicted_removed(run_module, tmp_path):
    expired_host(tmp_path)
    policy = dict(exceptions=[exception('old', expires=PAST)])
    verdict, info = predict(run_module, tmp_path, **policy)
    assert sorted((c['path'], c['action']) for c in info['planned_changes']) == [
        (CFG, 'created'), (UNITS + '/old.service.d/zz-pep493-https.conf', 'removed')]
    assert verdict['state'] == 'compliant'
    assert assert_predicts_the_real_run(run_module, tmp_path, **policy)['state'] == 'compliant'


def test_an_expired_exception_kept_is_a_warning(run_module, tmp_path):
    expired_host(tmp_path)
    verdict = assert_predicts_the_real_run(run_module, tmp_path, exceptions=[exception('old', expires=PAST)],
                                           expired='keep', exclusive=False)
    assert verdict['compliant'] is True and verdict['reasons'] == []


def test_an_expired_exception_left_in_place_without_exclusive_is_predicted_non_compliant(run_module, tmp_path):
    # the inventory no longer lists it and exclusive is false: nothing removes the drop-in
    expired_host(tmp_path)
    verdict = assert_predicts_the_real_run(run_module, tmp_path, exclusive=False)
    assert verdict['state'] == 'non_compliant'
    assert verdict['reasons'] == ['old.service keeps an exception that expired on %s' % PAST]


# --- exclusive mode ------------------------------------------------------------------------------

def stale_host(root):
    python2_unit(root, 'gone')
    write(root, UNITS + '/gone.service.d/zz-pep493-https.conf', ours())


def test_exclusive_removes_an_unlisted_exception_of_ours(run_module, tmp_path):
    stale_host(tmp_path)
    verdict, info = predict(run_module, tmp_path, exclusive=True)
    assert [c['action'] for c in info['planned_changes'] if c['path'].startswith(UNITS)] == ['removed']
    assert assert_predicts_the_real_run(run_module, tmp_path, exclusive=True)['state'] == 'compliant'


def test_without_exclusive_an_unlisted_exception_of_ours_stays_and_warns(run_module, tmp_path):
    stale_host(tmp_path)
    verdict = assert_predicts_the_real_run(run_module, tmp_path, exclusive=False)
    assert verdict['compliant'] is True and verdict['reasons'] == []
    assert verdict['warnings'] == ['gone.service has an exception that is not in the policy (kept: '
                                   'pep493_https_exclusive is false)']


def test_exclusive_never_removes_a_foreign_override(run_module, tmp_path):
    python2_unit(tmp_path, 'legacy')
    write(tmp_path, UNITS + '/legacy.service.d/override.conf', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n')
    verdict = assert_predicts_the_real_run(run_module, tmp_path, exclusive=True)
    assert verdict['state'] == 'non_compliant' and 'override.conf' in verdict['reasons'][0]


# --- the cfg file -------------------------------------------------------------------------------

def test_a_malformed_file_is_predicted_non_compliant_unless_repaired(run_module, tmp_path):
    write(tmp_path, CFG, b'verify=disable\n[https]\nverify=enable\n')
    verdict, info = predict(run_module, tmp_path)
    assert verdict['state'] == 'non_compliant'
    # first what cert_verification would refuse, with what to do about it; then the audit's reason
    assert len(info['planned_refusals']) == 1 and verdict['reasons'][0] == info['planned_refusals'][0]
    assert verdict['reasons'][0].startswith('planned: cert_verification would refuse %s: ' % CFG)
    assert 'repair=true' in verdict['reasons'][0]
    assert verdict['reasons'][1] == '%s is malformed and breaks "import ssl" for Python 2 on RHEL 7' % CFG
    assert assert_predicts_the_real_run(run_module, tmp_path, repair=True)['state'] == 'compliant'


# --- restarts and bad input ---------------------------------------------------------------------

def planned_info(services, changed_units, root=None):
    return dict(planned=True, root=root, config=dict(path=CFG, verify='enable', valid=True), summary={},
                services=services, planned_changes=[dict(path='%s/%s.d/zz-pep493-https.conf' % (UNITS, unit),
                                                         action='updated') for unit in changed_units])


def running(unit, value='0'):
    return dict(unit=unit, value=value, managed=True, pending_restart=True)


@pytest.mark.parametrize('restart, root, state', [
    ('never', None, 'pending_restart'),
    ('try-restart', None, 'compliant_with_exceptions'),
    ('restart', None, 'compliant_with_exceptions'),
    # under a root nothing is restarted
    ('try-restart', '/var/tmp/image', 'pending_restart'),
])
def test_the_restarts_of_the_plan_clear_its_pending_restarts(restart, root, state):
    info = planned_info([running('agent.service')], ['agent.service'], root)
    verdict = judge.predicted_compliance(info, 'enable', [exception('agent.service')], restart=restart)
    assert verdict['state'] == state and verdict['predicted'] is True


def test_a_restart_is_predicted_only_for_the_units_the_plan_changes():
    # a template's drop-in restarts no instance; an unchanged unit is not restarted
    info = planned_info([running('worker@1.service'), running('other.service')], ['worker@.service'])
    allowed = [exception('worker@1.service'), exception('other.service')]
    assert judge.predicted_compliance(info, 'enable', allowed, restart='restart')['state'] == 'pending_restart'
    assert judge.restarted_by_plan(info, 'restart') == set(['worker@.service'])


def test_a_result_of_the_host_as_it_is_is_refused():
    info = planned_info([], [])
    info['planned'] = False
    with pytest.raises(planning.PolicyError, match='planned state'):
        judge.predicted_compliance(info)
    with pytest.raises(planning.PolicyError, match="pep493_https_restart 'sometimes'"):
        judge.predicted_compliance(planned_info([], []), restart='sometimes')


def test_a_plan_a_writer_would_refuse_cannot_comply():
    info = planned_info([], [])
    assert judge.predicted_compliance(info)['state'] == 'compliant'
    info['planned_refusals'] = ['planned: cert_verification would refuse %s: malformed' % CFG]
    verdict = judge.predicted_compliance(info)
    assert (verdict['state'], verdict['compliant'], verdict['reasons']) == (
        'non_compliant', False, info['planned_refusals'])


def test_an_unreachable_host_stays_unreachable():
    verdict = judge.predicted_compliance(dict(unreachable=True, msg='timed out'))
    assert verdict['state'] == 'unreachable' and verdict['predicted'] is True


# --- what the role may leave out: the prediction's kinds of change and warnings ----------------------

def writers_in_check_mode(run_module, root, exceptions, verify, exclusive=True, repair=False):
    """(cfg changed, drop-ins changed, warnings) of the two writing modules in check mode."""
    plan = planning.plan_policy(verify, list(exceptions), allow_insecure=True)
    cfg = run_module.ok(cert_verification, dict(root=str(root), verify=verify, repair=repair), check_mode=True)
    svc = run_module.ok(service_verification, dict(root=str(root), services=plan['services'], exclusive=exclusive),
                        check_mode=True)
    return cfg['changed'], svc['changed'], cfg['warnings'] + svc['warnings']


WRITER_WARNINGS = ('verify=disable turns', 'PYTHONHTTPSVERIFY=0 turns')


@pytest.mark.parametrize('verify', ['enable', 'disable'])
@pytest.mark.parametrize('seed', ['nothing', 'vendor', 'applied', 'applied-cfg-only', 'stale-dropin'])
def test_the_prediction_says_which_writer_would_change_something_and_gives_their_warnings(run_module, tmp_path,
                                                                                          verify, seed):
    python2_unit(tmp_path, 'agent')
    python2_unit(tmp_path, 'other')
    exceptions = [exception('agent'), exception('other', verify=True)]
    if seed != 'nothing':
        write(tmp_path, CFG, VENDOR)
    if seed.startswith('applied'):
        plan = planning.plan_policy(verify, exceptions, allow_insecure=True)
        run_module.ok(cert_verification, dict(root=str(tmp_path), verify=verify))
        if seed == 'applied':
            run_module.ok(service_verification, dict(root=str(tmp_path), services=plan['services'], exclusive=True))
    if seed == 'stale-dropin':
        write(tmp_path, UNITS + '/gone.service.d/' + dropin.DEFAULT_DROPIN_NAME, ours())
    plan = planning.plan_policy(verify, exceptions, allow_insecure=True)
    info = run_module.ok(verification_info, dict(root=str(tmp_path), planned=dict(
        verify=verify, exceptions=plan['services'], exclusive=True)))
    kinds = set(change['kind'] for change in info['planned_changes'])
    cfg_changed, dropins_changed, warnings = writers_in_check_mode(run_module, tmp_path, exceptions, verify)
    assert ('cfg' in kinds) is cfg_changed and ('dropin' in kinds) is dropins_changed
    # the writers' warnings about what the policy turns off, in their very words
    ours_ = sorted(w for w in warnings if w.startswith(WRITER_WARNINGS))
    assert ours_ and sorted(w for w in info['warnings'] if w.startswith(WRITER_WARNINGS)) == ours_
