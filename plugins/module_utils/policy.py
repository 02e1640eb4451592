# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The policy rules, in one place, for the modules and the policy role's filters alike.

* ``today``: the one clock that decides expiry - the UTC date. The modules, the role and the
  fleet report all call it, so they agree on which exceptions are expired on a given day.
* ``plan_policy``: validate a host's whole policy (the host-wide value, its acknowledgement,
  every exception, with the very validators ``service_verification`` applies) before anything
  is written, and split the exceptions by expiry date.
* ``compliance``: how one host (a ``verification_info`` result) stands against the policy.
* ``predicted_compliance``: the same verdict for the host as a plan will leave it (a
  ``verification_info`` result with ``planned``), before anything is written.

Pure functions: data in, data out.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import posixpath

from ansible.module_utils.common.validation import check_type_bool, check_type_str
from ansible_collections.pep493.https.plugins.module_utils._syntax import cfg
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.plugins.module_utils._syntax import exceptions as exceptions_rule
from ansible_collections.pep493.https.plugins.module_utils._syntax import unit_names

# Compliance states, best first: the report shows them in this order.
STATES = ('compliant', 'compliant_with_exceptions', 'pending_restart', 'non_compliant', 'unreachable')
EXPIRED_POLICIES = ('remove', 'keep', 'fail')
RESTARTS = ('never', 'try-restart', 'restart')
EXCEPTION_KEYS = ('name', 'verify', 'reason', 'expires')
EXCEPTIONS_LABEL = 'pep493_https_exceptions'


class PolicyError(ValueError):
    """An argument no policy can be planned from (not a problem of one host's policy)."""


def as_date(value, what='date'):
    """A ``datetime.date`` from ``YYYY-MM-DD`` text or a date; PolicyError naming ``what``."""
    try:
        parsed = dates.validate_expires(value)
    except dates.DateError as exc:
        raise PolicyError('%s: %s' % (what, str(exc).replace('expires ', '', 1)))
    if parsed is None:
        raise PolicyError('%s is empty; give a date as YYYY-MM-DD' % what)
    return parsed


def _scalar_text(value, what):
    """The module's own ``type: str`` conversion of a scalar; mappings and lists are refused."""
    if value is None or isinstance(value, (dict, list, tuple)):
        if value is None:
            return None
        raise dropin.DropinValueError('%s is a %s, not text' % (what, 'mapping' if isinstance(value, dict) else 'list'))
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value
    return check_type_str(value, allow_conversion=True)


def _typed_entry(entry, where):
    """(the entry as service_verification's item would be typed, problem): a mapping of the known
    keys only, ``name``, ``reason`` and ``expires`` as text, ``verify`` a bool (default false: an
    exception is an opt-out unless it says otherwise)."""
    if not isinstance(entry, dict):
        return None, '%s is not a mapping; every exception is {name, verify, reason, expires}' % where
    unknown = sorted(str(key) for key in entry if key not in EXCEPTION_KEYS)
    if unknown:
        return None, ('%s has unknown key(s) %s; an exception takes only %s'
                      % (where, ', '.join(unknown), ', '.join(EXCEPTION_KEYS)))
    try:
        name = _scalar_text(entry.get('name'), 'name')
        reason = _scalar_text(entry.get('reason'), 'reason')
        expires = _scalar_text(entry.get('expires'), 'expires')
    except (dropin.DropinValueError, TypeError) as exc:
        return None, '%s: %s' % (where, exc)
    try:
        verify = check_type_bool(entry['verify']) if entry.get('verify') is not None else False
    except (TypeError, ValueError):
        return None, '%s: verify %s is not a boolean; use true or false' % (where, dropin.show(entry.get('verify')))
    return dict(name=name, state='present', verify=verify, reason=reason, expires=expires), None


def _in_list_order(problems, labels):
    """``problems`` ordered by the entry each names (its label opens the message)."""
    def position(problem):
        for index, label in enumerate(labels):
            if problem.startswith(label) and problem[len(label):len(label) + 1] in (' ', ':'):
                return index
        return len(labels)
    return sorted(problems, key=position)


def plan_exceptions(exceptions, day, require_justification=True, expired='remove', label=EXCEPTIONS_LABEL):
    """Validate the exception list and split it by expiry on ``day`` (a date).

    Returns ``problems`` (one message per bad entry, naming it), ``active`` and ``expired`` (the
    entries, names canonical), ``allowed`` (the exceptions the host may have: the active ones, plus
    the expired ones when ``expired`` is ``keep``) and ``services``: the list for
    ``service_verification`` (``allowed``, plus a ``state: absent`` item per expired exception when
    ``expired`` is ``remove``).
    """
    if expired not in EXPIRED_POLICIES:
        raise PolicyError('pep493_https_expired %s: use one of %s' % (dropin.show(expired), ', '.join(EXPIRED_POLICIES)))
    if exceptions is None:
        exceptions = []
    if not isinstance(exceptions, (list, tuple)):
        return dict(problems=['%s is not a list of exceptions' % label], active=[], expired=[], allowed=[],
                    services=[])
    problems, items, labels = [], [], []
    for index, entry in enumerate(exceptions):
        where = '%s[%d]' % (label, index)
        labels.append(where)
        raw, problem = _typed_entry(entry, where)
        if problem:
            problems.append(problem)
        else:
            items.append((where, raw, False))
    found, errors = exceptions_rule.check_requests(items, require_justification,
                                                   ', or set pep493_https_require_justification: false')
    problems = _in_list_order(problems + errors, labels)
    active, past = [], []
    for request in found:
        item = dict(name=request.name, verify=request.verify, reason=request.reason,
                    expires=request.expires.isoformat() if request.expires is not None else None)
        (past if dates.is_expired(request.expires, day) else active).append(item)
    if expired == 'fail':
        for item in past:
            problems.append('exception for %s expired on %s (pep493_https_expired: fail); renew its expiry date '
                            'or remove it' % (item['name'], item['expires']))
    allowed = active + past if expired == 'keep' else list(active)
    services = list(allowed)
    if expired == 'remove':
        services.extend(dict(name=item['name'], state='absent') for item in past)
    return dict(problems=problems, active=active, expired=past, allowed=allowed, services=services)


def plan_policy(verify, exceptions, day=None, require_justification=True, expired='remove',
                allow_insecure=False, cfg_path=cfg.DEFAULT_PATH):
    """``plan_exceptions`` for a host's whole policy: also refuses a host-wide value that is not
    one of ``cfg.VALUES`` and a ``disable`` without its acknowledgement (``allow_insecure``).
    ``day`` defaults to ``today()``."""
    plan = plan_exceptions(exceptions, dates.today() if day is None else day, require_justification, expired)
    problems = []
    if verify not in cfg.VALUES:
        problems.append('pep493_https_verify %s is not one of %s' % (dropin.show(verify), ', '.join(cfg.VALUES)))
    elif verify == 'disable' and not _true(allow_insecure):
        problems.append('pep493_https_verify is "disable": every Python 2 program on this host that reads %s would '
                        'stop verifying HTTPS certificates, silently. Give the services that need it an exception in '
                        'pep493_https_exceptions instead, or, if a host-wide downgrade is really meant, set '
                        'pep493_https_allow_insecure_host_default: true' % cfg_path)
    plan['problems'] = problems + plan['problems']
    return plan


def _true(value):
    try:
        return check_type_bool(value)
    except (TypeError, ValueError):
        return False


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
