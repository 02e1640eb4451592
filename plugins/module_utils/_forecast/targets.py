# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""verification_forecast: which Python 2 services would break once they verify, and why.

From the host model (hostmodel): each Python 2 service, the interpreter its commands end in,
the environment systemd gives it, the variable its main process has today, its processes, and
the code its Python 2 commands run. Each service's endpoints (declared, and observed by
endpoints.observe) are probed by tlsprobe under that interpreter with that environment
(PYTHONHTTPSVERIFY removed), with the trust of each HTTPS stack it may use; its code is walked
(usage) to learn whether it uses the standard library's HTTPS, the only thing the knobs govern.

The verdict says what enforcing does to it: ``would_break`` (it uses the standard library's
HTTPS, does not verify today, and an endpoint fails verification), ``already_failing`` (a stack
that verifies today fails), ``unaffected`` (its code uses no stack the knobs govern: enforcing
changes nothing), ``ok`` (every endpoint passes verification, its name checked), or
``unknown`` with the reason and what to declare - never ``ok`` unless proven.

An endpoint a CA the policy configures was proven to fix (ca_fix: ``fixed_by``, the second probe
in ``trust``) counts as that second probe saw it: the verdict is what the service gets once the
policy's CAs are trusted, and says which CA made it so. The target is ``fixed`` when that verdict
is ``ok`` or ``unaffected`` and, without the CAs, it would break or fails already (``is_fixed``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import posixpath

from ansible_collections.pep493.https.plugins.module_utils._forecast import endpoints as eps
from ansible_collections.pep493.https.plugins.module_utils._forecast import tlsprobe
from ansible_collections.pep493.https.plugins.module_utils._host import code_usage as usage_of
from ansible_collections.pep493.https.plugins.module_utils._host import effect as effects
from ansible_collections.pep493.https.plugins.module_utils._host import environment as service_env
from ansible_collections.pep493.https.plugins.module_utils._report import services as records
from ansible_collections.pep493.https.plugins.module_utils._syntax import quoting
from ansible_collections.pep493.https.plugins.module_utils._syntax import unit_names

WOULD_BREAK = 'would_break'
OK = 'ok'
ALREADY_FAILING = 'already_failing'
UNAFFECTED = 'unaffected'
UNKNOWN = 'unknown'
VERDICTS = (WOULD_BREAK, OK, ALREADY_FAILING, UNAFFECTED, UNKNOWN)
# failures of the connection itself, whatever is verified
CONNECTION_FAILURES = (tlsprobe.NOT_TLS, tlsprobe.HANDSHAKE_FAILED, tlsprobe.UNREACHABLE, tlsprobe.TIMEOUT)
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
        self.scripts = []
        self.usage = None
        self._keys = set()

    def add_endpoint(self, host, port, server_name, source):
        key = (host, port, server_name)
        if key in self._keys:
            return
        self._keys.add(key)
        # declared by its address alone: the service asks for that address, which is the name checked
        check_address = source == DECLARED and server_name is None and eps.is_ip(host)
        self.endpoints.append(dict(endpoint=eps.show(host, port), host=host, port=port, server_name=server_name,
                                   source=source, check_address=check_address,
                                   hostname_checked=bool(server_name) or check_address, result=None, error=None,
                                   peer=None, requests=None))

    def has_endpoint(self, host, port):
        return any(key[0] == host and key[1] == port for key in self._keys)


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
    target.scripts = [c.script for c in service.effect.commands if c.python == 2 and c.kind in _FORWARD]
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


def after_trust(endpoint):
    """The endpoint as verification sees it once the policy's CAs are trusted: where a configured
    CA was proven to fix it (``fixed_by``), the results of the second probe; else its own."""
    if not endpoint.get('fixed_by'):
        return endpoint
    trust = endpoint['trust']
    return dict(endpoint, result=trust['result'], error=trust['error'], requests=trust['requests'])


def fixed_by(endpoints):
    """The names of the CAs proven to fix any of ``endpoints``, each once, in order."""
    names = []
    for endpoint in endpoints:
        if endpoint.get('fixed_by') and endpoint['fixed_by'] not in names:
            names.append(endpoint['fixed_by'])
    return names


def unfixed(endpoint):
    """What a configured CA that names the endpoint's issuer did not fix, as a clause, or ''."""
    trust = endpoint.get('trust')
    if not trust or endpoint.get('fixed_by'):
        return ''
    said = trust['result'] or 'not probed'
    if trust['result'] == tlsprobe.OK:
        said = 'requests: %s' % ((trust.get('requests') or {}).get('result') or 'not probed')
    return '; trusting %s (it names the issuer, %s) does not fix it: %s%s' % (
        trust['ca'], trust['matched_by'], said, ': %s' % trust['error'] if trust.get('error') else '')


def verdict(target, today=None):
    """(verdict, why) of a target: what enforcing verification does to it (see the module's
    docstring); ``today`` is verifies_today(target).

    An observed connection that does not speak TLS is plain HTTP or another protocol, which
    verification does not touch (or HTTPS to a port that does not speak it, failing either way):
    it is left out, and a target with nothing else is ``unknown``, never ``ok``. A declared
    endpoint is HTTPS by the operator's word: one that does not speak TLS fails today and after."""
    return _judged(target, today)[:2]


def _judged(target, today):
    """(verdict, why, fixed) of a target: ``verdict`` and ``is_fixed``, each worked out once."""
    found, why = _verdict(target, today)
    fixed = is_fixed(target, today, found)
    if fixed:
        fixing = ', '.join(fixed_by(target.endpoints))
        if found == OK:
            why = 'fixed by trusting %s: %s once it is trusted' % (fixing, why)
        else:
            why = 'fixed by trusting %s: %s; without it, it fails verification today' % (fixing, why)
    elif found in (WOULD_BREAK, ALREADY_FAILING, UNKNOWN):
        why += ''.join(unfixed(e) for e in target.endpoints)
    return found, why, fixed


def is_fixed(target, today, found=None):
    """Whether a CA of the forecast's fixes the target: it works once the CAs are trusted (``ok``,
    or ``unaffected``: the knobs govern nothing it uses) and, as the host is today, it would break
    or fails already. A CA that fixes only what the target does not use (the standard library's
    handshake of a service on requests, which passes anyway) fixes nothing of it."""
    if not fixed_by(target.endpoints):
        return False
    if found is None:
        found = _verdict(target, today)[0]
    return found in (OK, UNAFFECTED) and _verdict(target, today, trusted=False)[0] in (WOULD_BREAK, ALREADY_FAILING)


def _verdict(target, today, trusted=True):
    """The verdict and why, with the second probes of the CAs that fix an endpoint (``trusted``) or
    without them (as the host is today)."""
    usage = target.usage or {}
    governed = usage.get('governed') if target.name is not None else True   # host-wide scripts: assume it
    stacks = usage.get('stacks') or {}
    https = [after_trust(e) if trusted else e for e in target.endpoints if not _plain(e)]
    if governed is False:
        return _ungoverned_verdict(target, usage, stacks, https)
    if not target.endpoints:
        why = 'no endpoint was seen or declared'
        if governed is None:
            why += '; %s' % usage.get('why')
        return UNKNOWN, why + ': declare the endpoints it talks to (pep493_https_forecast_endpoints)'
    if not https:
        return UNKNOWN, _no_tls(target)
    breaking = [e for e in https if e['result'] in tlsprobe.VERIFY_FAILURES]
    if breaking:
        first = breaking[0]
        if today is False and governed is True:
            return WOULD_BREAK, ('it does not verify today and %d endpoint(s) fail verification (%s: %s); %s'
                                 % (len(breaking), first['endpoint'], first['result'], usage.get('why')))
        if today is True:
            return ALREADY_FAILING, 'it verifies today and %d endpoint(s) fail verification (%s: %s)' % (
                len(breaking), first['endpoint'], first['result'])
        if today is False:
            return UNKNOWN, ('%d endpoint(s) fail verification (%s: %s), and whether its code uses the standard '
                             "library's HTTPS cannot be told: %s" % (len(breaking), first['endpoint'],
                                                                     first['result'], usage.get('why')))
        return UNKNOWN, 'endpoints fail verification, and whether it verifies today cannot be told'
    unproven = [e for e in https if e['result'] not in (tlsprobe.OK, tlsprobe.NOT_TLS)]
    if unproven:
        first = unproven[0]
        return UNKNOWN, '%d endpoint(s) could not be proven (%s: %s: %s)' % (
            len(unproven), first['endpoint'], first['result'] or 'not probed', first['error'])
    dead = [e for e in https if e['result'] == tlsprobe.NOT_TLS]
    if dead:
        return ALREADY_FAILING, _dead(dead)
    failing = _verifying_failures(target, stacks, https)
    if failing:
        return ALREADY_FAILING, '%s fails verification today; the standard library would pass' % failing
    return OK, 'every endpoint passes verification, its name checked'


def _plain(endpoint):
    """Whether an endpoint is an observed connection that does not speak TLS."""
    return endpoint.get('source') == OBSERVED and endpoint.get('result') == tlsprobe.NOT_TLS


def _no_tls(target):
    plain = [e['endpoint'] for e in target.endpoints if _plain(e)]
    return ('no connection it was seen making speaks TLS (%s: not_tls): plain HTTP or another protocol, which '
            'verification does not touch, or HTTPS to a port that does not speak it, failing either way; declare '
            'its HTTPS endpoints, if it has any (pep493_https_forecast_endpoints)' % ', '.join(plain))


def _dead(endpoints):
    first = endpoints[0]
    return ('%d declared endpoint(s) cannot be reached over TLS (%s: %s: %s): it fails there today and will after '
            'enforcing' % (len(endpoints), first['endpoint'], first['result'], first.get('error')))


def _ungoverned_verdict(target, usage, stacks, https):
    """The verdict of a target whose code uses no stack the knobs govern: enforcing changes nothing
    for it; what it gets today is told where it can be."""
    failing = _verifying_failures(target, stacks, https)
    if failing:
        return ALREADY_FAILING, ('%s, and %s fails verification today; enforcing changes nothing for it'
                                 % (usage.get('why'), failing))
    dead = [e for e in https if e.get('source') == DECLARED and e['result'] in CONNECTION_FAILURES]
    if dead:
        return ALREADY_FAILING, '%s; %s' % (usage.get('why'), _dead(dead))
    unproven = [e for e in https if e['result'] is None or e['result'] in CONNECTION_FAILURES]
    if unproven:
        first = unproven[0]
        return UNKNOWN, ('%s: enforcing changes nothing for it, but whether it works today cannot be told: %d '
                         'endpoint(s) could not be proven (%s: %s: %s)'
                         % (usage.get('why'), len(unproven), first['endpoint'], first['result'] or 'not probed',
                            first['error']))
    if target.endpoints and not https:
        return UNKNOWN, '%s: enforcing changes nothing for it; %s' % (usage.get('why'), _no_tls(target))
    if _verifies_anyway(stacks):
        unnamed = [e for e in https if e['result'] == tlsprobe.NAME_UNKNOWN
                   or (e.get('requests') or {}).get('result') == tlsprobe.NAME_UNKNOWN]
        if unnamed:
            return UNKNOWN, ('%s: enforcing changes nothing for it, but it verifies today, names included, and the '
                             'name it asks %s for is not known (seen by its address only): declare the endpoint '
                             'with its server_name' % (usage.get('why'), unnamed[0]['endpoint']))
    return UNAFFECTED, '%s: enforcing changes nothing for it' % usage.get('why')


def _verifies_anyway(stacks):
    """Whether a stack the target uses verifies whatever the knobs say (requests; urllib3 1.25+)."""
    return bool((stacks.get('requests') or {}).get('used')
                or ((stacks.get('urllib3') or {}).get('used') and (stacks.get('urllib3') or {}).get('verifies_without_knobs')))


def _verifying_failures(target, stacks, endpoints):
    """The stack that verifies today whatever the knobs say (requests; urllib3 1.25 and later,
    which trusts what the standard library trusts) and fails on an endpoint, as text, or None."""
    if (stacks.get('requests') or {}).get('used'):
        for endpoint in endpoints:
            found = endpoint.get('requests') or {}
            if found.get('result') in tlsprobe.VERIFY_FAILURES:
                return 'requests (with its bundle %s) on %s: %s' % (
                    (target.answer or {}).get('requests_bundle'), endpoint['endpoint'], found['result'])
    urllib3 = stacks.get('urllib3') or {}
    if urllib3.get('used') and urllib3.get('verifies_without_knobs'):
        for endpoint in endpoints:
            if endpoint['result'] in tlsprobe.VERIFY_FAILURES:
                return 'urllib3 on %s: %s' % (endpoint['endpoint'], endpoint['result'])
    return None


def probe_targets(targets, timeout, budget, cap, run=tlsprobe.run_groups):
    """Probe the targets' endpoints (at most ``cap`` in all), one process per interpreter and
    environment (those of targets without endpoints too: the process also tells what the
    interpreter has); fills each endpoint's results and each target's answer."""
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
                                           server_name=endpoint['server_name'],
                                           check_address=endpoint['check_address']))
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


