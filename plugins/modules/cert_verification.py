#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: cert_verification
short_description: Manage PEP 493's host-wide /etc/python/cert-verification.cfg
version_added: 0.1.0
description:
  - Sets the C(verify) option of the C([https]) section of C(/etc/python/cert-verification.cfg),
    the file with which RHEL/CentOS 7's system Python 2.7.5 decides, at C(import ssl), whether
    C(urllib2), C(httplib) and C(xmlrpclib) verify HTTPS certificates by default (PEP 493).
  - Reads the file exactly as RHEL 7's Python does (Python 2.7 C(RawConfigParser)); option names
    are lower-cased, section names and values are case-sensitive, C( ;) starts an inline comment
    but C(#) does not, the last C([https]) section and the last C(verify) key win, and a missing
    or unknown value means C(platform_default).
  - Writes only what RHEL 7 reads back as requested. Every other line (comments, other sections,
    other keys, blank lines) is kept byte for byte, with the file's own line endings and bytes.
  - A malformed file (text before any section header, or a line that is neither a section, an
    option, a comment nor blank) makes C(import ssl) raise on RHEL 7. The module refuses it and
    changes nothing, or comments the offending lines out with O(repair=true).
  - O(mode), O(owner), O(group) and O(attributes) are checked before anything is written (in check mode
    too). An invalid mode, an unknown user or group, or an unknown C(chattr) flag fails and changes nothing.
  - A new file gets mode C(0644) unless O(mode) is set; an existing file keeps its own mode, owner and group
    unless they are set.
  - Writes go to a temporary file in the same folder, are read back and re-parsed, then moved into
    place atomically; a failure at any step leaves the old file untouched.
  - Only RHEL/CentOS 7's system C(python) (and Red Hat SCL python27, at its own path) reads this
    file. No Python 3 reads it. The module probes the host's interpreters and warns when none reads
    the file it wrote.
author:
  - pep493.https maintainers (!UNKNOWN)
options:
  verify:
    description:
      - The value to put in effect. C(enable) verifies certificates by default, C(disable) turns
        verification off for every Python 2 program on the host that reads this file (insecure;
        the module warns), C(platform_default) leaves the choice to the Python build (on RHEL 7,
        verification from python-2.7.5-51 on, none before).
      - Required with O(state=present); not allowed with O(state=absent).
    type: str
    choices: [enable, disable, platform_default]
  state:
    description:
      - V(present) makes the file say C(verify=<verify>) in C([https]).
      - V(absent) removes every C(verify) option that is in effect (in C([https]), and in
        C([DEFAULT]) when an C([https]) section exists), so that RHEL 7 falls back to
        C(platform_default). The file itself and all other content stay.
      - V(restored) puts the file back as it was before its last change - the newest backup (see
        O(backup)) that RHEL 7's Python can read, or no file at all when the record of the file before
        its first change says there was none. The newest is the last in UTC time by the record of the
        backups (C(<path>.pep493-backups)), not by the local time in their names, which moves with the time
        zone; backups that record does not list (made by an earlier version of the collection, which kept
        none) come after those it lists, newest first by the time in their names. A record of the backups
        that cannot be read (a link, not a regular file) fails the restore and changes nothing. A malformed
        backup would break C(import ssl), so it is
        skipped (with a warning naming it) and the next older one is taken. The replaced file is kept
        beside it as C(<path>.<pid>.<date>.before-restore~), which is never restored itself, so a
        second restore changes nothing. A backup that says C(verify=disable) needs O(allow_disable=true).
        A file without any backup or record (never changed with O(backup=true)) is left as it is, with a warning.
    type: str
    choices: [present, absent, restored]
    default: present
  path:
    description:
      - The file to manage. Red Hat SCL python27 reads C(/opt/rh/python27/root/etc/python/cert-verification.cfg).
    type: path
    default: /etc/python/cert-verification.cfg
  create:
    description:
      - Create the file, and its folder (mode 0755), when missing. With V(false) a missing file is an error.
      - A new file gets a short comment header describing the three values, then C([https]) and C(verify=...).
    type: bool
    default: true
  backup:
    description:
      - Keep a timestamped copy of the previous file beside it when the file changes
        (C(<path>.<pid>.<YYYY-mm-dd@HH:MM:SS>~), named by the host's local time), and, at the first change, a
        record of the file as it was (C(<path>.pep493-original), mode 0600; it also records that there was no
        file). O(state=restored) goes back through these.
      - Each backup also gets a line in the record of the backups, C(<path>.pep493-backups) (mode 0600,
        appended to, never rewritten) with its UTC time and its name, so that the order of the backups survives a
        change of the host's time zone. Like the backups, it is never written through a link - a symbolic
        link, a hard link or another kind of file at its place fails the change before the file is written
        (the backup just made is removed again).
    type: bool
    default: false
  allow_disable:
    description:
      - With O(state=restored) only. Restore a backup that says C(verify=disable), which turns
        verification off for every Python 2 program on the host that reads the file. Without it such a
        restore fails and changes nothing.
    type: bool
    default: false
  repair:
    description:
      - When the existing file is malformed, comment each offending line out (its text is kept behind
        C(#)) instead of failing. A backup of the malformed file is always kept first.
    type: bool
    default: false
  follow:
    description:
      - The file or its folder being a symbolic link is an error by default. With V(true) the link is
        followed and its target written (never outside O(root)). A link to a folder that does not exist
        is refused (nothing is created through it).
      - O(path) must not end with C(/); a file (or backup) larger than 256 KiB (262144 bytes) is refused as
        too large before it is parsed (it is never read in part).
    type: bool
    default: false
  mode:
    description:
      - The permissions of the file, as for M(ansible.builtin.file) - an octal number in quotes
        (V('0644')) or a symbolic mode (V(u=rw,g=r,o=r)).
      - When not set, a new file gets C(0644) whatever the umask (every Python 2 program on the host
        must be able to read it), and an existing file keeps its own mode.
    type: raw
extends_documentation_fragment:
  - pep493.https.root
  - pep493.https.attributes
  - ansible.builtin.files
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
notes:
  - The file is read when a Python process first imports C(ssl); running processes keep the value they read.
  - A process started with C(PYTHONHTTPSVERIFY) set follows the variable instead of this file; see
    M(pep493.https.service_verification) for per-service exceptions.
seealso:
  - name: PEP 493
    description: HTTPS verification migration tools for Python 2.7.
    link: https://peps.python.org/pep-0493/
  - module: pep493.https.service_verification
  - module: pep493.https.verification_info
'''

EXAMPLES = r'''
- name: Verify HTTPS certificates by default for the host's Python 2
  pep493.https.cert_verification:
    verify: enable

- name: Same on Red Hat SCL python27, keeping a backup
  pep493.https.cert_verification:
    path: /opt/rh/python27/root/etc/python/cert-verification.cfg
    verify: enable
    backup: true

- name: Repair a file that breaks "import ssl" and enforce verification
  pep493.https.cert_verification:
    verify: enable
    repair: true

- name: Set the value inside an image build tree, not on the build host
  pep493.https.cert_verification:
    root: /var/tmp/image-root  # the unpacked image: this folder must exist
    verify: enable

- name: Drop the setting so the Python build's own default applies
  pep493.https.cert_verification:
    state: absent

- name: Put the file back as it was before the last change made with backup=true
  pep493.https.cert_verification:
    state: restored
'''

RETURN = r'''
previous:
  description:
    - The value in effect before the run, as RHEL 7 reads it, or V(missing) when the file did not
      exist, or V(malformed) when it made C(import ssl) raise.
  returned: always
  type: str
  sample: platform_default
verify:
  description:
    - The value in effect after the run (V(platform_default) after O(state=absent); V(missing) when
      O(state=restored) removed the file).
  returned: always
  type: str
  sample: enable
path:
  description: The file managed (the real path, under O(root) when given).
  returned: always
  type: str
  sample: /etc/python/cert-verification.cfg
backup_file:
  description: The backup copy made of the previous file (with O(state=restored), the C(.before-restore~) copy).
  returned: when a backup was made
  type: str
  sample: /etc/python/cert-verification.cfg.12345.2026-01-01@00:00:00~
repaired_lines:
  description: Line numbers of the previous file that were commented out by O(repair).
  returned: always
  type: list
  elements: int
  sample: [1, 7]
created:
  description: Whether the file was (or in check mode would be) created.
  returned: always
  type: bool
consumers:
  description:
    - The interpreters on the host that read this exact file, found by probing C(/usr/bin/python*),
      C(/usr/local/bin/python*), C(/usr/libexec/platform-python*) and C(/opt/rh/*/root/usr/bin/python*).
    - Empty under O(root), where nothing is probed.
  returned: always
  type: list
  elements: dict
  contains:
    path:
      description: Interpreter path.
      type: str
    version:
      description: Its version.
      type: str
    verifies_by_default:
      description: Whether, with the file as it is now, it verifies HTTPS certificates by default.
      type: bool
  sample: [{"path": "/usr/bin/python2.7", "version": "2.7.5", "verifies_by_default": true}]
probed:
  description: Whether interpreters were probed (false under O(root)).
  returned: always
  type: bool
readable_by_all:
  description:
    - Whether every user may read the file after the run. When false (mode C(0600), say), non-root Python 2
      programs cannot read it and use C(platform_default) instead; a warning says so. An existing file keeps its
      mode unless O(mode) is set.
  returned: when the file exists after the run
  type: bool
record_file:
  description: The record of the file before its first change, when this run wrote it (see O(backup)).
  returned: when a record was written
  type: str
  sample: /etc/python/cert-verification.cfg.pep493-original
restored_from:
  description:
    - With O(state=restored), the backup (or the record) the file was put back from; null when there was no
      backup and no record (the file is left as it is).
  returned: with O(state=restored)
  type: str
  sample: /etc/python/cert-verification.cfg.12345.2026-01-01@00:00:00~
diff_omitted:
  description:
    - In diff mode, the diffs left out because the file before or after is larger than 64 KiB (65536 bytes),
      with both sizes; the diff entry then has no C(before)/C(after) texts.
  returned: in diff mode, when a diff was omitted
  type: list
  elements: str
  sample: ["/etc/python/cert-verification.cfg: 70000 bytes before, 69999 after; diffs over 65536 bytes are omitted"]
skipped_backups:
  description: With O(state=restored), the newer backups that were not used, and why (malformed, unreadable).
  returned: with O(state=restored)
  type: list
  elements: dict
  contains:
    path:
      description: The backup.
      type: str
    reason:
      description: Why it was skipped.
      type: str
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.pep493.https.plugins.module_utils._syntax import cfg


def argument_spec():
    return dict(
        verify=dict(type='str', choices=list(cfg.VALUES)),
        state=dict(type='str', default='present', choices=['present', 'absent', 'restored']),
        path=dict(type='path', default=cfg.DEFAULT_PATH),
        root=dict(type='path'),
        create=dict(type='bool', default=True),
        backup=dict(type='bool', default=False),
        repair=dict(type='bool', default=False),
        follow=dict(type='bool', default=False),
        allow_disable=dict(type='bool', default=False),
    )


def module_kwargs():
    """The AnsibleModule arguments: main() and the action plugin (which checks a task on the controller) use them."""
    return dict(
        argument_spec=argument_spec(),
        add_file_common_args=True,
        supports_check_mode=True,
        required_if=[('state', 'present', ['verify'])],
    )


def main():
    # imported here, not above: the action plugin imports this file on the controller for module_kwargs() alone
    from ansible_collections.pep493.https.plugins.module_utils._backends import cert_verification as backend
    backend.run(AnsibleModule(**module_kwargs()))


if __name__ == '__main__':
    main()
