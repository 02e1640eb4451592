# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the writing modules will change, decided before anything is written (pure functions
over small records; files are read through hostfiles, never written here).

``cert_verification`` -> plan_cfg(); ``service_verification`` -> plan_dropin(),
plan_exclusive(). verification_info's planned state (``planned_files()``) is built from the
same functions, so the audit of a plan sees exactly the bytes the modules would write.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import stat

from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._syntax import cfg
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.plugins.module_utils._syntax import exceptions
from ansible_collections.pep493.https.plugins.module_utils._syntax import optout
from ansible_collections.pep493.https.plugins.module_utils._trust import service_bundle
from ansible_collections.pep493.https.plugins.module_utils._write import safe_file

DROPIN_MODE = 0o644
FOLDER_MODE = 0o755
CFG_NEW_MODE = '0644'


class PlanError(Exception):
    """Input or a file state that makes a module refuse, with the message it fails with."""

    def __init__(self, message, errors=None):
        super(PlanError, self).__init__(message)
        self.errors = errors


# ---------------------------------------------------------------------------------------------
# cert_verification
# ---------------------------------------------------------------------------------------------

class CfgPlan(object):
    """``path`` (the real file), ``host`` (its path under root), ``old``/``new`` bytes (None:
    missing / unchanged), ``previous`` (value before), ``repaired`` (line numbers)."""

    __slots__ = ('path', 'host', 'old', 'new', 'previous', 'repaired')

    def __init__(self, path, host, old, new, previous, repaired):
        self.path = path
        self.host = host
        self.old = old
        self.new = new
        self.previous = previous
        self.repaired = repaired

    @property
    def changed(self):
        return self.new is not None and self.new != self.old


def locate_cfg(files, path, follow):
    """(Resolved, current bytes) of the cfg file: resolved as every module resolves paths, the
    file and its folder not links unless ``follow``."""
    try:
        resolved = files.resolve(path, follow=follow, folder_follow=follow)
    except hostfiles.HostFileError as exc:
        if exc.reason == 'link-refused':
            raise hostfiles.HostFileError('%s; set follow=true to write to the link target' % exc, exc.reason)
        raise
    return resolved, files.read_at(resolved, cfg.MAX_CFG_SIZE)


def plan_cfg(files, path, verify, state='present', create=True, repair=False, follow=False):
    """The CfgPlan of cert_verification; PlanError (with the cfg errors) when it must refuse."""
    resolved, old = locate_cfg(files, path, follow)
    dest = resolved.real
    wanted = verify if state == 'present' else None
    if old is None:
        if wanted is None:
            return CfgPlan(dest, resolved.host, None, None, 'missing', [])
        if not create:
            raise PlanError('%s does not exist and create=false; create it or set create=true' % dest)
        return CfgPlan(dest, resolved.host, None, cfg.new_cfg(wanted), 'missing', [])
    parsed = cfg.parse_cfg(old)
    repaired = [n for n, kind, text in parsed.errors]
    base = old
    if parsed.errors:
        if not repair:
            raise PlanError('%s is malformed and breaks "import ssl" for Python 2 on RHEL 7: %s. Nothing was changed; '
                            'fix the file or set repair=true to comment those lines out (a backup is kept).'
                            % (dest, cfg.format_errors(parsed.errors, dest)), cfg.errors_for_result(parsed.errors))
        base = cfg.repair_cfg(old)
    previous = 'malformed' if parsed.errors else parsed.verify
    return CfgPlan(dest, resolved.host, old, cfg.render_cfg(base, wanted), previous, repaired)


def cfg_read_back_check(wanted):
    def check(content):
        parsed = cfg.parse_cfg(content)
        if parsed.errors:
            return 'the new content would be malformed: %s' % cfg.format_errors(parsed.errors)
        if wanted is None and parsed.value is not None:
            return 'a verify option is still in effect'
        if wanted is not None and parsed.value != wanted:
            return 'the new content reads back as %r, not %r' % (parsed.value, wanted)
        return None
    return check


