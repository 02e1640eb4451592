# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""verification_forecast's steps: check the options, ask systemd what runs, build one target
per Python 2 service (and the host's own scripts), watch their connections, probe every
endpoint within the budget, probe again each untrusted endpoint with the configured CA that names
its issuer, and report a verdict per service."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import time

from ansible_collections.pep493.https.plugins.module_utils._forecast import ca_fix
from ansible_collections.pep493.https.plugins.module_utils._forecast import endpoints as eps
from ansible_collections.pep493.https.plugins.module_utils._forecast import targets as forecast
from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._host import model as hostmodel
from ansible_collections.pep493.https.plugins.module_utils._host import paths as hostpath
from ansible_collections.pep493.https.plugins.module_utils._host import systemctl
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._syntax import unit_names

HOST_INTERPRETERS = ('/usr/bin/python2.7', '/usr/bin/python2', '/usr/local/bin/python2.7', '/usr/bin/python')
# finite limits only: a forecast must end
MAX_TIMEOUT = 300
MAX_BUDGET = 3600


def validate(params):
    """(declared endpoints, wanted units or None); raises ValueError naming the bad input."""
    for name, most in (('timeout', MAX_TIMEOUT), ('budget', MAX_BUDGET)):
        # "not >" also catches NaN; an infinite limit is no limit
        if not params[name] > 0 or not params[name] <= most:
            raise ValueError('%s must be more than 0 and at most %d seconds, not %s' % (name, most, params[name]))
    if not 0 <= params['observe_seconds'] < params['budget']:
        raise ValueError('observe_seconds must be from 0 to less than budget (%s), not %s'
                         % (params['budget'], params['observe_seconds']))
    if hostpath.root_error(params['root']):
        raise ValueError(hostpath.root_error(params['root']))
    if params['max_endpoints'] < 1:
        raise ValueError('max_endpoints must be 1 or more, not %s' % params['max_endpoints'])
    names = [('services', n) for n in params['services'] or []]
    names += [('keep_unverified', n) for n in params['keep_unverified']]
    names += [('endpoints[%d].services' % i, n) for i, e in enumerate(params['endpoints']) for n in e['services']]
    names += [('cas[%d].services' % i, n) for i, ca in enumerate(params['cas']) for n in ca['services']]
    for where, name in names:
        try:
            unit_names.validate_unit_name(name)
        except unit_names.UnitNameError as exc:
            raise ValueError('%s: %s' % (where, exc))
    try:
        declared = forecast.validate_endpoints(params['endpoints'])
    except eps.EndpointError as exc:
        raise ValueError(str(exc))
    wanted = None if params['services'] is None else set(unit_names.canonical(n) for n in params['services'])
    ca_fix.validate_cas(params['cas'], dates.utc_now())
    return declared, wanted


def host_interpreter(module):
    if module.params['interpreter']:
        return module.params['interpreter']
    for path in HOST_INTERPRETERS:
        real = os.path.realpath(path)
        if os.path.isfile(real) and os.path.basename(real).startswith('python2'):
            return path
    return None


def run(module):
    """verification_forecast: a verdict per Python 2 service, ending in exit_json."""
    params = module.params
    try:
        declared, wanted = validate(params)
    except ValueError as exc:
        module.fail_json(msg=str(exc))
    started = time.time()
    scan_errors = []
    runtime = None
    ctl = systemctl.Systemctl(module, params['root'])
    if ctl.path:
        runtime = ctl.runtime(scan_errors)
    files = hostfiles.HostFiles(params['root'])
    host = hostmodel.Host(files, runtime)
    if runtime is not None and runtime.loaded:
        ctl.ask_main_pids(host, scan_errors)
    targets, host_target, warnings = forecast.build_targets(
        host, declared, wanted, params['keep_unverified'], params['all_python2'],
        None if params['root'] else host_interpreter(module), files.exists)
    everything = targets + ([host_target] if host_target is not None else [])
    if params['root']:
        for target in everything:
            target.interpreter, target.why = None, 'under root nothing is run'
    else:
        forecast.add_observed(targets, params['observe_seconds'])
    # the budget is the host's: watching the connections spent part of it
    left = max(params['budget'] - (time.time() - started), 0.1)
    probed = forecast.probe_targets(everything, params['timeout'], left, params['max_endpoints'])
    if params['cas'] and not params['root']:
        cas = ca_fix.validate_cas(params['cas'], dates.utc_now(),
                                  lambda name: host.tree.unit_id(unit_names.canonical(name)))
        left = max(params['budget'] - (time.time() - started), 0.1)
        ca_fix.try_cas(everything, cas, files, params['timeout'], left)
    # the code of each service, walked within what is left of the budget (never less than a second)
    forecast.add_usage(targets, files, max(started + params['budget'], time.time() + 1.0))
    entries = [forecast.target_report(t) for t in targets]
    host_entry = forecast.target_report(host_target) if host_target is not None else None
    summary = forecast.summarize(entries + ([host_entry] if host_entry else []))
    summary['probed_endpoints'] = probed
    for warning in warnings:
        module.warn(warning)
    module.exit_json(changed=False, services=entries, host_wide=host_entry, summary=summary,
                     systemd_running=runtime is not None, scan_errors=scan_errors + host.errors)
