# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What one policy run keeps of each step (controller only): which writing module the prediction
shows has nothing to change, what each module did in the form the batch summary reads, and when
the prediction already is the audit after the change."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from collections.abc import Mapping

from ansible_collections.pep493.https.plugins.plugin_utils import compliance as rules


def unchanged_by_plan(info):
    """Which writing module the role may leave out: ``{'cfg': bool, 'services': bool}``, true where
    ``info``, the ``verification_info`` result of the planned state (its option ``planned``), shows
    that the module would change nothing: no planned change of its kind (``planned_changes[].kind``)
    and, for the cfg file, nothing ``cert_verification`` would refuse (the module then runs, to fail
    with its own message). Anything else (no prediction, a failed or skipped one, a report of the host
    as it is) gives false: the module runs."""
    unchanged = dict(cfg=False, services=False)
    if (not isinstance(info, Mapping) or info.get('failed') or info.get('skipped') or info.get('planned') is not True
            or not isinstance(info.get('planned_changes'), list)):
        return unchanged
    kinds = set(change.get('kind') if isinstance(change, Mapping) else None for change in info['planned_changes'])
    # a change of no known kind could be either
    unchanged['cfg'] = not kinds - set(['dropin', 'handmade']) and not info.get('planned_refusals')
    unchanged['services'] = not kinds - set(['cfg'])
    return unchanged


def _left_out(result, unchanged, kind):
    """Whether the role left the module of ``kind`` out (its task skipped) because the prediction
    showed that it would change nothing."""
    return (isinstance(result, Mapping) and bool(result.get('skipped')) and not result.get('failed')
            and isinstance(unchanged, Mapping) and unchanged.get(kind) is True)


def applied_cfg(result, unchanged=None, verify=None):
    """The ``cert_verification`` result of the role's cfg task (``pep493_https_applied``'s ``cfg``):
    the module's own, or, when the role left it out because the prediction showed the file already
    as the policy wants it (``unchanged`` from ``unchanged_by_plan``), what it would have said: no
    change, ``verify`` before and after, and ``unchanged_by_plan: true``."""
    if _left_out(result, unchanged, 'cfg'):
        return dict(changed=False, verify=verify, previous=verify, unchanged_by_plan=True,
                    msg='the prediction planned no change to the file: not run')
    return result


def applied_cas(result):
    """What the batch summary needs of a ``ca_trust`` result (``pep493_https_applied``'s
    ``trusted_cas``): each CA by name, with its action and whether the bundle shows it, and the update."""
    if not isinstance(result, Mapping):
        return {}
    kept = dict((key, result[key]) for key in ('changed', 'failed', 'skipped', 'skip_reason', 'msg', 'update_status')
                if key in result)
    if 'cas' in result:
        kept['cas'] = [dict(name=item.get('name'), state=item.get('state'), action=item.get('action'),
                            subject=item.get('subject'), in_bundle=item.get('in_bundle'))
                       for item in result.get('cas') or [] if isinstance(item, Mapping)]
    return kept


def applied_services(result, unchanged=None, planned=None):
    """What the batch summary needs of a ``service_verification`` result (``pep493_https_applied``'s
    ``services``): the drop-ins changed, by name and action, the reload and restarts, whatever the
    number of unchanged ones (counted in ``unchanged``). When the role left the module out because
    the prediction showed no drop-in to write or remove (``unchanged`` from ``unchanged_by_plan``),
    what it would have said: every one of the ``planned`` exceptions unchanged, no reload, no
    restart, and ``unchanged_by_plan: true``."""
    if _left_out(result, unchanged, 'services'):
        return dict(changed=False, unchanged_by_plan=True, services=[], removed=[],
                    unchanged=len(planned) if isinstance(planned, list) else 0, reloaded=False, restarted=[],
                    pending_restart=[], msg='the prediction planned no change to the drop-ins: not run')
    if not isinstance(result, Mapping):
        return {}
    kept = dict((key, result[key]) for key in ('changed', 'failed', 'skipped', 'msg', 'systemd_running', 'reloaded',
                                               'restarted', 'pending_restart') if key in result)
    if 'services' in result:
        every = list(result.get('services') or [])
        kept['services'] = [dict(name=item.get('name'), action=item.get('action')) for item in every
                            if isinstance(item, Mapping) and item.get('action') != 'unchanged']
        kept['unchanged'] = len(every) - len(kept['services'])
        kept['removed'] = [dict(name=item.get('name'), action=item.get('action'))
                           for item in result.get('removed') or [] if isinstance(item, Mapping)]
        handmade = [dict(name=item.get('name'), path=item.get('path'))
                    for item in result.get('handmade') or [] if isinstance(item, Mapping)]
        if handmade:
            kept['handmade'] = handmade
    return kept