# ---------------------------------------------------------------------------------------------
# service_verification
# ---------------------------------------------------------------------------------------------

class BundlePlan(object):
    """What happens to the CA bundle of one service: ``path`` (real), ``host`` (under root),
    ``old``/``new`` bytes (new None: removed)."""

    __slots__ = ('path', 'host', 'old', 'new')

    def __init__(self, path, host, old, new):
        self.path = path
        self.host = host
        self.old = old
        self.new = new

    @property
    def changed(self):
        return self.old != self.new

    @property
    def action(self):
        if not self.changed:
            return 'unchanged'
        return 'created' if self.old is None else ('removed' if self.new is None else 'updated')


class FilePlan(object):
    """What happens to one file the collection owns (a drop-in, a CA anchor): ``request``, ``path``
    (real) and ``host`` (under root), ``old``/``new`` bytes (new None: removed),
    ``old_mode``/``old_owner`` and ``action`` (created, updated, removed, unchanged). ``MODE``: the
    mode the file is written with, and put back to."""

    __slots__ = ('request', 'path', 'host', 'old', 'new', 'old_mode', 'old_owner', 'action')
    MODE = 0o644    # each kind names its own

    def __init__(self, request, path, host, old):
        self.request = request
        self.path = path
        self.host = host
        self.old = old
        self.new = None
        self.old_mode = None
        self.old_owner = None
        self.action = 'unchanged'

    @property
    def changed(self):
        return self.action != 'unchanged'

    def foreign_owner(self, euid):
        """A file of ours owned by someone else while we run as root: that user could change it."""
        return euid == 0 and self.old_owner not in (None, (0, 0))

    def wrong_mode(self):
        """Whether the file is there with a mode other than MODE (put right with the write)."""
        return self.old_mode not in (None, self.MODE)

    def diff(self, euid):
        """The --diff entry, as ansible's own file modules give it: the path on both sides (the after
        side /dev/null for a removal), a mode or owner put right named in the before header."""
        before_header = self.path
        if self.wrong_mode():
            before_header = '%s (mode %04o, becomes %04o)' % (self.path, int(self.old_mode), self.MODE)
        if self.foreign_owner(euid):
            before_header += ' (owner %d:%d, becomes root:root)' % self.old_owner
        return dict(before=safe_file.text_for_diff(self.old), after=safe_file.text_for_diff(self.new),
                    before_header=before_header, after_header=self.path if self.new is not None else '/dev/null')


class DropinPlan(FilePlan):
    """What happens to one drop-in (FilePlan), with the ``reason``/``expires`` read back, and
    ``bundle``: the BundlePlan of the service's CA bundle (written or removed with it), or None."""

    __slots__ = ('reason', 'expires', 'label', 'bundle')
    MODE = DROPIN_MODE

    def __init__(self, request, path, host, old):
        super(DropinPlan, self).__init__(request, path, host, old)
        self.label = request.label
        self.reason = request.reason
        self.expires = request.expires
        self.bundle = None

    @property
    def name(self):
        return self.request.name


