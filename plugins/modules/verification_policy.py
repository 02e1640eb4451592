#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: verification_policy
short_description: Apply, audit or roll back one host's PEP 493 HTTPS-verification policy, end to end
version_added: 0.2.0
description:
  - The step behind the C(pep493.https.policy) role; its options are the role's variables without their
    C(pep493_https_) prefix, and the role's README describes each. It runs on the controller and calls the
    collection's modules on the host, in this order.
  - O(entry_point=main) - plan and validate the whole policy (every exception with
    M(pep493.https.service_verification)'s own rule) and refuse it, naming every problem, before anything is
    written; forecast which services would break once they verify (M(pep493.https.verification_forecast);
    not under O(root)); predict the host as the policy will leave it (M(pep493.https.verification_info) with
    C(planned)) and refuse a policy the host would not comply with; write the cfg file
    (M(pep493.https.cert_verification)) and the drop-ins (M(pep493.https.service_verification)), each only when
    the prediction shows it has something to change; audit the host (M(pep493.https.verification_info)), unless
    nothing changed and the prediction already is that audit, or in check mode.
  - O(entry_point=audit) - plan the policy and audit the host against it; changes nothing.
  - O(entry_point=rollback) - put the cfg file back as it was before its last change (or put O(rollback_verify) in
    place) and remove every drop-in of the collection.
  - The tags C(pep493_https_file), C(pep493_https_services) and C(pep493_https_audit) of C(--tags) and
    C(--skip-tags) select the parts of the run, as when each part was a task of its own.
  - RV(steps) says which step ran and why a step was left out.
author:
  - pep493.https maintainers (!UNKNOWN)
options:
  entry_point:
    description: What to do (see above).
    type: str
    choices: [main, audit, rollback]
    default: main
  verify:
    description: The host-wide value (role variable C(pep493_https_verify)).
    type: str
    default: enable
  allow_insecure_host_default:
    description: The acknowledgement a host-wide C(disable) needs (C(pep493_https_allow_insecure_host_default)).
    type: raw
    default: false
  cfg_path:
    description: The cfg file on the host (C(pep493_https_cfg_path)).
    type: str
    default: /etc/python/cert-verification.cfg
  cfg_backup:
    description: Keep backups of the cfg file (C(pep493_https_cfg_backup)).
    type: bool
    default: true
  cfg_repair:
    description: Repair a malformed cfg file (C(pep493_https_cfg_repair)).
    type: bool
    default: false
  exceptions:
    description: The per-service exceptions, checked here item by item (C(pep493_https_exceptions)).
    type: raw
    default: []
  exclusive:
    description: Remove the collection's drop-ins of services that are not listed (C(pep493_https_exclusive)).
    type: bool
    default: true
  require_justification:
    description: Every exception needs a reason and an expiry date (C(pep493_https_require_justification)).
    type: bool
    default: true
  expired:
    description: What expired exceptions get, C(remove), C(keep) or C(fail) (C(pep493_https_expired)).
    type: str
    default: remove
  restart:
    description: C(never), C(try-restart) or C(restart) the services whose drop-in changed (C(pep493_https_restart)).
    type: str
    default: never
  daemon_reload:
    description: Reload systemd after a drop-in changed (C(pep493_https_daemon_reload)).
    type: bool
    default: true
  audit:
    description: Predict before writing and audit after it (C(pep493_https_audit)).
    type: bool
    default: true
  fail_when_noncompliant:
    description: Fail a host that does not, or would not, comply (C(pep493_https_fail_when_noncompliant)).
    type: bool
    default: true
  audit_interpreters:
    description: Extra interpreters for the audit to probe (C(pep493_https_audit_interpreters)).
    type: list
    elements: str
    default: []
  forecast:
    description: Forecast what would break before writing (C(pep493_https_forecast)).
    type: bool
    default: true
  on_predicted_break:
    description: C(fail), C(except) or C(warn) on a predicted break (C(pep493_https_on_predicted_break)).
    type: str
    default: fail
  forecast_exception_days:
    description: Days ahead an automatic exception expires (C(pep493_https_forecast_exception_days)).
    type: raw
    default: 30
  forecast_endpoints:
    description: Endpoints the services talk to (C(pep493_https_forecast_endpoints)).
    type: list
    elements: dict
    default: []
  forecast_observe_seconds:
    description: Seconds to watch the services' connections (C(pep493_https_forecast_observe_seconds)).
    type: float
    default: 0.0
  forecast_timeout:
    description: Seconds per endpoint (C(pep493_https_forecast_timeout)).
    type: float
    default: 5.0
  forecast_budget:
    description: Seconds for the whole forecast of the host (C(pep493_https_forecast_budget)).
    type: float
    default: 60.0
  rollback_verify:
    description: With O(entry_point=rollback), a value to put in place instead of the newest backup
      (C(pep493_https_rollback_verify)).
    type: str
    default: ''
  root:
    description: A folder that stands for C(/) (C(pep493_https_root)); empty is the host itself.
    type: str
    default: ''
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.conn
  - ansible.builtin.action_common_attributes.flow
attributes:
  action:
    support: full
  async:
    support: none
  become:
    support: full
  bypass_host_loop:
    support: none
  connection:
    support: full
  delegation:
    support: none
  check_mode:
    support: full
  diff_mode:
    support: full
  platform:
    support: full
    platforms: posix
seealso:
  - module: pep493.https.cert_verification
  - module: pep493.https.service_verification
  - module: pep493.https.verification_info
  - module: pep493.https.verification_forecast
'''

EXAMPLES = r'''
- name: Apply the policy the way the role does (its variables without their prefix)
  pep493.https.verification_policy:
    verify: enable
    exceptions:
      - {name: ambari-agent, verify: false, reason: "Agent CA not in the trust store (OPS-1234)", expires: "2030-12-31"}
  register: run

- name: Audit only
  pep493.https.verification_policy:
    entry_point: audit
    fail_when_noncompliant: false
'''

RETURN = r'''
steps:
  description: Every step in the order it came, with whether it ran and, when not, why.
  returned: always
  type: list
  elements: dict
  sample: [{"step": "forecast", "ran": false, "why": "under pep493_https_root nothing runs to probe"},
           {"step": "Audit the host as the policy will leave it", "module": "pep493.https.verification_info",
            "ran": true, "changed": false}]
failed_step:
  description: The step that stopped a failed run.
  returned: on failure
  type: str
  sample: Refuse a policy that is not safe or not complete
pep493_https_status:
  description: The prediction, replaced by the audit after the change (also set as a fact).
  returned: when the policy was planned
  type: dict
pep493_https_applied:
  description: What the writing modules did (also set as a fact); the batch summary reads it.
  returned: with O(entry_point=main) and O(entry_point=rollback)
  type: dict
pep493_https_forecast_result:
  description: The predicted breaks, the exceptions granted and removed (also set as a fact).
  returned: when the forecast ran
  type: dict
'''
