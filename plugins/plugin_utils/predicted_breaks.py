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

``pep493_https_on_unknown``: what a service gets that does not verify today and cannot be
forecast (the forecast is never taken for ``ok`` when it could not prove it): ``keep`` (the
default: a time-boxed automatic exception keeps it as it is), ``enforce`` (it verifies like the
rest) or ``fail``. Every such service is named in a warning.

The forecast is made with the CAs the policy trusts (``forecast_cas``: the host-wide ones, and each
exception's own ``ca`` for its service alone), so a service a CA is proven to fix is ``ok`` and
gets no exception. A service whose exception trusts a CA of its own is the policy's: nothing
automatic replaces its exception, so a break that CA does not fix is a problem (a warning with
``warn``), saying what to give instead.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime

from collections.abc import Mapping

from ansible_collections.pep493.https.plugins.module_utils._forecast import targets as forecast_rules
from ansible_collections.pep493.https.plugins.module_utils._forecast import tlsprobe
from ansible_collections.pep493.https.plugins.module_utils._trust import x509
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.plugin_utils import policy_plan as policy
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin

ON_BREAK = ('fail', 'except', 'warn')
ON_UNKNOWN = ('keep', 'enforce', 'fail')
AUTOMATIC = 'forecast: '
REASON_MAX = 200
# as verification_forecast's cas[].name takes it
CA_NAME_MAX = 200
ADVICE = {'untrusted': 'trust its CA or this certificate', 'expired': 'renew the certificate',
          'hostname_mismatch': 'fix the certificate or the name the service connects to'}


def _printable(text):
    return ''.join(c if c.isprintable() else '?' for c in text) if hasattr(text, 'isprintable') else ''.join(
        c if 32 <= ord(c) < 127 else '?' for c in text)


def ca_name(content, service):
    """The name the forecast reports an exception's own CA by: its subject, or, when that cannot be
    read or is too long, what it is."""
    try:
        found = x509.load_certificates(content)
    except (x509.CertificateError, TypeError):
        found = []
    if len(found) == 1 and 0 < len(found[0].subject) <= CA_NAME_MAX:
        return found[0].subject
    return ('the CA of the exception for %s' % service)[:CA_NAME_MAX]


def forecast_cas(allowed, trusted_cas=None):
    """verification_forecast's ``cas`` for a policy: each host-wide CA to trust (``trusted_cas``,
    those with ``state: present``, by their name), then each exception of ``allowed`` that carries a
    ``ca``, for its service alone, named by the CA's subject."""
    found = []
    for item in trusted_cas or []:
        if isinstance(item, Mapping) and item.get('state', 'present') == 'present' and item.get('content'):
            found.append(dict(name=item.get('name'), content=item['content'], services=[]))
    for item in allowed or []:
        if isinstance(item, Mapping) and item.get('ca'):
            found.append(dict(name=ca_name(item['ca'], item['name']), content=item['ca'], services=[item['name']]))
    return found


def fixed(entry):
    """What a CA of the policy fixes for a forecast entry it fixes (``fixed``: it works thanks to the
    CA, ``ok`` or ``unaffected``): the service (None: the host-wide scripts), the CAs' names, and the
    endpoints they fix."""
    return dict(service=entry.get('service'), fixed_by=list(entry.get('fixed_by') or []),
                endpoints=[e.get('endpoint') for e in entry.get('endpoints') or [] if e.get('fixed_by')])


def breaking(entry):
    """The endpoints of a forecast entry that fail verification once the policy's CAs are trusted,
    one dict each; ``unfixed`` says what a CA that names the issuer did not fix ('' when none)."""
    found = []
    for endpoint in entry.get('endpoints') or []:
        if forecast_rules.after_trust(endpoint).get('result') in tlsprobe.VERIFY_FAILURES:
            found.append(dict(service=entry.get('service'), endpoint=endpoint.get('endpoint'),
                              result=endpoint['result'], issuer=(endpoint.get('peer') or {}).get('issuer'),
                              error=endpoint.get('error'), advice=ADVICE[endpoint['result']],
                              unfixed=forecast_rules.unfixed(endpoint)))
    return found


def reason_for(breaks):
    """The reason of an automatic exception: the first endpoint and its failure, then how many more."""
    first = breaks[0]
    text = '%swould break on %s (%s%s)' % (AUTOMATIC, first['endpoint'], first['result'],
                                           ', issuer ' + first['issuer'] if first['issuer'] else '')
    if len(breaks) > 1:
        text += ' and %d more' % (len(breaks) - 1)
    return _clipped(_printable(text))


def _clipped(text):
    """An automatic exception's reason within the drop-in's rules: one line, at most REASON_MAX."""
    if len(text) > REASON_MAX:
        text = text[:REASON_MAX - 3] + '...'
    return text.rstrip('\\')


def describe(item):
    issuer = '; issuer %s' % item['issuer'] if item['issuer'] else ''
    return '%s would break on %s (%s%s): %s%s' % (item['service'] or 'a host-wide script', item['endpoint'],
                                                  item['result'], issuer, item['advice'], item.get('unfixed') or '')


def plan_forecast(forecast, plan, on_break='fail', days=30, day=None, on_unknown='keep'):
    """The policy plan (policy.plan_policy) with what the forecast asks for.

    Returns ``breaks`` (every endpoint that would break a service or a host-wide script, once the
    policy's CAs are trusted), ``fixed`` (each service, or the host-wide scripts, that a CA of the
    policy is proven to fix: ``fixed``), ``granted`` and ``removed`` (automatic exceptions),
    ``problems`` (what fails the host),
    ``warnings``, and ``services``/``allowed``: the plan's, with the automatic exceptions added
    and the ones whose cause is gone removed. Services the policy names itself are left to it.
    """
    if on_break not in ON_BREAK:
        raise policy.PolicyError('pep493_https_on_predicted_break %s: use one of %s'
                                 % (dropin.show(on_break), ', '.join(ON_BREAK)))
    if on_unknown not in ON_UNKNOWN:
        raise policy.PolicyError('pep493_https_on_unknown %s: use one of %s'
                                 % (dropin.show(on_unknown), ', '.join(ON_UNKNOWN)))
    if isinstance(days, bool) or not isinstance(days, int) or days < 1:
        raise policy.PolicyError('pep493_https_forecast_exception_days %s: give a whole number of days, 1 or more'
                                 % dropin.show(days))
    day = dates.today() if day is None else day
    named = set(item['name'] for item in plan.get('services') or [])
    own_ca = set(item['name'] for item in plan.get('allowed') or [] if item.get('ca'))
    result = dict(breaks=[], granted=[], removed=[], problems=[], warnings=[],
                  fixed=[fixed(entry) for entry in [forecast.get('host_wide')] + list(forecast.get('services') or [])
                         if isinstance(entry, Mapping) and entry.get('fixed')])
    host_wide = forecast.get('host_wide')
    if host_wide and host_wide.get('verdict') == 'would_break':
        for item in breaking(host_wide):
            result['breaks'].append(item)
            (result['problems'] if on_break == 'fail' else result['warnings']).append(describe(item))
    for entry in forecast.get('services') or []:
        name = entry.get('service')
        if name in own_ca:
            _plan_own_ca(entry, name, on_break, result)
            continue
        if name in named or not entry.get('policy_verifies', True):
            continue
        _plan_service(entry, name, on_break, days, day, result, on_unknown)
    result['services'] = list(plan.get('services') or []) + result['granted'] + result['removed']
    result['allowed'] = list(plan.get('allowed') or []) + result['granted']
    return result


def _plan_own_ca(entry, name, on_break, result):
    """A service whose exception trusts a CA of its own: a break the forecast still sees with that
    CA is a problem (a warning with ``warn``); nothing automatic replaces the policy's exception."""
    if entry.get('verdict') != 'would_break':
        return
    breaks = breaking(entry)
    result['breaks'].extend(breaks)
    texts = []
    for item in breaks:
        text = describe(item)
        if not item['unfixed']:
            text += ('; the CA of its exception does not name that issuer, nor is it proven the root of the chain the '
                     'server sends')
        texts.append('%s (%s has an exception that trusts a CA of its own, which stays as the policy gives it: put '
                     'the CA that issued the certificate in it, or make it verify: false)' % (text, name))
    (result['warnings'] if on_break == 'warn' else result['problems']).extend(texts)


def _plan_service(entry, name, on_break, days, day, result, on_unknown='keep'):
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
    elif entry.get('verdict') == 'unknown':
        _plan_unknown(entry, name, days, day, result, on_unknown, exception if automatic else None, lapsed)
    elif automatic:
        result['removed'].append(dict(name=name, state='absent'))


def _plan_unknown(entry, name, days, day, result, on_unknown, automatic, lapsed):
    """A service the forecast cannot tell about: kept as it is, enforced, or failed, and named."""
    why = _printable(entry.get('why') or 'the forecast cannot tell')
    if entry.get('verifies_today') is True:
        result['warnings'].append('%s cannot be forecast (%s); it verifies today, so enforcing does not change it'
                                  % (name, why))
        if automatic is not None:
            result['removed'].append(dict(name=name, state='absent'))
        return
    if on_unknown == 'fail':
        result['problems'].append('%s cannot be forecast (%s) and pep493_https_on_unknown is fail; declare its '
                                  'endpoints (pep493_https_forecast_endpoints) or give it an exception' % (name, why))
    elif on_unknown == 'enforce':
        result['warnings'].append('%s cannot be forecast (%s); it is enforced all the same '
                                  '(pep493_https_on_unknown: enforce)' % (name, why))
        if automatic is not None:
            result['removed'].append(dict(name=name, state='absent'))
    elif automatic is not None and lapsed:
        result['problems'].append('%s: its automatic exception expired on %s and is not renewed, and it still '
                                  'cannot be forecast (%s)' % (name, automatic['expires'], why))
    else:
        until = automatic['expires'] if automatic is not None else (day + datetime.timedelta(days=days)).isoformat()
        reason = automatic['reason'] if automatic is not None else _clipped('%scannot tell: %s' % (AUTOMATIC, why))
        result['granted'].append(dict(name=name, verify=False, reason=reason, expires=until))
        result['warnings'].append('%s cannot be forecast (%s): its exception is kept until %s '
                                  '(pep493_https_on_unknown: keep)' % (name, why, until))
