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
  - Every input is validated before anything is written. Unit names follow systemd's rules (letters,
    digits and C(:_.\-), C(@) for templates and instances, at most 255 characters, C(.service) only);
    O(reason) is one printable line; O(expires) a real C(YYYY-MM-DD) date. A call with any bad input
    changes nothing.
  - Writes go to a temporary file in the same folder, are read back and re-parsed, then moved into
    place atomically. A second run with the same input changes nothing, byte for byte.
  - When something changed and systemd runs on the host (C(/run/systemd/system) exists), one
    C(systemctl daemon-reload) follows, and with O(restart) one restart of the changed units. Without
    a running systemd (image builds, chroots, containers without systemd) or with O(root), the files
    are written and no C(systemctl) command is run; RV(systemd_running) says so.
  - The module asks systemd (one C(systemctl show) for all units) whether each unit exists and what
    its C(ExecStart=) runs. When that is a Python 3 interpreter, or a script whose C(#!) line names
    one, the variable has no effect (no Python 3 reads it), so the module warns and returns
    C(effective=false) for that unit.
  - It warns on every O(verify=false) (insecure) and on every exception already past its O(expires) date.
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
  verify:
    description:
      - V(false) writes C(PYTHONHTTPSVERIFY=0) (this service's Python 2 skips HTTPS certificate
        verification; insecure, the module warns). V(true) writes C(PYTHONHTTPSVERIFY=1) (verification
        for this service whatever the host-wide default).
      - Required for a service that is V(present).
    type: bool
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
  root:
    description:
      - A directory treated as C(/) for O(unit_dir) (image builds, chroots, tests). Implies no
        C(systemctl) command at all; whether units exist and what they run is then read from the unit
        files under O(root).
      - Paths are resolved as C(chroot) would (an absolute symbolic link leads inside O(root), a C(..) that
        would climb above it is refused), as every module of the collection resolves them. The drop-in
        file and its C(.d) folder are never symbolic links; the module refuses them.
    type: path
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
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Nothing is written and no C(systemctl) command other than C(systemctl show) is run; the result says what would be done.
  diff_mode:
    support: full
    details: A before/after diff for every drop-in created, changed or removed.
  platform:
    support: full
    platforms: posix
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
    expires: "2026-09-30"
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
        expires: "2026-09-30"
      - name: report-worker@.service
        verify: false
        reason: "CHG-1301: vendor API on a private CA"
        expires: "2026-12-31"
    exclusive: true

- name: Remove an exception
  pep493.https.service_verification:
    name: ambari-agent
    state: absent

- name: Write the drop-in into an image build tree (no systemctl is run)
  pep493.https.service_verification:
    root: /var/tmp/image-root
    name: legacy-app
    verify: false
    reason: "image build for the legacy cluster"
    expires: "2026-06-30"
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
    reason:
      description: The reason written (or read back, for an unchanged or removed drop-in).
      type: str
    expires:
      description: The expiry date, C(YYYY-MM-DD).
      type: str
    expired:
      description: Whether O(expires) is in the past.
      type: bool
    action:
      description: V(created), V(updated), V(removed) or V(unchanged) (in check mode, what would be done).
      type: str
    unit_known:
      description:
        - Whether the unit exists (systemd has loaded it; for templates, under O(root) and without a running
          systemd, whether its unit file is in the unit search path).
      type: bool
    effective:
      description:
        - V(false) when every C(ExecStart=) command of the unit is Python 3 (which ignores the variable),
          V(true) when one is Python 2, null when that cannot be told (unknown unit, shell wrapper, binary).
      type: bool
    exec_start:
      description: The C(ExecStart=) commands looked at, as argument lists.
      type: list
      elements: list
removed:
  description: The drop-ins of ours removed by O(exclusive) (same keys as RV(services)).
  returned: always
  type: list
  elements: dict
  sample: [{"name": "old-agent.service", "action": "removed",
            "path": "/etc/systemd/system/old-agent.service.d/zz-pep493-https.conf"}]
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

import datetime
import os
import stat

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.pep493.https.plugins.module_utils import dropin
from ansible_collections.pep493.https.plugins.module_utils import hostfiles
from ansible_collections.pep493.https.plugins.module_utils import safe_file
from ansible_collections.pep493.https.plugins.module_utils import systemd

FILE_MODE = 0o644
FOLDER_MODE = 0o755
RUNNING_STATES = ('active', 'activating', 'reloading', 'deactivating')


def argument_spec():
    item = dict(
        name=dict(type='str', required=True),
        verify=dict(type='bool'),
        state=dict(type='str', choices=['present', 'absent']),
        reason=dict(type='str'),
        expires=dict(type='str'),
    )
    return dict(
        name=dict(type='str'),
        services=dict(type='list', elements='dict', options=item),
        verify=dict(type='bool'),
        state=dict(type='str', default='present', choices=['present', 'absent']),
        reason=dict(type='str'),
        expires=dict(type='str'),
        exclusive=dict(type='bool', default=False),
        dropin_name=dict(type='str', default=dropin.DEFAULT_DROPIN_NAME),
        unit_dir=dict(type='path', default='/etc/systemd/system'),
        root=dict(type='path'),
        daemon_reload=dict(type='bool', default=True),
        restart=dict(type='str', default='never', choices=['never', 'try-restart', 'restart']),
    )


def requested_items(params):
    """(label, item) pairs with the top-level defaults applied to ``services`` items."""
    if params['services'] is None:
        return [('name', dict(name=params['name'], state=params['state'], verify=params['verify'],
                              reason=params['reason'], expires=params['expires'], own=True))]
    pairs = []
    for index, raw in enumerate(params['services']):
        state = raw.get('state') or params['state']
        item = dict(name=raw.get('name'), state=state, own=False)
        for key in ('verify', 'reason', 'expires'):
            own = raw.get(key)
            item[key] = own if own is not None or state == 'absent' else params[key]
            item['own'] = item['own'] or (own is not None and state == 'absent')
        pairs.append(('services[%d]' % index, item))
    return pairs


def validate_items(params):
    """Validated items, or the list of every problem found (nothing is written then)."""
    items = []
    errors = []
    seen = {}
    for label, raw in requested_items(params):
        try:
            unit = dropin.validate_unit_name(raw['name'])
        except dropin.UnitNameError as exc:
            errors.append('%s: %s' % (label, exc))
            continue
        if unit in seen:
            errors.append('%s: %s is already given in %s; list each service once' % (label, unit, seen[unit]))
            continue
        seen[unit] = label
        item = dict(label=label, name=unit, state=raw['state'], verify=None, reason=None, expires=None)
        if raw['state'] == 'absent':
            if raw['own'] and any(raw[key] is not None for key in ('verify', 'reason', 'expires')):
                errors.append('%s (%s): verify, reason and expires are not used with state=absent; remove them'
                              % (label, unit))
            items.append(item)
            continue
        if raw['verify'] is None:
            errors.append('%s (%s): verify is required with state=present (false: PYTHONHTTPSVERIFY=0, '
                          'true: PYTHONHTTPSVERIFY=1)' % (label, unit))
        item['verify'] = raw['verify']
        try:
            item['reason'] = dropin.validate_reason(raw['reason'])
            item['expires'] = dropin.validate_expires(raw['expires'])
        except dropin.DropinValueError as exc:
            errors.append('%s (%s): %s' % (label, unit, exc))
        items.append(item)
    return items, errors


def read_back_check(expected):
    def check(content):
        parsed = dropin.parse_dropin(content)
        if parsed is None:
            return 'the marker line is missing'
        if parsed != expected:
            return 'it reads back as %r, not %r' % (parsed, expected)
        return None
    return check


def plan_file(module, item, unit_dir, dropin_name, files, errors):
    """Add path, old/new content and action to ``item``; foreign files go to ``errors``."""
    try:
        resolved = files.resolve(dropin.dropin_path(unit_dir, item['name'], dropin_name), follow=False,
                                 folder_follow=False)
        path = resolved.real
        old = files.read_at(resolved)
    except hostfiles.HostFileError as exc:
        errors.append('%s (%s): %s' % (item['label'], item['name'], exc))
        return
    item.update(path=path, old=old, new=None, old_mode=None, old_owner=None)
    current = dropin.parse_dropin(old)
    if old is not None and current is None:
        errors.append('%s (%s): %s exists but is not managed by this module (no marker line "%s"); it was left '
                      'alone. Move it away, or choose another dropin_name'
                      % (item['label'], item['name'], path, dropin.MARKER))
        return
    if item['state'] == 'absent':
        item['action'] = 'removed' if old is not None else 'unchanged'
        if current is not None:
            item.update(reason=current['reason'], expires=current['expires'])
        return
    new = dropin.render_dropin(item['verify'], item['reason'], item['expires'])
    item['new'] = new
    if old is not None:
        info = os.stat(path)
        item['old_mode'] = stat.S_IMODE(info.st_mode)
        item['old_owner'] = (info.st_uid, info.st_gid)
    if old is None:
        item['action'] = 'created'
    elif old != new or item['old_mode'] != FILE_MODE or foreign_owner(item):
        item['action'] = 'updated'
    else:
        item['action'] = 'unchanged'


def find_exclusive_removals(unit_dir, dropin_name, files, keep):
    """Items for the drop-ins of ours in ``unit_dir`` of units not in ``keep``."""
    try:
        names = files.listdir(unit_dir) or []
    except hostfiles.HostFileError as exc:
        raise hostfiles.HostFileError('exclusive: cannot list %s: %s' % (unit_dir, exc))
    ours = {}
    for entry in names:
        unit = dropin.unit_from_dropin_folder(entry)
        if unit is None or files.entry(unit_dir, entry)[0] != 'dir':
            continue
        try:
            resolved = files.resolve(dropin.dropin_path(unit_dir, unit, dropin_name), follow=False,
                                     folder_follow=False)
            path = resolved.real
            old = files.read_at(resolved)
        except hostfiles.HostFileError:
            continue  # a link or unreadable file is not a drop-in of ours to remove
        parsed = dropin.parse_dropin(old)
        if parsed is not None:
            ours[unit] = (path, old, parsed)
    removals = []
    for unit in dropin.exclusive_removals(ours, keep):
        path, old, parsed = ours[unit]
        removals.append(dict(label='exclusive', name=unit, state='absent', path=path, old=old, new=None,
                             old_mode=None, action='removed', verify=None,
                             reason=parsed['reason'], expires=parsed['expires']))
    return removals


def query_systemd(module, systemctl, units):
    """{unit: show block} from one ``systemctl show`` for all non-template ``units``."""
    wanted = [unit for unit in units if not dropin.is_template(unit)]
    if not wanted or systemctl is None:
        return {}
    args = [systemctl, 'show', '-p', ','.join(systemd.SHOW_PROPERTIES), '--'] + wanted
    rc, out, err = module.run_command(args)
    blocks = systemd.parse_show(out or '')
    if rc != 0 or len(blocks) != len(wanted):
        module.warn('systemctl show for %s failed (exit %s: %s); whether those units exist and what they run is '
                    'read from their unit files instead' % (', '.join(wanted), rc, (err or '').strip()))
        by_id = dict((block.get('Id'), block) for block in blocks)
        return dict((unit, by_id[unit]) for unit in wanted if unit in by_id)
    return dict(zip(wanted, blocks))


def host_readers(files):
    """(read_head, resolve) that look at files under ``root`` (never outside it, never blocking)."""
    def resolve(path):
        try:
            return files.resolve(path).host if path.startswith('/') else None
        except hostfiles.HostFileError:
            return None
    return files.head, resolve


def describe_unit(item, block, files, readers):
    """unit_known, exec_start and effective for ``item`` from systemd or its unit file."""
    commands = []
    if block is not None:
        item['unit_known'] = block.get('LoadState', 'not-found') not in ('not-found', '')
        commands = systemd.parse_exec_start(block.get('ExecStart', ''))
        item['active_state'] = block.get('ActiveState')
        item['environment'] = systemd.parse_environment(block.get('Environment', ''))
    else:
        unit_file = systemd.find_unit_file(item['name'], files)
        item['unit_known'] = unit_file is not None
        content = files.read(unit_file) if unit_file and unit_file != '/dev/null' else None
        if content:
            commands = systemd.unit_file_exec_start(content.decode('utf-8', 'replace'))
    item['exec_start'] = commands
    answers = [systemd.python3_interpreter(argv, read_head=readers[0], resolve=readers[1]) for argv in commands]
    if any(answer is False for answer in answers):
        item['effective'] = True
    elif answers and all(answer is True for answer in answers):
        item['effective'] = False
    else:
        item['effective'] = None


def apply_changes(module, changes, dropin_name):
    for item in changes:
        folder = os.path.dirname(item['path'])
        if item['new'] is not None:
            expected = dict(verify=item['verify'], value='1' if item['verify'] else '0',
                            reason=item['reason'], expires=item['expires'])
            if item['new'] != item['old'] and not module.check_mode:
                safe_file.make_dirs(module, folder, FOLDER_MODE)
                safe_file.write_atomic(module, item['path'], item['new'], check=read_back_check(expected),
                                       mode=FILE_MODE)
            if item['old_mode'] not in (None, FILE_MODE) and not module.check_mode:
                try:
                    os.chmod(item['path'], FILE_MODE)
                except OSError as exc:
                    raise safe_file.SafeFileError('cannot set mode %04o on %s: %s'
                                                  % (FILE_MODE, item['path'], exc.strerror))
            if foreign_owner(item) and not module.check_mode:
                try:
                    os.chown(item['path'], 0, 0)
                except OSError as exc:
                    raise safe_file.SafeFileError('cannot give %s to root:root: %s' % (item['path'], exc.strerror))
        else:
            safe_file.remove_file(module, item['path'])
            item['folder_removed'] = safe_file.remove_empty_dir(module, folder, ignore=(dropin_name,))
        item['applied'] = True


def foreign_owner(item):
    """A drop-in of ours owned by someone else while we run as root: that user could add ExecStart=."""
    return os.geteuid() == 0 and item.get('old_owner') not in (None, (0, 0))


def file_diff(item):
    before_header = item['path']
    if item['old_mode'] not in (None, FILE_MODE):
        before_header = '%s (mode %04o, becomes %04o)' % (item['path'], item['old_mode'], FILE_MODE)
    if foreign_owner(item):
        before_header += ' (owner %d:%d, becomes root:root)' % item['old_owner']
    return dict(before=safe_file.text_for_diff(item['old']), after=safe_file.text_for_diff(item['new']),
                before_header=before_header, after_header=item['path'] if item['new'] is not None else '/dev/null')


def public(item):
    expires = item.get('expires')
    result = dict(name=item['name'], path=item['path'], state=item['state'], verify=item['verify'],
                  reason=item['reason'], expires=expires.isoformat() if hasattr(expires, 'isoformat') else expires,
                  expired=item['state'] == 'present' and dropin.is_expired(expires, datetime.date.today()),
                  action=item['action'])
    for key in ('unit_known', 'effective', 'exec_start'):
        if key in item:
            result[key] = item[key]
    return result


def warn_about(module, item, public_item):
    if item['state'] != 'present':
        return
    name = item['name']
    if item['verify'] is False:
        module.warn('%s: PYTHONHTTPSVERIFY=0 turns HTTPS certificate verification off for the Python 2 code of '
                    'this service (insecure)%s%s.'
                    % (name, '; reason: %s' % item['reason'] if item['reason'] else '; no reason given',
                       '; expires %s' % public_item['expires'] if item['expires'] else '; no expiry date'))
    if public_item['expired']:
        module.warn('%s: the exception expired on %s (reason: %s); renew it with a later expires or remove it '
                    '(state=absent).' % (name, public_item['expires'], item['reason'] or 'none given'))
    if item.get('effective') is False:
        module.warn('%s runs Python 3 (ExecStart=%s): PYTHONHTTPSVERIFY has no effect on Python 3, so this drop-in '
                    'changes nothing (effective=false).'
                    % (name, ' ; '.join(' '.join(argv) for argv in item['exec_start'])))
    environment = item.get('environment')
    wanted = '1' if item['verify'] else '0'
    if item['action'] == 'unchanged' and environment is not None and item.get('unit_known') \
            and environment.get(dropin.VARIABLE) != wanted:
        module.warn('%s: systemd reports PYTHONHTTPSVERIFY=%s, not %s: another drop-in sorting after %s sets it, '
                    'or a daemon-reload is pending.'
                    % (name, environment.get(dropin.VARIABLE, '(unset)'), wanted, os.path.basename(item['path'])))


def run_systemctl(module, systemctl, args, done, result):
    rc, out, err = module.run_command([systemctl] + args)
    if rc != 0:
        result.update(rc=rc, stdout=out, stderr=err)
        module.fail_json(msg='systemctl %s failed (exit %d): %s. The drop-ins were written (%s); run the command by '
                             'hand once the cause is fixed.' % (' '.join(args), rc, (err or out).strip(), done),
                         **result)


def main():
    module = AnsibleModule(
        argument_spec=argument_spec(),
        supports_check_mode=True,
        mutually_exclusive=[('name', 'services')],
        required_one_of=[('name', 'services')],
    )
    params = module.params
    root = params['root']
    errors = []
    if params['exclusive'] and params['services'] is None:
        errors.append('exclusive=true needs services (the complete list of units to keep)')
    try:
        dropin_name = dropin.validate_dropin_name(params['dropin_name'])
    except dropin.DropinValueError as exc:
        errors.append(str(exc))
        dropin_name = None
    if not params['unit_dir'].startswith('/'):
        errors.append('unit_dir %s must be an absolute path' % dropin.show(params['unit_dir']))
    items, item_errors = validate_items(params)
    errors.extend(item_errors)
    if errors:
        module.fail_json(msg='Nothing was changed: %s' % '; '.join(errors), errors=errors)

    unit_dir = params['unit_dir']
    try:
        files = hostfiles.HostFiles(root, show_real=True)
    except hostfiles.HostFileError as exc:
        module.fail_json(msg='Nothing was changed: %s' % exc)
    for item in items:
        plan_file(module, item, unit_dir, dropin_name, files, errors)
    removals = []
    if params['exclusive'] and not errors:
        try:
            removals = find_exclusive_removals(unit_dir, dropin_name, files, [item['name'] for item in items])
        except hostfiles.HostFileError as exc:
            errors.append(str(exc))
    if errors:
        module.fail_json(msg='Nothing was changed: %s' % '; '.join(errors), errors=errors)

    running = systemd.systemd_running(root)
    systemctl = module.get_bin_path('systemctl') if running else None
    if running and systemctl is None:
        module.warn('systemd runs here but systemctl is not in PATH: no daemon-reload or restart is possible')
    everything = items + removals
    blocks = query_systemd(module, systemctl, [item['name'] for item in everything]) if systemctl else {}
    host = hostfiles.HostFiles(root)
    readers = host_readers(host)
    try:
        for item in everything:
            describe_unit(item, blocks.get(item['name']), host, readers)
    except safe_file.SafeFileError as exc:
        module.fail_json(msg='Nothing was changed: %s' % exc)

    changes = [item for item in everything if item['action'] != 'unchanged']
    try:
        apply_changes(module, changes, dropin_name)
    except safe_file.SafeFileError as exc:
        done = [item['name'] for item in changes if item.get('applied')]
        module.fail_json(msg='%s; drop-ins written or removed before the error: %s'
                             % (exc, ', '.join(done) or 'none'))

    result = dict(changed=bool(changes), systemd_running=running, reloaded=False, restarted=[],
                  pending_restart=[])
    result['services'] = [public(item) for item in items]
    result['removed'] = [public(item) for item in removals]
    for item, shown in zip(everything, result['services'] + result['removed']):
        warn_about(module, item, shown)

    changed_units = [item['name'] for item in changes]
    runnable = [item for item in changes if not dropin.is_template(item['name']) and item.get('unit_known')]
    if changes and systemctl:
        if params['daemon_reload']:
            if not module.check_mode:
                run_systemctl(module, systemctl, ['daemon-reload'], ', '.join(changed_units), result)
            result['reloaded'] = True
        elif params['restart'] != 'never':
            module.warn('restart without daemon_reload: systemd restarts the units with the drop-ins it loaded '
                        'before this run')
        if params['restart'] == 'try-restart':
            result['restarted'] = [item['name'] for item in runnable if item.get('active_state') in RUNNING_STATES]
        elif params['restart'] == 'restart':
            result['restarted'] = [item['name'] for item in runnable]
        if result['restarted'] and not module.check_mode:
            run_systemctl(module, systemctl, [params['restart'], '--'] + result['restarted'], ', '.join(changed_units),
                          result)
        result['pending_restart'] = [item['name'] for item in runnable if item.get('active_state') in RUNNING_STATES
                                     and item['name'] not in result['restarted']]

    if module._diff and changes:
        result['diff'] = [file_diff(item) for item in changes]
    verb = 'would be ' if module.check_mode else ''
    if not changes:
        result['msg'] = 'All drop-ins are as requested.'
    elif running:
        result['msg'] = '%d drop-in(s) %schanged: %s.' % (len(changes), verb, ', '.join(changed_units))
    else:
        result['msg'] = ('%d drop-in(s) %schanged: %s. systemd is not running here%s: no daemon-reload or restart '
                         'was attempted.' % (len(changes), verb, ', '.join(changed_units),
                                             ' (root is set)' if root else ''))
    module.exit_json(**result)


if __name__ == '__main__':
    main()