def add_usage(targets, files, deadline, walk=usage_of.service_usage):
    """Each service target's usage: the stacks its Python 2 code uses, walked over the module path
    its interpreter reported (or that interpreter's usual folders)."""
    for target in targets:
        if target.name is None or target.usage is not None:
            continue
        packages = (target.answer or {}).get('packages')
        path = [entry for entry in (packages or {}).get('path') or [] if entry.startswith('/')]
        if not path:
            path = usage_of.default_search_path(target.interpreter, files)
        target.usage = walk(target.scripts, files, path, packages, deadline)


def target_report(target):
    """The result entry of one target."""
    today = verifies_today(target)
    found, why, fixed = _judged(target, today)
    if target.why and not target.endpoints and found == UNKNOWN:
        why = target.why
    answer = target.answer or {}
    if answer.get('error'):
        target.notes.append(answer['error'])
    usage = target.usage or {}
    for endpoint in target.endpoints:
        endpoint.pop('check_address', None)
        endpoint.pop('certificate', None)
        endpoint.setdefault('fixed_by', None)
        endpoint.setdefault('trust', None)
        if endpoint.get('peer'):
            endpoint['peer'] = dict((key, quoting.escaped(value) if isinstance(value, quoting.TEXT_TYPES) else value)
                                    for key, value in endpoint['peer'].items())
    return dict(service=target.name, interpreter=target.interpreter, python_version=answer.get('version'),
                verifies_today=today, policy_verifies=target.policy_verifies, exception=target.exception,
                verdict=found, why=why, fixed_by=fixed_by(target.endpoints), fixed=fixed, governed=usage.get('governed'),
                stacks=usage.get('stacks') or {},
                processes=target.pids, endpoints=target.endpoints, notes=target.notes)