def plan_dropin(files, unit_dir, dropin_name, request, euid=0):
    """The DropinPlan of one Request; PlanError (the message names the item) when refused."""
    try:
        resolved = files.resolve(dropin.dropin_path(unit_dir, request.name, dropin_name), follow=False,
                                 folder_follow=False)
        old = files.read_at(resolved, dropin.MAX_DROPIN_SIZE)
    except hostfiles.HostFileError as exc:
        raise PlanError('%s (%s): %s' % (request.label, request.name, exc))
    item = DropinPlan(request, resolved.real, resolved.host, old)
    current = dropin.parse_dropin(old)
    if old is not None and current is None:
        raise PlanError('%s (%s): %s exists but is not managed by this module (no marker line "%s"); it was left '
                        'alone. Move it away, or choose another dropin_name'
                        % (request.label, request.name, resolved.real, dropin.MARKER))
    if request.state == 'absent':
        item.action = 'removed' if old is not None else 'unchanged'
        if current is not None:
            item.reason, item.expires = current['reason'], current['expires']
            item.bundle = bundle_removal(files, current)
        return item
    unsafe = unsafe_folder(os.path.dirname(resolved.real), euid)
    if unsafe:
        raise PlanError('%s (%s): the folder %s is %s: whoever can write it could replace the drop-in, so nothing '
                        'is written into it. Make it root:root 0755 (chown root:root; chmod 0755) and run again'
                        % (request.label, request.name, os.path.dirname(resolved.real), unsafe))
    if request.ca is not None:
        item.bundle = plan_bundle(files, request, euid)
        item.new = dropin.render_dropin(True, request.reason, request.expires,
                                        ca=(request.ca.sha256_fingerprint, service_bundle.bundle_path(request.name)))
    else:
        item.bundle = bundle_removal(files, current) if current is not None else None
        item.new = dropin.render_dropin(request.verify, request.reason, request.expires)
    if old is not None and resolved.exists and resolved.host not in files.overlay:
        # the drop-in as it was read (fstat of the reading): a run in parallel may remove it next
        info = files.read_stat(resolved)
        if info is not None:
            item.old_mode = stat.S_IMODE(info.st_mode)
            item.old_owner = (info.st_uid, info.st_gid)
    if old is None:
        item.action = 'created'
    elif old != item.new or item.wrong_mode() or item.foreign_owner(euid) or \
            (item.bundle is not None and item.bundle.changed):
        item.action = 'updated'
    return item


def plan_bundle(files, request, euid=0):
    """The BundlePlan of the CA bundle of ``request`` (a Request with ``ca``): the system
    bundle as it is now and the CA; PlanError naming the item when it cannot be made."""
    where = '%s (%s): ca' % (request.label, request.name)
    try:
        system_path, system_data = service_bundle.system_bundle(files)
        resolved = files.resolve(service_bundle.bundle_path(request.name), follow=False, folder_follow=False)
        old = files.read_at(resolved, service_bundle.MAX_SYSTEM_BUNDLE)
    except (service_bundle.BundleError, hostfiles.HostFileError) as exc:
        raise PlanError('%s: %s' % (where, exc))
    if old is not None and service_bundle.parse_bundle_header(old) is None:
        raise PlanError('%s: %s exists but was not written by this module (its first line is not "%s"); it was left '
                        'alone. Move it away' % (where, resolved.real, service_bundle.MARKER.decode('ascii')))
    unsafe = unsafe_folder(os.path.dirname(resolved.real), euid)
    if unsafe:
        raise PlanError('%s: the folder %s is %s: whoever can write it could change the CAs the service trusts, so '
                        'nothing is written into it. Make it root:root 0755 (chown root:root; chmod 0755) and run again'
                        % (where, os.path.dirname(resolved.real), unsafe))
    return BundlePlan(resolved.real, resolved.host, old,
                      service_bundle.render_bundle(system_path, system_data, request.ca))


def bundle_removal(files, parsed):
    """The BundlePlan removing the CA bundle a drop-in of ours (``parsed``: parse_dropin) names,
    when it is one of ours in BUNDLE_DIR; None otherwise (nothing of ours to remove)."""
    path = parsed.get('ca_bundle')
    if not path or os.path.dirname(path) != service_bundle.BUNDLE_DIR:
        return None
    try:
        resolved = files.resolve(path, follow=False, folder_follow=False)
        old = files.read_at(resolved, service_bundle.MAX_SYSTEM_BUNDLE)
    except hostfiles.HostFileError:
        return None
    if old is None or service_bundle.parse_bundle_header(old) is None:
        return None
    return BundlePlan(resolved.real, resolved.host, old, None)


