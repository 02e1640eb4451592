# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""verification_info's report, put together from the host model: the cfg file (hostwide), the
probed interpreters (probe), every service that concerns the variable (records), host-wide
settings (hostwide) and the summary (report). Also the planned state: the same report of the
host as it will be once cert_verification and service_verification have applied a plan.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import traceback

from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._host import global_settings as hostwide
from ansible_collections.pep493.https.plugins.module_utils._host import interpreters
from ansible_collections.pep493.https.plugins.module_utils._host import model as hostmodel
from ansible_collections.pep493.https.plugins.module_utils._host import paths as hostpath
from ansible_collections.pep493.https.plugins.module_utils._host import systemctl
from ansible_collections.pep493.https.plugins.module_utils._report import services as records
from ansible_collections.pep493.https.plugins.module_utils._report import summary as report
from ansible_collections.pep493.https.plugins.module_utils._syntax import cfg
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.plugins.module_utils._syntax import exceptions
from ansible_collections.pep493.https.plugins.module_utils._syntax import unit_names
from ansible_collections.pep493.https.plugins.module_utils._write import plan


def build_report(files, runtime, path, interpreters, probed, today, wanted=None, readers=None, planned_cfg=None,
                 scan_errors=None, ctl=None):
    """The whole report of verification_info (without ``changed``); ``ctl``: the
    systemctl.Systemctl that gave ``runtime`` (asked for main PIDs the process tree leaves open)."""
    scan_errors = list(scan_errors or [])
    config = hostwide.read_config(files, path, planned_cfg)
    config['readers'] = readers
    host = hostmodel.Host(files, runtime)
    if runtime is not None and ctl is not None and host.runtime.loaded:
        ctl.ask_main_pids(host, scan_errors)
    services = records.scan_services(host, today, wanted)
    scan_errors[:0] = host.errors
    global_settings, errors = hostwide.scan_global(files)
    global_settings.extend(hostwide.manager_settings(runtime.manager.environment if runtime and runtime.manager
                                                     else None))
    scan_errors.extend(errors)
    summary = report.summarize(config, interpreters, services, global_settings, probed, _unique(scan_errors))
    return dict(probed=probed, systemd_running=runtime is not None, config=config, interpreters=interpreters,
                services=services, scan_errors=_unique(scan_errors), summary=summary, **{'global': global_settings})


def _unique(items):
    seen = set()
    return [i for i in items if not (i in seen or seen.add(i))]


# ---------------------------------------------------------------------------------------------
# The planned state
# ---------------------------------------------------------------------------------------------

class Planned(object):
    """A plan as verification_info applies it to its model: ``overlay`` (host path: bytes or
    None), ``cfg`` ((bytes, mode) of the cfg file afterwards, or None: unchanged), ``changes``
    ([{path, action, kind}], kind ``cfg`` or ``dropin``), ``dropins_changed``, ``notes`` (what the
    writing modules would refuse), ``warnings`` (those the writing modules give for the plan, with
    their very words: verify=disable, verify=false exceptions)."""

    def __init__(self):
        self.overlay = {}
        self.cfg = None
        self.changes = []
        self.dropins_changed = False
        self.notes = []
        self.warnings = []


def plan_handmade(planned, files, unit_dir, dropin_name, names):
    """The hand-made drop-ins of ``names`` as service_verification's remove_handmade leaves them."""
    units = []
    for index, name in enumerate(names):
        try:
            units.append(unit_names.validate_unit_name(name))
        except unit_names.UnitNameError as exc:
            raise plan.PlanError('planned.remove_handmade[%d]: %s' % (index, exc))
    for item in plan.plan_handmade(files, unit_dir, dropin_name, sorted(set(units))):
        planned.overlay[item.host] = item.new
        planned.changes.append(dict(path=item.host, action='updated', kind='handmade'))
        planned.dropins_changed = True


def planned_state(files, path, options, euid=0):
    """The Planned of ``options`` (verification_info's ``planned``) on the host ``files``.

    Raises plan.PlanError for input service_verification would refuse, naming it.
    """
    planned = Planned()
    if options.get('verify') is not None or options.get('cfg_state') == 'absent':
        try:
            cfg_plan = plan.plan_cfg(files, path, options.get('verify'), options.get('cfg_state') or 'present',
                                     create=True, repair=bool(options.get('repair')))
        except (plan.PlanError, hostfiles.HostFileError) as exc:
            planned.notes.append('planned: cert_verification would refuse %s: %s' % (path, exc))
        else:
            if cfg_plan.changed:
                planned.overlay[cfg_plan.host] = cfg_plan.new
                planned.cfg = (cfg_plan.new, plan.CFG_NEW_MODE)
                planned.changes.append(dict(path=cfg_plan.host, action='created' if cfg_plan.old is None
                                            else 'updated', kind='cfg'))
            if options.get('cfg_state') != 'absent' and options.get('verify') == 'disable':
                planned.warnings.append(plan.disable_warning(cfg_plan.path))
    wanted = options.get('exceptions') or []
    dropin_name = options.get('dropin_name') or dropin.DEFAULT_DROPIN_NAME
    unit_dir = options.get('unit_dir') or '/etc/systemd/system'
    plan_handmade(planned, files, unit_dir, dropin_name, options.get('remove_handmade') or [])
    if not wanted and not options.get('exclusive'):
        return planned
    found, errors = exceptions.requests(None, wanted, dict(state='present', verify=None, reason=None, expires=None))
    if errors:
        renamed = [e.replace('services[', 'exceptions[', 1) for e in errors]
        raise plan.PlanError('planned.exceptions: %s' % '; '.join(renamed))
    try:
        dropin.validate_dropin_name(dropin_name)
    except dropin.DropinValueError as exc:
        raise plan.PlanError('planned.%s' % exc)
    plans, removals = plan.plan_dropins(files, unit_dir, dropin_name, found, bool(options.get('exclusive')), euid)
    for item in plans + removals:
        if item.changed:
            planned.overlay[item.host] = item.new
            planned.changes.append(dict(path=item.host, action=item.action, kind='dropin'))
            planned.dropins_changed = True
    insecure = plan.insecure_warning(plans)
    if insecure:
        planned.warnings.append(insecure)
    return planned


