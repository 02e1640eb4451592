# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the policy role does with a forecast, before anything is written.

``pep493_https_on_predicted_break``: ``fail`` (every predicted break is a problem, the host is
failed before its first write), ``except`` (each service that would break gets a time-boxed
exception through the normal exception path: an item for service_verification whose reason
names the endpoint and the failure) or ``warn``. An automatic exception is one whose reason
starts with ``forecast:``; a later run keeps its expiry date while the cause remains, does not
renew it once that date has passed, and removes it once the cause is gone.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime

from ansible_collections.pep493.https.plugins.module_utils._forecast import tlsprobe
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.plugin_utils import policy_plan as policy
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin

ON_BREAK = ('fail', 'except', 'warn')
AUTOMATIC = 'forecast: '
REASON_MAX = 200
ADVICE = {'untrusted': 'trust its CA or this certificate', 'expired': 'renew the certificate',
          'hostname_mismatch': 'fix the certificate or the name the service connects to'}


def _printable(text):
    return ''.join(c if c.isprintable() else '?' for c in text) if hasattr(text, 'isprintable') else ''.join(
        c if 32 <= ord(c) < 127 else '?' for c in text)


def breaking(entry):
    """The endpoints of a forecast entry that fail verification, one dict each."""
    found = []
    for endpoint in entry.get('endpoints') or []:
        if endpoint.get('result') in tlsprobe.VERIFY_FAILURES:
            found.append(dict(service=entry.get('service'), endpoint=endpoint.get('endpoint'),
                              result=endpoint['result'], issuer=(endpoint.get('peer') or {}).get('issuer'),
                              error=endpoint.get('error'), advice=ADVICE[endpoint['result']]))
    return found


def reason_for(breaks):
    """The reason of an automatic exception: the first endpoint and its failure, then how many more."""
    first = breaks[0]
    text = '%swould break on %s (%s%s)' % (AUTOMATIC, first['endpoint'], first['result'],
                                           ', issuer ' + first['issuer'] if first['issuer'] else '')
    if len(breaks) > 1:
        text += ' and %d more' % (len(breaks) - 1)
    text = _printable(text)
    if len(text) > REASON_MAX:
        text = text[:REASON_MAX - 3] + '...'
    return text.rstrip('\\')


def describe(item):
    issuer = '; issuer %s' % item['issuer'] if item['issuer'] else ''
    return '%s would break on %s (%s%s): %s' % (item['service'] or 'a host-wide script', item['endpoint'],
                                                item['result'], issuer, item['advice'])


def plan_forecast(forecast, plan, on_break='fail', days=30, day=None):
    """The policy plan (policy.plan_policy) with what the forecast asks for.

    Returns ``breaks`` (every endpoint that would break a service or a host-wide script),
    ``granted`` and ``removed`` (automatic exceptions), ``problems`` (what fails the host),
    ``warnings``, and ``services``/``allowed``: the plan's, with the automatic exceptions added
    and the ones whose cause is gone removed. Services the policy names itself are left to it.
    """
    if on_break not in ON_BREAK:
        raise policy.PolicyError('pep493_https_on_predicted_break %s: use one of %s'
                                 % (dropin.show(on_break), ', '.join(ON_BREAK)))
    if isinstance(days, bool) or not isinstance(days, int) or days < 1:
        raise policy.PolicyError('pep493_https_forecast_exception_days %s: give a whole number of days, 1 or more'
                                 % dropin.show(days))
    day = dates.today() if day is None else day
    named = set(item['name'] for item in plan.get('services') or [])
    result = dict(breaks=[], granted=[], removed=[], problems=[], warnings=[])
    host_wide = forecast.get('host_wide')
    if host_wide and host_wide.get('verdict') == 'would_break':
        for item in breaking(host_wide):
            result['breaks'].append(item)
            (result['problems'] if on_break == 'fail' else result['warnings']).append(describe(item))
    for entry in forecast.get('services') or []:
        name = entry.get('service')
        if name in named or not entry.get('policy_verifies', True):
            continue
        _plan_service(entry, name, on_break, days, day, result)
    result['services'] = list(plan.get('services') or []) + result['granted'] + result['removed']
    result['allowed'] = list(plan.get('allowed') or []) + result['granted']
    return result


def _plan_service(entry, name, on_break, days, day, result):
    exception = entry.get('exception') or {}
    automatic = (exception.get('reason') or '').startswith(AUTOMATIC)
    expires = exception.get('expires') if automatic else None
    lapsed = bool(expires) and dates.is_expired(expires, day)
    if entry.get('verdict') == 'would_break':
        breaks = breaking(entry)
        result['breaks'].extend(breaks)
        if on_break == 'except' and not lapsed:
            until = expires or (day + datetime.timedelta(days=days)).isoformat()
            result['granted'].append(dict(name=name, verify=False, reason=reason_for(breaks), expires=until))
        elif on_break == 'except':
            result['problems'].append('%s: its automatic exception expired on %s and is not renewed; %s'
                                      % (name, expires, describe(breaks[0])))
        else:
            (result['problems'] if on_break == 'fail' else result['warnings']).extend(describe(b) for b in breaks)
    elif automatic and entry.get('verdict') == 'unknown' and not lapsed:
        # the cause cannot be checked now: the exception stays until its date
        result['granted'].append(dict(name=name, verify=False, reason=exception['reason'], expires=expires))
    elif automatic:
        result['removed'].append(dict(name=name, state='absent'))
