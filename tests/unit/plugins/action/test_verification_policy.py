# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The policy run's order (plugins/action/verification_policy.py), with stand-in modules: the
policy is refused before the first write, each step runs only when it must, what was done is kept
when a step fails, and --tags select the parts."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.pep493.https.plugins.action import verification_policy as action
from ansible_collections.pep493.https.tests.unit import ca_pki

WRITERS = ('cert_verification', 'service_verification')
GOOD = dict(name='legacy', verify=False, reason='CHG-1: vendor CA', expires='2099-12-31')


def info(planned=False, changes=(), state_file='enable'):
    return dict(changed=False, planned=planned, planned_changes=list(changes), planned_refusals=[],
                config=dict(path='/etc/python/cert-verification.cfg', exists=True, verify=state_file, valid=True),
                interpreters=[], services=[], summary=dict(host_default=True, findings=[]), root=None)


class Task(object):
    def __init__(self, check_mode=False, tags=('always',)):
        self.check_mode = check_mode
        self.tags = list(tags)


class FakeAction(object):
    """Records every module call; ``answers`` gives each module's result (a dict or a function of
    its arguments)."""

    def __init__(self, answers, check_mode=False, tags=('always',)):
        self._task = Task(check_mode, tags)
        self.answers = answers
        self.calls = []

    def run_module(self, name, args, task_vars):
        self.calls.append((name, args))
        answer = self.answers[name]
        return answer(args) if callable(answer) else dict(answer)


def args(**changes):
    found = dict((key, spec.get('default')) for key, spec in action.ARGUMENT_SPEC.items())
    found.update(root='/tmp/root', forecast=False)
    found.update(changes)
    return found


def verification_info(planned_changes):
    return lambda module_args: info(planned=bool(module_args.get('planned')),
                                    changes=planned_changes if module_args.get('planned') else ())


def run(entry_point='main', answers=None, task_vars=None, check_mode=False, tags=('always',), **options):
    fake = FakeAction(answers or {}, check_mode, tags)
    policy_run = action.PolicyRun(fake, args(entry_point=entry_point, **options), task_vars or {})
    failure = None
    try:
        getattr(policy_run, entry_point)()
    except action.StepFailed as exc:
        failure = exc
    return fake.calls, policy_run, failure


CHANGED = [dict(path='/etc/python/cert-verification.cfg', action='updated', kind='cfg'),
           dict(path='/etc/systemd/system/legacy.service.d/zz-pep493-https.conf', action='created', kind='dropin')]
WRITERS_OK = {'cert_verification': dict(changed=True, verify='enable', previous='disable'),
              'service_verification': dict(changed=False, services=[], removed=[])}


def test_a_bad_policy_is_refused_before_any_module_runs():
    calls, dummy, failure = run(exceptions=[GOOD, dict(GOOD, name='bad name')], verify='disable')
    assert calls == []
    assert failure.step == action.REFUSE_POLICY
    assert failure.msg.startswith('Policy refused, nothing was changed: pep493_https_verify is "disable"')
    assert "pep493_https_exceptions[1]: unit name 'bad name' contains ' '" in failure.msg


def test_the_order_is_predict_write_audit_and_the_writers_get_the_plan():
    answers = dict(WRITERS_OK, verification_info=verification_info(CHANGED))
    calls, policy_run, failure = run(answers=answers, exceptions=[GOOD])
    assert failure is None
    assert [(name, bool(module_args.get('planned'))) for name, module_args in calls] == [
        ('verification_info', True), ('cert_verification', False), ('service_verification', False),
        ('verification_info', False)]
    assert calls[2][1]['services'] == [dict(GOOD, name='legacy.service')]
    assert policy_run.applied['cfg']['changed'] is True and policy_run.changed is True
    assert 'predicted' not in policy_run.status


def test_a_host_that_would_not_comply_fails_before_the_first_write():
    answers = dict(WRITERS_OK, verification_info=lambda module_args: info(planned=True, state_file='disable'))
    calls, dummy, failure = run(answers=answers)
    assert [name for name, dummy in calls] == ['verification_info']
    assert failure.step == action.REFUSE_PREDICTION and failure.msg.startswith('would be non_compliant - ')


def test_a_failed_writer_stops_the_run_and_what_was_done_is_kept():
    answers = dict(WRITERS_OK, verification_info=verification_info(CHANGED),
                   service_verification=dict(failed=True, msg='cannot write the drop-in'))
    calls, policy_run, failure = run(answers=answers, exceptions=[GOOD])
    assert failure.step == action.WRITE_DROPINS and failure.msg == 'cannot write the drop-in'
    assert [name for name, dummy in calls] == ['verification_info', 'cert_verification', 'service_verification']
    assert policy_run.applied['cfg']['changed'] is True
    assert policy_run.facts()['pep493_https_applied']['services']['failed'] is True


def test_a_re_run_that_changes_nothing_makes_one_call_and_says_why_the_others_were_left_out():
    calls, policy_run, failure = run(answers=dict(verification_info=verification_info([])))
    assert failure is None and [name for name, dummy in calls] == ['verification_info']
    assert policy_run.status['prediction_reused'] is True
    why = dict((step['step'], step.get('why')) for step in policy_run.steps if not step['ran'])
    assert why == {'ca_trust': 'pep493_https_trusted_cas is empty', 'forecast': 'pep493_https_forecast is false',
                   'cert_verification': 'the prediction shows the file already as the policy wants it',
                   'service_verification': 'the prediction shows no drop-in to write or remove',
                   'audit': 'nothing changed: the prediction is the audit'}


