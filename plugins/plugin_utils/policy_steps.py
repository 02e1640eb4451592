# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The steps of the policy role's one step (plugins/action/verification_policy.py), in the order they
run (controller only).

``main``: plan and validate the policy (here, on the controller) - trust the host-wide CAs
(ca_trust, so that the forecast and the services see them) - forecast what would break
(verification_forecast) - predict the host as the policy will leave it (verification_info with
``planned``) - write the cfg file (cert_verification) and the drop-ins (service_verification),
each only when the prediction shows it has something to change - audit the host
(verification_info), unless the prediction already is that audit. ``audit``: plan, then audit.
``rollback``: restore the cfg file, then remove every drop-in of ours.

Every step that stops the run raises StepFailed, naming the step; the action returns what the
steps did so far as facts (``PolicyRun.facts``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime

from ansible.errors import AnsibleConnectionFailure
from ansible_collections.pep493.https.plugins.plugin_utils import compliance
from ansible_collections.pep493.https.plugins.plugin_utils import policy_plan
from ansible_collections.pep493.https.plugins.plugin_utils import policy_run
from ansible_collections.pep493.https.plugins.plugin_utils import predicted_breaks

COLLECTION = 'pep493.https.'
WRITERS = ('cert_verification', 'service_verification', 'ca_trust')
# the tag of each part of the main entry point (ansible-playbook --tags)
PART_TAGS = dict(file='pep493_https_file', services='pep493_https_services', audit='pep493_https_audit',
                 trust='pep493_https_trust')

# The steps that can stop a run, by the name an operator reads in the batch summary.
REFUSE_POLICY = 'Refuse a policy that is not safe or not complete'
REFUSE_BREAKS = 'Refuse to enforce where a service would break, nothing was changed'
REFUSE_PREDICTION = 'Refuse a policy the host would not comply with'
TRUST_CAS = 'Trust the policy\'s CAs host-wide'
WRITE_CFG = 'Set the host-wide HTTPS verification default'
WRITE_DROPINS = 'Put the per-service exceptions in place'
AUDIT = 'Audit the host against the policy'
REFUSE_ROLLBACK = 'Refuse a rollback value that was not acknowledged'
RESTORE_CFG = 'Put the cfg file back as it was before the last change'
ROLLBACK_CFG = 'Put the given value in place'
REMOVE_DROPINS = 'Remove every drop-in of ours'


def warning_texts(found):
    """The texts of a module result's warnings (ansible-core 2.19+ gives WarningSummary objects)."""
    texts = []
    for warning in found.get('warnings') or []:
        event = getattr(warning, 'event', None)
        texts.append(str(event.msg if event is not None else warning))
    return texts


def failure_message(name, found):
    """What went wrong with the module ``name``, from its result ``found``: its own message, or, when
    it gave none Ansible could read, what happened (not sent, or no readable output and its exit code)."""
    msg = str(found.get('msg') or '')
    if found.get('unreachable'):
        return '%s%s could not be sent to the host or started there: %s' % (COLLECTION, name, msg or 'no reason given')
    if msg.startswith('MODULE FAILURE') or not msg or 'module_stdout' in found or 'module_stderr' in found:
        output = (str(found.get('module_stderr') or '').strip() or str(found.get('module_stdout') or '').strip())
        lines = output.splitlines()
        return '%s%s ran on the host but returned no result Ansible could read (exit code %s): %s' % (
            COLLECTION, name, found.get('rc', 'unknown'), lines[-1][:300] if lines else 'it printed nothing')
    return msg


class StepFailed(Exception):
    """A step that stops the run: ``step`` (its name), ``msg``, and the module's result if any."""

    def __init__(self, step, msg, module_result=None):
        super(StepFailed, self).__init__(msg)
        self.step = step
        self.msg = msg
        self.module_result = module_result


class PolicyRun(object):
    """One entry point's run on one host: the steps in order, each a method."""

    def __init__(self, action, args, task_vars):
        self.action = action
        self.args = args
        self.task_vars = task_vars
        self.check_mode = bool(action._task.check_mode)
        self.root = args['root'] or None
        self.plan = None
        self.trusted = None
        self.status = None
        self.applied = None
        self.forecast_result = None
        self.changed = False
        self.warnings = []
        self.diffs = []
        self.steps = []
        # the writing modules' whole results (the facts keep what the summary needs): register the task for them
        self.module_results = {}

    # --- entry points -------------------------------------------------------------------------

    def main(self):
        self.warn_policy_outside_inventory()
        self.plan = self.plan_policy()
        self.refuse_bad_policy()
        try:
            self.trusted = self.trust_cas()
        except StepFailed as exc:
            self.trusted = exc.module_result or {}
            raise
        if self.args['forecast'] and not self.root:
            self.forecast()
        else:
            self.skip('forecast', 'pep493_https_forecast is false' if not self.args['forecast']
                      else 'under pep493_https_root nothing runs to probe')
        unchanged = dict(cfg=False, services=False)
        if self.args['audit'] and any(self.part(name) for name in PART_TAGS):
            unchanged = self.predict()
        else:
            self.skip('predict', 'pep493_https_audit is false' if not self.args['audit'] else 'left out by --tags')
        cfg = services = {}
        try:
            cfg = self.write_cfg(unchanged['cfg'])
            services = self.write_dropins(unchanged['services'])
        except StepFailed as exc:
            # the failed module's own result goes in the summary, as a registered task's did
            if exc.step == WRITE_CFG:
                cfg = exc.module_result or {}
            elif exc.step == WRITE_DROPINS:
                services = exc.module_result or {}
            raise
        finally:
            self.applied = dict(
                entry_point='main', check_mode=self.check_mode, trusted_cas=policy_run.applied_cas(self.trusted),
                cfg=policy_run.applied_cfg(cfg, unchanged, self.args['verify']),
                services=policy_run.applied_services(services, unchanged, self.plan['services']),
                expired=self.plan['expired'], expired_policy=self.args['expired'], restart=self.args['restart'],
                root=self.args['root'], steps=self.steps)
        self.audit_after_change(cfg, services)

    def audit(self):
        self.warn_policy_outside_inventory()
        plan = self.plan_policy()
        info = self.module('verification_info', AUDIT, self.info_args())
        verdict = None if plan['problems'] else compliance.compliance(
            info, self.args['verify'], plan['allowed'], self.args['exclusive'], self.args['expired'], self.automatic())
        self.status = dict(policy=self.policy_of(plan), info=info, compliance=verdict, check_mode=self.check_mode,
                           problems=plan['problems'])
        if plan['problems']:
            raise StepFailed(REFUSE_POLICY, 'Policy refused, nothing was changed: %s' % '; '.join(plan['problems']))
        if not verdict['compliant'] and self.args['fail_when_noncompliant'] and not self.check_mode:
            raise StepFailed(AUDIT, 'Not compliant: %s' % '; '.join(verdict['reasons']))

    def rollback(self):
        value = self.args['rollback_verify']
        if value == 'disable' and not policy_plan.is_true(self.args['allow_insecure_host_default']):
            raise StepFailed(REFUSE_ROLLBACK, 'Nothing was changed: pep493_https_rollback_verify is "disable": every '
                                              'Python 2 program on this host that reads %s would stop verifying HTTPS '
                                              'certificates. Set pep493_https_allow_insecure_host_default: true if '
                                              'that is really meant.' % self.args['cfg_path'])
        cfg = services = {}
        try:
            if self.part('file'):
                cfg = self.rollback_cfg(value)
            if self.part('services'):
                services = self.module('service_verification', REMOVE_DROPINS, dict(
                    services=[], exclusive=True, root=self.root, daemon_reload=self.args['daemon_reload'],
                    restart=self.args['restart']))
        except StepFailed as exc:
            if exc.step in (RESTORE_CFG, ROLLBACK_CFG):
                cfg = exc.module_result or {}
            elif exc.step == REMOVE_DROPINS:
                services = exc.module_result or {}
            raise
        finally:
            self.applied = dict(entry_point='rollback', check_mode=self.check_mode, cfg=cfg,
                                services=policy_run.applied_services(services), expired=[],
                                restart=self.args['restart'], root=self.args['root'], steps=self.steps)

    # --- steps --------------------------------------------------------------------------------

    def warn_policy_outside_inventory(self):
        """Warn when a policy variable has another value here than the inventory gives the host (or,
        where it gives none, the role's default): it comes from the play or the role's vars, which
        pep493.https.audit, its gate and the report never see, so they would judge the host by
        another policy."""
        elsewhere = self.action.policy_outside_inventory(self.task_vars)
        if elsewhere:
            self.add_warnings([
                'the policy (%s) comes from the play, not from the inventory: this run applies it, but '
                'pep493.https.audit, its gate and the other playbooks of the collection will not see it. Put the '
                'policy in inventory (group_vars/all.yml, or host_vars) for every playbook to see it.'
                % ', '.join(elsewhere)])

    def plan_policy(self):
        """The whole policy, validated with the modules' own rules before anything is written."""
        args = self.args
        plan = policy_plan.plan_policy(args['verify'], args['exceptions'], None, args['require_justification'],
                                       args['expired'], args['allow_insecure_host_default'], args['cfg_path'],
                                       args['adopt'], args['remove_handmade'], args['break_glass'])
        plan['trusted_cas'], problems = policy_plan.plan_trusted_cas(args['trusted_cas'])
        plan['problems'] = plan['problems'] + problems
        return plan

    def trust_cas(self):
        """The host-wide CAs in the trust store (or out of it), the update run and proven, before the
        forecast and the writes: a service that verifies against them needs no exception."""
        if not self.plan['trusted_cas']:
            return self.skip('ca_trust', 'pep493_https_trusted_cas is empty')
        if not self.part('trust'):
            return self.skip('ca_trust', 'left out by --tags')
        return self.module('ca_trust', TRUST_CAS, dict(cas=self.plan['trusted_cas'], root=self.root,
                                                       expiry_warning_days=self.args['expiry_warning_days']))

    def refuse_bad_policy(self):
        if self.plan['problems']:
            raise StepFailed(REFUSE_POLICY, 'Policy refused, nothing was changed: %s' % '; '.join(self.plan['problems']))

    def forecast(self):
        """Which services would break once they verify, with the CAs the policy trusts (the host-wide
        ones this run put in place, or would in check mode, and each exception's own); on_predicted_break
        decides what follows."""
        args = self.args
        keep = [item['name'] for item in self.plan['allowed'] if not item['verify']]
        trusted = self.plan['trusted_cas'] if not (self.trusted or {}).get('skipped') else []
        found = self.module('verification_forecast', 'Forecast which services would break once they verify', dict(
            endpoints=args['forecast_endpoints'], keep_unverified=keep, observe_seconds=args['forecast_observe_seconds'],
            timeout=args['forecast_timeout'], budget=args['forecast_budget'],
            cas=predicted_breaks.forecast_cas(self.plan['allowed'], trusted)))
        days = args['forecast_exception_days']
        if isinstance(days, str) and days.strip().isdigit():
            days = int(days)
        self.forecast_result = predicted_breaks.plan_forecast(found, self.plan, args['on_predicted_break'], days,
                                                              on_unknown=args['on_unknown'])
        if self.forecast_result['problems']:
            raise StepFailed(REFUSE_BREAKS, 'Predicted breaks, nothing was changed: %s'
                             % '; '.join(self.forecast_result['problems']))
        self.warnings.extend(self.forecast_result['warnings'])
        self.plan = dict(self.plan, services=self.forecast_result['services'], allowed=self.forecast_result['allowed'])

    def predict(self):
        """The audit of the host as the policy will leave it, judged by the audit's own rule; a host
        that would not comply fails untouched. Returns which writer has nothing to change."""
        args = self.args
        info = self.module('verification_info', 'Audit the host as the policy will leave it', self.info_args(planned=dict(
            verify=args['verify'], repair=args['cfg_repair'], exceptions=self.plan['services'],
            exclusive=args['exclusive'], remove_handmade=self.plan['remove_handmade'])))
        self.status = policy_run.predicted_status(info, args['verify'], self.plan['allowed'], args['exclusive'],
                                                  self.plan['expired'], args['expired'], args['restart'],
                                                  self.check_mode, self.automatic())
        verdict = self.status['compliance']
        if not verdict['compliant'] and args['fail_when_noncompliant']:
            raise StepFailed(REFUSE_PREDICTION, 'would be %s - %s. Nothing was changed.'
                             % (verdict['state'], '; '.join(verdict['reasons'])))
        return policy_run.unchanged_by_plan(info)

    def write_cfg(self, unchanged):
        if not self.part('file'):
            self.skip('cert_verification', 'left out by --tags')
            return {}
        if unchanged:
            return self.skip('cert_verification', 'the prediction shows the file already as the policy wants it')
        return self.module('cert_verification', WRITE_CFG, dict(
            verify=self.args['verify'], path=self.args['cfg_path'], root=self.root, backup=self.args['cfg_backup'],
            repair=self.args['cfg_repair']))

    def write_dropins(self, unchanged):
        if not self.part('services'):
            self.skip('service_verification', 'left out by --tags')
            return {}
        if not self.plan['services'] and not self.args['exclusive'] and not self.plan['remove_handmade']:
            return self.skip('service_verification', 'no exception to write and pep493_https_exclusive is false')
        if unchanged:
            return self.skip('service_verification', 'the prediction shows no drop-in to write or remove')
        return self.module('service_verification', WRITE_DROPINS, dict(
            services=self.plan['services'], exclusive=self.args['exclusive'], root=self.root,
            remove_handmade=self.plan['remove_handmade'] or None,
            daemon_reload=self.args['daemon_reload'], restart=self.args['restart']))

    def audit_after_change(self, cfg, services):
        """The audit of the host as it now is; not in check mode (nothing was applied) and not when
        the prediction already is that audit (nothing changed: it read the very same state)."""
        if not (self.args['audit'] and self.part('audit')):
            self.skip('audit', 'pep493_https_audit is false' if not self.args['audit'] else 'left out by --tags')
            return
        if self.check_mode:
            self.skip('audit', 'check mode: nothing was applied, the prediction is the verdict')
            return
        if (self.status or {}).get('prediction_reused'):
            self.skip('audit', 'nothing changed: the prediction is the audit')
            return
        info = self.module('verification_info', AUDIT, self.info_args())
        verdict = compliance.compliance(info, self.args['verify'], self.plan['allowed'], self.args['exclusive'],
                                        self.args['expired'], self.automatic())
        self.status = dict(policy=self.policy_of(self.plan), info=info, compliance=verdict,
                           check_mode=self.check_mode)
        if not verdict['compliant'] and self.args['fail_when_noncompliant']:
            raise StepFailed('Fail when the host does not comply with the policy',
                             'Not compliant: %s' % '; '.join(verdict['reasons']))

    def rollback_cfg(self, value):
        if not value:
            return self.module('cert_verification', RESTORE_CFG, dict(
                state='restored', path=self.args['cfg_path'], root=self.root,
                allow_disable=policy_plan.is_true(self.args['allow_insecure_host_default'])))
        return self.module('cert_verification', ROLLBACK_CFG, dict(
            verify=None if value == 'absent' else value, state='absent' if value == 'absent' else 'present',
            path=self.args['cfg_path'], root=self.root, backup=self.args['cfg_backup']))

    # --- helpers ------------------------------------------------------------------------------

    def module(self, name, step, args):
        """Run the module ``name`` for ``step``; a failed module stops the run, named."""
        args = dict((key, value) for key, value in args.items() if value is not None)
        try:
            found = self.action.run_module(name, args, self.task_vars)
        except AnsibleConnectionFailure as exc:
            # the host stays unreachable for Ansible (as any connection failure), with what could not be done
            raise AnsibleConnectionFailure(failure_message(name, dict(unreachable=True, msg=str(exc))))
        self.steps.append(dict(step=step, module=COLLECTION + name, ran=True, changed=bool(found.get('changed'))))
        if name in WRITERS:
            self.module_results[name] = found
        self.add_warnings(warning_texts(found))
        if found.get('diff'):
            self.diffs.extend(found['diff'] if isinstance(found['diff'], list) else [found['diff']])
        if found.get('failed') or found.get('unreachable'):
            raise StepFailed(step, failure_message(name, found), found)
        self.changed = self.changed or bool(found.get('changed'))
        return found

    def add_warnings(self, texts):
        """Ansible shows a warning once per run whichever host sent it: each names its inventory host,
        and is said once."""
        host = self.task_vars.get('inventory_hostname')
        for text in texts:
            text = '%s: %s' % (host, text) if host and not text.startswith('%s: ' % host) else text
            if text not in self.warnings:
                self.warnings.append(text)

    def skip(self, step, why):
        """A step left out, and why: the run's ``steps`` say it."""
        self.steps.append(dict(step=step, ran=False, why=why))
        left_out = dict(skipped=True, changed=False)
        if step in WRITERS:
            self.module_results[step] = dict(left_out, skip_reason=why)
        return left_out

    def part(self, name):
        """Whether ``--tags``/``--skip-tags`` select this part of the entry point (its tag in
        PART_TAGS): as when each part was a task of its own, tagged with its tag and the tags the
        task of this run has (from an ``apply`` or an enclosing block)."""
        tag = PART_TAGS[name]
        own = set(self.action._task.tags or []) - set(['always'])
        run_tags = set(self.task_vars.get('ansible_run_tags') or ['all'])
        skip_tags = set(self.task_vars.get('ansible_skip_tags') or [])
        tags = own | set([tag])
        return not (tags & skip_tags) and bool(run_tags & (tags | set(['all', 'tagged'])))

    def automatic(self):
        """Whether the forecast may grant exceptions under this policy (they are part of it then)."""
        return self.args['on_predicted_break'] == 'except' or self.args['on_unknown'] == 'keep'

    def info_args(self, planned=None):
        return dict(path=self.args['cfg_path'], root=self.root, interpreters=self.args['audit_interpreters'],
                    planned=planned)

    def policy_of(self, plan):
        return dict(verify=self.args['verify'], exclusive=self.args['exclusive'], exceptions=plan['allowed'],
                    expired=plan['expired'])

    def facts(self):
        """The facts of the run; the verdict and the forecast say when they were made (UTC), so
        that a report from a fact cache can tell a result of this run from an older one."""
        made = datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')
        facts = {}
        if self.status is not None:
            facts['pep493_https_status'] = dict(self.status, audited=made)
        if self.applied is not None:
            facts['pep493_https_applied'] = self.applied
        if self.forecast_result is not None:
            facts['pep493_https_forecast_result'] = dict(self.forecast_result, forecasted=made)
        return facts

    def outcome(self):
        found = dict(changed=self.changed, steps=self.steps, module_results=self.module_results)
        if self.warnings:
            found['warnings'] = self.warnings
        if self.diffs:
            found['diff'] = self.diffs
        return found
