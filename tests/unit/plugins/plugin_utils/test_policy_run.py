# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a policy run keeps of each step (plugins/plugin_utils/policy_run.py): which writer the
prediction leaves out, what each module did, and when the prediction is the audit."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.pep493.https.plugins.plugin_utils import batch_summary as summary
from ansible_collections.pep493.https.plugins.plugin_utils import compliance as judge
from ansible_collections.pep493.https.plugins.plugin_utils import policy_run
from ansible_collections.pep493.https.tests.unit.plugins.policy_data import (
    CFG_CHANGE, DROPIN_CHANGE, SKIPPED, UNCHANGED_CFG, applied, cfg_result, compliant, exc, full_svc_result, info,
    planned_info, predicted_status_of, svc, svc_result)


def test_applied_services_keeps_only_the_changes_and_the_summary_says_the_same():
    full = full_svc_result([('a.service', 'created'), ('b.service', 'unchanged'), ('c.service', 'updated')])
    kept = policy_run.applied_services(full)
    assert kept == dict(changed=True, msg='m', systemd_running=False, reloaded=False, restarted=[], pending_restart=[],
                        services=[dict(name='a.service', action='created'), dict(name='c.service', action='updated')],
                        unchanged=1, removed=[dict(name='old.service', action='removed')])
    line = summary.host_summary('h', {'pep493_https_applied': applied(cfg_result(), kept),
                                      'pep493_https_status': compliant()})
    assert line == summary.host_summary('h', {'pep493_https_applied': applied(cfg_result(), full),
                                              'pep493_https_status': compliant()})
    assert policy_run.applied_services({'skipped': True, 'changed': False}) == dict(skipped=True, changed=False)
    assert policy_run.applied_services(None) == {}


def test_prediction_as_audit_when_nothing_changed():
    status = predicted_status_of()
    audit = policy_run.prediction_as_audit(status, UNCHANGED_CFG, full_svc_result([('a.service', 'unchanged')]))
    assert audit['prediction_reused'] is True and 'predicted' not in audit and 'predicted' not in audit['compliance']
    assert audit['info'] == status['info'] and audit['compliance']['state'] == 'compliant'
    assert summary.host_summary('h', {'pep493_https_applied': applied(UNCHANGED_CFG, svc_result()),
                                      'pep493_https_status': audit}) == ('h: compliant; cfg enable (unchanged); '
                                                                         'drop-ins unchanged')
    # nothing to write: the drop-in task skipped by its own condition
    skipped = dict(skipped=True, changed=False)
    assert policy_run.prediction_as_audit(status, UNCHANGED_CFG, skipped)['prediction_reused'] is True


@pytest.mark.parametrize('cfg, services, status, verify', [
    (cfg_result(), full_svc_result([('a.service', 'unchanged')]), predicted_status_of(), 'enable'),
    (UNCHANGED_CFG, full_svc_result([('a.service', 'created')]), predicted_status_of(), 'enable'),
    (None, full_svc_result([('a.service', 'unchanged')]), predicted_status_of(), 'enable'),   # not run (tags)
    (UNCHANGED_CFG, None, predicted_status_of(), 'enable'),
    (dict(UNCHANGED_CFG, failed=True), full_svc_result([]), predicted_status_of(), 'enable'),
    (UNCHANGED_CFG, dict(full_svc_result([]), failed=True), predicted_status_of(), 'enable'),
    (UNCHANGED_CFG, dict(skipped=True, changed=False, failed=True), predicted_status_of(), 'enable'),
    (UNCHANGED_CFG, full_svc_result([]), predicted_status_of(planned_changes=[dict(path='/x', action='created')]),
     'enable'),
    (UNCHANGED_CFG, full_svc_result([]), predicted_status_of(verify='platform_default', readers=True),
     'platform_default'),
    (UNCHANGED_CFG, full_svc_result([]), dict(predicted_status_of(), check_mode=True), 'enable'),
])
def test_prediction_is_not_the_audit_where_the_two_could_differ(cfg, services, status, verify):
    assert policy_run.prediction_as_audit(status, cfg, services, verify) is status


def test_prediction_as_audit_leaves_an_audit_alone():
    audit = dict(predicted_status_of(), predicted=False)
    assert policy_run.prediction_as_audit(audit, UNCHANGED_CFG, full_svc_result([])) is audit
    assert policy_run.prediction_as_audit(None, UNCHANGED_CFG, full_svc_result([])) is None


@pytest.mark.parametrize('changes, refusals, expected', [
    ([], [], dict(cfg=True, services=True)),
    ([CFG_CHANGE], [], dict(cfg=False, services=True)),
    ([DROPIN_CHANGE], [], dict(cfg=True, services=False)),
    ([CFG_CHANGE, DROPIN_CHANGE], [], dict(cfg=False, services=False)),
    # cert_verification would refuse the file: it runs, to fail with its own message
    ([], ['planned: cert_verification would refuse /etc/python/cert-verification.cfg: malformed'],
     dict(cfg=False, services=True)),
    # a change of no known kind could be either
    ([dict(path='/x', action='created')], [], dict(cfg=False, services=False)),
    (['not a change'], [], dict(cfg=False, services=False)),
])
def test_unchanged_by_plan_leaves_out_only_a_module_with_nothing_to_change(changes, refusals, expected):
    prediction = dict(info(), planned=True, planned_changes=changes, planned_refusals=refusals, changed=False)
    assert policy_run.unchanged_by_plan(prediction) == expected


