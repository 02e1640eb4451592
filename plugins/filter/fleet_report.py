# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the fleet report: ``fleet_report`` (one entry per host, hosts ranked by risk),
``fleet_report_merge`` (one report from several) and ``fleet_artifacts`` (each host's result under
a key of its own, for set_stats). The report is built in plugins/plugin_utils/fleet_report.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.pep493.https.plugins.plugin_utils import fleet_report as report


def fleet_report(hosts, audits, generated=None, warning_days=report.EXPIRY_WARNING_DAYS, forecasts=None, since=None):
    """The fleet report of ``hosts`` from their audits and forecasts (``hostvars``, or host -> fact)."""
    try:
        return report.fleet_report(hosts, audits, generated, warning_days, forecasts, since)
    except report.ReportError as exc:
        raise AnsibleFilterError(str(exc))


def fleet_report_merge(reports, sources=None, generated=None, warning_days=report.EXPIRY_WARNING_DAYS):
    """One report from several (``reports``: JSON text or data; ``sources``: their names)."""
    try:
        return report.fleet_report_merge(reports, sources, generated, warning_days)
    except report.ReportError as exc:
        raise AnsibleFilterError(str(exc))


def fleet_artifacts(fleet):
    """Each host's result in a fleet report, under a key of its own, for set_stats."""
    try:
        return report.artifacts(fleet)
    except (KeyError, TypeError) as exc:
        raise AnsibleFilterError('fleet_artifacts expects a fleet report (the fleet_report filter\'s result): %s' % exc)


class FilterModule(object):
    def filters(self):
        return dict(fleet_report=fleet_report, fleet_report_merge=fleet_report_merge, fleet_artifacts=fleet_artifacts)
