# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""service_verification's steps: check the options, plan every drop-in (plan), describe each unit
with the host model (the same ``effective`` rule as verification_info), write (safe_file), then
one daemon-reload and at most one restart."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.pep493.https.plugins.module_utils._host import effect as effects
from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._host import model as hostmodel
from ansible_collections.pep493.https.plugins.module_utils._host import runtime as runtimes
from ansible_collections.pep493.https.plugins.module_utils._host import systemctl
from ansible_collections.pep493.https.plugins.module_utils._host import units
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.plugins.module_utils._syntax import exceptions
from ansible_collections.pep493.https.plugins.module_utils._syntax import unit_names
from ansible_collections.pep493.https.plugins.module_utils._trust import service_bundle
from ansible_collections.pep493.https.plugins.module_utils._write import plan
from ansible_collections.pep493.https.plugins.module_utils._write import safe_file

VARIABLE = dropin.VARIABLE


class Described(object):
    """What the host model says about the unit of one DropinPlan, once the plan is applied."""

    __slots__ = ('unit_known', 'effective', 'effect', 'why', 'exec_start', 'active_state', 'value', 'value_known',
                 'source')

    def __init__(self):
        self.unit_known = False
        self.effective = None
        self.effect = None
        self.why = None
        self.exec_start = []
        self.active_state = None
        self.value = None
        self.value_known = True
        self.source = None


def validate(params):
    """(requests, dropin name, [errors]) of the module's options: every problem at once."""
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
    found, item_errors = exceptions.requests(params['name'], params['services'], params)
    return found, dropin_name, errors + item_errors + handmade_errors(params)


def handmade_errors(params):
    """The problems of ``remove_handmade`` (each a service name); canonical names replace them."""
    errors = []
    names = []
    for index, name in enumerate(params.get('remove_handmade') or []):
        try:
            names.append(unit_names.validate_unit_name(name))
        except unit_names.UnitNameError as exc:
            errors.append('remove_handmade[%d]: %s' % (index, exc))
    params['remove_handmade'] = sorted(set(names))
    return errors


def apply_handmade(module, handmade, done):
    """Take each hand-made opt-out out (nothing in check mode), a backup of the file beside it first."""
    for item in handmade:
        if module.check_mode:
            continue
        item_backup = safe_file.backup(module, item.path, item.old)
        new = item.new
        safe_file.write_atomic(module, item.path, new, check=lambda data: None if data == new else 'it reads back '
                               'otherwise than it was written')
        done.append(item.unit)
        yield dict(name=item.unit, path=item.path, taken=item.taken, backup=item_backup)


def public_handmade(item, backup_path=None):
    return dict(name=item.unit, path=item.path, taken=item.taken, backup=backup_path)


def loaded_units(module, ctl):
    """{unit: (load, active, sub)} from one ``systemctl list-units`` (None when it failed)."""
    loaded, error = ctl.loaded_units()
    if error:
        module.warn('%s; whether units are running is not known, so none is restarted' % error)
    return loaded


def describe(root, plans, loaded):
    """{unit: Described} for the units of ``plans``, from the host model with the planned
    drop-ins in place (``loaded``: what list-units said, or None)."""
    files = hostfiles.HostFiles(root, overlay=plan.overlay(plans))
    runtime = hostmodel.Runtime(loaded=loaded) if loaded is not None else None
    host = hostmodel.Host(files, runtime)
    described = {}
    for item in plans:
        service = host.service(item.name)
        info = Described()
        state = (loaded or {}).get(item.name)
        info.unit_known = service.unit.load_state != units.NOT_FOUND or bool(state and state[0] != 'not-found')
        info.active_state = state[1] if state else None
        info.exec_start = [[c.path] + list(c.argv[1:]) for c in service.config.exec_start_pre +
                           service.config.exec_start]
        info.effective, info.effect = host.reach(service)
        if info.effect == effects.NOT_GOVERNED:
            info.why = host.usage(service)['why']
        info.value, info.value_known, setting = service.variable()
        info.source = setting.path if setting is not None else None
        described[item.name] = info
    return described


def apply(module, changes, dropin_name, euid, done):
    """Write or remove each changed drop-in (nothing in check mode); ``done`` gets the name of
    each unit whose drop-in was handled, so a failure half-way says which were."""
    for item in changes:
        folder = os.path.dirname(item.path)
        bundle = item.bundle if item.bundle is not None and item.bundle.changed else None
        if bundle is not None and bundle.new is not None and not module.check_mode:
            # the bundle first: the drop-in that names it is never in place without it
            safe_file.make_dirs(module, os.path.dirname(bundle.path), plan.FOLDER_MODE)
            safe_file.write_atomic(module, bundle.path, bundle.new, check=plan.bundle_read_back_check(bundle.new),
                                   mode=plan.DROPIN_MODE)
        if item.new is not None:
            if item.new != item.old and not module.check_mode:
                write_dropin(module, item, folder)
            elif (item.wrong_mode() or item.foreign_owner(euid)) and not module.check_mode:
                safe_file.split_hard_link(module, item.path, item.old)
            if item.wrong_mode() and not module.check_mode:
                try:
                    os.chmod(item.path, plan.DROPIN_MODE)
                except OSError as exc:
                    raise safe_file.SafeFileError('cannot set mode %04o on %s: %s'
                                                  % (plan.DROPIN_MODE, item.path, exc.strerror))
            if item.foreign_owner(euid) and not module.check_mode:
                try:
                    os.chown(item.path, 0, 0)
                except OSError as exc:
                    raise safe_file.SafeFileError('cannot give %s to root:root: %s' % (item.path, exc.strerror))
        else:
            safe_file.remove_file(module, item.path)
            safe_file.remove_empty_dir(module, folder, ignore=(dropin_name,))
        if bundle is not None and bundle.new is None:
            safe_file.remove_file(module, bundle.path)
        done.append(item.name)


