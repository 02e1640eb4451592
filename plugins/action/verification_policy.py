# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""pep493.https.verification_policy: one host's policy, end to end, in the order it runs.

The steps themselves, in the order they run, are plugins/plugin_utils/policy_steps.py
(``PolicyRun``: ``main``, ``audit``, ``rollback``); this file checks the task's arguments, runs the
entry point and returns what it did.

Every step that stops the run raises StepFailed, naming the step; what the steps did so far is
returned as the facts ``pep493_https_status``, ``pep493_https_applied`` and
``pep493_https_forecast_result`` (also in the result of a failed run, for a ``rescue``). The verdict
and the forecast are cacheable facts (a fact cache keeps them for later jobs: AWX / Automation
Platform's report job); what the run applied is for this play only.
"""

from __future__ import annotations

from ansible_collections.pep493.https.plugins.plugin_utils import policy_plan
from ansible_collections.pep493.https.plugins.plugin_utils.module_action import CollectionModules
from ansible_collections.pep493.https.plugins.plugin_utils.policy_steps import REFUSE_POLICY, PolicyRun, StepFailed
from ansible_collections.pep493.https.plugins.plugin_utils.policy_steps import warning_texts

# the facts a fact cache keeps for later jobs; pep493_https_applied says what this run did, for its play only
CACHEABLE_FACTS = ('pep493_https_status', 'pep493_https_forecast_result')
# the variables the audit judges a host by: the other playbooks of the collection read them from inventory
POLICY_VARIABLES = ('pep493_https_verify', 'pep493_https_allow_insecure_host_default', 'pep493_https_cfg_path',
                    'pep493_https_exceptions', 'pep493_https_adopt', 'pep493_https_break_glass', 'pep493_https_exclusive',
                    'pep493_https_require_justification', 'pep493_https_expired')

ARGUMENT_SPEC = dict(
    entry_point=dict(type='str', default='main', choices=['main', 'audit', 'rollback']),
    verify=dict(type='str', default='enable'),
    allow_insecure_host_default=dict(type='raw', default=False),
    cfg_path=dict(type='str', default='/etc/python/cert-verification.cfg'),
    cfg_backup=dict(type='bool', default=True),
    cfg_repair=dict(type='bool', default=False),
    exceptions=dict(type='raw', default=[]),
    adopt=dict(type='raw', default=[]),
    break_glass=dict(type='raw', default=[]),
    remove_handmade=dict(type='raw', default=[]),
    trusted_cas=dict(type='raw', default=[]),
    expiry_warning_days=dict(type='int', default=30),
    exclusive=dict(type='bool', default=True),
    require_justification=dict(type='bool', default=True),
    expired=dict(type='str', default='remove'),
    restart=dict(type='str', default='never'),
    daemon_reload=dict(type='bool', default=True),
    audit=dict(type='bool', default=True),
    fail_when_noncompliant=dict(type='bool', default=True),
    audit_interpreters=dict(type='list', elements='str', default=[]),
    forecast=dict(type='bool', default=True),
    on_predicted_break=dict(type='str', default='fail'),
    on_unknown=dict(type='str', default='keep'),
    forecast_exception_days=dict(type='raw', default=30),
    forecast_endpoints=dict(type='list', elements='dict', default=[]),
    forecast_observe_seconds=dict(type='float', default=0.0),
    forecast_timeout=dict(type='float', default=5.0),
    forecast_budget=dict(type='float', default=60.0),
    rollback_verify=dict(type='str', default=''),
    root=dict(type='str', default=''),
)


def take_captured_warnings():
    """The texts of the warnings captured for this task so far, taken out of the capture: from
    ansible-core 2.19 the modules' warnings are captured as they come and shown without the host
    (before 2.19 only the result's warnings are shown, and there is nothing to take)."""
    try:
        from ansible._internal._display_utils import DeferredWarningContext
    except ImportError:
        return []
    context = DeferredWarningContext.current(optional=True)
    captured = getattr(context, '_warnings', None)
    if not isinstance(captured, list):
        return []
    texts = warning_texts(dict(warnings=captured))
    del captured[:]
    return texts


class ActionModule(CollectionModules):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(ARGUMENT_SPEC)

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        dummy, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        run = PolicyRun(self, args, task_vars or {})
        try:
            getattr(run, args['entry_point'])()
        except StepFailed as exc:
            result.update(failed=True, msg=exc.msg, failed_step=exc.step)
            if exc.module_result:
                result['module_result'] = exc.module_result
        except policy_plan.PolicyError as exc:
            result.update(failed=True, msg=str(exc), failed_step=REFUSE_POLICY)
        finally:
            self._remove_tmp_path(self._connection._shell.tmpdir)
        run.add_warnings(take_captured_warnings())
        result.update(run.outcome())
        self._keep_facts(result, run.facts())
        return result

    def run_module(self, name, args, task_vars):
        """The result of the collection's module ``name`` run on the host with ``args``, the way the host
        needs (ansible-core's own payload, or the collection runner where that cannot run: RHEL 7); its
        warnings are the run's to show (each naming the inventory host), not shown a second time without it."""
        found = self.run_collection_module(name, args, task_vars)
        # from 2.19 the result's list may be the very list of captured warnings: keep a copy
        found['warnings'] = list(found.get('warnings') or [])
        return found

    def policy_outside_inventory(self, task_vars):
        """The policy variables (POLICY_VARIABLES) whose value in this task is not what the inventory
        (and extra vars) give the host, or the role's default where they give none; [] outside a role."""
        role = getattr(self._task, '_role', None)
        host = task_vars.get('inventory_hostname')
        hostvars = task_vars.get('hostvars')
        if role is None or host is None or hostvars is None:
            return []
        try:
            inventory = hostvars[host]
        except KeyError:
            return []
        defaults = role.get_default_vars()
        found = []
        for name in POLICY_VARIABLES:
            if name not in task_vars:
                continue
            if name in inventory:
                expected = inventory[name]
            elif name in defaults:
                expected = self._templar.template(defaults[name])
            else:
                continue
            if self._templar.template(task_vars[name]) != expected:
                found.append(name)
        return found

    def _keep_facts(self, result, facts):
        """The run's facts: the verdict and the forecast as cacheable facts (as ``set_fact`` with
        ``cacheable: true`` keeps its own: in the play, and in the fact cache when there is one),
        what was applied for this play only. In the result too: a failed task sets no fact, so
        a playbook's ``rescue`` reads them there."""
        result.update(facts)
        if result.get('failed'):
            return
        cacheable = dict((name, value) for name, value in facts.items() if name in CACHEABLE_FACTS)
        register = getattr(self, 'register_host_variables', None)
        if register is not None:    # ansible-core 2.21+
            from ansible._internal._task import VariableLayer
            result['ansible_facts'] = facts
            register(cacheable, VariableLayer.CACHEABLE_FACT)
            register(facts, VariableLayer.EPHEMERAL_FACT)
        else:
            # Up to 2.20 every fact of an action other than set_fact goes to the fact cache (its
            # _ansible_facts_cacheable flag counts for set_fact only): the role keeps
            # pep493_https_applied from the result with set_fact.
            result['ansible_facts'] = cacheable
