# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A host's policy, planned on the controller before anything is written (controller only).

``plan_policy`` validates the whole policy - the host-wide value and its acknowledgement, every
exception with the very rule ``service_verification`` applies (module_utils/_syntax/exceptions.py)
- and splits the exceptions by expiry date on the collection's one clock (``dates.today``).
Pure functions: data in, data out.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime

from ansible.module_utils.common.validation import check_type_bool, check_type_str
from ansible_collections.pep493.https.plugins.module_utils._syntax import cfg
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.plugins.module_utils._syntax import exceptions as exceptions_rule
from ansible_collections.pep493.https.plugins.module_utils._syntax import unit_names
from ansible_collections.pep493.https.plugins.module_utils._trust import ca_requests

EXPIRED_POLICIES = ('remove', 'keep', 'fail')
RESTARTS = ('never', 'try-restart', 'restart')
EXCEPTION_KEYS = ('name', 'verify', 'reason', 'expires', 'ca')
EXCEPTIONS_LABEL = 'pep493_https_exceptions'
ADOPT_LABEL = 'pep493_https_adopt'
ADOPT_KEYS = ('name', 'reason', 'expires')
REMOVE_HANDMADE_LABEL = 'pep493_https_remove_handmade'
BREAK_GLASS_LABEL = 'pep493_https_break_glass'
# a break-glass exception is for the days it takes to fix the cause, not a new policy
BREAK_GLASS_MAX_DAYS = 14
TRUSTED_CAS_LABEL = 'pep493_https_trusted_cas'


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
    keys only, ``name``, ``reason``, ``expires`` and ``ca`` as text, ``verify`` a bool (default false:
    an exception is an opt-out unless it says otherwise or carries a CA, which makes it verify)."""
    if not isinstance(entry, dict):
        return None, '%s is not a mapping; every exception is {name, verify, reason, expires, ca}' % where
    unknown = sorted(str(key) for key in entry if key not in EXCEPTION_KEYS)
    if unknown:
        return None, ('%s has unknown key(s) %s; an exception takes only %s'
                      % (where, ', '.join(unknown), ', '.join(EXCEPTION_KEYS)))
    try:
        name = _scalar_text(entry.get('name'), 'name')
        reason = _scalar_text(entry.get('reason'), 'reason')
        expires = _scalar_text(entry.get('expires'), 'expires')
        ca = _scalar_text(entry.get('ca'), 'ca') or None
    except (dropin.DropinValueError, TypeError) as exc:
        return None, '%s: %s' % (where, exc)
    try:
        verify = check_type_bool(entry['verify']) if entry.get('verify') is not None else None
    except (TypeError, ValueError):
        return None, '%s: verify %s is not a boolean; use true or false' % (where, dropin.show(entry.get('verify')))
    if verify is None and ca is None:
        verify = False
    return dict(name=name, state='present', verify=verify, reason=reason, expires=expires, ca=ca), None


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
    texts = dict((where, raw.get('ca')) for where, raw, _own in items)
    for request in found:
        item = dict(name=request.name, verify=request.verify, reason=request.reason,
                    expires=request.expires.isoformat() if request.expires is not None else None)
        if request.ca is not None:
            item['ca'] = texts[request.label]
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


def _unit_names(names, label):
    """([canonical service names], [problems]) of a list of service names called ``label``."""
    if names is None:
        return [], []
    if not isinstance(names, (list, tuple)):
        return [], ['%s is not a list of service names' % label]
    found, problems = [], []
    for index, name in enumerate(names):
        try:
            found.append(unit_names.validate_unit_name(name))
        except unit_names.UnitNameError as exc:
            problems.append('%s[%d]: %s' % (label, index, exc))
    return found, problems


def _opt_out_entries(entries, label, what):
    """(entries as exceptions with verify false, problems) of a list of {name, reason, expires}."""
    if not isinstance(entries, (list, tuple)):
        return entries, []
    found, problems = [], []
    for index, entry in enumerate(entries):
        unknown = sorted(str(key) for key in entry if key not in ADOPT_KEYS) if isinstance(entry, dict) else []
        if unknown:
            problems.append('%s[%d] has unknown key(s) %s; %s takes only %s (it becomes an exception with verify: '
                            'false)' % (label, index, ', '.join(unknown), what, ', '.join(ADOPT_KEYS)))
            entry = dict((key, value) for key, value in entry.items() if key in ADOPT_KEYS)
        found.append(dict(entry, verify=False) if isinstance(entry, dict) else entry)
    return found, problems


def plan_break_glass(entries, day, expired='remove'):
    """Break-glass exceptions (``pep493_https_break_glass``): each {name, reason, expires}, all
    required, an exception with verify false whose ``expires`` is at most BREAK_GLASS_MAX_DAYS days
    after ``day``. Returns ``plan_exceptions``' keys."""
    entries, problems = _opt_out_entries(entries, BREAK_GLASS_LABEL, 'a break-glass exception')
    plan = plan_exceptions(entries, day, True, expired, label=BREAK_GLASS_LABEL)
    latest = day + datetime.timedelta(days=BREAK_GLASS_MAX_DAYS)
    for item in plan['active']:
        if item['expires'] > latest.isoformat():
            problems.append('%s (%s) expires %s, more than %d days from today (%s): a break-glass exception is short; '
                            'give a date up to %s, or put the exception in pep493_https_exceptions'
                            % (BREAK_GLASS_LABEL, item['name'], item['expires'], BREAK_GLASS_MAX_DAYS,
                               day.isoformat(), latest.isoformat()))
    plan['problems'] = problems + plan['problems']
    return plan


