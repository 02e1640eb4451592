# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How a host stands against its policy (controller only).

* ``compliance``: the verdict of one ``verification_info`` result against the policy.
* ``predicted_compliance``: the same verdict for the host as a plan will leave it (a
  ``verification_info`` result with ``planned``), before anything is written.

Pure functions: data in, data out.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import posixpath

from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.plugins.module_utils._syntax import unit_names
from ansible_collections.pep493.https.plugins.plugin_utils.policy_plan import PolicyError, RESTARTS

# Compliance states, best first: the report shows them in this order.
STATES = ('compliant', 'compliant_with_exceptions', 'pending_restart', 'non_compliant', 'unreachable')


def _service_name(service):
    return unit_names.canonical(service.get('unit') or service.get('name') or '?')


def _global_optouts(node, path=''):
    """Where every host-wide PYTHONHTTPSVERIFY=0 of verification_info's ``global`` is set."""
    found = []
    if isinstance(node, dict):
        value = node.get('value')
        if node.get('disables') is True or ('disables' not in node and value is not None
                                            and not isinstance(value, (dict, list)) and str(value) == '0'):
            found.append(str(node.get('path') or node.get('file') or node.get('source') or path or 'global'))
        for key, child in sorted(node.items()):
            if isinstance(child, (dict, list)):
                found.extend(_global_optouts(child, key if not path else '%s.%s' % (path, key)))
    elif isinstance(node, list):
        for child in node:
            found.extend(_global_optouts(child, path))
    return found


def _config_reasons(config, verify):
    path = config.get('path', 'the cfg file')
    if config.get('valid') is False:
        return ['%s is malformed and breaks "import ssl" for Python 2 on RHEL 7' % path]
    if config.get('verify') == 'missing' or config.get('exists') is False:
        return ['%s does not exist, the policy says verify=%s' % (path, verify)]
    if config.get('verify') != verify:
        return ['%s says verify=%s, the policy says verify=%s' % (path, config.get('verify'), verify)]
    return []


def compliance(info, verify='enable', exceptions=None, exclusive=True, expired='remove'):
    """How one host stands against the policy.

    ``info`` is a ``verification_info`` result; ``exceptions`` the exceptions the policy allows
    (``plan_policy(...)['allowed']``). Returns ``state`` (one of STATES), ``compliant`` and the
    ``reasons`` (non-compliance) and ``warnings`` in plain words.
    """
    if not isinstance(info, dict):
        raise PolicyError('compliance expects a verification_info result, got %s' % type(info).__name__)
    if info.get('unreachable') or info.get('failed') or not isinstance(info.get('config'), dict):
        why = info.get('msg') or 'verification_info returned no result'
        return dict(state='unreachable', compliant=False, reasons=['no audit result: %s' % why], warnings=[])
    allowed = dict((unit_names.canonical(e['name']), e) for e in (exceptions or []))
    reasons = _config_reasons(info['config'], verify)
    warnings = []
    for where in _global_optouts(info.get('global') or {}):
        reasons.append('PYTHONHTTPSVERIFY=0 is set host-wide in %s: it turns verification off for every '
                       'Python 2 program that inherits it' % where)
    if verify == 'enable' and (info.get('summary') or {}).get('host_default') is False:
        reasons.append('a Python 2 program on this host does not verify certificates by default')

    services = info.get('services') or []
    seen, pending = set(), []
    for service in services:
        name = _service_name(service)
        seen.add(name)
        value = service.get('value')
        if service.get('pending_restart'):
            pending.append(name)
        if name in allowed:
            wanted = '1' if allowed[name]['verify'] else '0'
            if value is not None and str(value) != wanted:
                reasons.append('%s runs with PYTHONHTTPSVERIFY=%s, the policy says %s' % (name, value, wanted))
            continue
        if value is None or str(value) != '0':
            continue
        if service.get('managed') and service.get('expired'):
            message = '%s keeps an exception that expired on %s' % (name, service.get('expires'))
            (warnings if expired == 'keep' else reasons).append(message)
        elif service.get('managed') and not exclusive:
            warnings.append('%s has an exception that is not in the policy (kept: pep493_https_exclusive is false)'
                            % name)
        else:
            source = service.get('source') or service.get('file') or service.get('path')
            reasons.append('%s has PYTHONHTTPSVERIFY=0%s and no exception in the policy'
                           % (name, ' from %s' % source if source else ''))
    for name in sorted(set(allowed) - seen):
        warnings.append('the exception the policy gives %s is not in place (not applied yet, or the unit is not '
                        'installed)' % name)
    # Ineffective exceptions and pending restarts are in verification_info's own findings.
    if reasons:
        state = 'non_compliant'
    elif pending:
        state = 'pending_restart'
    elif any(str(s.get('value')) == '0' for s in services if _service_name(s) in allowed):
        state = 'compliant_with_exceptions'
    else:
        state = 'compliant'
    return dict(state=state, compliant=state != 'non_compliant', reasons=reasons, warnings=warnings)


def restarted_by_plan(info, restart='never'):
    """The units ``service_verification`` restarts once it has applied the plan of ``info`` (a
    ``verification_info`` result with ``planned``): every unit whose drop-in the plan changes, unless
    ``restart`` is ``never`` or the plan is for a tree (``root``: no systemctl). A template's drop-in
    restarts no instance, so its instances keep their pending restart."""
    if restart not in RESTARTS:
        raise PolicyError('pep493_https_restart %s: use one of %s' % (dropin.show(restart), ', '.join(RESTARTS)))
    if restart == 'never' or info.get('root'):
        return set()
    units = set()
    for change in info.get('planned_changes') or []:
        folder = posixpath.basename(posixpath.dirname(str((change or {}).get('path') or '')))
        if folder.endswith(unit_names.SUFFIX + '.d'):
            units.add(folder[:-len('.d')])
    return units


def predicted_compliance(info, verify='enable', exceptions=None, exclusive=True, expired='remove', restart='never'):
    """How the host will stand once the plan is applied: ``compliance`` of ``info``, a
    ``verification_info`` result of the planned state (its option ``planned``), with the restarts
    ``service_verification`` will make (``restart``) taken into account, and what the writing modules
    would refuse of the plan (``planned_refusals``) as the first reasons. The verdict carries
    ``predicted: true``."""
    if not isinstance(info, dict):
        raise PolicyError('predicted_compliance expects a verification_info result, got %s' % type(info).__name__)
    if isinstance(info.get('config'), dict) and info.get('planned') is not True:
        raise PolicyError('predicted_compliance expects the verification_info result of a planned state (the '
                          'option planned); this one is of the host as it is: use compliance for it')
    restarted = restarted_by_plan(info, restart)
    if restarted:
        info = dict(info, services=[dict(service, pending_restart=False) if _service_name(service) in restarted
                                    else service for service in info.get('services') or []])
    verdict = compliance(info, verify, exceptions, exclusive, expired)
    # a plan a writing module would refuse cannot succeed: its message says what to do
    refusals = [str(refusal) for refusal in info.get('planned_refusals') or []]
    if refusals:
        verdict.update(state='non_compliant', compliant=False, reasons=refusals + verdict['reasons'])
    verdict['predicted'] = True
    return verdict
