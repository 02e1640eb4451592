# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Per-service exceptions: what one is, and the one check of a list of them.

service_verification (its ``name``/``services`` items), verification_info's ``planned`` and the
policy role's plan (``pep493_https_exceptions``, checked on the controller) all go through
``check_requests``: the same unit names, reasons and dates are accepted, the same duplicates
refused, with the same words. Pure functions: data in, data out.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.plugins.module_utils._syntax import unit_names

FIELDS = ('verify', 'reason', 'expires')


class Request(object):
    """One checked exception: ``label`` (where it was given), ``name`` (canonical unit name),
    ``state``, ``verify``, ``reason``, ``expires`` (a date)."""

    __slots__ = ('label', 'name', 'state', 'verify', 'reason', 'expires')

    def __init__(self, label, name, state, verify=None, reason=None, expires=None):
        self.label = label
        self.name = name
        self.state = state
        self.verify = verify
        self.reason = reason
        self.expires = expires


def check_requests(items, require_justification=False, justification_hint=''):
    """([Request], [error]) of ``items``: (label, {name, state, verify, reason, expires}, own)
    with the defaults already applied (``own``: the item itself gave verify, reason or expires).

    Every problem is collected, each naming its item. ``require_justification``: a present
    exception needs a reason and an expiry date (``justification_hint`` ends that message).
    """
    found = []
    errors = []
    seen = {}
    for label, raw, own in items:
        name = raw.get('name')
        if name is None:
            errors.append('%s has no name; every exception names a service (name: legacy-app)' % label)
            continue
        try:
            unit = unit_names.validate_unit_name(name)
        except unit_names.UnitNameError as exc:
            errors.append('%s: %s' % (label, exc))
            continue
        if unit in seen:
            errors.append('%s: %s is already given in %s; list each service once' % (label, unit, seen[unit]))
            continue
        seen[unit] = label
        if raw.get('state') == 'absent':
            if own and any(raw.get(key) is not None for key in FIELDS):
                errors.append('%s (%s): verify, reason and expires are not used with state=absent; remove them'
                              % (label, unit))
            found.append(Request(label, unit, 'absent'))
            continue
        if raw.get('verify') is None:
            errors.append('%s (%s): verify is required with state=present (false: PYTHONHTTPSVERIFY=0, '
                          'true: PYTHONHTTPSVERIFY=1)' % (label, unit))
        request = Request(label, unit, 'present', raw.get('verify'))
        try:
            request.reason = dropin.validate_reason(raw.get('reason'))
            request.expires = dates.validate_expires(raw.get('expires'))
        except (dropin.DropinValueError, dates.DateError) as exc:
            errors.append('%s (%s): %s' % (label, unit, exc))
            continue
        if require_justification:
            missing = [field for field in ('reason', 'expires') if getattr(request, field) is None]
            if missing:
                errors.append('%s (%s) has no %s; every exception needs a reason and an expiry date (YYYY-MM-DD)%s'
                              % (label, unit, ' and no '.join(missing), justification_hint))
                continue
        found.append(request)
    return found, errors


def requests(name, services, defaults):
    """([Request], [error]) of service_verification's ``name`` or ``services`` (items), with
    ``defaults`` ({state, verify, reason, expires}) for what an item leaves out."""
    items = []
    if services is None:
        items.append(('name', dict(name=name, state=defaults['state'], verify=defaults['verify'],
                                   reason=defaults['reason'], expires=defaults['expires']), True))
    else:
        for index, raw in enumerate(services):
            state = raw.get('state') or defaults['state']
            item = dict(name=raw.get('name'), state=state)
            own = False
            for key in FIELDS:
                given = raw.get(key)
                item[key] = given if given is not None or state == 'absent' else defaults[key]
                own = own or (given is not None and state == 'absent')
            items.append(('services[%d]' % index, item, own))
    return check_requests(items)
