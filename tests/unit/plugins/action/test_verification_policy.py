# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The policy run's order (plugins/action/verification_policy.py), with stand-in modules: the
policy is refused before the first write, each step runs only when it must, what was done is kept
when a step fails, and --tags select the parts."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import io
import os
import re

import pytest

from ansible_collections.pep493.https.plugins.action import verification_policy as action
from ansible_collections.pep493.https.plugins.plugin_utils import policy_steps as steps
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

    def policy_outside_inventory(self, task_vars):
        return task_vars.get('outside_inventory', [])

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
    policy_run = steps.PolicyRun(fake, args(entry_point=entry_point, **options), task_vars or {})
    failure = None
    try:
        getattr(policy_run, entry_point)()
    except steps.StepFailed as exc:
        failure = exc
    return fake.calls, policy_run, failure


CHANGED = [dict(path='/etc/python/cert-verification.cfg', action='updated', kind='cfg'),
           dict(path='/etc/systemd/system/legacy.service.d/zz-pep493-https.conf', action='created', kind='dropin')]
WRITERS_OK = {'cert_verification': dict(changed=True, verify='enable', previous='disable'),
              'service_verification': dict(changed=False, services=[], removed=[])}


def test_a_bad_policy_is_refused_before_any_module_runs():
    calls, dummy, failure = run(exceptions=[GOOD, dict(GOOD, name='bad name')], verify='disable')
    assert calls == []
    assert failure.step == steps.REFUSE_POLICY
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
    assert failure.step == steps.REFUSE_PREDICTION and failure.msg.startswith('would be non_compliant - ')


def test_a_failed_writer_stops_the_run_and_what_was_done_is_kept():
    answers = dict(WRITERS_OK, verification_info=verification_info(CHANGED),
                   service_verification=dict(failed=True, msg='cannot write the drop-in'))
    calls, policy_run, failure = run(answers=answers, exceptions=[GOOD])
    assert failure.step == steps.WRITE_DROPINS and failure.msg == 'cannot write the drop-in'
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


def test_on_a_host_the_forecast_adds_its_call_to_a_re_run_that_changes_nothing():
    answers = dict(verification_info=verification_info([]), verification_forecast=dict(services=[], host_wide=None))
    calls, policy_run, failure = run(answers=answers, root='', forecast=True)
    assert failure is None and [name for name, dummy in calls] == ['verification_forecast', 'verification_info']
    calls, policy_run, failure = run(answers=answers, forecast=True)
    assert failure is None and [name for name, dummy in calls] == ['verification_info']    # under root


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
    assert calls == [] and failure.step == steps.REFUSE_ROLLBACK


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


FACTS = dict(pep493_https_status=dict(compliance=dict(state='compliant')), pep493_https_applied=dict(entry_point='main'),
             pep493_https_forecast_result=dict(breaks=[]))
CACHEABLE = dict((name, FACTS[name]) for name in ('pep493_https_status', 'pep493_https_forecast_result'))


class Layers(object):
    """An action of ansible-core 2.19 or later: what it registers, by variable layer."""

    def __init__(self):
        self.layers = {}

    def register_host_variables(self, variables, layer):
        self.layers[layer] = variables


def test_from_ansible_core_2_21_the_verdict_and_the_forecast_are_cacheable_facts():
    task = pytest.importorskip('ansible._internal._task')
    if not hasattr(task, 'VariableLayer'):
        pytest.skip('ansible-core 2.19 and 2.20 have no variable layers for an action: the next test is theirs')
    layers, result = Layers(), {}
    action.ActionModule._keep_facts(layers, result, dict(FACTS))
    assert layers.layers == {task.VariableLayer.CACHEABLE_FACT: CACHEABLE, task.VariableLayer.EPHEMERAL_FACT: FACTS}
    assert result['pep493_https_applied'] == FACTS['pep493_https_applied']


def test_before_ansible_core_2_21_the_action_returns_only_the_cacheable_facts_as_facts():
    """Every fact an action other than set_fact returns goes to the fact cache there: what was
    applied is in the result only, for the role to keep with set_fact."""
    result = {}
    action.ActionModule._keep_facts(object(), result, dict(FACTS))
    assert result['ansible_facts'] == CACHEABLE
    assert result['pep493_https_applied'] == FACTS['pep493_https_applied']


