# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``services`` part of verification_info's report: which services to report and one
record per service, from the host model (hostmodel.Host)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._host import global_settings as hostwide
from ansible_collections.pep493.https.plugins.module_utils._host import effect as effects
from ansible_collections.pep493.https.plugins.module_utils._host import units
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.plugins.module_utils._syntax import quoting
from ansible_collections.pep493.https.plugins.module_utils._syntax import unit_names
from ansible_collections.pep493.https.plugins.module_utils._trust import service_bundle
from ansible_collections.pep493.https.plugins.module_utils._trust import x509

VARIABLE = 'PYTHONHTTPSVERIFY'
_MARKER = dropin.MARKER.encode('ascii')


def _wanted(name, wanted):
    return wanted is None or name in wanted or unit_names.template_of(name) in wanted


def select_services(host, wanted=None):
    """The Services to report, sorted by name: every service whose configuration mentions the
    variable, and every running one whose main process has a value its unit no longer gives.

    ``wanted``: only these units (a template stands for itself and its loaded instances).
    A template is reported by itself only when none of its instances is loaded; an alias and
    its unit are one service.
    """
    loaded = host.runtime.loaded if host.runtime is not None else {}
    nominated = set(host.runtime.processes.units_with_variable()) if host.runtime and host.runtime.processes else set()
    chosen = {}
    loaded_templates = set(unit_names.template_of(other) for other in loaded)
    for name in host.candidates() + sorted(nominated):
        if not _wanted(name, wanted) or name in chosen:
            continue
        if name in loaded_templates:
            continue
        if name not in nominated and not host.may_matter(name):
            continue
        service = host.service(name)
        if service.unit.id in chosen or (service.unit.id != name and not _wanted(service.unit.id, wanted)
                                         and not _wanted(name, wanted)):
            continue
        if _reported(host, service):
            chosen[service.unit.id] = service
    return [chosen[name] for name in sorted(chosen)]


def _reported(host, service):
    if service.unit.load_state == units.NOT_FOUND and not service.unit.own_dropins:
        # only drop-ins meant for all services (service.d, a prefix): not a unit of this host
        return _pending(host, service) is True
    if service.mentions():
        return True
    value, known, _setting = service.variable()
    if not known:
        return True
    return _pending(host, service) is True


def _pending(host, service):
    """(pending restart, running value, error): whether the running main process does not have
    the value a restart would give it; None when that cannot be told."""
    return running_view(host, service)[0]


def running_view(host, service):
    """(pending_restart, running_value, running_value_error) of a service."""
    if service.main_pid is None or host.runtime is None or host.runtime.processes is None:
        return False, None, None
    running, error = host.runtime.processes.value_of(service.main_pid)
    if error:
        return None, None, error
    value, known, _setting = service.variable()
    if not known:
        return None, running, None
    return running != service.expected_main_value(), running, None


def _managed_dropin(service):
    """(path, reason, expires, value) of the last drop-in of ours that applies to the service,
    or Nones; the value it sets is read from the model (its Environment= lines as parsed)."""
    found = (None, None, None, None)
    for path, kind, data in service.unit.files:
        if kind != 'dropin' or _MARKER not in data:
            continue
        header = dropin.parse_header(data)
        if header is None:
            continue
        if service.unit.load_state == units.LOADED:
            value = None
            for name, assigned, setting, _why in service.config.environment:
                if setting.path == path and name in (None, VARIABLE):
                    value = assigned
        else:
            value = dropin.environment_value(data)
        found = (path, header[0], header[1], value)
    return found


def trusted_ca(files, service, ours):
    """The ``ca`` entry of a service whose managed drop-in ``ours`` trusts a CA: its fingerprint,
    subject (read from the bundle's last certificate), bundle and the bundle's state (current,
    stale, missing, foreign); None when the drop-in trusts none."""
    data = None
    for path, kind, content in service.unit.files:
        if path == ours and kind == 'dropin':
            data = content
    parsed = dropin.parse_dropin(data) if data is not None else None
    if not parsed or not parsed['ca']:
        return None
    bundle = parsed['ca_bundle']
    state, header = service_bundle.bundle_state(files, bundle) if bundle else (service_bundle.MISSING, None)
    if header is not None and header['ca_fingerprint'] != parsed['ca']:
        state = service_bundle.FOREIGN
    subject = None
    if state in (service_bundle.CURRENT, service_bundle.STALE):
        try:
            tail = files.read(bundle, service_bundle.MAX_SYSTEM_BUNDLE)
            found = x509.load_certificates(tail[tail.rindex(b'-----BEGIN CERTIFICATE-----'):])
            subject = quoting.escaped(found[0].subject) if found else None
        except (ValueError, x509.CertificateError, hostfiles.HostFileError):
            subject = None
    return dict(sha256_fingerprint=parsed['ca'], subject=subject, bundle=bundle, bundle_state=state)


def managed_exception(service):
    """(reason, expires) of the drop-in of ours that applies to the service, or (None, None)."""
    _path, reason, expires, _value = _managed_dropin(service)
    return reason, str(expires) if expires else None


def service_record(host, service, today=None):
    """One entry of ``services`` (the keys RETURN documents)."""
    value, known, setting = service.variable()
    ours, reason, expires, managed_value = _managed_dropin(service)
    pending, running, running_error = running_view(host, service)
    effect = service.effect
    reach = host.reach(service)
    source = setting.path if setting is not None else None
    source_kind = setting.kind if setting is not None else None
    if value is None and source_kind != 'unset_environment':
        source = source_kind = None     # unset: only an UnsetEnvironment= line is worth naming
    errors = list(service.unit.errors) + list(service.environment.errors)
    if service.config.fatal:
        errors.append(service.config.fatal)
    if not known:
        errors.append('PYTHONHTTPSVERIFY cannot be told: %s' % service.unknown_why())
    state = service.state
    runs = service.unit.load_state == units.LOADED and service.environment.starts and not service.config.fatal
    python3 = True if effect.python3 else (False if any(c.python == 2 for c in effect.commands) else None)
    return {
        'unit': service.unit.id,
        'load_state': state[0] if state else service.unit.load_state,
        'active_state': state[1] if state else None,
        'fragment_path': service.unit.fragment,
        'dropin_paths': list(service.unit.dropins),
        'mentioned_in': service.mentions(),
        'value': value,
        'value_known': known,
        'verify': None if value is None else not hostwide.disables(value),
        'source': source,
        'source_kind': source_kind,
        'managed': ours is not None,
        'dropin': ours,
        'managed_value': managed_value,
        'ca': trusted_ca(host.files, service, ours) if ours is not None else None,
        'overridden': ours is not None and known and runs and source != ours,
        'reason': quoting.escaped(reason),
        'expires': str(expires) if expires else None,
        'expired': bool(expires and today and dates.is_expired(expires, today)),
        'needs_daemon_reload': host.needs_daemon_reload(service),
        'main_pid': service.main_pid,
        'running_value': running,
        'running_value_error': running_error,
        'pending_restart': pending,
        'executable': effect.executable,
        'python3': python3,
        'effective': reach[0],
        'effect': reach[1],
        'effect_why': host.usage(service)['why'] if reach[1] == effects.NOT_GOVERNED else None,
        'errors': errors,
    }


def scan_services(host, today=None, wanted=None):
    """The ``services`` list of the report."""
    return [service_record(host, service, today) for service in select_services(host, wanted)]