@pytest.mark.parametrize('prediction', [
    None, {}, 'text', dict(info(), planned=False, planned_changes=[]),     # the host as it is, not a plan
    dict(info(), planned=True),                                             # no planned_changes
    dict(info(), planned=True, planned_changes=[], failed=True),
    dict(skipped=True, changed=False),
])
def test_unchanged_by_plan_runs_every_module_without_a_good_prediction(prediction):
    assert policy_run.unchanged_by_plan(prediction) == dict(cfg=False, services=False)


def test_a_module_left_out_is_summarised_as_unchanged_and_the_prediction_is_the_audit():
    unchanged = dict(cfg=True, services=True)
    cfg = policy_run.applied_cfg(SKIPPED, unchanged, 'enable')
    assert cfg == dict(changed=False, verify='enable', previous='enable', unchanged_by_plan=True,
                       msg='the prediction planned no change to the file: not run')
    services = policy_run.applied_services(SKIPPED, unchanged, [exc('a.service'), exc('b.service')])
    assert services['changed'] is False and services['unchanged_by_plan'] is True and services['unchanged'] == 2
    assert services['services'] == services['removed'] == services['restarted'] == services['pending_restart'] == []
    status = predicted_status_of()
    audit = policy_run.prediction_as_audit(status, cfg, services)
    assert audit['prediction_reused'] is True
    assert summary.host_summary('h', {'pep493_https_applied': applied(cfg, services), 'pep493_https_status': audit}) \
        == 'h: compliant; cfg enable (unchanged); drop-ins unchanged'


@pytest.mark.parametrize('result, unchanged', [
    (SKIPPED, dict(cfg=False, services=False)),          # skipped for another reason (tags, its own condition)
    (SKIPPED, None),
    (dict(SKIPPED, failed=True), dict(cfg=True, services=True)),
    (UNCHANGED_CFG, dict(cfg=True, services=True)),       # it ran: its own result
])
def test_only_a_module_left_out_by_the_prediction_is_given_as_unchanged(result, unchanged):
    assert policy_run.applied_cfg(result, unchanged, 'enable') is result
    assert policy_run.applied_services(result, unchanged, []) == policy_run.applied_services(result)


def test_predicted_status_is_the_prediction_and_its_verdict():
    prediction = planned_info(changes=[CFG_CHANGE], services=[svc('legacy.service')])
    allowed, gone = [exc('legacy.service')], [exc('old.service', expires='2026-01-01')]
    status = policy_run.predicted_status(prediction, 'enable', allowed, False, gone, 'keep', 'try-restart', True)
    assert status == dict(policy=dict(verify='enable', exclusive=False, exceptions=allowed, expired=gone),
                          info=prediction, check_mode=True, predicted=True,
                          compliance=judge.predicted_compliance(prediction, 'enable', allowed, False, 'keep',
                                                                'try-restart'))


def test_a_prediction_that_plans_no_change_is_the_audit():
    prediction = planned_info()
    status = policy_run.predicted_status(prediction)
    # the same as taking it as the audit after both writing modules were left out
    unchanged = policy_run.unchanged_by_plan(prediction)
    expected = policy_run.prediction_as_audit(
        dict(policy_run.predicted_status(prediction, check_mode=True), check_mode=False),
        policy_run.applied_cfg(SKIPPED, unchanged, 'enable'), policy_run.applied_services(SKIPPED, unchanged), 'enable')
    assert status == expected
    assert status['prediction_reused'] is True and 'predicted' not in status and 'predicted' not in status['compliance']
    assert status['info'] is prediction and status['compliance']['state'] == 'compliant'


@pytest.mark.parametrize('prediction, verify, check_mode', [
    (planned_info(changes=[CFG_CHANGE]), 'enable', False),                 # the cfg module runs
    (planned_info(changes=[DROPIN_CHANGE]), 'enable', False),              # the drop-in module runs
    (planned_info(changes=[dict(path='/x', action='created')]), 'enable', False),
    (planned_info(refusals=['planned: cert_verification would refuse the file']), 'enable', False),
    (planned_info(readers=True), 'platform_default', False),               # the readers get no verdict
    (planned_info(), 'enable', True),                                       # check mode: nothing applied
])
def test_a_prediction_stays_a_prediction_where_the_audit_could_differ(prediction, verify, check_mode):
    status = policy_run.predicted_status(prediction, verify, check_mode=check_mode)
    assert status['predicted'] is True and 'prediction_reused' not in status
