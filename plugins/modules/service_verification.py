#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: service_verification
short_description: Per-service PYTHONHTTPSVERIFY exceptions as systemd drop-ins
version_added: 0.1.0
description:
  - Sets C(Environment=PYTHONHTTPSVERIFY=0) (or C(=1)) for one systemd service, or for a list of
    services in one call, through a drop-in C(<unit_dir>/<unit>.d/<dropin_name>). The vendor unit
    file is never edited.
  - C(PYTHONHTTPSVERIFY=0) lets the Python 2 standard library HTTPS clients of that service
    (C(urllib2), C(httplib), C(xmlrpclib)) skip certificate verification (PEP 493);
    C(PYTHONHTTPSVERIFY=1) forces verification for that service even where the host-wide
    C(/etc/python/cert-verification.cfg) says C(disable) (RHEL 7 honours the variable first).
    Python reads the variable once, when the process first imports C(ssl).
  - The drop-in is owned by the module. Its whole content is rendered from the options (a marker
    line, the O(reason) and O(expires) as comment lines, C([Service]) and the C(Environment=) line),
    with mode C(0644) in a folder of mode C(0755). A file of the same name without the marker line
    is never overwritten nor removed; the module fails instead.
  - An existing C(<unit>.d) folder that group or others may write, or that another user than root owns,
    is refused before anything of the call is written (its owner could replace the drop-in); make it
    C(root:root) C(0755) and run again.
  - The drop-in file and its C(.d) folder are never symbolic links (under O(root) too); the module refuses them.
  - Every input is validated before anything is written. Unit names follow systemd's rules (letters,
    digits and C(:_.\-), C(@) for templates and instances, at most 253 characters with C(.service) so that its C(<name>.service.d) folder fits the file system's
    255 bytes per name, C(.service) only; O(dropin_name) at most 255 bytes);
    O(reason) is one printable line; O(expires) a real C(YYYY-MM-DD) date. A call with any bad input
    changes nothing.
  - Writes go to a temporary file in the same folder, are read back and re-parsed, then moved into
    place atomically. A second run with the same input changes nothing, byte for byte.
  - When something changed and systemd runs on the host (C(/run/systemd/system) exists), one
    C(systemctl daemon-reload) follows, and with O(restart) one restart of the changed units. Without
    a running systemd (image builds, chroots, containers without systemd) or with O(root), the files
    are written and no C(systemctl) command is run; RV(systemd_running) says so.
  - Each unit is read from its files as systemd reads them (the same host model as
    M(pep493.https.verification_info)), which tells whether it exists, what its C(ExecStartPre=) and C(ExecStart=)
    commands run, and the value the unit will get once the drop-in is in place. When no command can
    run Python 2 code with the variable (Python 3, C(python -E), an C(env) wrapper that removes it), the
    drop-in has no effect, so the module warns and returns C(effective=false); when another setting
    (a later drop-in, an C(EnvironmentFile=), C(UnsetEnvironment=)) decides the value, it warns too.
  - When systemd runs, one C(systemctl list-units) tells which units are loaded and running, whatever
    their number.
  - It warns once for all the O(verify=false) (insecure) exceptions of a call, naming each service with its
    expiry date, and on every exception already past its O(expires) date.
  - B(Per-service trust.) An exception with O(ca) (or O(services[].ca)) fixes the cause instead of switching
    verification off - the service trusts one more CA, the rest of the host does not. The module writes the
    service's own CA bundle, C(/etc/pki/pep493-https/<unit>.pem) (mode C(0644), folder C(0755), on every
    distribution) - the system bundle (C(/etc/pki/tls/certs/ca-bundle.crt) on RHEL, C(/etc/ssl/certs/ca-certificates.crt)
    on Debian, whichever exists) followed by the CA - and a drop-in setting C(PYTHONHTTPSVERIFY=1),
    C(SSL_CERT_FILE) (read by the standard library's default context through OpenSSL, Python 2 and 3, and by
    C(urllib3) 1.25 and later) and C(REQUESTS_CA_BUNDLE) (read by C(requests)) to that bundle. The CA is checked as
    M(pep493.https.ca_trust) checks it - exactly one certificate with C(CA:TRUE), valid now, no private key.
  - The bundle copies the system bundle, so it must follow it - every run rebuilds the bundle when the system bundle's
    content changed (RV(services[].ca.bundle_action) says V(updated)), and M(pep493.https.verification_info)
    reports it as C(stale) until then. State V(absent) removes the bundle with the drop-in.
