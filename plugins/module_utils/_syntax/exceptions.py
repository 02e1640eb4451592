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
from ansible_collections.pep493.https.plugins.module_utils._trust import ca_requests
from ansible_collections.pep493.https.plugins.module_utils._trust import x509

FIELDS = ('verify', 'reason', 'expires', 'ca')


class Request(object):
    """One checked exception: ``label`` (where it was given), ``name`` (canonical unit name),
    ``state``, ``verify``, ``reason``, ``expires`` (a date), ``ca`` (the x509.Certificate the
    service is to trust, or None)."""

    __slots__ = ('label', 'name', 'state', 'verify', 'reason', 'expires', 'ca')

    def __init__(self, label, name, state, verify=None, reason=None, expires=None, ca=None):
        self.label = label
        self.name = name
        self.state = state
        self.verify = verify
        self.reason = reason
        self.expires = expires
        self.ca = ca


def check_ca(label, unit, raw, now):
    """(the certificate of ``raw['ca']`` or None, error or None): exactly one CA certificate,
    valid ``now``, the same rule as ca_trust's ``content``; a CA is for verifying, so never with
    ``verify: false``."""
    content = raw.get('ca')
    if content is None or content == '':
        return None, None
    if raw.get('verify') is False:
        return None, ('%s (%s): ca and verify=false contradict each other: a CA makes the service verify HTTPS '
                      'against it; drop verify, or drop ca for an opt-out' % (label, unit))
    try:
        return ca_requests.content_certificate(content, 'present', now, '%s (%s): ca' % (label, unit)), None
    except x509.CertificateError as exc:
        return None, str(exc)


def check_requests(items, require_justification=False, justification_hint=''):
    """([Request], [error]) of ``items``: (label, {name, state, verify, reason, expires}, own)
    with the defaults already applied (``own``: the item itself gave verify, reason or expires).

    Every problem is collected, each naming its item. ``require_justification``: a present
    exception needs a reason and an expiry date (``justification_hint`` ends that message).
    An item with a ``ca`` verifies (``verify`` true unless given).
    """
    now = dates.utc_now()
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
                errors.append('%s (%s): verify, reason, expires and ca are not used with state=absent; remove them'
                              % (label, unit))
            found.append(Request(label, unit, 'absent'))
            continue
        certificate, problem = check_ca(label, unit, raw, now)
        if problem:
            errors.append(problem)
            continue
        verify = True if certificate is not None else raw.get('verify')
        if verify is None:
            errors.append('%s (%s): verify is required with state=present (false: PYTHONHTTPSVERIFY=0, '
                          'true: PYTHONHTTPSVERIFY=1), unless the item gives a ca to trust' % (label, unit))
        request = Request(label, unit, 'present', verify, ca=certificate)
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
    ``defaults`` ({state, verify, reason, expires, ca}) for what an item leaves out."""
    items = []
    if services is None:
        items.append(('name', dict(name=name, state=defaults['state'], verify=defaults['verify'],
                                   reason=defaults['reason'], expires=defaults['expires'], ca=defaults.get('ca')), True))
    else:
        for index, raw in enumerate(services):
            state = raw.get('state') or defaults['state']
            item = dict(name=raw.get('name'), state=state)
            own = False
            for key in FIELDS:
                given = raw.get(key)
                item[key] = given if given is not None or state == 'absent' else defaults.get(key)
                own = own or (given is not None and state == 'absent')
            items.append(('services[%d]' % index, item, own))
    return check_requests(items)