FOLDER_TRIES = 3


def write_dropin(module, item, folder):
    """Write one drop-in, making its folder; a removal of that folder by a run in parallel
    (state=absent on the same unit) between the two is met by making it again."""
    for attempt in range(FOLDER_TRIES):
        safe_file.make_dirs(module, folder, plan.FOLDER_MODE)
        try:
            safe_file.write_atomic(module, item.path, item.new, check=plan.dropin_read_back_check(item.request),
                                   mode=plan.DROPIN_MODE)
            return
        except safe_file.SafeFileError as exc:
            if exc.reason != 'folder-gone' or attempt == FOLDER_TRIES - 1:
                raise


def bundle_diff(bundle):
    """The diff of a CA bundle: its header lines only (the system bundle's certificates, some
    hundred KiB, are named there by their SHA-256)."""
    def header(data):
        return '' if data is None else '\n'.join(data.decode('utf-8', 'replace').split('\n')[:3]) + '\n'
    return dict(before=header(bundle.old), after=header(bundle.new), before_header=bundle.path,
                after_header=bundle.path if bundle.new is not None else '/dev/null')


def ca_entry(item):
    """The ``ca`` entry of a service's result: the CA it trusts and its bundle, or None."""
    ca = item.request.ca if item.request.state == 'present' else None
    if ca is None:
        return None
    return dict(subject=ca.subject, sha256_fingerprint=ca.sha256_fingerprint,
                not_after=ca.not_after.date().isoformat(),
                bundle=service_bundle.bundle_path(item.name),
                bundle_action=item.bundle.action if item.bundle is not None else 'unchanged')


def public(item, info=None):
    """The RETURN entry of one DropinPlan: what was done and what it does, not the request echoed
    back; the reason and expiry date only of a drop-in removed (read back from it)."""
    expires = item.expires
    present = item.request.state == 'present'
    result = dict(name=item.name, path=item.path, state=item.request.state,
                  verify=item.request.verify if present else None, ca=ca_entry(item),
                  expired=present and dates.is_expired(expires, dates.today()), action=item.action)
    if not present:
        result.update(reason=item.reason, expires=expires.isoformat() if hasattr(expires, 'isoformat') else expires)
    if info is not None:
        result.update(unit_known=info.unit_known, effective=info.effective, effect=info.effect)
    return result


def warnings(item, shown, info):
    """The warnings one exception deserves (expired, no effect, overridden); the insecure ones
    are one warning for the whole call (``plan.insecure_warning``)."""
    if item.request.state != 'present':
        return []
    name = item.name
    found = []
    if shown['expired']:
        found.append('%s: the exception expired on %s (reason: %s); renew it with a later expires or remove it '
                     '(state=absent).' % (name, item.expires.isoformat() if hasattr(item.expires, 'isoformat')
                                          else item.expires, item.reason or 'none given'))
    if info is None:
        return found
    commands = ' ; '.join(' '.join(argv) for argv in info.exec_start)
    if item.request.ca is not None:
        pass    # SSL_CERT_FILE and REQUESTS_CA_BUNDLE reach Python 3 as well as Python 2
    elif info.effective is False and info.effect == effects.PYTHON3:
        found.append('%s runs Python 3 (ExecStart=%s): PYTHONHTTPSVERIFY has no effect on Python 3, so this drop-in '
                     'changes nothing (effective=false).' % (name, commands))
    elif info.effective is False and info.effect == effects.NOT_GOVERNED:
        found.append('%s: its Python 2 code uses no HTTPS that PYTHONHTTPSVERIFY governs (%s): this drop-in does '
                     'nothing (effective=false); trust the CA it needs instead.' % (name, info.why))
    elif info.effective is False:
        found.append('%s: PYTHONHTTPSVERIFY never reaches Python 2 code there (%s: %s), so this drop-in changes '
                     'nothing (effective=false).' % (name, info.effect, commands))
    wanted = '1' if item.request.verify else '0'
    decided = info.effect not in effects.NEVER_STARTS
    if info.unit_known and info.value_known and info.value != wanted and decided:
        found.append('%s: the unit will get PYTHONHTTPSVERIFY=%s, not %s: %s sets it after %s.'
                     % (name, info.value if info.value is not None else '(unset)', wanted,
                        info.source or 'another setting', os.path.basename(item.path)))
    return found


