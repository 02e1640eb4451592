# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The filters policy_plan, compliance and predicted_compliance: thin wrappers of
plugins/plugin_utils/policy_plan.py and compliance.py (whose own tests are in tests/unit/plugins/plugin_utils)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.pep493.https.plugins.filter import batch_summary as batch_filters
from ansible_collections.pep493.https.plugins.filter import compliance as compliance_filters
from ansible_collections.pep493.https.plugins.filter import fleet_report as report_filters
from ansible_collections.pep493.https.plugins.filter import forecast as forecast_filters
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.plugin_utils import compliance as judge
from ansible_collections.pep493.https.plugins.plugin_utils import policy_plan as planning
from ansible_collections.pep493.https.tests.unit.plugins.policy_data import exc, info, plan, svc


def test_policy_plan_is_the_rule_of_module_utils():
    entries = [exc('legacy-app'), exc('old', expires='2026-06-14'), exc('legacy app')]
    assert plan(entries) == planning.plan_policy('enable', entries, datetime.date(2026, 6, 15))
    assert plan(entries, today=datetime.date(2026, 6, 15)) == plan(entries)


def test_policy_plan_uses_the_collection_clock_by_default(monkeypatch):
    monkeypatch.setattr(dates, 'today', lambda now=None: datetime.date(2026, 6, 15))
    assert compliance_filters.policy_plan([exc('old', expires='2026-06-14')])['expired'][0]['name'] == 'old.service'
    monkeypatch.setattr(dates, 'today', lambda now=None: datetime.date(2026, 6, 14))
    assert compliance_filters.policy_plan([exc('old', expires='2026-06-14')])['expired'] == []


@pytest.mark.parametrize('kwargs', [dict(expired='ignore'), dict(today='next week')])
def test_policy_plan_errors_are_filter_errors(kwargs):
    with pytest.raises(AnsibleFilterError):
        plan([], **kwargs)


def test_compliance_is_the_rule_of_module_utils():
    host = info(services=[svc('rogue.service', managed=False, source='/etc/x.conf')])
    assert compliance_filters.compliance(host, 'enable', []) == judge.compliance(host, 'enable', [])
    with pytest.raises(AnsibleFilterError):
        compliance_filters.compliance('not a result')


def test_filters_are_registered():
    names = set()
    for module in (compliance_filters, report_filters, batch_filters, forecast_filters):
        names.update(module.FilterModule().filters())
    assert names == set(['policy_plan', 'compliance', 'predicted_compliance', 'fleet_report', 'fleet_report_merge',
                         'fleet_artifacts', 'batch_summary', 'forecast_plan', 'forecast_cas'])


def test_predicted_compliance_is_the_rule_of_module_utils():
    planned = dict(info(services=[svc('legacy.service', managed=False, source='/etc/x/override.conf')]), planned=True)
    verdict = compliance_filters.predicted_compliance(planned, 'enable', [], True, 'remove', 'try-restart')
    assert verdict == judge.predicted_compliance(planned, 'enable', [], True, 'remove', 'try-restart')
    assert verdict['predicted'] is True and verdict['state'] == 'non_compliant'
    assert verdict['reasons'] == ['legacy.service has PYTHONHTTPSVERIFY=0 from /etc/x/override.conf and no exception '
                                  'in the policy']
    with pytest.raises(AnsibleFilterError, match='planned state'):
        compliance_filters.predicted_compliance(info())
