#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: ca_trust
short_description: Trust an internal CA in the operating system's trust store, or stop trusting it
version_added: 0.2.0
description:
  - Puts CA certificates into, and takes them out of, the operating system's trust store, so that services
    whose endpoints use an internal CA can verify HTTPS instead of running with C(PYTHONHTTPSVERIFY=0).
  - The trust store is found from the host, never from a variable. B(RHEL/CentOS 7 - 9) (C(/usr/bin/update-ca-trust)
    and C(/etc/pki/ca-trust/source/anchors) exist) - each CA goes to C(/etc/pki/ca-trust/source/anchors/<name>.pem),
    then C(update-ca-trust extract) runs. B(Debian/Ubuntu) (C(/usr/sbin/update-ca-certificates) and
    C(/usr/local/share/ca-certificates) exist) - each CA goes to C(/usr/local/share/ca-certificates/<name>.crt), then
    C(update-ca-certificates) runs, with C(--fresh) when a file was changed or removed or the bundle was stale (run
    plainly, it leaves the C(<hash>.0) links of a changed or removed CA in C(/etc/ssl/certs), which hide another CA of
    the same subject from OpenSSL). A host with neither pair, or with both, fails and names what was looked for.
  - Every item is checked before anything is written, and every problem of every item is reported at once. Each
    C(content) must be exactly one certificate with C(CA:TRUE), valid now, and hold no private key (a key must never
    be sent to a host). A CA expiring within O(expiry_warning_days) is trusted, with a warning.
  - Each anchor file is the certificate as PEM after two comment lines, the first of which is the marker
    C(# Managed by pep493.https.ca_trust; edits here are overwritten.) - both tools read past text before the PEM
    block. The same CA and name always give the same bytes, so a re-run changes nothing and runs no update. A file at
    the name without the marker is never overwritten nor removed.
  - Files are written through a temporary file in the same folder, read back and moved into place atomically, with
    mode C(0644) (a file of ours with another mode is set back to it; run as root, one owned by another user is given
    to root). New CAs are written before old ones are removed.
  - The update runs at once when a file's content changed - or when the files are as asked but the bundle does not
    show them (an earlier update failed or was left pending) - never in check mode and never under O(root).
  - After the update the module reads the CAs the host's Python trusts - the CA file and the hashed CA folder that
    C(ssl.get_default_verify_paths()) names for each of the host's interpreters, or, when none answers, the family's
    own bundle (C(/etc/pki/tls/certs/ca-bundle.crt); C(/etc/ssl/certs/ca-certificates.crt) and C(/etc/ssl/certs)) -
    and checks by SHA-256 fingerprint that each CA to trust is there and each CA to remove is gone. It fails when the
    update ran and they do not show the change.
author:
  - pep493.https maintainers (!UNKNOWN)
options:
  cas:
    description:
      - The CAs to trust or to stop trusting, all handled in one call (a rotation is one call - the new CA
        V(present), the old one V(absent)).
    type: list
    elements: dict
    required: true
    suboptions:
      name:
        description:
          - The anchor file's name without its extension (the module adds C(.pem) on RHEL, C(.crt) on Debian) -
            1 to 64 letters, digits, C(.), C(_) or C(-), starting with a letter or digit, each name once per call.
        type: str
        required: true
      content:
        description:
          - The PEM text of the CA certificate (one C(-----BEGIN CERTIFICATE-----) block; text around it is ignored),
            for example from C(lookup('ansible.builtin.file', 'internal-ca.pem')).
          - Required with O(cas[].state=present). With O(cas[].state=absent) it is optional - when given, the file
            at O(cas[].name) must hold this CA (its dates are not judged), and the bundle is checked for it even when
            the file is already gone.
        type: str
      state:
        description:
          - V(present) writes the anchor file; V(absent) removes it (only a file this module wrote).
        type: str
        choices: [present, absent]
        default: present
  expiry_warning_days:
    description:
      - A CA to trust whose C(notAfter) is at most this many days away is trusted with a warning, and
        reported as C(expiring).
    type: int
    default: 30
extends_documentation_fragment:
  - pep493.https.root
  - pep493.https.attributes
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
attributes:
  check_mode:
    support: full
    details: The bundle is read as it is, to tell whether the update would run; nothing is written or run.
  diff_mode:
    support: full
notes:
  - Under O(root) the anchor files are written into the tree and the update is left to the tree (C(update_status=pending));
    the bundle is not read.
  - Only programs started after the update read the new bundle; running services keep the CAs they loaded.
  - Programs that bring their own CA bundle (C(requests) with C(certifi), a Python built with its own OpenSSL) are
    not changed by this module; a warning names the interpreters whose OpenSSL does not see the change.
seealso:
  - module: pep493.https.service_verification
  - module: pep493.https.verification_forecast
'''

EXAMPLES = r'''
- name: Trust the internal CA, so that services can verify HTTPS instead of setting PYTHONHTTPSVERIFY=0
  pep493.https.ca_trust:
    cas:
      - name: acme-internal-root
        content: "{{ lookup('ansible.builtin.file', 'acme-internal-root.pem') }}"

- name: Rotate the CA in one call - trust the new one, remove the old one
  pep493.https.ca_trust:
    cas:
      - name: acme-internal-root-2026
        content: "{{ lookup('ansible.builtin.file', 'acme-internal-root-2026.pem') }}"
      - name: acme-internal-root
        state: absent
    expiry_warning_days: 60

- name: Add the CA to an image build tree; its update runs when the image is built or boots
  pep493.https.ca_trust:
    root: /var/tmp/image-root  # the unpacked image, with its trust store: this folder must exist
    cas:
      - name: acme-internal-root
        content: "{{ lookup('ansible.builtin.file', 'acme-internal-root.pem') }}"
'''

RETURN = r'''
family:
  description: The trust store found on the host - V(rhel) or V(debian); null when O(cas) is empty.
  returned: always
  type: str
  sample: rhel
anchor_folder:
  description: The folder of the anchor files (under O(root) when given).
  returned: when O(cas) is not empty
  type: str
  sample: /etc/pki/ca-trust/source/anchors
update_status:
  description:
    - V(ran) - the update ran in this run; V(pending) - it is needed but was not run (under O(root), or in check
      mode); V(not_needed) - no file's content changed and the bundle shows the CAs as asked.
  returned: always
  type: str
  sample: ran
update_command:
  description: The update command that ran, or that is pending.
  returned: always
  type: str
  sample: /usr/bin/update-ca-trust extract
bundle:
  description: Where the CAs the host's Python trusts were read.
  returned: always
  type: dict
  contains:
    read:
      description: Whether it was read (not under O(root)).
      type: bool
    note:
      description: When it was read, or why not.
      type: str
    found_by:
      description:
        - V(probe) - the paths C(ssl.get_default_verify_paths()) gives under the host's interpreters; V(known_paths) -
          none answered with a file or folder that exists, so the family's own bundle and folder were read; null when
          not read.
      type: str
    locations:
      description: One entry per distinct CA file and folder read.
      type: list
      elements: dict
      contains:
        file:
          description: The CA file as named (null when there is none).
          type: str
        file_real:
          description: The file it leads to.
          type: str
        folder:
          description: The hashed CA folder as named (null when there is none).
          type: str
        folder_real:
          description: The folder it leads to.
          type: str
        interpreters:
          description: The interpreters that load them (empty for V(known_paths)).
          type: list
          elements: str
  sample: {"read": true, "note": "read after the update", "found_by": "probe",
           "locations": [{"file": "/etc/pki/tls/cert.pem", "file_real": "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
                          "folder": "/etc/pki/tls/certs", "folder_real": "/etc/pki/tls/certs",
                          "interpreters": ["/usr/bin/python2.7", "/usr/bin/python3.6"]}]}
cas:
  description: One entry per item of O(cas), in their order.
  returned: always
  type: list
  elements: dict
  contains:
    name:
      description: The item's name.
      type: str
    path:
      description: Its anchor file (under O(root) when given).
      type: str
    state:
      description: V(present) or V(absent).
      type: str
    action:
      description: V(created), V(updated) (new content, mode or owner), V(removed) or V(unchanged).
      type: str
    subject:
      description: The CA's subject as C(openssl x509 -noout -subject) shows it (null for a removal without content
        whose file is already gone).
      type: str
    issuer:
      description: Its issuer.
      type: str
    sha256_fingerprint:
      description: Its SHA-256 fingerprint, as C(openssl x509 -noout -fingerprint -sha256) shows it.
      type: str
    not_after:
      description: Its C(notAfter), ISO 8601 UTC.
      type: str
    days_left:
      description: Whole days until C(notAfter).
      type: int
    expiring:
      description: Whether C(notAfter) is at most O(expiry_warning_days) days away.
      type: bool
    subject_key_id:
      description: Its subjectKeyIdentifier in lowercase hex, or null.
      type: str
    in_bundle:
      description:
        - Whether the host's Python trusts it - its fingerprint is in a CA file read, or in a C(<subject hash>.N)
          file of a CA folder read, looked up as OpenSSL does. After the update in a real run; as it is now in check
          mode; null under O(root) and for a CA that is not known.
      type: bool
  sample: [{"name": "acme-internal-root", "path": "/etc/pki/ca-trust/source/anchors/acme-internal-root.pem",
            "state": "present", "action": "created", "subject": "O = Acme, CN = Acme Internal Root",
            "issuer": "O = Acme, CN = Acme Internal Root", "sha256_fingerprint": "3A:...:9F",
            "not_after": "2036-01-01T00:00:00Z", "days_left": 3650, "expiring": false,
            "subject_key_id": "4f1c...", "in_bundle": true}]
msg:
  description: What was done, in one line.
  returned: always
  type: str
  sample: "1 anchor file(s) changed: acme-internal-root created. /usr/bin/update-ca-trust extract ran, and the bundle
    the host's Python loads shows the change."
'''

from ansible.module_utils.basic import AnsibleModule


def argument_spec():
    return dict(
        cas=dict(type='list', elements='dict', required=True, options=dict(
            name=dict(type='str', required=True),
            content=dict(type='str'),
            state=dict(type='str', default='present', choices=['present', 'absent']),
        )),
        expiry_warning_days=dict(type='int', default=30),
        root=dict(type='path'),
    )


def module_kwargs():
    """The AnsibleModule arguments: main() and the action plugin (which checks a task on the controller) use them."""
    return dict(
        argument_spec=argument_spec(),
        supports_check_mode=True,
    )


def main():
    # imported here, not above: the action plugin imports this file on the controller for module_kwargs() alone
    from ansible_collections.pep493.https.plugins.module_utils._backends import ca_trust as backend
    backend.run(AnsibleModule(**module_kwargs()))


if __name__ == '__main__':
    main()