def test_a_failed_run_returns_its_facts_in_its_result_only():
    layers, result = Layers(), dict(failed=True)
    action.ActionModule._keep_facts(layers, result, dict(FACTS))
    assert layers.layers == {} and 'ansible_facts' not in result and result['pep493_https_status'] == FACTS['pep493_https_status']


def test_the_verdict_and_the_forecast_say_when_they_were_made():
    answers = dict(verification_info=verification_info([]), verification_forecast=dict(services=[], host_wide=None))
    calls, policy_run, failure = run(answers=answers, root='', forecast=True)
    facts = policy_run.facts()
    for name, key in (('pep493_https_status', 'audited'), ('pep493_https_forecast_result', 'forecasted')):
        assert re.match(r'^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$', facts[name][key]), facts[name]
    assert 'audited' not in facts['pep493_https_applied']


def test_the_modules_warnings_name_the_inventory_host_not_the_machine():
    cfg_warning = ('/etc/python/cert-verification.cfg written, but no Python on this host reads it (only RHEL/CentOS 7 '
                   'system python and SCL python27 do; no Python 3 does), so it has no effect here.')
    answers = dict(WRITERS_OK, verification_info=verification_info(CHANGED),
                   cert_verification=dict(WRITERS_OK['cert_verification'], warnings=[cfg_warning]))
    dummy, policy_run, failure = run(answers=answers, exceptions=[GOOD], task_vars=dict(inventory_hostname='web-7'))
    assert failure is None
    assert policy_run.outcome()['warnings'] == ['web-7: ' + cfg_warning]


@pytest.mark.parametrize('answer, expected', [
    # the module's output could not be read (a transfer cut short, an interpreter that printed nothing)
    (dict(failed=True, rc=0, msg='MODULE FAILURE\nSee stdout/stderr for the exact error', module_stdout='',
          module_stderr='/bin/sh: 1: /usr/bin/python9: not found\n'),
     'pep493.https.verification_info ran on the host but returned no result Ansible could read (exit code 0): '
     '/bin/sh: 1: /usr/bin/python9: not found'),
    (dict(failed=True, rc=0, msg='MODULE FAILURE\nSee stdout/stderr for the exact error', module_stdout='',
          module_stderr=''),
     'pep493.https.verification_info ran on the host but returned no result Ansible could read (exit code 0): '
     'it printed nothing'),
    (dict(unreachable=True, msg='Failed to connect to the host via ssh: Connection refused'),
     'pep493.https.verification_info could not be sent to the host or started there: Failed to connect to the '
     'host via ssh: Connection refused'),
])
def test_a_module_that_gave_no_result_says_what_happened(answer, expected):
    dummy, dummy, failure = run('audit', answers=dict(verification_info=answer))
    assert failure.step == steps.AUDIT and failure.msg == expected


def test_a_transfer_that_fails_leaves_the_host_unreachable_and_says_what_could_not_be_done():
    from ansible.errors import AnsibleConnectionFailure

    def cannot_send(module_args):
        raise AnsibleConnectionFailure('Command execution failed: Command failed (rc=125): no space left on device')
    with pytest.raises(AnsibleConnectionFailure) as caught:
        run('audit', answers=dict(verification_info=cannot_send))
    assert str(caught.value) == ('pep493.https.verification_info could not be sent to the host or started there: '
                                 'Command execution failed: Command failed (rc=125): no space left on device')


def test_the_modules_run_the_way_the_host_needs():
    """Each module of the run goes through the same choice as a task of that module: ansible-core's own
    payload, or the collection runner where that payload cannot start (RHEL 7's Python 2.7 from 2.19+)."""
    from ansible_collections.pep493.https.plugins.plugin_utils.module_action import CollectionModules
    assert issubclass(action.ActionModule, CollectionModules)
    calls = []

    class Recorder(action.ActionModule):
        def __init__(self):  # no task, connection or loader: only run_module is exercised
            pass

        def run_collection_module(self, module, args, task_vars, wrap_async=False, action_name=None):
            calls.append((module, args, task_vars, wrap_async, action_name))
            return dict(changed=False)

    assert Recorder().run_module('verification_info', dict(root='/tmp/root'), {'x': 1}) == dict(changed=False, warnings=[])
    assert calls == [('verification_info', dict(root='/tmp/root'), {'x': 1}, False, None)]


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
    assert calls == [] and failure.step == steps.REFUSE_POLICY
    assert failure.msg == 'Policy refused, nothing was changed: ' + message


