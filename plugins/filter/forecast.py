# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""``forecast_plan``: what the policy role does with a verification_forecast result; ``forecast_cas``:
the CAs a policy trusts, as verification_forecast's ``cas`` (``plugins/plugin_utils/predicted_breaks.py``
holds both rules)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.plugin_utils import policy_plan as policy
from ansible_collections.pep493.https.plugins.plugin_utils import predicted_breaks as rules


def forecast_plan(forecast, plan, on_break='fail', days=30, today=None, on_unknown='keep'):
    """The policy plan with the forecast's automatic exceptions (``rules.plan_forecast``)."""
    try:
        day = dates.today() if today is None else policy.as_date(today, 'today')
        if isinstance(days, str) and days.strip().isdigit():
            days = int(days)
        return rules.plan_forecast(forecast or {}, plan or {}, on_break, days, day, on_unknown)
    except policy.PolicyError as exc:
        raise AnsibleFilterError(str(exc))


def forecast_cas(plan, trusted_cas=None):
    """verification_forecast's ``cas`` for the plan of ``policy_plan`` and ``pep493_https_trusted_cas``
    (``rules.forecast_cas``)."""
    if not isinstance(plan, dict) or (trusted_cas is not None and not isinstance(trusted_cas, list)):
        raise AnsibleFilterError('forecast_cas takes the plan of pep493.https.policy_plan and the list '
                                 'pep493_https_trusted_cas')
    return rules.forecast_cas(plan.get('allowed') or [], trusted_cas or [])


class FilterModule(object):
    def filters(self):
        return dict(forecast_plan=forecast_plan, forecast_cas=forecast_cas)