def restarts(params, changes, described):
    """(units to restart, units left running with their old environment)."""
    runnable = [item.name for item in changes
                if not unit_names.is_template(item.name) and described.get(item.name) and described[item.name].unit_known]
    running = [name for name in runnable if described[name].active_state in runtimes.RUNNING_STATES]
    if params['restart'] == 'try-restart':
        chosen = running
    elif params['restart'] == 'restart':
        chosen = runnable
    else:
        chosen = []
    return chosen, [name for name in running if name not in chosen]


def message(changes, running, root, check_mode):
    """The one-line ``msg``."""
    if not changes:
        return 'All drop-ins are as requested.'
    verb = 'would be ' if check_mode else ''
    names = ', '.join(item.name for item in changes)
    if running:
        return '%d drop-in(s) %schanged: %s.' % (len(changes), verb, names)
    return ('%d drop-in(s) %schanged: %s. systemd is not running here%s: no daemon-reload or restart was attempted.'
            % (len(changes), verb, names, ' (root is set)' if root else ''))


def run_systemctl(module, ctl, args, done, result):
    rc, out, err = ctl.run(args)
    if rc != 0:
        result.update(rc=rc, stdout=out, stderr=err)
        module.fail_json(msg='systemctl %s failed (exit %d): %s. The drop-ins were written (%s); run the command by '
                             'hand once the cause is fixed.' % (' '.join(args), rc, (err or out).strip(), done),
                         **result)


def run(module):
    """service_verification: every drop-in as requested, ending in exit_json."""
    params = module.params
    euid = os.geteuid()
    found, dropin_name, errors = validate(params)
    if errors:
        module.fail_json(msg='Nothing was changed: %s' % '; '.join(errors), errors=errors)
    try:
        files = hostfiles.HostFiles(params['root'], show_real=True)
        plans, removals = plan.plan_dropins(files, params['unit_dir'], dropin_name, found, params['exclusive'], euid)
        handmade = plan.plan_handmade(files, params['unit_dir'], dropin_name, params['remove_handmade'])
    except hostfiles.HostFileError as exc:
        module.fail_json(msg='Nothing was changed: %s' % exc)
    except plan.PlanError as exc:
        module.fail_json(msg=str(exc), errors=exc.errors)

    ctl = systemctl.Systemctl(module, params['root'])
    if ctl.missing:
        module.warn('systemd runs here but systemctl is not in PATH: no daemon-reload or restart is possible')
    everything = plans + removals
    loaded = loaded_units(module, ctl) if ctl.path else None
    described = describe(params['root'], everything + handmade, loaded)

    changes = [item for item in everything if item.changed]
    done = []
    taken_out = [public_handmade(item) for item in handmade]
    try:
        apply(module, changes, dropin_name, euid, done)
        if handmade and not module.check_mode:
            taken_out = list(apply_handmade(module, handmade, done))
    except safe_file.SafeFileError as exc:
        module.fail_json(msg='%s; drop-ins written or removed before the error: %s' % (exc, ', '.join(done) or 'none'))
    # a unit whose hand-made opt-out was taken out changed too (reload, restart), once
    changes.extend(item for item in handmade if item.unit not in set(change.name for change in changes))

    result = dict(changed=bool(changes), systemd_running=ctl.running, reloaded=False, restarted=[], pending_restart=[],
                  services=[public(item, described.get(item.name)) for item in plans],
                  removed=[public(item, described.get(item.name)) for item in removals],
                  handmade=taken_out)
    insecure = plan.insecure_warning(plans)
    if insecure:
        module.warn(insecure)
    for item, shown in zip(everything, result['services'] + result['removed']):
        for warning in warnings(item, shown, described.get(item.name)):
            module.warn(warning)

    changed_units = [item.name for item in changes]
    if changes and ctl.path:
        if params['daemon_reload']:
            if not module.check_mode:
                run_systemctl(module, ctl, ['daemon-reload'], ', '.join(changed_units), result)
            result['reloaded'] = True
        elif params['restart'] != 'never':
            module.warn('restart without daemon_reload: systemd restarts the units with the drop-ins it loaded '
                        'before this run')
        result['restarted'], result['pending_restart'] = restarts(params, changes, described)
        if result['restarted'] and not module.check_mode:
            run_systemctl(module, ctl, [params['restart'], '--'] + result['restarted'], ', '.join(changed_units),
                          result)
    if module._diff and changes:
        dropins = [item for item in changes if not isinstance(item, plan.HandmadePlan)]
        result['diff'] = [item.diff(euid) for item in dropins
                          if item.new != item.old or item.wrong_mode() or item.foreign_owner(euid)]
        result['diff'] += [bundle_diff(item.bundle) for item in dropins if item.bundle is not None
                           and item.bundle.changed]
        result['diff'].extend(dict(before=safe_file.text_for_diff(item.old), after=safe_file.text_for_diff(item.new),
                                   before_header=item.path, after_header=item.path) for item in handmade)
    result['msg'] = message(changes, ctl.running, params['root'], module.check_mode)
    module.exit_json(**result)
