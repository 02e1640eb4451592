# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Host-wide settings: the cfg file as RHEL 7's Python reads it, and every host-wide place that
sets PYTHONHTTPSVERIFY (``/etc/environment``, ``/etc/profile.d/*``, systemd's
``DefaultEnvironment=``, the running manager's environment)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import grp
import pwd
import stat

from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._syntax import cfg
from ansible_collections.pep493.https.plugins.module_utils._syntax import envfile
from ansible_collections.pep493.https.plugins.module_utils._syntax import systemd

VARIABLE = envfile.VARIABLE
SYSTEM_CONF = '/etc/systemd/system.conf'
# config_parse_many(): system.conf, then *.conf of these folders by file name (CONF_PATHS_NULSTR)
SYSTEM_CONF_DIRS = ('/etc/systemd/system.conf.d', '/run/systemd/system.conf.d',
                    '/usr/local/lib/systemd/system.conf.d', '/usr/lib/systemd/system.conf.d')
ETC_ENVIRONMENT = '/etc/environment'
PAM_ENV_CONF = '/etc/security/pam_env.conf'
PROFILE_D = '/etc/profile.d'

GLOBAL_ETC_ENVIRONMENT = 'etc_environment'
GLOBAL_PROFILE_D = 'profile_d'
GLOBAL_SYSTEM_CONF = 'system_conf'
GLOBAL_MANAGER = 'manager_environment'


def disables(value):
    """Only the exact string "0" turns verification off; anything else set leaves it on."""
    return value == '0'


# ---------------------------------------------------------------------------------------------
# The cfg file
# ---------------------------------------------------------------------------------------------

def config_report(path, data, info=None, rpmnew=False, error=None, readers=None, owner=None, group=None):
    """The ``config`` part of the report for the cfg file at ``path``.

    ``data`` is its bytes (None: missing), ``info`` its os.stat result, ``rpmnew`` whether a
    ``.rpmnew`` lies beside it, ``error`` why it could not be read (RHEL 7 then falls back to
    ``platform_default``), ``readers`` the interpreter paths that read it (None: not probed),
    ``owner``/``group`` its owner's and group's names (default: the numbers).
    """
    report = {
        'path': path, 'exists': data is not None or info is not None, 'owner': None, 'group': None,
        'mode': None, 'verify': 'missing', 'value': None, 'valid': True, 'errors': [], 'errors_total': 0,
        'duplicates': False, 'https_sections': 0, 'verify_keys': 0,
        'rpmnew': path + '.rpmnew' if rpmnew else None, 'error': error, 'readers': readers,
    }
    if info is not None:
        report['owner'] = owner or str(info.st_uid)
        report['group'] = group or str(info.st_gid)
        report['mode'] = '%04o' % stat.S_IMODE(info.st_mode)
    if data is None:
        if report['exists']:
            report['verify'] = 'platform_default'
        return report
    parsed = cfg.parse_cfg(data).as_dict()
    for key in ('valid', 'errors', 'errors_total', 'duplicates', 'https_sections', 'verify_keys', 'value'):
        report[key] = parsed[key]
    report['verify'] = parsed['verify'] if parsed['valid'] else 'malformed'
    return report


def read_config(files, path, planned=None):
    """The ``config`` report of the cfg file read through ``files`` (without readers).

    ``planned``: (bytes, mode) the file will have once the plan is applied (its owner stays,
    a new file is root's), or None.
    """
    error = None
    data = None
    too_large = False
    try:
        data = files.read(path)
    except hostfiles.HostFileError as exc:
        error = str(exc)
        too_large = exc.reason == 'too-large'
    info = files.stat(path)
    rpmnew = files.stat(path + '.rpmnew') is not None
    owner = account_name(files, '/etc/passwd', info.st_uid) if info else None
    group = account_name(files, '/etc/group', info.st_gid) if info else None
    if planned is not None:
        data, error, too_large = planned[0], None, False
        if info is None:
            owner = group = 'root'
    report = config_report(path, data, info, rpmnew, error, owner=owner, group=group)
    if planned is not None and info is None:
        report['owner'], report['group'], report['mode'] = 'root', 'root', planned[1]
    if too_large:
        report['verify'] = None     # Python reads it whole; what it says cannot be told
    return report


def account_name(files, database, number):
    """The user (/etc/passwd) or group (/etc/group) name of ``number``; under ``root`` from
    the tree's own database. None when there is none."""
    if not files.root:
        try:
            if database == '/etc/passwd':
                return pwd.getpwuid(number).pw_name
            return grp.getgrgid(number).gr_name
        except KeyError:
            return None
    try:
        data = files.read(database)
    except hostfiles.HostFileError:
        return None
    for line in (data or b'').decode('utf-8', 'replace').splitlines():
        fields = line.split(':')
        if len(fields) > 2 and fields[2] == str(number):
            return fields[0]
    return None


# ---------------------------------------------------------------------------------------------
# Host-wide settings of the variable
# ---------------------------------------------------------------------------------------------

def _setting(source, path, line, action, value):
    return {'source': source, 'path': path, 'line': line, 'action': action, 'value': value,
            'disables': disables(value) if action == 'set' else False}


def system_conf_settings(data):
    """``DefaultEnvironment=`` lines of a system.conf (or drop-in) that concern the variable:
    [(line, action, value)]; action is set, reset (an empty assignment) or mention."""
    result = []
    assignments, _error = systemd.unit_file_assignments(data)
    for line, section, key, value in assignments:
        if section != 'Manager' or key != 'DefaultEnvironment':
            continue
        if not value:
            result.append((line, 'reset', None))
            continue
        assigned = systemd.parse_environment(value)
        if VARIABLE in assigned:
            result.append((line, 'set', assigned[VARIABLE]))
        elif VARIABLE in value:
            result.append((line, 'mention', None))
    return result


def default_environment(files, errors=None):
    """{name: value} of ``DefaultEnvironment=`` as the manager reads it from system.conf and its
    drop-ins (a later assignment wins, an empty one resets), with the PATH it always sets."""
    environment = {'PATH': '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'}
    for path in [SYSTEM_CONF] + _dropins_in(files, SYSTEM_CONF_DIRS, errors if errors is not None else []):
        try:
            data = files.read(path)
        except hostfiles.HostFileError as exc:
            if errors is not None:
                errors.append(str(exc))
            continue
        assignments, _error = systemd.unit_file_assignments(data or b'')
        for _line, section, key, value in assignments:
            if section == 'Manager' and key == 'DefaultEnvironment':
                if not value:
                    environment = {'PATH': environment['PATH']}
                else:
                    environment.update(systemd.parse_environment(value))
    return environment


def scan_global(files):
    """Host-wide settings in files: /etc/environment, /etc/profile.d/*, system.conf(.d).

    Returns (settings, errors); resets of ``DefaultEnvironment=`` are reported only when they
    follow a setting of the variable.
    """
    settings = []
    errors = []

    def read(path):
        try:
            return files.read(path)
        except hostfiles.HostFileError as exc:
            errors.append(str(exc))
            return None

    data = read(ETC_ENVIRONMENT)
    if envfile.mentions(data):
        for lineno, name, value in envfile.parse_etc_environment(data):
            if name == VARIABLE:
                settings.append(_setting(GLOBAL_ETC_ENVIRONMENT, ETC_ENVIRONMENT, lineno, 'set', value))
    try:
        names = files.listdir(PROFILE_D) or []
    except hostfiles.HostFileError as exc:
        errors.append(str(exc))
        names = []
    for name in names:
        path = PROFILE_D + '/' + name
        data = read(path) if not files.is_dir(path) else None
        if envfile.mentions(data):
            for lineno, action, value in envfile.parse_shell_settings(data):
                settings.append(_setting(GLOBAL_PROFILE_D, path, lineno, action, value))
    seen_setting = False
    for path in [SYSTEM_CONF] + _dropins_in(files, SYSTEM_CONF_DIRS, errors):
        data = read(path)
        if data is None or (not seen_setting and not envfile.mentions(data)):
            continue
        for line, action, value in system_conf_settings(data):
            if action == 'reset' and not seen_setting:
                continue
            seen_setting = True
            settings.append(_setting(GLOBAL_SYSTEM_CONF, path, line, action, value))
    return settings, errors


def pam_sets_variable(files):
    """Whether pam_env's files (/etc/environment, pam_env.conf) name the variable."""
    for path in (ETC_ENVIRONMENT, PAM_ENV_CONF):
        try:
            if envfile.mentions(files.read(path)):
                return True
        except hostfiles.HostFileError:
            continue
    return False


def _dropins_in(files, folders, errors):
    """``*.conf`` across ``folders`` by name (first folder wins a name), sorted by name."""
    chosen = {}
    for folder in folders:
        try:
            names = files.listdir(folder) or []
        except hostfiles.HostFileError as exc:
            errors.append(str(exc))
            continue
        for name in names:
            if name.endswith('.conf') and name not in chosen:
                chosen[name] = folder + '/' + name
    return [chosen[name] for name in sorted(chosen)]


def manager_settings(environment):
    """The running manager's environment (``systemctl show -p Environment``) for the variable."""
    if environment is None or VARIABLE not in environment:
        return []
    return [_setting(GLOBAL_MANAGER, None, None, 'set', environment[VARIABLE])]