author:
  - pep493.https maintainers (!UNKNOWN)
options:
  name:
    description:
      - One service. C(legacy-app) means C(legacy-app.service). Templates (C(worker@.service), whose
        drop-in applies to every instance) and instances (C(worker@3.service)) are allowed.
      - Units that do not exist yet are allowed (a drop-in may precede the package); RV(services[].unit_known) says so.
      - Exactly one of O(name) and O(services) is required.
    type: str
  services:
    description:
      - Several services handled in one call, with one validation pass, one write pass, at most one
        C(daemon-reload) and one restart command.
      - O(verify), O(reason), O(expires) and O(state) given at the top level are the defaults for
        items that do not set them (O(verify), O(reason) and O(expires) only for items that are V(present)).
    type: list
    elements: dict
    suboptions:
      name:
        description: The service, as in O(name).
        type: str
        required: true
      verify:
        description: As O(verify).
        type: bool
      state:
        description: As O(state).
        type: str
        choices: [present, absent]
      reason:
        description: As O(reason).
        type: str
      expires:
        description: As O(expires).
        type: str
      ca:
        description: As O(ca).
        type: str
  verify:
    description:
      - V(false) writes C(PYTHONHTTPSVERIFY=0) (this service's Python 2 skips HTTPS certificate
        verification; insecure, the module warns). V(true) writes C(PYTHONHTTPSVERIFY=1) (verification
        for this service whatever the host-wide default).
      - Required for a service that is V(present), unless it has O(ca) (then V(true), and V(false) is refused).
    type: bool
  ca:
    description:
      - The PEM text of one CA certificate this service is to trust (for example
        C(lookup('ansible.builtin.file', 'vendor-ca.pem')) - the text, not a path; the controller reads the file).
      - The service gets its own bundle (the system bundle and this CA) through C(SSL_CERT_FILE) and
        C(REQUESTS_CA_BUNDLE), and C(PYTHONHTTPSVERIFY=1). Trusting a CA trusts every certificate it signs, for
        every host name - give the CA that signs the service's endpoint, not a broader one.
      - Refused - naming the item - when it is not exactly one certificate with C(CA:TRUE), when it has
        expired or is not valid yet, when it holds a private key, and together with O(verify=false).
    type: str
    version_added: 0.2.0
  state:
    description:
      - V(present) writes the drop-in. V(absent) removes the drop-in of ours, and the C(.d) folder when
        it is left empty; any other file in the folder stays.
    type: str
    choices: [present, absent]
    default: present
  reason:
    description:
      - Why the exception exists, written into the drop-in as a C(# reason:) comment that this module
        and M(pep493.https.verification_info) read back.
      - One printable line of at most 200 characters (no control characters, not ending in a backslash);
        leading and trailing spaces are dropped.
    type: str
  expires:
    description:
      - Until when the exception holds, as C(YYYY-MM-DD) (quote it in YAML). The exception is valid
        through that day; from the next day on the module warns and returns C(expired=true).
        The drop-in stays in place; removing it is a decision for the policy.
    type: str
  exclusive:
    description:
      - With O(services) only. Also remove the drop-ins of ours (file O(dropin_name) with the marker line)
        of every C(.service) unit in O(unit_dir) that O(services) does not list, so that a fleet policy can
        shrink. Foreign files are never touched. Drop-ins of ours under another file name are not looked for.
    type: bool
    default: false
  remove_handmade:
    description:
      - Services whose hand-made opt-outs are taken out - the C(PYTHONHTTPSVERIFY=0) assignments of the
        C(<unit_dir>/<unit>.d/*.conf) drop-ins this module did not write (C(systemctl edit)'s
        C(override.conf), for example) - so that the service verifies, or gets the exception O(services)
        gives it instead.
      - Only that assignment goes. The other assignments of its C(Environment=) line stay as they were
        written, every other line stays byte for byte, and the line as it was is kept in a comment above it
        (a line that held nothing else is commented out, never left as an empty C(Environment=), which
        would reset the assignments before it). A backup of the file is kept beside it
        (C(<file>.<pid>.<date>~), which systemd does not read); the file keeps its mode and owner.
      - A drop-in that is a link, or whose line with the assignment goes on over the next line, is not
        valid UTF-8 or holds words systemd refuses, is refused with the file and line named, before
        anything of the call is written; take the assignment out of it by hand.
      - Settings elsewhere (the unit file itself, C(/run), C(/usr/lib), C(EnvironmentFile=)) are not
        touched; M(pep493.https.verification_info) names them.
    type: list
    elements: str
    default: []
  dropin_name:
    description:
      - File name of the drop-in, a C(.conf) name without any path.
      - The default, C(zz-pep493-https.conf), sorts after the names packages and C(systemctl edit) use
        (C(10-*.conf), C(50-*.conf), C(99-*.conf), C(override.conf)). systemd applies the drop-ins of all
        folders (C(/etc), C(/run), C(/usr/lib)) together in file-name order, and the last C(Environment=)
        assignment of a variable wins, so this one does.
      - Ours are recognised by the marker line, never by the name alone.
    type: str
    default: zz-pep493-https.conf
  unit_dir:
    description:
      - The folder that holds the C(<unit>.d) drop-in folders. C(/etc/systemd/system) is the
        administrator's; C(/run/systemd/system) would not survive a reboot.
    type: path
    default: /etc/systemd/system
  daemon_reload:
    description:
      - Run one C(systemctl daemon-reload) when anything changed and systemd is running, so that
        systemd sees the new drop-ins. Without it, they apply only after the next reload or reboot.
    type: bool
    default: true
  restart:
    description:
      - The variable takes effect only when the service's process starts.
      - V(never) restarts nothing; changed units that are running are listed in RV(pending_restart).
      - V(try-restart) restarts the changed units that are running; V(restart) restarts (or starts) every
        changed unit that exists. One C(systemctl) command for all of them. Templates are never restarted
        (their instances keep running with the old environment until they restart).
    type: str
    choices: [never, try-restart, restart]
    default: never
extends_documentation_fragment:
  - pep493.https.root
  - pep493.https.attributes
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
attributes:
  check_mode:
    support: full
    details: Nothing is written and no C(systemctl) command other than C(systemctl list-units) is run; the result says what would be done.
  diff_mode:
    support: full
    details: A before/after diff for every drop-in created, changed or removed.
notes:
  - C(EnvironmentFile=) settings override C(Environment=) whatever the order; a unit that sets
    C(PYTHONHTTPSVERIFY) in an environment file keeps that value. M(pep493.https.verification_info) shows
    what the running process really has.
  - Python started with C(-E) ignores the variable.
  - systemd reads one file per drop-in name. An instance's drop-in (C(worker@3.service.d/zz-pep493-https.conf))
    therefore replaces its template's drop-in of the same name for that instance, which is what a more
    specific exception should do.
  - When C(daemon-reload) or the restart fails, the module fails with the command's error, after the
    drop-ins were written; the result still lists RV(services) and RV(removed).
  - Unit names are passed to C(systemctl) after C(--), as a list of arguments (never through a shell).
seealso:
  - name: PEP 493
    description: HTTPS verification migration tools for Python 2.7.
    link: https://peps.python.org/pep-0493/
  - name: systemd.unit(5), drop-in folders
    description: How C(<unit>.d/*.conf) files of all folders are ordered and merged.
    link: https://www.freedesktop.org/software/systemd/man/latest/systemd.unit.html
  - module: pep493.https.cert_verification
  - module: pep493.https.verification_info
'''

EXAMPLES = r'''
- name: Let one legacy agent skip verification until its server gets a real certificate
  pep493.https.service_verification:
    name: ambari-agent
    verify: false
    reason: "CHG-1234: Ambari server still uses a self-signed certificate"
    expires: "2030-09-30"
    restart: try-restart

- name: Force verification for one service even where the host-wide file says disable
  pep493.https.service_verification:
    name: billing-export.service
    verify: true

- name: The fleet's whole list of exceptions, in one call; anything not listed goes
  pep493.https.service_verification:
    services:
      - name: ambari-agent
        verify: false
        reason: "CHG-1234: self-signed Ambari server"
        expires: "2030-09-30"
      - name: report-worker@.service
        verify: false
        reason: "CHG-1301: vendor API on a private CA"
        expires: "2030-12-31"
    exclusive: true

- name: Let one agent verify its vendor's server, whose internal CA the rest of the host must not trust
  pep493.https.service_verification:
    name: ambari-agent
    ca: "{{ lookup('ansible.builtin.file', 'ambari-internal-ca.pem') }}"
    reason: "CHG-1240: Ambari server certificate from the cluster's own CA"
    expires: "2030-09-30"
    restart: try-restart

- name: Remove an exception
  pep493.https.service_verification:
    name: ambari-agent
    state: absent

- name: Write the drop-in into an image build tree (no systemctl is run)
  pep493.https.service_verification:
    root: /var/tmp/image-root  # the unpacked image: this folder must exist
    name: legacy-app
    verify: false
    reason: "image build for the legacy cluster"
    expires: "2030-06-30"
'''

RETURN = r'''
services:
  description: One entry per service given in O(name) or O(services), in that order.
  returned: always
  type: list
  elements: dict
  contains:
    name:
      description: The canonical unit name.
      type: str
      sample: ambari-agent.service
    path:
      description: The drop-in file (the real path, under O(root) when given).
      type: str
      sample: /etc/systemd/system/ambari-agent.service.d/zz-pep493-https.conf
    state:
      description: V(present) or V(absent).
      type: str
    verify:
      description: The value in effect in the drop-in after the run; null when there is no drop-in.
      type: bool
    ca:
      description: The CA the service trusts through its own bundle; null without O(ca).
      type: dict
      returned: always
      version_added: 0.2.0
      contains:
        subject:
          description: The CA's subject, as C(openssl x509 -noout -subject) shows it.
          type: str
        sha256_fingerprint:
          description: Its SHA-256 fingerprint.
          type: str
        not_after:
          description: Its C(notAfter) date, C(YYYY-MM-DD).
          type: str
        bundle:
          description: The service's bundle (as the service sees it, without O(root)).
          type: str
          sample: /etc/pki/pep493-https/ambari-agent.service.pem
        bundle_action:
          description: V(created), V(updated) (the system bundle changed, or the CA), or V(unchanged).
          type: str
    reason:
      description:
        - The reason the removed drop-in carried, read back from it.
        - The reason and expiry date of a drop-in put in place are the caller's own input and are not returned; the
          drop-in holds them, and M(pep493.https.verification_info) reads them back.
      type: str
      returned: for V(absent) services and in RV(removed)
    expires:
      description: The expiry date the removed drop-in carried, C(YYYY-MM-DD).
      type: str
      returned: for V(absent) services and in RV(removed)
    expired:
      description: Whether the exception's O(expires) is in the past (the date is named in a warning).
      type: bool
    action:
      description: V(created), V(updated), V(removed) or V(unchanged) (in check mode, what would be done).
      type: str
    unit_known:
      description:
        - Whether the unit exists - its file is in the unit search path (under O(root) too), or systemd has it
          loaded. An instance counts when its template exists.
      type: bool
    effective:
      description:
        - Whether the variable can reach Python 2 code in the unit, by the same rule as
          RV(pep493.https.verification_info#module:services[].effective) - every C(ExecStartPre=) and
          C(ExecStart=) command counts, followed through C(env) wrappers, C(#!) lines and Python's own options.
        - V(true) when one runs Python 2 code with it, V(false) when none does (Python 3, C(-E), C(env -u),
          a masked unit), null when that cannot be told (unknown unit, shell wrapper, binary).
      type: bool
    effect:
      description:
        - Why RV(services[].effective) is what it is - V(python2), V(python3), V(ignore-environment),
          V(env-unset), V(env-override), V(masked), V(cannot-start), V(not-loaded), V(no-command) or V(unknown).
      type: str
      sample: python2
removed:
  description: The drop-ins of ours removed by O(exclusive) (same keys as RV(services)).
  returned: always
  type: list
  elements: dict
  sample: [{"name": "old-agent.service", "action": "removed",
            "path": "/etc/systemd/system/old-agent.service.d/zz-pep493-https.conf"}]
handmade:
  description: The hand-made drop-ins O(remove_handmade) took C(PYTHONHTTPSVERIFY=0) out of (in check mode, would).
  returned: always
  type: list
  elements: dict
  contains:
    name:
      description: The service.
      type: str
    path:
      description: The drop-in.
      type: str
    taken:
      description: How many C(PYTHONHTTPSVERIFY=0) assignments were taken out of it.
      type: int
    backup:
      description: The copy of the file as it was, kept beside it; null in check mode.
      type: str
  sample: [{"name": "foo.service", "path": "/etc/systemd/system/foo.service.d/override.conf", "taken": 1,
            "backup": "/etc/systemd/system/foo.service.d/override.conf.4242.2030-01-15@10:00:00~"}]
systemd_running:
  description:
    - Whether systemd runs on the host and O(root) is not set. When false, no C(systemctl) command was run.
  returned: always
  type: bool
reloaded:
  description: Whether C(systemctl daemon-reload) was run (in check mode, whether it would be).
  returned: always
  type: bool
restarted:
  description: The units restarted (in check mode, that would be).
  returned: always
  type: list
  elements: str
pending_restart:
  description:
    - Changed units that are running and were not restarted. Their processes still have the old
      environment until they restart.
  returned: always
  type: list
  elements: str
  sample: [ambari-agent.service]
msg:
  description: A one-line summary.
  returned: always
  type: str
diff:
  description: A before/after diff per drop-in created, changed or removed.
  returned: in diff mode, when something changed
  type: list
  elements: dict
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin


def argument_spec():
    item = dict(
        name=dict(type='str', required=True),
        verify=dict(type='bool'),
        state=dict(type='str', choices=['present', 'absent']),
        reason=dict(type='str'),
        expires=dict(type='str'),
        ca=dict(type='str'),
    )
    return dict(
        name=dict(type='str'),
        services=dict(type='list', elements='dict', options=item),
        verify=dict(type='bool'),
        state=dict(type='str', default='present', choices=['present', 'absent']),
        reason=dict(type='str'),
        expires=dict(type='str'),
        ca=dict(type='str'),
        exclusive=dict(type='bool', default=False),
        remove_handmade=dict(type='list', elements='str', default=[]),
        dropin_name=dict(type='str', default=dropin.DEFAULT_DROPIN_NAME),
        unit_dir=dict(type='path', default='/etc/systemd/system'),
        root=dict(type='path'),
        daemon_reload=dict(type='bool', default=True),
        restart=dict(type='str', default='never', choices=['never', 'try-restart', 'restart']),
    )


def module_kwargs():
    """The AnsibleModule arguments: main() and the action plugin (which checks a task on the controller) use them."""
    return dict(
        argument_spec=argument_spec(),
        supports_check_mode=True,
        mutually_exclusive=[('name', 'services')],
        required_one_of=[('name', 'services')],
    )


def main():
    # imported here, not above: the action plugin imports this file on the controller for module_kwargs() alone
    from ansible_collections.pep493.https.plugins.module_utils._backends import service_verification as backend
    backend.run(AnsibleModule(**module_kwargs()))


if __name__ == '__main__':
    main()