def forecast_entry(name, verdict='ok', fixed_by=None, trust=None, result='untrusted'):
    """A verification_forecast entry with one endpoint that is untrusted today."""
    endpoint = dict(endpoint='10.0.0.1:443', result=result, error='unable to get local issuer certificate',
                    peer=dict(issuer='O = Acme, CN = Acme Internal Root'), requests=None, fixed_by=fixed_by,
                    trust=trust)
    return dict(service=name, verdict=verdict, policy_verifies=True, verifies_today=False, exception=None,
                endpoints=[endpoint], fixed_by=[fixed_by] if fixed_by else [],
                fixed=bool(fixed_by) and verdict in ('ok', 'unaffected'), why='')


def trust_record(ca, result='ok'):
    return dict(ca=ca, subject='O = Acme, CN = Acme Internal Root', scope='host', matched_by='issuer name only',
                result=result, error=None if result == 'ok' else 'certificate verify failed', requests=None)


def forecast_answer(*entries):
    return dict(changed=False, services=list(entries), host_wide=None, summary={})


TRUSTING = dict(name='vendor', ca=ca_pki.text('acme'), reason='vendor CA', expires='2099-12-31')


def test_an_exception_with_a_ca_is_forecast_with_that_ca_and_granted_nothing_more():
    forecast = forecast_answer(forecast_entry('vendor.service', 'ok', 'O = Acme, CN = Acme Internal Root',
                                              trust_record('O = Acme, CN = Acme Internal Root')))
    answers = dict(WRITERS_OK, verification_info=verification_info(CHANGED), verification_forecast=forecast)
    calls, policy_run, failure = run(answers=answers, exceptions=[TRUSTING], forecast=True, root='',
                                     on_predicted_break='except', task_vars=dict(inventory_hostname='web-7'))
    assert failure is None, failure and failure.msg
    sent = dict(calls)['service_verification']['services']
    assert sent == [dict(TRUSTING, name='vendor.service', verify=True)]
    forecast_args = dict(calls)['verification_forecast']
    assert forecast_args['keep_unverified'] == []
    assert forecast_args['cas'] == [dict(name='O = Acme, CN = Acme Internal Root', content=TRUSTING['ca'],
                                         services=['vendor.service'])]
    assert policy_run.forecast_result['granted'] == [] and policy_run.forecast_result['problems'] == []
    assert not any('not forecast' in w for w in policy_run.warnings)


def test_an_exception_whose_own_ca_does_not_fix_its_break_refuses_the_run():
    broken = forecast_entry('vendor.service', 'would_break', None,
                            trust_record('O = Acme, CN = Acme Internal Root', 'untrusted'))
    answers = dict(WRITERS_OK, verification_info=verification_info(CHANGED),
                   verification_forecast=forecast_answer(broken))
    calls, policy_run, failure = run(answers=answers, exceptions=[TRUSTING], forecast=True, root='',
                                     on_predicted_break='except')
    assert failure.step == steps.REFUSE_BREAKS
    assert [name for name, dummy in calls] == ['verification_forecast']
    assert failure.msg == (
        'Predicted breaks, nothing was changed: vendor.service would break on 10.0.0.1:443 (untrusted; issuer O = Acme, '
        'CN = Acme Internal Root): trust its CA or this certificate; trusting O = Acme, CN = Acme Internal Root (it '
        'names the issuer, issuer name only) does not fix it: untrusted: certificate verify failed (vendor.service has '
        'an exception that trusts a CA of its own, which stays as the policy gives it: put the CA that issued the '
        'certificate in it, or make it verify: false)')


