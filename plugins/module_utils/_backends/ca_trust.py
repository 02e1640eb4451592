# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ca_trust's steps: check every item (ca_requests), find the host's trust store (store.detect),
plan every anchor file (store.plan_anchors), write them through the one safe writer (safe_file),
then run the store's update and prove in the bundle the host's Python loads that each CA is in it
or gone (store.settle) - or, under root and in check mode, say what is pending."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import os

from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._host import interpreters
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._trust import ca_requests
from ansible_collections.pep493.https.plugins.module_utils._trust import store
from ansible_collections.pep493.https.plugins.module_utils._write import safe_file


def validate(params, now):
    """([CaRequest], [errors]) of the module's options: every problem at once."""
    errors = []
    if params['expiry_warning_days'] < 0:
        errors.append('expiry_warning_days: %d must be 0 or more (the days before its notAfter from which a CA is '
                      'reported as expiring)' % params['expiry_warning_days'])
    requests, item_errors = ca_requests.validate(params['cas'], now)
    return requests, errors + item_errors


def read_back_check(item):
    def check(content):
        held = store.certificate_in(content)
        if not store.is_ours(content) or held is None or held.der != item.certificate.der:
            return 'it does not read back as the marker line and the CA of %s' % item.request.label
        return None
    return check


def apply(module, changes, euid, done):
    """Write, then remove, each changed anchor file (never in check mode): new CAs are in place
    before old ones go, so a failure half-way through a rotation leaves both, never neither.
    ``done`` gets what was handled, for the message of a failure."""
    for item in sorted(changes, key=lambda plan: plan.new is None):
        if item.new is not None:
            if item.new != item.old:
                safe_file.write_atomic(module, item.path, item.new, check=read_back_check(item), mode=store.ANCHOR_MODE)
            else:
                safe_file.split_hard_link(module, item.path, item.old)
            if item.wrong_mode():
                try:
                    os.chmod(item.path, store.ANCHOR_MODE)
                except OSError as exc:
                    raise safe_file.SafeFileError('cannot set mode %04o on %s: %s'
                                                  % (store.ANCHOR_MODE, item.path, exc.strerror))
            if item.foreign_owner(euid):
                try:
                    os.chown(item.path, 0, 0)
                except OSError as exc:
                    raise safe_file.SafeFileError('cannot give %s to root:root: %s' % (item.path, exc.strerror))
        else:
            safe_file.remove_file(module, item.path)
        done.append('%s %s' % (item.path, item.action))


def iso(moment):
    # not strftime: Python 2's refuses years before 1900, which a certificate to remove may carry
    return '%04d-%02d-%02dT%02d:%02d:%02dZ' % moment.timetuple()[:6]


def public(item, in_bundle, now, warning_days):
    """The RETURN entry of one AnchorPlan."""
    certificate = item.certificate
    entry = dict(name=item.request.name, path=item.path, state=item.request.state, action=item.action,
                 subject=None, issuer=None, sha256_fingerprint=None, not_after=None, days_left=None, expiring=None,
                 subject_key_id=None, in_bundle=in_bundle)
    if certificate is not None:
        left = certificate.not_after - now
        entry.update(subject=certificate.subject, issuer=certificate.issuer,
                     sha256_fingerprint=certificate.sha256_fingerprint, not_after=iso(certificate.not_after),
                     days_left=left.days, expiring=left <= datetime.timedelta(days=warning_days),
                     subject_key_id=certificate.subject_key_id)
    return entry


def warnings(plans, shown, proof):
    """The warnings of the call: CAs to trust that expire soon, Pythons that do not see the change."""
    found = []
    for item, entry in zip(plans, shown):
        label = '%s (%s)' % (item.request.label, item.request.name)
        if entry['state'] == 'present' and entry['expiring']:
            found.append("%s: '%s' expires on %s, in %d day(s): trust its successor before then (add the new CA and "
                         "remove this one in one call)" % (label, entry['subject'], entry['not_after'], entry['days_left']))
        split = proof.split.get(item.request.name) if proof is not None else None
        if split:
            verb = 'do not trust it' if entry['state'] == 'present' else 'still trust it'
            found.append('%s: some Pythons on this host %s, as their OpenSSL reads %s' % (
                label, verb, '; '.join(group.describe() for group in split)))
    return found


def bundle_entry(read, note, located=None):
    groups, found_by = located or ([], None)
    return dict(read=read, note=note, found_by=found_by, locations=[group.public() for group in groups])


