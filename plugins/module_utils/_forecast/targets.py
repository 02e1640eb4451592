# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""verification_forecast: which Python 2 services would break once they verify, and why.

From the host model (hostmodel): each Python 2 service, the interpreter its commands end in,
the environment systemd gives it, the variable its main process has today, its processes.
Each service's endpoints (declared, and observed by endpoints.observe) are probed by tlsprobe
under that interpreter with that environment (PYTHONHTTPSVERIFY removed); the verdict says
what happens once verification is on for it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import posixpath

from ansible_collections.pep493.https.plugins.module_utils._forecast import endpoints as eps
from ansible_collections.pep493.https.plugins.module_utils._forecast import tlsprobe
from ansible_collections.pep493.https.plugins.module_utils._host import effect as effects
from ansible_collections.pep493.https.plugins.module_utils._host import environment as service_env
from ansible_collections.pep493.https.plugins.module_utils._report import services as records
from ansible_collections.pep493.https.plugins.module_utils._syntax import unit_names

WOULD_BREAK = 'would_break'
OK = 'ok'
ALREADY_FAILING = 'already_failing'
UNKNOWN = 'unknown'
VERDICTS = (WOULD_BREAK, OK, ALREADY_FAILING, UNKNOWN)
DECLARED = 'declared'
OBSERVED = 'observed'
CLEAN_ENVIRONMENT = {'PATH': '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'LC_ALL': 'C'}
_FORWARD = (effects.PYTHON2, effects.IGNORED, effects.ENV_UNSET, effects.ENV_OVERRIDE)


class Target(object):
    """What is forecast: a service (``name``) or the host's own scripts (``name`` None)."""

    def __init__(self, name, interpreter=None, environment=None, value=None, ignored=False, policy_verifies=True):
        self.name = name
        self.interpreter = interpreter
        self.environment = environment if environment is not None else dict(CLEAN_ENVIRONMENT)
        self.value = value
        self.ignored = ignored
        self.policy_verifies = policy_verifies
        self.pids = []
        self.endpoints = []
        self.notes = []
        self.why = None
        self.answer = None
        self.exception = None

    def add_endpoint(self, host, port, server_name, source):
        key = (host, port, server_name)
        if any((e['host'], e['port'], e['server_name']) == key for e in self.endpoints):
            return
        self.endpoints.append(dict(endpoint=eps.show(host, port), host=host, port=port, server_name=server_name,
                                   source=source, hostname_checked=bool(server_name), result=None, error=None,
                                   peer=None))


def validate_endpoints(entries):
    """[(host, port, server_name, [services])] of the module's ``endpoints``; raises
    eps.EndpointError naming the entry."""
    found = []
    for index, entry in enumerate(entries or []):
        where = 'endpoints[%d]' % index
        try:
            host, port = eps.parse_endpoint(entry.get('endpoint'))
        except eps.EndpointError as exc:
            raise eps.EndpointError('%s.endpoint %s' % (where, exc))
        name = entry.get('server_name')
        if name is not None and not eps.is_name(name):
            raise eps.EndpointError('%s.server_name %r is not a host name (the name the service asks for in TLS)'
                                    % (where, name))
        if name is None and not eps.is_ip(host):
            name = host
        found.append((host, port, name or None, [unit_names.canonical(s) for s in entry.get('services') or []]))
    return found


def is_python2(service):
    return any(c.python == 2 for c in service.effect.commands)


def interpreter_of(service, exists=os.path.exists):
    """(path, None) of the Python 2 interpreter the service's commands end in, or (None, why)."""
    if service.config.root_directory or service.config.root_image:
        return None, 'it runs in its own root (RootDirectory=/RootImage=), which the probe cannot enter'
    for command in service.effect.commands:
        if command.python != 2 or command.kind not in _FORWARD:
            continue
        program = command.program
        if '/' not in program:
            found = [posixpath.join(d, program) for d in effects.EXEC_SEARCH_PATH
                     if exists(posixpath.join(d, program))]
            if not found:
                return None, '%s is not in the search path' % program
            program = found[0]
        return program, None
    return None, 'no command of it runs Python 2'


def service_target(service, host, policy_verifies, exists=os.path.exists):
    """The Target of a Python 2 service of ``host`` (a hostmodel.Host)."""
    value, known, _setting = service.variable()
    value = effects.main_process_value(service.effect, value) if known else None
    target = Target(service.name, policy_verifies=policy_verifies)
    target.pids = list(service.processes)
    table = host.runtime.processes if host.runtime is not None else None
    if service.main_pid and table is not None:
        running, error = table.value_of(service.main_pid)
        if error is None:
            value, known = running, True
    if not known:
        target.notes.append('the value of PYTHONHTTPSVERIFY cannot be told: %s' % service.unknown_why())
        target.value = service_env.Unknown(service.unknown_why())
    else:
        target.value = value
    target.ignored = all(c.kind == effects.IGNORED for c in service.effect.commands if c.python == 2)
    environment = {}
    for name, (found, _setting) in service.environment.variables.items():
        if isinstance(found, service_env.Unknown):
            target.notes.append('%s is left out of the probe: %s' % (name, found.why))
        elif found is not None:
            environment[name] = found
    target.environment = tlsprobe.probe_environment(environment)
    target.interpreter, target.why = interpreter_of(service, exists)
    reason, expires = records.managed_exception(service)
    if reason is not None or expires is not None:
        target.exception = dict(reason=reason, expires=expires)
    return target


def verifies_today(target):
    """Whether the target's Python 2 verifies today (True/False), None when it cannot be told."""
    answer = target.answer or {}
    default = answer.get('default_verifies')
    if isinstance(target.value, service_env.Unknown):
        return None
    if target.ignored or answer.get('honours_env') is False or target.value is None:
        return default
    return target.value != '0'


def verdict(today, results):
    """(verdict, why) of a target from whether it verifies today and its endpoints' results."""
    if not results:
        return UNKNOWN, 'no endpoint was seen or declared'
    failing = [r for r in results if r in tlsprobe.VERIFY_FAILURES]
    if failing:
        if today is False:
            return WOULD_BREAK, 'it does not verify today and %d endpoint(s) fail verification' % len(failing)
        if today is True:
            return ALREADY_FAILING, 'it verifies today and %d endpoint(s) fail verification' % len(failing)
        return UNKNOWN, 'endpoints fail verification, and whether it verifies today cannot be told'
    unchecked = [r for r in results if r not in (tlsprobe.OK, tlsprobe.NOT_TLS)]
    if unchecked:
        return UNKNOWN, '%d endpoint(s) could not be checked' % len(unchecked)
    return OK, 'every endpoint passes verification' if tlsprobe.OK in results else 'no endpoint speaks TLS'


def probe_targets(targets, timeout, budget, cap, run=tlsprobe.run_groups):
    """Probe the targets' endpoints (at most ``cap`` in all), one process per interpreter and
    environment; fills each endpoint's result and each target's answer."""
    groups = {}
    count = 0
    for target in targets:
        if target.interpreter is None:
            for endpoint in target.endpoints:
                endpoint['error'] = 'not probed: %s' % (target.why or 'no Python 2 interpreter to probe with')
            continue
        key = (target.interpreter, tuple(sorted(target.environment.items())))
        group = groups.setdefault(key, (tlsprobe.Group(target.interpreter, target.environment, []), []))
        group[1].append(target)
        for endpoint in target.endpoints:
            if count >= cap:
                endpoint['error'] = 'not probed: the cap of %d endpoints per host was reached' % cap
                continue
            count += 1
            endpoint['_index'] = len(group[0].endpoints)
            group[0].endpoints.append(dict(host=endpoint['host'], port=endpoint['port'],
                                           server_name=endpoint['server_name']))
    ordered = [groups[key] for key in sorted(groups)]
    run([group for group, _targets in ordered], timeout, budget)
    for group, members in ordered:
        for target in members:
            target.answer = group.answer
            for endpoint in target.endpoints:
                index = endpoint.pop('_index', None)
                if index is not None:
                    endpoint.update(group.answer['results'][index])
    return count


def target_report(target):
    """The result entry of one target."""
    today = verifies_today(target)
    results = [e['result'] for e in target.endpoints]
    found, why = verdict(today, results)
    if target.why and not target.endpoints:
        why = target.why
    answer = target.answer or {}
    if answer.get('error'):
        target.notes.append(answer['error'])
    return dict(service=target.name, interpreter=target.interpreter, python_version=answer.get('version'),
                verifies_today=today, policy_verifies=target.policy_verifies, exception=target.exception,
                verdict=found, why=why,
                processes=target.pids, endpoints=target.endpoints, notes=target.notes)


def summarize(entries):
    """Counts per verdict, and one line per endpoint that breaks a service."""
    counted = [e for e in entries if e['policy_verifies']]
    summary = dict((name, sum(1 for e in counted if e['verdict'] == name)) for name in VERDICTS)
    summary['findings'] = []
    for entry in counted:
        if entry['verdict'] not in (WOULD_BREAK, ALREADY_FAILING):
            continue
        for endpoint in entry['endpoints']:
            if endpoint['result'] in tlsprobe.VERIFY_FAILURES:
                issuer = (endpoint.get('peer') or {}).get('issuer')
                summary['findings'].append('%s: %s %s %s (%s)%s' % (
                    entry['service'] or 'host-wide scripts', entry['verdict'].replace('_', ' '),
                    'on' if entry['verdict'] == WOULD_BREAK else 'against', endpoint['endpoint'],
                    endpoint['result'], '; issuer %s' % issuer if issuer else ''))
    return summary


# why a unit that is not loaded runs nothing, in words (systemd's load states)
LOAD_STATE_WORDS = {
    'not-found': 'systemd has no unit of that name',
    'masked': 'the unit is masked (linked to /dev/null), so it never starts',
    'error': 'its unit file cannot be read',
    'bad-setting': 'its unit file has a setting systemd refuses',
}


def unit_not_loaded(load_state):
    """Why a unit whose load state is ``load_state`` (not ``loaded``) is not probed."""
    words = LOAD_STATE_WORDS.get(load_state, 'systemd has not loaded the unit')
    return '%s (its load state is %s)' % (words, load_state)


def build_targets(host, declared, wanted=None, keep_unverified=(), all_python2=False, host_interpreter=None,
                  exists=os.path.exists):
    """(targets, host-wide target or None, warnings) for ``host`` (a hostmodel.Host) and the
    declared endpoints (validate_endpoints)."""
    warnings = []
    named = set(s for _h, _p, _n, services in declared for s in services)
    keep = set(unit_names.canonical(s) for s in keep_unverified)
    targets = {}
    for name in sorted(set(host.candidates()) | named):
        if wanted is not None and name not in wanted:
            continue
        service = host.service(name)
        if service.unit.load_state != 'loaded' or not is_python2(service):
            if name in named:
                warnings.append('%s: its declared endpoints are not probed: %s' % (
                    name, unit_not_loaded(service.unit.load_state) if service.unit.load_state != 'loaded'
                    else 'no command of it is known to run Python 2, and Python 3 is not affected by PEP 493'))
            continue
        policy_verifies = service.name not in keep
        if not policy_verifies and not all_python2:
            continue
        targets[service.name] = service_target(service, host, policy_verifies, exists)
    host_target = None
    for address, port, server_name, services in declared:
        if not services:
            if host_target is None:
                host_target = Target(None, host_interpreter)
                if host_interpreter is None:
                    host_target.why = 'no Python 2 interpreter was found for host-wide endpoints; set interpreter'
            host_target.add_endpoint(address, port, server_name, DECLARED)
        for name in services:
            target = targets.get(host.tree.unit_id(name)) if name in named else None
            if target is not None:
                target.add_endpoint(address, port, server_name, DECLARED)
    return [targets[name] for name in sorted(targets)], host_target, warnings


def add_observed(targets, seconds, observe=eps.observe):
    """Add each target's observed endpoints (its processes' outgoing connections)."""
    pids = dict((t.name, t.pids) for t in targets if t.pids)
    if not pids:
        return
    seen = observe(pids, seconds)
    for target in targets:
        for address, port in seen.get(target.name, ()):
            if any(e['host'] == address and e['port'] == port for e in target.endpoints):
                continue        # declared already, maybe with the server name the service asks for
            target.add_endpoint(address, port, None, OBSERVED)