def _ran_unchanged(result):
    """A module result of a task that ran and changed nothing."""
    return (isinstance(result, Mapping) and not result.get('failed') and not result.get('skipped')
            and result.get('changed') is False)


def prediction_as_audit(status, cfg=None, services=None, verify='enable'):
    """The role's prediction (``pep493_https_status`` of the planned state) as the audit after the
    change, when that audit would read the very state the prediction read: the cfg task and the
    drop-in task both ran and changed nothing (the drop-in task may have been skipped by its own
    condition: nothing to write), the prediction planned no change, and no interpreter that reads
    the cfg file was given a value instead of being run (``platform_default``). Then the verdict is
    the audit's own rule on the same result: ``predicted`` is dropped and ``prediction_reused`` is
    true. Otherwise (something changed, failed, did not run, or check mode) ``status`` is returned as
    it is and the role audits the host again."""
    if not isinstance(status, Mapping) or not status.get('predicted') or status.get('check_mode'):
        return status
    info = status.get('info')
    verdict = status.get('compliance')
    if not isinstance(info, Mapping) or not isinstance(verdict, Mapping) or info.get('planned_changes'):
        return status
    skipped = isinstance(services, Mapping) and services.get('skipped') and not services.get('failed')
    # a module the role left out is given here as applied_cfg / applied_services make it: unchanged
    if not _ran_unchanged(cfg) or 'verify' not in cfg or not (_ran_unchanged(services) or skipped):
        return status
    readers = [i for i in info.get('interpreters') or [] if isinstance(i, Mapping) and i.get('reads_config')]
    if readers and verify not in ('enable', 'disable'):
        return status
    audit = dict((key, value) for key, value in status.items() if key != 'predicted')
    audit['compliance'] = dict((key, value) for key, value in verdict.items() if key != 'predicted')
    audit['prediction_reused'] = True
    return audit


def predicted_status(info, verify='enable', exceptions=None, exclusive=True, expired_exceptions=None, expired='remove',
                     restart='never', check_mode=False, automatic=False):
    """The enforce entry point's ``pep493_https_status`` from its prediction (``info``, the
    ``verification_info`` result of the planned state), in one step: the policy, the prediction and
    its verdict (``predicted_compliance``). When the prediction shows that neither writing module
    has anything to change (``unchanged_by_plan``), the role leaves both out, and the prediction is
    already the audit after the change (``prediction_as_audit`` with both modules left out): it is
    returned as that audit, and the role makes no second audit and keeps no second copy.
    ``exceptions`` are the plan's allowed ones, ``expired_exceptions`` its expired ones."""
    status = dict(policy=dict(verify=verify, exclusive=exclusive, exceptions=exceptions or [],
                              expired=expired_exceptions or []),
                  info=info, compliance=rules.predicted_compliance(info, verify, exceptions, exclusive, expired, restart,
                                                                   automatic),
                  check_mode=check_mode, predicted=True)
    unchanged = unchanged_by_plan(info)
    if not (unchanged['cfg'] and unchanged['services']):
        return status
    left_out = dict(skipped=True, changed=False)
    return prediction_as_audit(status, applied_cfg(left_out, unchanged, verify),
                               applied_services(left_out, unchanged), verify)