def summarize(entries):
    """Counts per verdict (and ``fixed``: the ones a configured CA fixes, ``is_fixed``), one line per
    endpoint that breaks a service, one per service that cannot be forecast, then one per service
    a configured CA fixes."""
    counted = [e for e in entries if e['policy_verifies']]
    summary = dict((name, sum(1 for e in counted if e['verdict'] == name)) for name in VERDICTS)
    summary['fixed'] = sum(1 for e in counted if e.get('fixed'))
    summary['findings'] = []
    for entry in counted:
        if entry['verdict'] not in (WOULD_BREAK, ALREADY_FAILING):
            continue
        for endpoint in entry['endpoints']:
            if after_trust(endpoint)['result'] in tlsprobe.VERIFY_FAILURES:
                issuer = (endpoint.get('peer') or {}).get('issuer')
                summary['findings'].append('%s: %s %s %s (%s)%s' % (
                    entry['service'] or 'host-wide scripts', entry['verdict'].replace('_', ' '),
                    'on' if entry['verdict'] == WOULD_BREAK else 'against', endpoint['endpoint'],
                    endpoint['result'], '; issuer %s' % issuer if issuer else '') + unfixed(endpoint))
    for entry in counted:
        if entry['verdict'] == UNKNOWN:
            summary['findings'].append('%s: cannot be forecast: %s' % (entry['service'] or 'host-wide scripts',
                                                                       entry['why']))
    for entry in counted:
        if entry.get('fixed'):
            summary['findings'].append('%s: fixed by trusting %s' % (entry['service'] or 'host-wide scripts',
                                                                     ', '.join(entry['fixed_by'])))
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
            if target.has_endpoint(address, port):
                continue        # declared already, maybe with the server name the service asks for
            target.add_endpoint(address, port, None, OBSERVED)