def plan_handmade(adopt, remove_handmade, day, expired='remove'):
    """The hand-made opt-outs the policy takes over (``adopt``: each {name, reason, expires}, an
    exception of ours from now on, its reason and expiry required) or removes (``remove_handmade``:
    service names). Returns ``plan_exceptions``' keys for the adopted ones, and ``names``: every
    service whose hand-made ``PYTHONHTTPSVERIFY=0`` is to be taken out."""
    entries, problems = _opt_out_entries(adopt, ADOPT_LABEL, 'an adopted opt-out')
    plan = plan_exceptions(entries, day, True, expired, label=ADOPT_LABEL)
    removed, remove_problems = _unit_names(remove_handmade, REMOVE_HANDMADE_LABEL)
    adopted = set(item['name'] for item in plan['active'] + plan['expired'])
    for name in sorted(adopted & set(removed)):
        problems.append('%s is both in %s and in %s; adopt its opt-out or remove it, not both'
                        % (name, ADOPT_LABEL, REMOVE_HANDMADE_LABEL))
    plan['problems'] = problems + plan['problems'] + remove_problems
    plan['names'] = sorted(adopted | set(removed))
    return plan


def plan_policy(verify, exceptions, day=None, require_justification=True, expired='remove',
                allow_insecure=False, cfg_path=cfg.DEFAULT_PATH, adopt=None, remove_handmade=None, break_glass=None):
    """``plan_exceptions`` for a host's whole policy: also refuses a host-wide value that is not
    one of ``cfg.VALUES`` and a ``disable`` without its acknowledgement (``allow_insecure``); the
    hand-made opt-outs adopted (``adopt``) are exceptions too, and ``remove_handmade`` lists every
    service whose hand-made opt-out is to be taken out (``plan_handmade``). ``day`` defaults to
    ``today()``."""
    day = dates.today() if day is None else day
    plan = plan_exceptions(exceptions, day, require_justification, expired)
    handmade = plan_handmade(adopt or [], remove_handmade or [], day, expired)
    urgent = plan_break_glass(break_glass or [], day, expired)
    seen = {}
    for label, part in ((EXCEPTIONS_LABEL, plan), (ADOPT_LABEL, handmade), (BREAK_GLASS_LABEL, urgent)):
        for name in sorted(set(item['name'] for item in part['active'] + part['expired'])):
            if name in seen:
                part['problems'].append('%s is both in %s and in %s; list it once' % (name, seen[name], label))
            seen.setdefault(name, label)
    for key in ('problems', 'active', 'expired', 'allowed', 'services'):
        plan[key] = plan[key] + handmade[key] + urgent[key]
    plan['remove_handmade'] = handmade['names']
    problems = []
    if verify not in cfg.VALUES:
        problems.append('pep493_https_verify %s is not one of %s' % (dropin.show(verify), ', '.join(cfg.VALUES)))
    elif verify == 'disable' and not is_true(allow_insecure):
        problems.append('pep493_https_verify is "disable": every Python 2 program on this host that reads %s would '
                        'stop verifying HTTPS certificates, silently. Give the services that need it an exception in '
                        'pep493_https_exceptions instead, or, if a host-wide downgrade is really meant, set '
                        'pep493_https_allow_insecure_host_default: true' % cfg_path)
    plan['problems'] = problems + plan['problems']
    return plan


def plan_trusted_cas(cas, now=None, label=TRUSTED_CAS_LABEL):
    """(the ``cas`` for ca_trust, problems) of the host-wide CAs ``cas`` - each {name, content,
    state}, checked with ca_trust's own rule (``ca_requests.validate``), every problem naming its
    entry as ``pep493_https_trusted_cas[N]``."""
    if cas is None:
        return [], []
    if not isinstance(cas, (list, tuple)):
        return [], ['%s is not a list of CAs ({name, content, state})' % label]
    problems, items = [], []
    for index, entry in enumerate(cas):
        if not isinstance(entry, dict):
            problems.append('%s[%d] is not a mapping; every CA is {name, content, state}' % (label, index))
            continue
        unknown = sorted(str(key) for key in entry if key not in ('name', 'content', 'state'))
        if unknown:
            problems.append('%s[%d] has unknown key(s) %s; a CA takes only name, content, state'
                            % (label, index, ', '.join(unknown)))
            continue
        if entry.get('state', 'present') not in ca_requests.STATES:
            problems.append('%s[%d].state %s: use present or absent' % (label, index, dropin.show(entry.get('state'))))
            continue
        items.append(dict((key, entry[key]) for key in ('name', 'content', 'state') if entry.get(key) is not None))
    if problems:
        return [], problems
    _found, errors = ca_requests.validate(items, dates.utc_now() if now is None else now)
    return items, [label + error[len('cas'):] if error.startswith('cas[') else error for error in errors]


def is_true(value):
    """A boolean variable as Ansible reads it; anything else is false."""
    try:
        return check_type_bool(value)
    except (TypeError, ValueError):
        return False
