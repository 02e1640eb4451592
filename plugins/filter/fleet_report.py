# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the fleet report: ``fleet_report`` (one entry per host, hosts worst first) and
``fleet_report_merge`` (one report from several). The report is built in
plugins/plugin_utils/fleet_report.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.pep493.https.plugins.plugin_utils import fleet_report as report


def fleet_report(hosts, audits, generated=None, warning_days=report.EXPIRY_WARNING_DAYS):
    """The fleet report of ``hosts`` from their audits (``hostvars``, or host -> status)."""
    try:
        return report.fleet_report(hosts, audits, generated, warning_days)
    except report.ReportError as exc:
        raise AnsibleFilterError(str(exc))


def fleet_report_merge(reports, sources=None, generated=None, warning_days=report.EXPIRY_WARNING_DAYS):
    """One report from several (``reports``: JSON text or data; ``sources``: their names)."""
    try:
        return report.fleet_report_merge(reports, sources, generated, warning_days)
    except report.ReportError as exc:
        raise AnsibleFilterError(str(exc))


class FilterModule(object):
    def filters(self):
        return dict(fleet_report=fleet_report, fleet_report_merge=fleet_report_merge)
