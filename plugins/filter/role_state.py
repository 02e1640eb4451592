# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters with which the policy role carries a host's state between its tasks
(plugins/plugin_utils/role_state.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.pep493.https.plugins.plugin_utils import role_state
from ansible_collections.pep493.https.plugins.plugin_utils.policy_plan import PolicyError


def predicted_status(*args, **kwargs):
    """The enforce entry point's status from its prediction (``role_state.predicted_status``)."""
    try:
        return role_state.predicted_status(*args, **kwargs)
    except PolicyError as exc:
        raise AnsibleFilterError(str(exc))


class FilterModule(object):
    def filters(self):
        return dict(unchanged_by_plan=role_state.unchanged_by_plan, applied_cfg=role_state.applied_cfg,
                    applied_services=role_state.applied_services, prediction_as_audit=role_state.prediction_as_audit,
                    predicted_status=predicted_status)
