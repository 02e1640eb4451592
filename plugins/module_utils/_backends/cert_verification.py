# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""cert_verification's steps: check the options, plan the file (plan), write it through the one
safe writer with its history (safe_file, history), set its attributes, then say which of the
host's interpreters read it (interpreters) and warn where it has no effect or cannot be read."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import stat

from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._host import interpreters
from ansible_collections.pep493.https.plugins.module_utils._report import summary as report
from ansible_collections.pep493.https.plugins.module_utils._syntax import cfg
from ansible_collections.pep493.https.plugins.module_utils._write import history
from ansible_collections.pep493.https.plugins.module_utils._write import plan
from ansible_collections.pep493.https.plugins.module_utils._write import safe_file


def probe_consumers(module, dest):
    if module.params['root']:
        return [], False
    results = interpreters.probe_interpreters(interpreters.candidate_interpreters())
    consumers = [dict(path=r['path'], version=r['version'], verifies_by_default=r['verifies_by_default'])
                 for r in interpreters.readers_of(results, dest)]
    return consumers, True


def restore_and_exit(module, dest, old):
    try:
        result = history.restore(module, dest, old, module.params['allow_disable'])
    except (history.HistoryError, safe_file.SafeFileError) as exc:
        module.fail_json(msg=str(exc), path=dest)
    diff = result.pop('diff', None)
    omitted = result.pop('diff_omitted', None)
    if module._diff and diff:
        result['diff'] = [diff]
        if omitted:
            result['diff_omitted'] = omitted
    for entry in result['skipped_backups']:
        module.warn('%s was not restored: %s' % (entry['path'], entry['reason']))
    if result['restored_from'] is None:
        module.warn(result['msg'])
    result['repaired_lines'] = []
    result['consumers'], result['probed'] = probe_consumers(module, dest)
    module.exit_json(**result)


def readable_by_all(module, dest, params, result):
    """Whether others may read the file as it is now (a 0600 file is kept as it is, but non-root
    Python 2 programs then cannot read it and fall back to platform_default): say so."""
    try:
        mode = stat.S_IMODE(os.stat(dest).st_mode)
    except OSError:
        return
    result['readable_by_all'] = bool(mode & 0o004)
    value = result['verify']
    if not result['readable_by_all'] and value in ('enable', 'disable'):
        module.warn(report.unreadable_cfg(dest, '%04o' % mode, value, "set mode: '0644'."))


def write(module, planned, result):
    """Back up (on request, or before a repair), then write the planned content."""
    params = module.params
    if planned.old is not None and (params['backup'] or planned.repaired):
        result['backup_file'] = history.backup(module, planned.path, planned.old)
    safe_file.make_dirs(module, os.path.dirname(planned.path))
    wanted = params['verify'] if params['state'] == 'present' else None
    safe_file.write_atomic(module, planned.path, planned.new, check=plan.cfg_read_back_check(wanted))


def run(module):
    """cert_verification: the file as requested (or restored), ending in exit_json."""
    params = module.params
    if params['state'] != 'present' and params['verify'] is not None:
        module.fail_json(msg='verify=%s is not used with state=%s; remove verify or use state=present'
                             % (params['verify'], params['state']))
    errors = safe_file.file_arg_errors(module)
    if errors:
        module.fail_json(msg='Nothing was changed: %s' % '; '.join(errors), errors=errors)
    try:
        files = hostfiles.HostFiles(params['root'], show_real=True)
        if params['state'] == 'restored':
            # a restore must work whatever the current file holds, a malformed one included
            resolved, old = plan.locate_cfg(files, params['path'], params['follow'])
            restore_and_exit(module, resolved.real, old)
        planned = plan.plan_cfg(files, params['path'], params['verify'], params['state'], params['create'],
                                params['repair'], params['follow'])
    except hostfiles.HostFileError as exc:
        # the path under root: Ansible adds the mode and owner of the file it names to a failure
        module.fail_json(msg=str(exc), path=os.path.join(params['root'] or '/', params['path'].lstrip('/')))
    except plan.PlanError as exc:
        module.fail_json(msg=str(exc), **(dict(errors=exc.errors) if exc.errors else {}))

    dest = planned.path
    result = dict(changed=planned.changed, previous=planned.previous, path=dest, repaired_lines=planned.repaired,
                  created=planned.old is None and planned.new is not None)
    result['verify'] = cfg.parse_cfg(planned.new).verify if planned.new is not None else 'platform_default'
    diffs = []
    if planned.changed:
        content, omitted = safe_file.content_diff(planned.old, planned.new, dest, dest)
        diffs.append(content)
        if omitted and module._diff:
            result['diff_omitted'] = [omitted]
    record = None
    try:
        if planned.changed and not module.check_mode:
            safe_file.make_dirs(module, os.path.dirname(planned.path))
            record = history.record_original(planned.path, planned.old) if params['backup'] else None
            write(module, planned, result)
    except safe_file.SafeFileError as exc:
        history.discard(record)  # the file did not change: no trace of this run
        module.fail_json(msg=str(exc), path=dest)
    if record:
        result['record_file'] = record

    if os.path.exists(dest):
        attr_diff = dict(before_header=dest, after_header=dest, before={}, after={})
        file_args = safe_file.file_args_for(module, dest, default_mode='0644', exists=planned.old is not None)
        try:
            safe_file.split_hard_link(module, dest, planned.new, file_args)
            result['changed'] = safe_file.set_attributes(module, dest, file_args, result['changed'], attr_diff)
        except safe_file.SafeFileError as exc:
            module.fail_json(msg=str(exc), path=dest)
        if attr_diff['before'] or attr_diff['after']:
            diffs.append(attr_diff)
    if module._diff and diffs:
        result['diff'] = diffs
    readable_by_all(module, dest, params, result)

    result['consumers'], result['probed'] = probe_consumers(module, dest)
    if params['state'] == 'present' and params['verify'] == 'disable':
        module.warn(plan.disable_warning(dest))
    if result['probed'] and not result['consumers'] and result['changed'] and params['state'] == 'present':
        # no machine name here: a container's is its ID; the policy role's step names the inventory host
        module.warn('%s %s, but no Python on this host reads it (only RHEL/CentOS 7 system python and SCL '
                    'python27 do; no Python 3 does), so it has no effect here.'
                    % (dest, 'would be changed' if module.check_mode else 'written'))
    module.exit_json(**result)
