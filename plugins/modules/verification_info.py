#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: verification_info
short_description: Report what HTTPS certificate verification a host and its services really get (PEP 493)
version_added: 0.1.0
description:
  - Reads, and never changes, everything that decides whether Python 2 programs on the host verify
    HTTPS certificates by default (PEP 493), and reports its real effect.
  - The host-wide file C(/etc/python/cert-verification.cfg), read exactly as RHEL/CentOS 7's
    Python does (the same reader as M(pep493.https.cert_verification)).
  - The host's Python interpreters, each probed in one short process with a timeout, in a clean
    environment (C(python -E)) - does it honour C(PYTHONHTTPSVERIFY), which file does it read, does
    it verify by default with the file as it is now.
  - Every service whose configuration mentions C(PYTHONHTTPSVERIFY) - a drop-in of
    M(pep493.https.service_verification), another drop-in, an C(EnvironmentFile=), the unit file
    itself - with the value systemd puts in effect, the file that sets it, the reason and expiry
    of a managed exception, the value the running main process really has
    (C(/proc/<MainPID>/environ)) and whether the variable has any effect on it (none on Python 3).
  - Host-wide settings of the variable that quietly undo a policy - C(/etc/environment),
    C(/etc/profile.d/*), systemd's C(DefaultEnvironment=) and the running manager's environment.
  - A summary with plain-English findings an operator should act on.
  - The service scan costs a constant number of processes whatever the number of units - one
    C(busctl) call for the manager's environment and search path (C(systemctl show) where there is
    no C(busctl)), one C(systemctl list-units) for every loaded service and its state, and at most
    one C(systemctl show) for the main process of the running services whose processes cannot be
    told apart otherwise - plus one pass over the unit folders and one over C(/proc).
  - Nothing here fails because of what it finds. A missing systemd, no Python 2, a malformed cfg
    file, an unreadable process environment or a dangling drop-in folder are reported in the
    result.
  - Every file is read whole or not at all. A FIFO, socket or device where a file should be is
    reported, never read (it could block); a file larger than 16 MiB is reported as too large.
author:
  - pep493.https maintainers (!UNKNOWN)
options:
  path:
    description:
      - The cfg file to report on. Red Hat SCL python27 reads C(/opt/rh/python27/root/etc/python/cert-verification.cfg).
    type: path
    default: /etc/python/cert-verification.cfg
  interpreters:
    description:
      - More interpreter paths to probe, besides C(/usr/bin/python*), C(/usr/local/bin/python*),
        C(/usr/libexec/platform-python*) and C(/opt/rh/*/root/usr/bin/python*).
      - A path that does not exist or does not run is reported with its error.
    type: list
    elements: path
    default: []
  services:
    description:
      - Limit the service scan to these units (C(legacy-app) means C(legacy-app.service)). A
        template (C(worker@.service)) stands for itself and all its loaded instances.
      - By default every loaded service and every service on disk whose files may set the variable.
    type: list
    elements: str
  probe:
    description:
      - Run the interpreters to ask what they do. With V(false) (or under O(root)) nothing is run,
        RV(interpreters) is empty and RV(summary.host_default) is null.
    type: bool
    default: true
  planned:
    description:
      - Report on the host as it will be once M(pep493.https.cert_verification) and
        M(pep493.https.service_verification) have applied these settings, without writing anything
        (the audit of a plan). The planned files are built by the same code as those modules write
        them, and put in place of the files on disk in the model.
      - Drop-ins are taken as written and followed by C(daemon-reload) (what
        M(pep493.https.service_verification) does when it changes one) and by no restart, so a running
        process whose environment would change is reported with RV(services[].pending_restart).
      - Interpreters that read the cfg file are reported with the verification the planned value gives
        them (V(enable) true, V(disable) false, anything else null); they are not run again.
      - A plan M(pep493.https.service_verification) would refuse (a bad unit name, a foreign file where the
        drop-in goes) makes this module fail with that module's message; one M(pep493.https.cert_verification)
        would refuse (a malformed cfg file without O(planned.repair)) is reported in RV(scan_errors).
      - The warnings those modules give for these settings whether they change a file or not (V(disable),
        exceptions with O(pep493.https.service_verification#module:services[].verify=false)) are given here
        too, in the same words (Ansible shows one text once per run), so a run that skips a writing module
        because its plan changes nothing still gives them.
    type: dict
    suboptions:
      verify:
        description: The O(pep493.https.cert_verification#module:verify) it will set; omitted, the cfg file stays as it is.
        type: str
        choices: [enable, disable, platform_default]
      cfg_state:
        description: The O(pep493.https.cert_verification#module:state) of the cfg file.
        type: str
        choices: [present, absent]
        default: present
      repair:
        description: As O(pep493.https.cert_verification#module:repair).
        type: bool
        default: false
      exceptions:
        description: The O(pep493.https.service_verification#module:services) it will be given.
        type: list
        elements: dict
        default: []
        suboptions:
          name:
            description: The service.
            type: str
            required: true
          verify:
            description: V(false) for C(PYTHONHTTPSVERIFY=0), V(true) for C(=1); required unless O(planned.exceptions[].state=absent).
            type: bool
          state:
            description: V(present) (default) or V(absent).
            type: str
            choices: [present, absent]
          reason:
            description: The reason written into the drop-in.
            type: str
          expires:
            description: The expiry date, C(YYYY-MM-DD).
            type: str
          ca:
            description: The PEM text of the CA the service is to trust (O(pep493.https.service_verification#module:ca)).
            type: str
            version_added: 0.2.0
      exclusive:
        description: As O(pep493.https.service_verification#module:exclusive).
        type: bool
        default: false
      remove_handmade:
        description: As O(pep493.https.service_verification#module:remove_handmade).
        type: list
        elements: str
        default: []
      dropin_name:
        description: As O(pep493.https.service_verification#module:dropin_name).
        type: str
        default: zz-pep493-https.conf
      unit_dir:
        description: As O(pep493.https.service_verification#module:unit_dir).
        type: path
        default: /etc/systemd/system
extends_documentation_fragment:
  - pep493.https.root
  - pep493.https.attributes
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
attributes:
  check_mode:
    support: full
    details: The module never changes anything; check mode returns the same report.
  diff_mode:
    support: none
    details: Nothing changes, so there is nothing to show as a diff.
notes:
  - Under O(root) a symbolic link whose C(..) would climb above O(root) is not followed; it is reported in
    RV(scan_errors).
  - Only the exact value C(0) turns verification off. C(1), an empty value, C(false), C(no) all
    leave it on, and on RHEL 7 any set value wins over the cfg file.
  - The variable is read when a Python process first imports C(ssl). A running process keeps the
    value it was started with; RV(services[].pending_restart) says when that differs from what
    the unit now gives.
  - Reading another process's environment needs root (or the same user).
seealso:
  - name: PEP 493
    description: HTTPS verification migration tools for Python 2.7.
    link: https://peps.python.org/pep-0493/
  - module: pep493.https.cert_verification
  - module: pep493.https.service_verification
'''

EXAMPLES = r'''
- name: Report where the host stands
  pep493.https.verification_info:
  register: pep493

- name: Fail when a Python 2 program here does not verify certificates by default
  ansible.builtin.assert:
    that: pep493.summary.host_default is not false
    fail_msg: "{{ pep493.summary.findings | join(' ') }}"

- name: Only look at two services, without running any interpreter
  pep493.https.verification_info:
    services:
      - legacy-app
      - worker@.service
    probe: false

- name: Audit an image tree before it ships (files only)
  pep493.https.verification_info:
    root: /var/tmp/image-root  # the unpacked image: this folder must exist

- name: What the host will look like once the policy is applied (nothing is written)
  pep493.https.verification_info:
    planned:
      verify: enable
      exceptions:
        - name: ambari-agent
          verify: false
          reason: "CHG-1234: self-signed Ambari server"
          expires: "2030-09-30"
      exclusive: true
  register: planned

- name: Include an interpreter outside the usual places
  pep493.https.verification_info:
    interpreters:
      - /opt/app/venv/bin/python
'''

RETURN = r'''
probed:
  description: Whether interpreters were run (false with O(probe=false) and under O(root)).
  returned: always
  type: bool
  sample: true
systemd_running:
  description:
    - Whether systemd runs this host (C(/run/systemd/system) exists) and was asked (never under O(root)).
    - When false, services are reported from their files only.
  returned: always
  type: bool
  sample: true
root:
  description: The O(root) the files were read under, or null.
  returned: always
  type: str
  sample: null
config:
  description: The host-wide cfg file, as RHEL 7's Python reads it.
  returned: always
  type: dict
  contains:
    path:
      description: The file (as the host sees it, without O(root)).
      type: str
      sample: /etc/python/cert-verification.cfg
    exists:
      description: Whether it exists.
      type: bool
    owner:
      description: Its owner's name (or uid), null when missing.
      type: str
      sample: root
    group:
      description: Its group's name (or gid), null when missing.
      type: str
      sample: root
    mode:
      description: Its permissions, four octal digits, null when missing.
      type: str
      sample: '0644'
    verify:
      description:
        - What RHEL 7's Python acts on - V(enable), V(disable), V(platform_default) (also for an
          unknown value, a missing section or option, or an unreadable file), V(missing) (no file),
          or V(malformed) (the file makes C(import ssl) raise).
        - Null when it cannot be told (the file is larger than 16 MiB and was not read; RV(config.error) says so).
      type: str
      sample: platform_default
    value:
      description: The raw C(verify) value in effect in C([https]), null when there is none.
      type: str
      sample: platform_default
    valid:
      description: False when the file makes C(import ssl) raise on RHEL 7.
      type: bool
    errors:
      description:
        - What makes it malformed, one entry per offending line, for the first 20 offending lines
          (RV(config.errors_total) counts them all), so that a junk file of any size gives a small result.
      type: list
      elements: dict
      contains:
        line:
          description: Line number, from 1.
          type: int
        kind:
          description: V(missing_section_header) (text before any section) or V(parsing_error) (a junk line).
          type: str
        text:
          description: The line's text, cut after 80 characters (then followed by C(...)).
          type: str
      sample: [{"line": 1, "kind": "missing_section_header", "text": "verify=disable"}]
    errors_total:
      description: How many lines make it malformed (0 for a valid or missing file).
      type: int
      sample: 1
    duplicates:
      description: Whether there are several C([https]) sections or C(verify) keys (the last one wins).
      type: bool
    https_sections:
      description: How many C([https]) section headers the file has.
      type: int
    verify_keys:
      description: How many C(verify) options the C([https]) sections have.
      type: int
    rpmnew:
      description: The C(.rpmnew) file beside it (a package update's new default), or null.
      type: str
      sample: null
    error:
      description: Why the file could not be read, or null.
      type: str
      sample: null
    readers:
      description: The probed interpreters that read this exact file; null when not probed.
      type: list
      elements: str
      sample: ["/usr/bin/python2.7"]
interpreters:
  description: Every Python found and probed (empty when not probed).
  returned: always
  type: list
  elements: dict
  contains:
    path:
      description: The interpreter path.
      type: str
    version:
      description: Its version, null when the probe failed.
      type: str
      sample: 2.7.5
    honours_env:
      description: Whether it honours C(PYTHONHTTPSVERIFY) (has C(ssl._https_verify_envvar)).
      type: bool
    reads_config:
      description: The cfg file it reads (C(ssl._cert_verification_config)), or null.
      type: str
      sample: /etc/python/cert-verification.cfg
    verifies_by_default:
      description: Whether, in a clean environment and with the file as it is now, it verifies HTTPS certificates by default.
      type: bool
    error:
      description: Why the probe failed (not runnable, no answer within the timeout, C(import ssl) raised), or null.
      type: str
      sample: null
services:
  description:
    - Every service whose configuration mentions C(PYTHONHTTPSVERIFY) (its unit file, a drop-in, an
      environment file it reads), every one whose value cannot be told, and every running one whose main
      process has a value its unit no longer gives; sorted by unit name. An alias and its unit are one
      service (by the unit's own name); a unit that has no file of its own, only a drop-in meant for all
      services, is not one.
    - Everything is computed from the unit files as systemd reads them (search path, drop-ins, templates,
      aliases, masks) and from the environment rules of systemd.exec(5); systemd, when it runs, adds what
      is running (states, processes). Under O(root), or without systemd, those fields are null.
  returned: always
  type: list
  elements: dict
  contains:
    unit:
      description:
        - The unit name. A template (C(worker@.service)) appears when its own files set the variable
          and none of its instances is loaded (always under O(root)); loaded instances appear by their own names.
      type: str
      sample: legacy-app.service
    load_state:
      description:
        - systemd's LoadState when it has loaded the unit (V(loaded), V(not-found), V(masked), ...), otherwise
          what the unit files give (V(loaded), V(masked), V(not-found), V(error) for a unit file that cannot be read).
      type: str
    active_state:
      description: systemd's ActiveState (V(active), V(inactive), V(failed), ...), null without systemd.
      type: str
    fragment_path:
      description: The unit file, or null.
      type: str
    dropin_paths:
      description: The drop-ins that apply, in the order systemd applies them, each named as systemd names it (its folder with links resolved).
      type: list
      elements: str
    mentioned_in:
      description: Every file of the unit (unit file, drop-ins, environment files) that mentions the variable.
      type: list
      elements: str
    value:
      description:
        - The C(PYTHONHTTPSVERIFY) value a process of this unit gets when it starts, from its files as systemd
          reads them (when RV(services[].needs_daemon_reload) is true, once systemd has reloaded them). The
          manager's environment comes first, then C(PassEnvironment=), C(Environment=), C(EnvironmentFile=) (globs,
          optional files, systemd's own file syntax), C(UnsetEnvironment=) last.
        - Null when unset, when the unit is masked or cannot start (RV(services[].errors) says why), and when it
          cannot be told (RV(services[].value_known) is false).
      type: str
      sample: '0'
    value_known:
      description:
        - False when the value cannot be told from what can be read, for example C(PassEnvironment=) of a variable in
          PID 1's own environment under O(root), a host-dependent specifier such as C(%H), a C(PAMName=) session
          whose pam_env files set the variable. RV(services[].errors) says which.
      type: bool
    verify:
      description: Whether Python 2 in this service verifies because of the value (false only for C(0)); null when unset (the host default applies).
      type: bool
    source:
      description: The file that sets the value in effect (null when it comes from the manager's environment or cannot be told).
      type: str
      sample: /etc/systemd/system/legacy-app.service.d/zz-pep493-https.conf
    source_kind:
      description:
        - V(dropin), V(unit), V(environment_file), V(manager) (the manager's environment),
          V(pass_environment) (PID 1's environment through C(PassEnvironment=); RV(services[].source) is the
          unit file that passes it), V(unset_environment) (C(UnsetEnvironment=) in RV(services[].source)
          removes it), or null.
      type: str
    managed:
      description: Whether a drop-in of M(pep493.https.service_verification) (recognised by its marker line) applies.
      type: bool
    dropin:
      description: That managed drop-in, or null.
      type: str
    managed_value:
      description: The value the managed drop-in sets, or null.
      type: str
    ca:
      description:
        - When the managed drop-in trusts a CA (an exception with C(ca) - the service verifies, it does not opt out) -
          that CA and the service's own bundle; null otherwise.
      type: dict
      version_added: 0.2.0
      contains:
        sha256_fingerprint:
          description: The CA's SHA-256 fingerprint, as the drop-in names it.
          type: str
        subject:
          description: Its subject, read from the bundle (null when the bundle is missing or not ours).
          type: str
        bundle:
          description: The bundle C(SSL_CERT_FILE) and C(REQUESTS_CA_BUNDLE) name.
          type: str
        bundle_state:
          description:
            - V(current) - built from the system bundle as it is now; V(stale) - the system bundle changed (or is
              gone) since, so CAs added to or removed from the host are not in it (a run of
              M(pep493.https.service_verification) rebuilds it); V(missing); V(foreign) - not the bundle of that CA.
          type: str
    overridden:
      description: Whether another setting decides the value in effect instead of the managed drop-in.
      type: bool
    reason:
      description:
        - The managed exception's reason, or null. Control characters, line separators and invisible formatting
          characters in the file are shown escaped (C(\\x1b), C(\\u200b)), never as they are.
      type: str
    expires:
      description:
        - The managed exception's expiry date (C(YYYY-MM-DD)), or null. A date that is not real (C(2020-13-45))
          is shown as written, never expires, and is a finding.
      type: str
      sample: '2030-12-31'
    expired:
      description: Whether that date has passed (an exception is valid through its expiry day).
      type: bool
    needs_daemon_reload:
      description:
        - Whether the unit's files or drop-in folders changed since systemd last loaded the units (their
          modification time is later than the manager's last load); null without systemd or when that time
          cannot be read.
      type: bool
    main_pid:
      description:
        - The running main process, or null. Read from the process tree (the one process of the service's
          cgroup whose parent is outside it); systemd is asked only when that does not tell.
      type: int
    running_value:
      description: C(PYTHONHTTPSVERIFY) in the main process's environment, null when unset or not running.
      type: str
    running_value_error:
      description: Why the main process's environment could not be read, or null.
      type: str
    pending_restart:
      description:
        - Whether the running main process does not have the value a restart would give it (the unit's value,
          as an C(env) wrapper in C(ExecStart=) changes it); null when its environment could not be read or
          the value cannot be told.
      type: bool
    executable:
      description: The program of the first C(ExecStart=) command, or null.
      type: str
      sample: /usr/bin/python2.7
    python3:
      description:
        - True when every C(ExecStartPre=) and C(ExecStart=) command runs Python 3, false when one runs Python 2
          (directly, through C(env), or by its C(#!) line), null otherwise.
      type: bool
    effective:
      description:
        - Whether the variable can reach Python 2 code in this service - the same rule as
          M(pep493.https.service_verification) uses. Every C(ExecStartPre=) and C(ExecStart=) command counts,
          followed through C(env) wrappers (C(-i), C(-u), C(NAME=value), C(-S)), C(#!) lines and Python's
          own options (C(-E), also in C(-Es); Python 2 refuses C(-I)).
        - False for Python 3, C(python -E), an C(env) wrapper that removes or replaces the variable, a masked
          unit or one systemd cannot start; null when it cannot be told (a shell, a binary, an unreadable script).
      type: bool
    effect:
      description:
        - Why RV(services[].effective) is what it is - V(python2), V(python3), V(ignore-environment),
          V(env-unset), V(env-override), V(masked), V(cannot-start), V(not-loaded), V(no-command), V(unknown), or
          V(not-governed) - its Python 2 code (the scripts its commands run and the modules they import, read
          from the files, nothing run) uses no HTTPS the variable governs, such as requests, urllib3 or ssl alone.
      type: str
      sample: python2
    effect_why:
      description: With RV(services[].effect=not-governed), what its code uses instead (and where); null otherwise.
      type: str
      sample: it uses requests, which PYTHONHTTPSVERIFY and the cfg file do not govern
    errors:
      description:
        - Problems met reading this unit's configuration (for example a missing C(EnvironmentFile=), which keeps
          systemd from starting it), and why the value cannot be told.
      type: list
      elements: str
global:
  description: Host-wide settings of C(PYTHONHTTPSVERIFY), in the order found.
  returned: always
  type: list
  elements: dict
  contains:
    source:
      description:
        - V(etc_environment) (C(/etc/environment), every PAM login session), V(profile_d)
          (C(/etc/profile.d/*), login shells), V(system_conf) (systemd C(DefaultEnvironment=) in
          C(system.conf) or C(system.conf.d)), V(manager_environment) (the running manager's own environment, its C(Environment) property).
      type: str
    path:
      description: The file, null for the manager's environment.
      type: str
    line:
      description: The line number where known, else null.
      type: int
    action:
      description: V(set), V(unset), V(reset) (an empty C(DefaultEnvironment=)), or V(mention) (named but not assigned).
      type: str
    value:
      description: The value assigned (shell expansions not evaluated), null unless set.
      type: str
    disables:
      description: Whether this setting turns verification off (the value is exactly C(0)).
      type: bool
  sample: [{"source": "etc_environment", "path": "/etc/environment", "line": 3, "action": "set", "value": "0", "disables": true}]
summary:
  description: Counts and findings for a fleet report.
  returned: always
  type: dict
  contains:
    host_default:
      description:
        - Whether a Python 2 program on this host verifies HTTPS certificates by default - every probed
          Python 2 does in a clean environment and no host-wide setting turns it off.
        - Null when not probed, when there is no Python 2, or when a probe could not tell.
      type: bool
    python2_interpreters:
      description: How many probed interpreters are Python 2; null when not probed.
      type: int
    exceptions:
      description: Services whose own configuration sets the variable (any value).
      type: int
    opt_outs:
      description: Of those, how many set it to C(0) (verification off).
      type: int
    managed:
      description: Services with a managed drop-in.
      type: int
    unmanaged:
      description: Exceptions set by something other than a managed drop-in (or overriding one).
      type: int
    expired:
      description: Managed exceptions past their expiry date.
      type: int
    pending_restart:
      description: Services whose running process does not have the value the unit now gives, leaving out those the variable cannot affect (Python 3).
      type: int
    ineffective:
      description: Services that set the variable but run Python 3, where it has no effect (a drop-in that trusts a
        CA is not counted - its bundle reaches Python 3 too).
      type: int
    trusting:
      description: Services whose managed drop-in trusts a CA (these verify; they are not opt-outs).
      type: int
      version_added: 0.2.0
    stale_bundles:
      description: Of those, how many have a bundle that is not V(current).
      type: int
      version_added: 0.2.0
    global_opt_outs:
      description: Host-wide settings that turn verification off.
      type: int
    findings:
      description: What an operator should act on, one sentence each.
      type: list
      elements: str
      sample: ["legacy-app.service: the exception expired on 2026-01-31; remove it or renew it with a new date."]
planned:
  description: Whether this is the report of the planned state (O(planned) was given).
  returned: always
  type: bool
  sample: false
planned_changes:
  description: The files O(planned) would create, update or remove (empty without O(planned)).
  returned: always
  type: list
  elements: dict
  contains:
    path:
      description: The file, as the host sees it (without O(root)).
      type: str
    action:
      description: V(created), V(updated) or V(removed).
      type: str
    kind:
      description: V(cfg) (the file of M(pep493.https.cert_verification)), V(dropin) (one of
        M(pep493.https.service_verification)) or V(handmade) (a hand-made drop-in that
        O(planned.remove_handmade) takes C(PYTHONHTTPSVERIFY=0) out of).
      type: str
  sample: [{"path": "/etc/systemd/system/ambari-agent.service.d/zz-pep493-https.conf", "action": "created",
            "kind": "dropin"}]
planned_refusals:
  description:
    - What M(pep493.https.cert_verification) would refuse of O(planned) (a malformed cfg file without
      O(planned.repair)), with its message; the planned state keeps that file as it is. Also in RV(scan_errors).
      Empty without O(planned).
  returned: always
  type: list
  elements: str
  sample: []
scan_errors:
  description: Parts of the host that could not be read or asked (the report is complete otherwise).
  returned: always
  type: list
  elements: str
  sample: ["/etc/systemd/system/app.service.d is a symbolic link to /gone, which does not exist"]
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.pep493.https.plugins.module_utils._syntax import cfg
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin


def argument_spec():
    exception = dict(
        name=dict(type='str', required=True),
        verify=dict(type='bool'),
        state=dict(type='str', choices=['present', 'absent']),
        reason=dict(type='str'),
        expires=dict(type='str'),
        ca=dict(type='str'),
    )
    planned = dict(
        verify=dict(type='str', choices=list(cfg.VALUES)),
        cfg_state=dict(type='str', default='present', choices=['present', 'absent']),
        repair=dict(type='bool', default=False),
        exceptions=dict(type='list', elements='dict', options=exception, default=[]),
        exclusive=dict(type='bool', default=False),
        remove_handmade=dict(type='list', elements='str', default=[]),
        dropin_name=dict(type='str', default=dropin.DEFAULT_DROPIN_NAME),
        unit_dir=dict(type='path', default='/etc/systemd/system'),
    )
    return dict(
        path=dict(type='path', default=cfg.DEFAULT_PATH),
        root=dict(type='path'),
        interpreters=dict(type='list', elements='path', default=[]),
        services=dict(type='list', elements='str'),
        probe=dict(type='bool', default=True),
        planned=dict(type='dict', options=planned),
    )


def module_kwargs():
    """The AnsibleModule arguments: main() and the action plugin (which checks a task on the controller) use them."""
    return dict(argument_spec=argument_spec(), supports_check_mode=True)


def main():
    # imported here, not above: the action plugin imports this file on the controller for module_kwargs() alone
    from ansible_collections.pep493.https.plugins.module_utils._backends import verification_info as backend
    backend.run(AnsibleModule(**module_kwargs()))


if __name__ == '__main__':
    main()
