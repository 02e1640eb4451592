# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``summary`` of verification_info's report: counts and the plain-English findings an
operator should act on (pure functions over the report's parts)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.pep493.https.plugins.module_utils._host import effect as effects
from ansible_collections.pep493.https.plugins.module_utils._host import global_settings as hostwide
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin

_OWN_SOURCES = ('unit', 'dropin', 'environment_file', 'pass_environment')
_WHY_NOT = {
    effects.IGNORED: 'Python runs with -E (or -I), which ignores every PYTHON* variable',
    effects.ENV_UNSET: 'an env wrapper removes it before Python starts',
    effects.ENV_OVERRIDE: 'an env wrapper sets its own value before Python starts',
    effects.CANNOT_START: 'systemd cannot start the service',
}


def _is_python2(interpreter):
    return (interpreter.get('version') or '').startswith('2.')


def host_default(interpreters, global_settings, probed):
    """Does a Python 2 program on this host verify HTTPS certificates by default?

    None when not probed, when there is no Python 2, or when a probe could not tell.
    """
    if not probed:
        return None
    python2 = [i for i in interpreters if _is_python2(i)]
    if not python2:
        return None
    if any(s['disables'] for s in global_settings) and any(i.get('honours_env') for i in python2):
        return False
    answers = [i.get('verifies_by_default') for i in python2]
    if False in answers:
        return False
    if None in answers:
        return None
    return True


def summarize(config, interpreters, services, global_settings, probed, scan_errors=()):
    """The ``summary``: counts and the plain-English findings an operator should act on."""
    findings = []
    findings.extend(_config_findings(config))
    for interpreter in interpreters:
        if interpreter.get('error'):
            findings.append('%s could not be probed: %s.' % (interpreter['path'], interpreter['error']))
        elif _is_python2(interpreter) and interpreter.get('verifies_by_default') is False:
            findings.append('%s (Python %s) does not verify HTTPS certificates by default; set verify=enable '
                            'with pep493.https.cert_verification.' % (interpreter['path'], interpreter['version']))
    for setting in global_settings:
        findings.extend(_global_findings(setting))
    for record in services:
        findings.extend(_service_findings(record))
    findings.extend('Incomplete: %s.' % error for error in scan_errors)

    python2 = [i for i in interpreters if _is_python2(i)]
    exceptions = [r for r in services if r['value'] is not None and r['source_kind'] in _OWN_SOURCES]
    return {
        'host_default': host_default(interpreters, global_settings, probed),
        'python2_interpreters': len(python2) if probed else None,
        'exceptions': len(exceptions),
        'opt_outs': len([r for r in exceptions if hostwide.disables(r['value'])]),
        'managed': len([r for r in services if r['managed']]),
        'unmanaged': len([r for r in exceptions if not r['managed'] or r['overridden']]),
        'expired': len([r for r in services if r['expired']]),
        'pending_restart': len([r for r in services if _restart_matters(r)]),
        'ineffective': len([r for r in services if r['value'] is not None and r['effective'] is False
                            and not r.get('ca')]),
        'trusting': len([r for r in services if r.get('ca')]),
        'stale_bundles': len([r for r in services if r.get('ca') and r['ca']['bundle_state'] != 'current']),
        'global_opt_outs': len([s for s in global_settings if s['disables']]),
        'findings': findings,
    }


def _config_findings(config):
    path = config['path']
    found = []
    if config['error'] and config['verify'] is None:
        found.append('%s could not be read in full (%s); what RHEL 7 python makes of it cannot be told.'
                     % (path, config['error']))
    elif config['error']:
        found.append('%s could not be read (%s); RHEL 7 python then uses platform_default.' % (path, config['error']))
    if not config['valid']:
        listed = config['errors']
        lines = ('s ' if len(listed) > 1 else ' ') + ', '.join(str(e['line']) for e in listed)
        more = config.get('errors_total', len(listed)) - len(listed)
        if more > 0:
            lines += ' and %d more' % more
        nobody = ' (no interpreter on this host reads it)' if config['readers'] == [] else ''
        found.append('%s is malformed (line%s): "import ssl" raises for RHEL 7 Python 2 programs%s; repair it with '
                     'pep493.https.cert_verification repair=true.' % (path, lines, nobody))
    elif config['verify'] == 'disable' and config['readers'] != []:
        found.append('%s says verify=disable: every Python 2 program that reads it skips certificate checks; '
                     'set verify=enable and give exceptions per service.' % path)
    if config['exists'] and config['mode'] and not int(config['mode'], 8) & 0o004 \
            and config['verify'] in ('enable', 'disable'):
        found.append(unreadable_cfg(path, config['mode'], config['verify'], 'make it readable by all (mode 0644).'))
    if config['duplicates']:
        found.append('%s has several [https] sections or verify keys; only the last one counts.' % path)
    if config['rpmnew']:
        found.append('%s exists: a package update left a new default beside the edited file; compare and remove it.'
                     % config['rpmnew'])
    return found


def unreadable_cfg(path, mode, verify, remedy):
    """The words for a cfg file others may not read: Python 2 programs of other users then
    fall back to platform_default (RHEL 7's ssl module ignores a file it cannot open)."""
    return ('%s has mode %s: non-root Python 2 programs cannot read it and use platform_default instead of '
            'verify=%s; %s' % (path, mode, verify, remedy))


def _where(setting):
    if setting['path'] is None:
        return "systemd's manager environment (systemctl show-environment)"
    if setting['line'] is None:
        return setting['path']
    return '%s line %s' % (setting['path'], setting['line'])


def _global_findings(setting):
    if setting['action'] != 'set':
        return []
    if setting['disables']:
        who = {
            hostwide.GLOBAL_ETC_ENVIRONMENT: 'every login session',
            hostwide.GLOBAL_PROFILE_D: 'every login shell',
            hostwide.GLOBAL_SYSTEM_CONF: 'every service started by systemd',
            hostwide.GLOBAL_MANAGER: 'every service started from now on',
        }[setting['source']]
        return ['%s sets PYTHONHTTPSVERIFY=0 for %s: Python 2 programs there skip certificate checks whatever '
                'the host-wide file says; remove it.' % (_where(setting), who)]
    if setting['value'] != '1':
        return ['%s sets PYTHONHTTPSVERIFY=%s, which leaves verification on (only "0" disables it).'
                % (_where(setting), dropin.show(setting['value']))]
    return []


_STALE = 'stale (the system bundle changed since it was built: CAs added to or removed from the host are not in it)'
_BUNDLE_STATES = {'stale': _STALE,
                  'missing': 'missing (the service cannot verify any certificate)',
                  'foreign': 'not the bundle of that CA (edited or replaced)'}


def _service_findings(record):
    unit = record['unit']
    value = record['value']
    found = []
    if record['managed'] and record['expires'] is not None and not _is_date(record['expires']):
        found.append("%s: the expiry date %s of its exception (%s) is not a real YYYY-MM-DD date, so it never "
                     "expires; set a real date with pep493.https.service_verification."
                     % (unit, dropin.show(record['expires']), record['dropin']))
    if record['expired']:
        found.append('%s: the exception expired on %s (%s); remove it or renew it with a new date.'
                     % (unit, record['expires'], record['dropin']))
    if record['effect'] == effects.MASKED and record['managed']:
        found.append('%s is masked: its exception (%s) has no effect while it is masked.' % (unit, record['dropin']))
    if _restart_matters(record):
        found.append('%s: the running process (PID %s) has PYTHONHTTPSVERIFY=%s but the unit now gives %s; '
                     'restart it.' % (unit, record['main_pid'], _shown(record['running_value']), _shown(value)))
    if record['needs_daemon_reload']:
        found.append('%s: its files changed since systemd read them; run systemctl daemon-reload.' % unit)
    ca = record.get('ca')
    if ca and ca['bundle_state'] != 'current':
        found.append('%s: the CA bundle %s its exception trusts (%s) is %s; run pep493.https.service_verification '
                     '(the policy) again to rebuild it from the system bundle.'
                     % (unit, ca['bundle'], record['dropin'], _BUNDLE_STATES.get(ca['bundle_state'], ca['bundle_state'])))
    if value is not None and record['effective'] is False and not ca:
        if record['effect'] == effects.PYTHON3:
            found.append('%s runs Python 3 (%s): PYTHONHTTPSVERIFY=%s has no effect on it; remove the setting.'
                         % (unit, record['executable'], value))
        elif record['effect'] == effects.NOT_GOVERNED:
            found.append('%s: %s: PYTHONHTTPSVERIFY=%s does nothing there; remove the setting (trust the CA it '
                         'needs instead).' % (unit, record['effect_why'], value))
        else:
            found.append('%s: PYTHONHTTPSVERIFY=%s never reaches Python 2 code there (%s); remove the setting.'
                         % (unit, value, _WHY_NOT.get(record['effect'], record['effect'])))
    if value is not None and record['source_kind'] in _OWN_SOURCES:
        if record['overridden']:
            found.append('%s: %s sets PYTHONHTTPSVERIFY=%s and wins over the managed drop-in %s.'
                         % (unit, record['source'] or 'another setting', value, record['dropin']))
        elif not record['managed'] and hostwide.disables(value):
            found.append('%s: verification is off (PYTHONHTTPSVERIFY=0 from %s) without a reason or an expiry '
                         'date; manage it with pep493.https.service_verification.' % (unit, record['source']))
    if record['overridden'] and value is None and record['source_kind'] == 'unset_environment':
        found.append('%s: UnsetEnvironment= in %s removes PYTHONHTTPSVERIFY, so the managed drop-in %s has no '
                     'effect.' % (unit, record['source'], record['dropin']))
    if value is not None and value not in ('0', '1'):
        found.append('%s: PYTHONHTTPSVERIFY=%s leaves verification on (only "0" disables it).'
                     % (unit, dropin.show(value)))
    for error in record['errors']:
        found.append('%s: %s.' % (unit, error))
    return found


def _is_date(text):
    try:
        dates.validate_expires(text)
    except dates.DateError:
        return False
    return True


def _restart_matters(record):
    """A pending restart that changes something (not for a service the variable cannot affect)."""
    return bool(record['pending_restart']) and record['effective'] is not False


def _shown(value):
    return 'unset' if value is None else dropin.show(value)
