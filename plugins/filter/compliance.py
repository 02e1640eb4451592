# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters that plan a host's policy and judge a host against it: ``policy_plan``,
``compliance`` and ``predicted_compliance`` (the rules are in
plugins/plugin_utils/policy_plan.py and compliance.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.plugin_utils import compliance as rules
from ansible_collections.pep493.https.plugins.plugin_utils import policy_plan as planning


def policy_plan(exceptions, verify='enable', allow_insecure=False, require_justification=True, expired='remove',
                cfg_path='/etc/python/cert-verification.cfg', today=None):
    """A host's whole policy, validated before anything is written (``rules.plan_policy``).

    ``today`` (a date or ``YYYY-MM-DD``) replaces the collection's clock (``dates.today()``, the UTC
    date) for a plan made as of another day.
    """
    try:
        day = dates.today() if today is None else planning.as_date(today, 'today')
        return planning.plan_policy(verify, exceptions, day, require_justification, expired, allow_insecure, cfg_path)
    except planning.PolicyError as exc:
        raise AnsibleFilterError(str(exc))


def compliance(info, verify='enable', exceptions=None, exclusive=True, expired='remove'):
    """How one host stands against the policy (``rules.compliance``)."""
    try:
        return rules.compliance(info, verify, exceptions, exclusive, expired)
    except planning.PolicyError as exc:
        raise AnsibleFilterError(str(exc))


def predicted_compliance(info, verify='enable', exceptions=None, exclusive=True, expired='remove', restart='never'):
    """How one host will stand once the plan is applied (``rules.predicted_compliance``)."""
    try:
        return rules.predicted_compliance(info, verify, exceptions, exclusive, expired, restart)
    except planning.PolicyError as exc:
        raise AnsibleFilterError(str(exc))


class FilterModule(object):
    def filters(self):
        return dict(policy_plan=policy_plan, compliance=compliance, predicted_compliance=predicted_compliance)