def test_check_mode_keeps_the_prediction_as_the_verdict():
    answers = dict(WRITERS_OK, verification_info=verification_info(CHANGED))
    calls, policy_run, failure = run(answers=answers, check_mode=True)
    assert [name for name, dummy in calls] == ['verification_info', 'cert_verification', 'service_verification']
    assert policy_run.status['predicted'] is True and policy_run.status['check_mode'] is True


@pytest.mark.parametrize('run_tags, skip_tags, wanted', [
    (['pep493_https_file'], [], ['verification_info', 'cert_verification']),
    (['pep493_https_services'], [], ['verification_info', 'service_verification']),
    (['pep493_https_audit'], [], ['verification_info', 'verification_info']),
    (['all'], ['pep493_https_file'], ['verification_info', 'service_verification', 'verification_info']),
    (['mine'], [], ['verification_info', 'cert_verification', 'service_verification', 'verification_info']),
])
def test_tags_select_the_parts(run_tags, skip_tags, wanted):
    answers = dict(WRITERS_OK, verification_info=verification_info(CHANGED))
    calls, dummy, failure = run(answers=answers, task_vars=dict(ansible_run_tags=run_tags, ansible_skip_tags=skip_tags),
                                tags=('always', 'mine'), exceptions=[GOOD])
    assert failure is None
    assert [name for name, dummy in calls] == wanted


def test_rollback_refuses_an_unacknowledged_disable_before_any_module_runs():
    calls, dummy, failure = run('rollback', rollback_verify='disable')
    assert calls == [] and failure.step == action.REFUSE_ROLLBACK


def test_rollback_restores_then_removes_every_dropin():
    answers = dict(cert_verification=dict(changed=True, verify='enable', restored_from='/x~'),
                   service_verification=dict(changed=True, services=[], removed=[dict(name='a.service',
                                                                                      action='removed')]))
    calls, policy_run, failure = run('rollback', answers=answers)
    assert failure is None
    assert calls[0] == ('cert_verification', dict(state='restored', path='/etc/python/cert-verification.cfg',
                                                  root='/tmp/root', allow_disable=False))
    assert calls[1][0] == 'service_verification' and calls[1][1]['exclusive'] is True and calls[1][1]['services'] == []
    assert policy_run.applied['services']['removed'] == [dict(name='a.service', action='removed')]


def test_host_wide_cas_are_trusted_first_and_kept_in_applied():
    trusted = [dict(name='acme', content=ca_pki.text('acme')), dict(name='old', state='absent')]
    answers = dict(WRITERS_OK, verification_info=verification_info(CHANGED),
                   ca_trust=dict(changed=True, update_status='ran', cas=[
                       dict(name='acme', state='present', action='created', subject='O = Acme', in_bundle=True),
                       dict(name='old', state='absent', action='removed', subject=None, in_bundle=False)]))
    calls, policy_run, failure = run(answers=answers, exceptions=[GOOD], trusted_cas=trusted, expiry_warning_days=45)
    assert failure is None
    assert [name for name, dummy in calls] == ['ca_trust', 'verification_info', 'cert_verification',
                                               'service_verification', 'verification_info']
    assert calls[0][1] == dict(cas=trusted, root='/tmp/root', expiry_warning_days=45)
    assert policy_run.applied['trusted_cas']['update_status'] == 'ran'
    assert [c['action'] for c in policy_run.applied['trusted_cas']['cas']] == ['created', 'removed']


@pytest.mark.parametrize('trusted, message', [
    ([dict(name='acme', content='see the wiki')],
     'pep493_https_trusted_cas[0].content: holds no certificate (no -----BEGIN CERTIFICATE----- block, and not DER)'),
    ([dict(name='acme', content='x', owner='me')],
     'pep493_https_trusted_cas[0] has unknown key(s) owner; a CA takes only name, content, state'),
    ('acme', 'pep493_https_trusted_cas is not a list of CAs ({name, content, state})'),
])
def test_a_bad_trusted_ca_is_refused_before_any_module_runs(trusted, message):
    calls, dummy, failure = run(trusted_cas=trusted)
    assert calls == [] and failure.step == action.REFUSE_POLICY
    assert failure.msg == 'Policy refused, nothing was changed: ' + message


def test_an_exception_with_a_ca_reaches_service_verification_verifying_and_is_not_forecast():
    trusting = dict(name='vendor', ca=ca_pki.text('acme'), reason='vendor CA', expires='2099-12-31')
    forecast = dict(changed=False, services=[], endpoints=[])
    answers = dict(WRITERS_OK, verification_info=verification_info(CHANGED), verification_forecast=forecast)
    calls, policy_run, failure = run(answers=answers, exceptions=[trusting], forecast=True, root='')
    assert failure is None, failure and failure.msg
    sent = dict(calls)['service_verification']['services']
    assert sent == [dict(trusting, name='vendor.service', verify=True)]
    assert dict(calls)['verification_forecast']['keep_unverified'] == ['vendor.service']
    assert any(w.startswith('vendor.service: not forecast') for w in policy_run.warnings)
