# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Small policy, audit and module results shared by the tests of the filters and the controller code."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.pep493.https.plugins.filter import compliance as compliance_filters
from ansible_collections.pep493.https.plugins.filter import fleet_report as report_filters

TODAY = '2026-06-15'


def exc(name, reason='vendor agent pins an old CA', expires='2026-12-31', verify=False):
    return dict(name=name, verify=verify, reason=reason, expires=expires)


def plan(exceptions, today=TODAY, require_justification=True, expired='remove', **policy_vars):
    return compliance_filters.policy_plan(exceptions, today=today, require_justification=require_justification, expired=expired,
                                          **policy_vars)


def info(verify='enable', services=(), valid=True, host_default=True, global_=None):
    return dict(config=dict(path='/etc/python/cert-verification.cfg', verify=verify, valid=valid),
                services=list(services), summary=dict(host_default=host_default, findings=[]),
                **{'global': global_ or {}})


def svc(unit, value='0', managed=True, **kw):
    data = dict(unit=unit, value=value, managed=managed, expired=False, pending_restart=False, effective=True)
    data.update(kw)
    return data


def status(host_info, state):
    return dict(info=host_info, policy=dict(verify='enable'),
                compliance=dict(state=state, compliant=state != 'non_compliant', reasons=[], warnings=[]))


def with_exceptions(*expiries, **kw):
    services = [svc('s%d.service' % n, expires=date, expired=date is not None and date < TODAY, reason='why')
                for n, date in enumerate(expiries)]
    return status(info(services=services), kw.get('state', 'compliant_with_exceptions'))


def applied(cfg=None, services=None, expired=(), check=False, entry_point='main', expired_policy='remove',
            restart='try-restart'):
    return dict(entry_point=entry_point, check_mode=check, cfg=cfg or {}, services=services or {},
                expired=list(expired), expired_policy=expired_policy, restart=restart)


def cfg_result(previous='platform_default', verify='enable', changed=True, consumers=(), probed=True, **kw):
    return dict(kw, previous=previous, verify=verify, changed=changed, consumers=list(consumers), probed=probed)


def svc_result(actions=(), removed=(), restarted=(), pending=(), running=True):
    return dict(services=[dict(name=n, action=a) for n, a in actions],
                removed=[dict(name=n, action='removed') for n in removed],
                restarted=list(restarted), pending_restart=list(pending), systemd_running=running)


def compliant(state='compliant', reasons=(), check=False, predicted=False):
    verdict = dict(state=state, reasons=list(reasons))
    if predicted:
        verdict['predicted'] = True
    return dict(compliance=verdict, check_mode=check)


def slice_report(generated, **states):
    audits = dict((host, status(info(), state) if state != 'unreachable' else None) for host, state in states.items())
    return report_filters.fleet_report(sorted(states), audits, generated)


def full_svc_result(actions):
    return dict(changed=any(a != 'unchanged' for n, a in actions), systemd_running=False, reloaded=False,
                restarted=[], pending_restart=[], msg='m', warnings=['w'],
                services=[dict(name=n, action=a, path='/etc/systemd/system/%s.d/zz.conf' % n, state='present',
                               verify=False, expired=False, unit_known=True, effective=True, effect='python2')
                          for n, a in actions],
                removed=[dict(name='old.service', action='removed', reason='r', expires=TODAY)])


def predicted_status_of(verify='enable', planned_changes=(), readers=False):
    interpreters = [dict(path='/usr/bin/python2', reads_config=readers, verifies_by_default=None)]
    return dict(policy=dict(verify=verify), check_mode=False, predicted=True,
                info=dict(info(), planned=True, planned_changes=list(planned_changes), interpreters=interpreters),
                compliance=dict(state='compliant', compliant=True, reasons=[], warnings=[], predicted=True))


UNCHANGED_CFG = cfg_result(previous='enable', changed=False)


SKIPPED = dict(skipped=True, changed=False, false_condition='not __pep493_https_unchanged.cfg')


CFG_CHANGE = dict(path='/etc/python/cert-verification.cfg', action='updated', kind='cfg')


DROPIN_CHANGE = dict(path='/etc/systemd/system/a.service.d/zz-pep493-https.conf', action='created', kind='dropin')


def planned_info(changes=(), refusals=(), readers=False, services=()):
    interpreters = [dict(path='/usr/bin/python2', reads_config=readers, verifies_by_default=None)]
    return dict(info(services=services), planned=True, planned_changes=list(changes), planned_refusals=list(refusals),
                interpreters=interpreters, changed=False)