def assume_reloaded(runtime):
    """service_verification ends a change with daemon-reload: systemd then has every file."""
    if runtime is not None and runtime.manager is not None:
        runtime.manager.loaded_at = float('inf')


# ---------------------------------------------------------------------------------------------
# The module's steps
# ---------------------------------------------------------------------------------------------

def validate_options(params):
    """(wanted units or None, error message or None) of verification_info's options."""
    if not params['path'].startswith('/') or params['path'].endswith('/'):
        return None, ('path %r must be an absolute file path (for example /etc/python/cert-verification.cfg)'
                      % params['path'])
    if params['services'] is None:
        return None, None
    wanted = []
    errors = []
    for name in params['services']:
        try:
            wanted.append(unit_names.validate_unit_name(name))
        except unit_names.UnitNameError as exc:
            errors.append(str(exc))
    if errors:
        return None, 'services: %s' % '; '.join(errors)
    return wanted, None


def report_for(module, wanted, interpreters, probed, readers, today, euid=0):
    """The report verification_info returns, for ``module`` (an AnsibleModule: its params,
    run_command and get_bin_path). Raises plan.PlanError for a planned state that
    service_verification would refuse."""
    params = module.params
    files = hostfiles.HostFiles(params['root'])
    scan_errors = []
    planned = None
    if params.get('planned') is not None:
        planned = planned_state(files, params['path'], params['planned'], euid)
        files = hostfiles.HostFiles(params['root'], overlay=planned.overlay)
        scan_errors.extend(planned.notes)
        if planned.cfg is not None:
            # what the probed readers of the file will do once it changes (platform_default: cannot tell)
            after = {'enable': True, 'disable': False}.get(cfg.parse_cfg(planned.cfg[0]).verify)
            for interpreter in interpreters:
                if interpreter['path'] in (readers or ()):
                    interpreter['verifies_by_default'] = after
    ctl = systemctl.Systemctl(module, params['root'])
    runtime = None
    if ctl.missing:
        scan_errors.append('systemd runs here but systemctl was not found; services reported from files only')
    elif ctl.running:
        runtime = ctl.runtime(scan_errors)
        if planned is not None and planned.dropins_changed:
            assume_reloaded(runtime)
    result = build_report(files, runtime, params['path'], interpreters, probed, today, wanted, readers,
                          planned.cfg if planned else None, scan_errors, ctl if runtime is not None else None)
    result['systemd_running'] = runtime is not None
    result['root'] = params['root']
    result['planned'] = planned is not None
    result['planned_changes'] = planned.changes if planned is not None else []
    result['planned_refusals'] = list(planned.notes) if planned is not None else []
    result['planned_warnings'] = list(planned.warnings) if planned is not None else []
    return result


def probe_host(module):
    """(interpreters, probed): every interpreter probed, unless under root or probe=false."""
    if module.params['root'] or not module.params['probe']:
        return [], False
    return interpreters.probe_interpreters(interpreters.candidate_interpreters(module.params['interpreters'])), True


def run(module):
    """verification_info: the report of the host (or of its planned state), ending in exit_json."""
    params = module.params
    wanted, error = validate_options(params)
    error = error or hostpath.root_error(params['root'])
    if error:
        module.fail_json(msg=error)
    found, probed = probe_host(module)
    readers = [r['path'] for r in interpreters.readers_of(found, params['path'])] if probed else None
    try:
        result = report_for(module, wanted, found, probed, readers, dates.today(), os.geteuid())
    except plan.PlanError as exc:
        module.fail_json(msg='planned: %s' % exc if not str(exc).startswith('planned') else str(exc))
    except Exception as exc:  # the report must never end in a traceback
        module.fail_json(msg='verification_info could not finish the report: %s: %s. This is a defect; '
                             'please report it with the exception below.' % (type(exc).__name__, exc),
                         exception=traceback.format_exc())
    for warning in result.pop('planned_warnings'):
        module.warn(warning)
    module.exit_json(changed=False, **result)