def message(changes, update, stale, command, params, check_mode):
    """The one-line ``msg``."""
    verb = 'would be ' if check_mode else ''
    run = store.shown(command)
    if not changes and not stale:
        if params['root']:
            return 'All anchor files are as requested (root is set: the bundle was not read).'
        return 'All CAs are as requested, and the bundle the host\'s Python loads shows them.'
    if stale:
        said = 'The anchor files are as requested, but the bundle the host\'s Python loads did not show them: '
        return said + ('%s would run.' % run if check_mode else '%s ran, and it does now.' % run)
    said = '%d anchor file(s) %schanged: %s.' % (len(changes), verb, ', '.join(
        '%s %s' % (item.request.name, item.action) for item in changes))
    if update == 'not_needed':
        return said + ' Their content is unchanged: no update was needed.'
    if params['root']:
        return said + (' The update is pending (root is set): run %s inside the tree (chroot %s %s) or on the host it '
                       'becomes.' % (run, params['root'], run))
    if check_mode:
        return said + ' %s would run.' % run
    return said + ' %s ran, and the bundle the host\'s Python loads shows the change.' % run


def fail_after_writing(module, error, family, done, result):
    """A failed update or proof, once the anchor files are written: what was written, what to run
    (with Debian's --fresh, which is right whatever changed)."""
    written = '; '.join(done) or 'none (they were already as requested)'
    command = store.shown(store.update_command(family, [], stale=True))
    module.fail_json(msg='%s. The anchor files were written (%s); once the cause is fixed, run %s, or this task again '
                         '(it runs the update while the bundle does not show the change)' % (error, written, command),
                     **result)


def update_and_prove(module, family, actions, wanted, done, result):
    """On the host itself (no root): (update, stale, Proof, bundle entry). In check mode the bundle
    is read as it is, to tell whether the update would run; otherwise store.settle runs it when
    needed and proves the result, and a failure ends the run here."""
    probed = interpreters.probe_verify_paths(interpreters.candidate_interpreters())

    def find_groups(host_files):
        return store.locate(host_files, family, probed)

    if module.check_mode:
        files = hostfiles.HostFiles()
        located = find_groups(files)
        try:
            proof = store.prove(files, located[0], wanted)
        except store.StoreError as exc:
            module.fail_json(msg=str(exc), **result)
        stale = not actions and bool(proof.wrong)
        update = 'pending' if actions or stale else 'not_needed'
        return update, stale, proof, bundle_entry(True, 'check mode: the bundle as it is now, before any change', located)
    try:
        update, stale, proof, located = store.settle(
            lambda argv: module.run_command(argv, environ_update=dict(LC_ALL='C', LANG='C')),
            family, actions, hostfiles.HostFiles, find_groups, wanted)
    except store.StoreError as exc:
        fail_after_writing(module, exc, family, done, result)
    note = 'read after the update' if update == 'ran' else 'read; no update was needed'
    return update, stale, proof, bundle_entry(True, note, located)


def run(module):
    """ca_trust: every CA trusted or not as requested, proven where Python looks, ending in exit_json."""
    params = module.params
    euid = os.geteuid()
    now = dates.utc_now()
    try:
        files = hostfiles.HostFiles(params['root'], show_real=True)
    except hostfiles.HostFileError as exc:
        module.fail_json(msg=str(exc))
    requests, errors = validate(params, now)
    if errors:
        module.fail_json(msg='Nothing was changed: %s' % '; '.join(errors), errors=errors)
    if not requests:
        module.exit_json(changed=False, family=None, update_status='not_needed', update_command=None, cas=[],
                         bundle=bundle_entry(False, 'no CA was given'), msg='No CA was given (cas is empty): nothing to do.')
    try:
        family = store.detect(files)
        plans = store.plan_anchors(files, family, requests, euid)
    except store.StoreError as exc:
        module.fail_json(msg=str(exc))
    except store.PlanError as exc:
        module.fail_json(msg=str(exc), errors=exc.errors)

    changes = [item for item in plans if item.changed]
    done = []
    try:
        if not module.check_mode:
            apply(module, changes, euid, done)
    except safe_file.SafeFileError as exc:
        module.fail_json(msg='%s; anchor files written or removed before the error: %s' % (exc, ', '.join(done) or 'none'))

    actions = [item.action for item in changes if item.content_changed]
    wanted = [(item.request.name, item.request.state, item.certificate) for item in plans]
    result = dict(changed=bool(changes), family=family.name, anchor_folder=files.show(family.anchors))
    if params['root']:
        update, stale, proof = 'pending' if actions else 'not_needed', False, None
        result['bundle'] = bundle_entry(False, 'root is set: the tree\'s bundle is made by its own update, which is '
                                               'not run here, so it was not read')
    else:
        update, stale, proof, result['bundle'] = update_and_prove(module, family, actions, wanted, done, result)
    command = store.update_command(family, actions, stale)
    result.update(update_status=update, update_command=store.shown(command), changed=result['changed'] or stale)
    result['cas'] = [public(item, proof.in_bundle.get(item.request.name) if proof else None, now,
                            params['expiry_warning_days']) for item in plans]
    for warning in warnings(plans, result['cas'], proof):
        module.warn(warning)
    if module._diff and changes:
        result['diff'] = [item.diff(euid) for item in changes]
    result['msg'] = message(changes, update, stale, command, params, module.check_mode)
    module.exit_json(**result)