# docs/errors.md's rows for the policy role (module column "policy"): each is the message of a run
# refused before anything is written; tests/unit/plugins/modules/test_errors_table.py checks the others
ERRORS_TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..', 'docs', 'errors.md')
NOT_THE_ISSUER = forecast_entry('vendor.service', 'would_break')
NOT_FIXED = forecast_entry('vendor.service', 'would_break', None,
                           trust_record('O = Acme, CN = Acme Internal Root', 'untrusted'))
# id: (the run's options, the forecast the stand-in module answers, the step that refuses it)
POLICY_CASES = {
    'policy-own-ca-not-the-issuer': (dict(exceptions=[TRUSTING], on_predicted_break='fail'),
                                     forecast_answer(NOT_THE_ISSUER), steps.REFUSE_BREAKS),
    'policy-own-ca-does-not-fix': (dict(exceptions=[TRUSTING], on_predicted_break='except'),
                                   forecast_answer(NOT_FIXED), steps.REFUSE_BREAKS),
}


def policy_rows():
    """{id: message} of docs/errors.md's rows whose module column is ``policy``."""
    rows = {}
    with io.open(ERRORS_TABLE, encoding='utf-8') as handle:
        for line in handle:
            match = re.match(r'^\| `([a-z0-9-]+)` \| policy \|.*\| `(.*)` \|\s*$', line)
            if match:
                rows[match.group(1)] = match.group(2).replace('\\|', '|')
    return rows


def test_every_policy_row_of_the_errors_table_has_a_case_and_every_case_a_row():
    assert sorted(policy_rows()) == sorted(POLICY_CASES)


@pytest.mark.parametrize('case', sorted(POLICY_CASES))
def test_the_policy_refuses_with_the_documented_message_before_anything_is_written(case):
    options, forecast, step = POLICY_CASES[case]
    answers = dict(WRITERS_OK, verification_info=verification_info(CHANGED), verification_forecast=forecast)
    calls, policy_run, failure = run(answers=answers, forecast=True, root='', **options)
    assert failure is not None and failure.step == step
    assert failure.msg == policy_rows()[case]
    assert [name for name, dummy in calls] == ['verification_forecast']
    assert policy_run.forecast_result['granted'] == []


@pytest.mark.parametrize('check_mode', [False, True])
def test_host_wide_cas_are_given_to_the_forecast_and_a_service_they_fix_gets_no_exception(check_mode):
    trusted = [dict(name='acme', content=ca_pki.text('acme')), dict(name='old', state='absent')]
    fixed = forecast_entry('legacy.service', 'ok', 'acme', trust_record('acme'))
    answers = dict(WRITERS_OK, verification_info=verification_info(CHANGED),
                   verification_forecast=forecast_answer(fixed),
                   ca_trust=dict(changed=True, update_status='pending' if check_mode else 'ran', cas=[]))
    calls, policy_run, failure = run(answers=answers, trusted_cas=trusted, forecast=True, root='',
                                     on_predicted_break='except', check_mode=check_mode)
    assert failure is None, failure and failure.msg
    assert dict(calls)['verification_forecast']['cas'] == [dict(name='acme', content=ca_pki.text('acme'), services=[])]
    assert policy_run.forecast_result['granted'] == [] and policy_run.forecast_result['breaks'] == []
    assert policy_run.forecast_result['fixed'] == [dict(service='legacy.service', fixed_by=['acme'],
                                                        endpoints=[fixed['endpoints'][0]['endpoint']])]


def test_host_wide_cas_left_out_by_tags_are_not_given_to_the_forecast():
    trusted = [dict(name='acme', content=ca_pki.text('acme'))]
    broken = forecast_entry('legacy.service', 'would_break')
    answers = dict(WRITERS_OK, verification_info=verification_info(CHANGED),
                   verification_forecast=forecast_answer(broken))
    calls, policy_run, failure = run(answers=answers, trusted_cas=trusted, forecast=True, root='',
                                     on_predicted_break='except', task_vars=dict(ansible_run_tags=['pep493_https_services']))
    assert 'ca_trust' not in dict(calls)
    assert dict(calls)['verification_forecast']['cas'] == []
    assert [item['name'] for item in policy_run.forecast_result['granted']] == ['legacy.service']