def unsafe_folder(folder, euid):
    """Why the existing drop-in folder ``folder`` is unsafe to write into (writable by group or
    others, or owned by another user than root or the one running), or None (safe, or missing:
    a new folder is made root 0755)."""
    try:
        info = os.lstat(folder)
    except OSError:
        return None
    problems = []
    if stat.S_IMODE(info.st_mode) & 0o022:
        problems.append('writable by group or others (mode %04o)' % stat.S_IMODE(info.st_mode))
    if info.st_uid not in (0, euid):
        problems.append('owned by another user (owner %d:%d)' % (info.st_uid, info.st_gid))
    return ' and '.join(problems) or None


def plan_exclusive(files, unit_dir, dropin_name, keep):
    """DropinPlans removing the drop-ins of ours in ``unit_dir`` of units not in ``keep``."""
    try:
        names = files.listdir(unit_dir) or []
    except hostfiles.HostFileError as exc:
        raise PlanError('exclusive: cannot list %s: %s' % (unit_dir, exc))
    ours = {}
    for entry in names:
        unit = dropin.unit_from_dropin_folder(entry)
        if unit is None or files.entry(unit_dir, entry)[0] != 'dir':
            continue
        try:
            resolved = files.resolve(dropin.dropin_path(unit_dir, unit, dropin_name), follow=False,
                                     folder_follow=False)
            old = files.read_at(resolved, dropin.MAX_DROPIN_SIZE)
        except hostfiles.HostFileError:
            continue  # a link or unreadable file is not a drop-in of ours to remove
        parsed = dropin.parse_dropin(old)
        if parsed is not None:
            ours[unit] = (resolved, old, parsed)
    removals = []
    for unit in dropin.exclusive_removals(ours, keep):
        resolved, old, parsed = ours[unit]
        item = DropinPlan(exceptions.Request('exclusive', unit, 'absent'), resolved.real, resolved.host, old)
        item.action = 'removed'
        item.reason, item.expires = parsed['reason'], parsed['expires']
        item.bundle = bundle_removal(files, parsed)
        removals.append(item)
    return removals


def plan_dropins(files, unit_dir, dropin_name, found, exclusive, euid=0):
    """(DropinPlans of the requests, DropinPlans of exclusive removals); PlanError listing every
    refused item."""
    plans = []
    errors = []
    for request in found:
        try:
            plans.append(plan_dropin(files, unit_dir, dropin_name, request, euid))
        except PlanError as exc:
            errors.append(str(exc))
    removals = []
    if exclusive and not errors:
        try:
            removals = plan_exclusive(files, unit_dir, dropin_name, [r.name for r in found])
        except PlanError as exc:
            errors.append(str(exc))
    if errors:
        raise PlanError('Nothing was changed: %s' % '; '.join(errors), errors)
    return plans, removals


class HandmadePlan(object):
    """A hand-made drop-in of ``unit`` whose ``PYTHONHTTPSVERIFY=0`` is taken out: ``path`` (real),
    ``host`` (under root), ``old`` and ``new`` bytes, ``taken`` (assignments taken out)."""

    __slots__ = ('unit', 'path', 'host', 'old', 'new', 'taken')

    def __init__(self, unit, path, host, old, new, taken):
        self.unit = unit
        self.path = path
        self.host = host
        self.old = old
        self.new = new
        self.taken = taken

    @property
    def name(self):
        return self.unit

    @property
    def changed(self):
        return self.taken > 0

    @property
    def bundle(self):
        """A hand-made drop-in names no CA bundle of ours (``overlay`` asks every plan)."""
        return None


def plan_handmade(files, unit_dir, dropin_name, units):
    """HandmadePlans taking the opt-out out of every drop-in ``<unit_dir>/<unit>.d/*.conf`` of ``units``
    that this module did not write (no marker line); PlanError listing every drop-in that cannot be
    rewritten safely (a link, a line continued or not valid UTF-8: each to be edited by hand)."""
    plans = []
    errors = []
    for unit in units:
        folder = '%s/%s.d' % (unit_dir.rstrip('/'), unit)
        try:
            names = files.listdir(folder) or []
        except hostfiles.HostFileError as exc:
            errors.append('remove_handmade (%s): cannot list %s: %s' % (unit, folder, exc))
            continue
        for name in names:
            if not name.endswith('.conf') or name == dropin_name:
                continue
            path = '%s/%s' % (folder, name)
            kind, link = files.entry(folder, name)
            if kind == 'link':
                errors.append('remove_handmade (%s): %s is a link to %s; a drop-in behind a link is not rewritten: '
                              'take PYTHONHTTPSVERIFY=0 out of it by hand' % (unit, files.show(path), link))
                continue
            try:
                resolved = files.resolve(path, follow=False, folder_follow=False)
                old = files.read_at(resolved, dropin.MAX_DROPIN_SIZE) if kind == 'file' else None
            except hostfiles.HostFileError as exc:
                errors.append('remove_handmade (%s): %s' % (unit, exc))
                continue
            if old is None or dropin.parse_dropin(old) is not None:
                continue
            try:
                new, taken = optout.take_out_optout(old, resolved.real)
            except optout.OptoutError as exc:
                errors.append('remove_handmade (%s): %s' % (unit, exc))
                continue
            if taken:
                plans.append(HandmadePlan(unit, resolved.real, resolved.host, old, new, taken))
    if errors:
        raise PlanError('Nothing was changed: %s' % '; '.join(errors), errors)
    return plans


def dropin_read_back_check(request):
    bundle = service_bundle.bundle_path(request.name) if request.ca is not None else None
    expected = dict(verify=request.verify, value='1' if request.verify else '0', reason=request.reason,
                    expires=request.expires, ca=request.ca.sha256_fingerprint if request.ca is not None else None,
                    ca_bundle=bundle)

    def check(content):
        parsed = dropin.parse_dropin(content)
        if parsed is None:
            return 'the marker line is missing'
        if parsed != expected:
            return 'it reads back as %r, not %r' % (parsed, expected)
        return None
    return check


def bundle_read_back_check(new):
    def check(content):
        if content != new:
            return 'it does not read back as written'
        return None
    return check


def overlay(plans):
    """{host path: bytes or None} of the files the plans change (None: removed), CA bundles included."""
    found = dict((plan.host, plan.new) for plan in plans if plan.changed)
    for plan in plans:
        if plan.changed and plan.bundle is not None and plan.bundle.changed:
            found[plan.bundle.host] = plan.bundle.new
    return found


def insecure_warning(items):
    """One warning for every verify=false exception of the call, the services grouped by expiry
    date (and by what they lack: a reason, a date); None when there is none."""
    groups = []
    named = {}
    for item in items:
        if item.request.state != 'present' or item.request.verify is not False:
            continue
        expires = item.expires.isoformat() if hasattr(item.expires, 'isoformat') else item.expires
        notes = [] if item.reason else ['no reason given']
        notes.append('until %s' % expires if expires else 'no expiry date')
        label = ', '.join(notes)
        if label not in named:
            named[label] = []
            groups.append(label)
        named[label].append(item.name)
    if not groups:
        return None
    count = sum(len(names) for names in named.values())
    return ('PYTHONHTTPSVERIFY=0 turns HTTPS certificate verification off for the Python 2 code of %d service%s '
            '(insecure) - %s.' % (count, '' if count == 1 else 's',
                                  '; '.join('%s: %s' % (label, ', '.join(named[label])) for label in groups)))


def disable_warning(path):
    """The warning every run that sets verify=disable in ``path`` (the real file) gets."""
    return ('verify=disable turns HTTPS certificate verification off for every Python 2 program on this '
            'host that reads %s. Prefer verify=enable with per-service exceptions '
            '(pep493.https.service_verification).' % path)
