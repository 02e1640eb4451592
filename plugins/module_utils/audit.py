# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What HTTPS verification a host and its services really get: the logic of verification_info.

Parsers and the report are pure functions (bytes or text in, data out). ``HostFiles`` is the
one place that reads the host's files, under an optional ``root`` and never outside it; the
module adds the two ``systemctl`` calls and the interpreter probes.

Where systemd's rules decide a value, they are followed: ``EnvironmentFile=`` overrides
``Environment=``, which overrides the manager's environment; an empty ``Environment=`` or
``EnvironmentFile=`` resets the list; drop-ins apply after the unit file, in file-name order.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import grp
import os
import pwd
import re
import stat

from ansible_collections.pep493.https.plugins.module_utils import cfg
from ansible_collections.pep493.https.plugins.module_utils import dropin
from ansible_collections.pep493.https.plugins.module_utils import hostfiles
from ansible_collections.pep493.https.plugins.module_utils import systemd

VARIABLE = 'PYTHONHTTPSVERIFY'
_VARIABLE_B = VARIABLE.encode('ascii')

SYSTEM_CONF = '/etc/systemd/system.conf'
SYSTEM_CONF_DIRS = (
    '/etc/systemd/system.conf.d',
    '/run/systemd/system.conf.d',
    '/usr/local/lib/systemd/system.conf.d',
    '/usr/lib/systemd/system.conf.d',
)
# Every folder systemd reads system units and drop-ins from, highest priority first
# (systemd.unit(5)): besides the usual three, `systemctl set-property` (*.control),
# `systemd-run` (transient) and generators write there.
UNIT_SEARCH_PATHS = (
    '/etc/systemd/system.control',
    '/run/systemd/system.control',
    '/run/systemd/transient',
    '/run/systemd/generator.early',
) + tuple(systemd.UNIT_PATHS[:2]) + (
    '/run/systemd/generator',
) + tuple(systemd.UNIT_PATHS[2:]) + (
    '/run/systemd/generator.late',
)
ETC_ENVIRONMENT = '/etc/environment'
PROFILE_D = '/etc/profile.d'

# Everything one `systemctl show` call needs to know about every service.
SHOW_PROPERTIES = ('Id', 'LoadState', 'ActiveState', 'FragmentPath', 'DropInPaths', 'Environment',
                   'EnvironmentFiles', 'ExecStart', 'MainPID', 'NeedDaemonReload')


SOURCE_UNIT = 'unit'
SOURCE_DROPIN = 'dropin'
SOURCE_ENVIRONMENT_FILE = 'environment_file'
SOURCE_MANAGER = 'manager'

GLOBAL_ETC_ENVIRONMENT = 'etc_environment'
GLOBAL_PROFILE_D = 'profile_d'
GLOBAL_SYSTEM_CONF = 'system_conf'
GLOBAL_MANAGER = 'manager_environment'


def _text(raw):
    if isinstance(raw, bytes):
        return raw.decode('utf-8', 'replace')
    return raw


def disables(value):
    """Only the exact string "0" turns verification off; anything else set leaves it on."""
    return value == '0'


def _mentions(data):
    return data is not None and _VARIABLE_B in data


# ---------------------------------------------------------------------------------------------
# Parsers (pure)
# ---------------------------------------------------------------------------------------------

def parse_environ(blob):
    """A ``/proc/<pid>/environ`` blob (NUL-separated NAME=value) as a dict of text.

    Entries without ``=`` or with an empty name are skipped. When a name repeats, the first
    one counts, as for ``getenv()`` and Python's ``os.environ``.
    """
    env = {}
    for entry in blob.split(b'\0'):
        name, sep, value = entry.partition(b'=')
        if not sep or not name:
            continue
        key = _text(name)
        if key not in env:
            env[key] = _text(value)
    return env


_ENV_NAME_RE = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*$')


def _unquote_env_value(value):
    """An EnvironmentFile= value as systemd reads it: quotes removed, escapes applied."""
    out = []
    index = 0
    quote = None
    while index < len(value):
        char = value[index]
        if quote is None and char in '"\'':
            quote = char
        elif quote is not None and char == quote:
            quote = None
        elif char == '\\' and index + 1 < len(value) and quote != "'":
            index += 1
            out.append(value[index])
        else:
            out.append(char)
        index += 1
    return ''.join(out)


def parse_environment_file(data):
    """``EnvironmentFile=`` content as systemd reads it: [(line, name, value)] in file order.

    ``NAME=value`` lines, white space around ``=`` allowed, ``#``/``;`` comment lines, quoted
    values, a trailing backslash continues the line. Lines systemd ignores (an ``export``
    prefix, an invalid name) are left out, as systemd leaves them out.
    """
    result = []
    pending = ''
    start = None
    for lineno, raw in enumerate(_text(data).split('\n'), 1):
        line = raw.rstrip('\r')
        if not pending and line.strip()[:1] in ('#', ';'):
            continue
        if line.endswith('\\') and not line.endswith('\\\\'):
            start = start or lineno
            pending += line[:-1]
            continue
        line = pending + line
        first = start or lineno
        pending, start = '', None
        name, sep, value = line.partition('=')
        name = name.strip()
        if not sep or not _ENV_NAME_RE.match(name):
            continue
        value = value.strip()
        result.append((first, name, _unquote_env_value(value)))
    return result


def parse_etc_environment(data):
    """/etc/environment as pam_env reads it: [(line, name, value)]; ``export`` is allowed."""
    result = []
    for lineno, raw in enumerate(_text(data).split('\n'), 1):
        line = raw.strip()
        if not line or line.startswith('#'):
            continue
        if line.startswith('export ') or line.startswith('export\t'):
            line = line[7:].lstrip()
        name, sep, value = line.partition('=')
        if not sep or not _ENV_NAME_RE.match(name):
            continue
        if len(value) >= 2 and value[0] == value[-1] and value[0] in '"\'':
            value = value[1:-1]
        result.append((lineno, name, value))
    return result


_SHELL_ASSIGN_RE = re.compile(
    r'(?:^|[\s;&|(])(?:(?:export|readonly|local)\s+|(?:declare|typeset)\s+-[a-zA-Z]+\s+)?'
    + VARIABLE + r'=("(?:[^"\\]|\\.)*"|\'[^\']*\'|[^\s;&|)]*)')
_CSH_SETENV_RE = re.compile(r'(?:^|[\s;])setenv\s+' + VARIABLE + r'(?:\s+("[^"]*"|\'[^\']*\'|[^\s;]+))?')
_SHELL_UNSET_RE = re.compile(r'(?:^|[\s;])(?:unset|unsetenv)\s+(?:-v\s+)?(?:\w+\s+)*' + VARIABLE + r'\b')


def _shell_word(word):
    if len(word) >= 2 and word[0] == word[-1] == "'":
        return word[1:-1]
    if len(word) >= 2 and word[0] == word[-1] == '"':
        return re.sub(r'\\(.)', r'\1', word[1:-1])
    return re.sub(r'\\(.)', r'\1', word)


def parse_shell_settings(data):
    """PYTHONHTTPSVERIFY in a shell snippet (/etc/profile.d): [(line, action, value)].

    ``action`` is ``set`` (value is the literal text assigned, quotes removed; shell expansions
    are not evaluated), ``unset``, or ``mention`` (named but neither set nor unset here, for
    example ``export PYTHONHTTPSVERIFY``). Comment lines are skipped.
    """
    result = []
    for lineno, raw in enumerate(_text(data).split('\n'), 1):
        line = raw.strip()
        if VARIABLE not in line or line.startswith('#'):
            continue
        found = False
        for match in _SHELL_ASSIGN_RE.finditer(line):
            result.append((lineno, 'set', _shell_word(match.group(1))))
            found = True
        for match in _CSH_SETENV_RE.finditer(line):
            result.append((lineno, 'set', _shell_word(match.group(1) or '')))
            found = True
        if _SHELL_UNSET_RE.search(line):
            result.append((lineno, 'unset', None))
            found = True
        if not found:
            result.append((lineno, 'mention', None))
    return result


def _assignments(data, section, keys):
    """(key, value) of the ``keys`` assignments in one ``[section]`` of a unit file, in order."""
    return [(key, value) for found, key, value in systemd.unit_file_assignments(_text(data))
            if found == section and key in keys]


def environment_assignments(value):
    """One ``Environment=`` (or ``DefaultEnvironment=``) value of a unit file as a dict."""
    return systemd.parse_environment(value.replace('%%', '%'))


def unit_configuration(files):
    """What a unit's own files configure, applied in order.

    ``files`` is [(path, kind, data)] in systemd's order (the unit file, then its drop-ins);
    ``kind`` is ``unit`` or ``dropin``. Returns a dict: ``value`` (PYTHONHTTPSVERIFY set by
    ``Environment=``, or None), ``source``/``source_kind`` of that setting,
    ``environment_files`` [(path, optional)], ``exec_argv`` (first ExecStart= command).
    """
    state = {'value': None, 'source': None, 'source_kind': None, 'environment_files': [], 'exec_argv': None}
    commands = []
    for path, kind, data in files:
        if data is None:
            continue
        assignments = _assignments(data, 'Service', ('Environment', 'EnvironmentFile', 'ExecStart'))
        for key, value in assignments:
            if key == 'Environment':
                if not value:
                    state.update(value=None, source=None, source_kind=None)
                    continue
                assigned = environment_assignments(value)
                if VARIABLE in assigned:
                    state.update(value=assigned[VARIABLE], source=path, source_kind=kind)
            elif key == 'EnvironmentFile':
                if not value:
                    state['environment_files'] = []
                    continue
                state['environment_files'].append((value.lstrip('-'), value.startswith('-')))
        if ('ExecStart', '') in assignments:
            commands = []
        commands.extend(systemd.unit_file_exec_start(_text(data)))
    state['exec_argv'] = commands[0] if commands else None
    return state


def environment_file_value(data):
    """(value, line) of PYTHONHTTPSVERIFY in an EnvironmentFile= file; the last one wins."""
    found = (None, None)
    for lineno, name, value in parse_environment_file(data):
        if name == VARIABLE:
            found = (value, lineno)
    return found


def _show_list(value):
    """A property systemctl prints once per item (EnvironmentFiles=); parse_show joins them by newlines."""
    if not value:
        return []
    items = value if isinstance(value, (list, tuple)) else value.split('\n')
    return [item for item in items if item]


def show_environment_files(value):
    """``EnvironmentFiles=`` of ``systemctl show``: [(path, optional)]."""
    result = []
    for item in _show_list(value):
        match = re.match(r'^(.*?)\s+\(ignore_errors=(yes|no)\)$', item)
        if match:
            result.append((match.group(1), match.group(2) == 'yes'))
        else:
            result.append((item, False))
    return result


def dropin_dir_names(unit):
    """The drop-in folders that apply to ``unit``, most specific first (systemd 246+)."""
    base, _dot, suffix = unit.rpartition('.')
    names = [unit + '.d']
    stem = base
    if '@' in base:
        prefix, _at, instance = base.partition('@')
        if instance:
            names.append(prefix + '@.' + suffix + '.d')
        stem = prefix
    parts = stem.split('-')
    for cut in range(len(parts) - 1, 0, -1):
        names.append('-'.join(parts[:cut]) + '-.' + suffix + '.d')
    names.append(suffix + '.d')
    return names


# ---------------------------------------------------------------------------------------------
# Host files (the one place that reads them), under an optional root
# ---------------------------------------------------------------------------------------------

ScanError = hostfiles.HostFileError


class HostFiles(hostfiles.HostFiles):
    """The host's files as the audit reads them (hostfiles.HostFiles, host paths in messages)."""

    def lstat(self, path):
        """os.lstat of ``path`` (its folder resolved under root), or None when missing."""
        folder, name = os.path.split(path)
        try:
            return os.lstat(os.path.join(self.resolve(folder, file_path=False).real, name))
        except (OSError, ScanError):
            return None

    def is_masked(self, path):
        """A unit file linked to /dev/null (``systemctl mask``)."""
        folder, name = os.path.split(path)
        try:
            return self.entry(folder, name) == ('link', hostfiles.DEV_NULL)
        except ScanError:
            return False

    def host_path(self, path):
        """The host path ``path`` leads to (links followed), or None when it cannot be resolved."""
        try:
            return self.resolve(path).host
        except ScanError:
            return None

    def account_name(self, database, number):
        """The user (/etc/passwd) or group (/etc/group) name of ``number``, from this tree's own
        database under ``root``; None when it has none."""
        if not self.root:
            try:
                if database == '/etc/passwd':
                    return pwd.getpwuid(number).pw_name
                return grp.getgrgid(number).gr_name
            except KeyError:
                return None
        try:
            data = self.read(database)
        except ScanError:
            return None
        for line in _text(data or b'').splitlines():
            fields = line.split(':')
            if len(fields) > 2 and fields[2] == str(number):
                return fields[0]
        return None


def read_process_environ(pid, proc='/proc'):
    """(environment dict, None) of a running process, or (None, why it could not be read)."""
    path = '%s/%d/environ' % (proc, pid)
    try:
        with open(path, 'rb') as handle:
            return parse_environ(handle.read()), None
    except (IOError, OSError) as exc:
        if exc.errno in (errno.ENOENT, errno.ESRCH):
            return None, 'process %d is gone' % pid
        if exc.errno == errno.EACCES:
            return None, 'cannot read %s: permission denied' % path
        return None, 'cannot read %s: %s' % (path, exc.strerror or exc)


# ---------------------------------------------------------------------------------------------
# The host-wide cfg file
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
        'mode': None, 'verify': 'missing', 'value': None, 'valid': True, 'errors': [],
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
    for key in ('valid', 'errors', 'duplicates', 'https_sections', 'verify_keys', 'value'):
        report[key] = parsed[key]
    report['verify'] = parsed['verify'] if parsed['valid'] else 'malformed'
    return report


def read_config(files, path):
    """Read the cfg file through ``files``: the ``config`` report without readers."""
    error = None
    data = None
    too_large = False
    try:
        data = files.read(path)
    except ScanError as exc:
        error = str(exc)
        too_large = exc.reason == 'too-large'
    info = files.stat(path)
    rpmnew = files.stat(path + '.rpmnew') is not None
    owner = files.account_name('/etc/passwd', info.st_uid) if info else None
    group = files.account_name('/etc/group', info.st_gid) if info else None
    report = config_report(path, data, info, rpmnew, error, owner=owner, group=group)
    if too_large:
        report['verify'] = None     # Python reads it whole; what it says cannot be told
    return report


# ---------------------------------------------------------------------------------------------
# Host-wide settings of the variable
# ---------------------------------------------------------------------------------------------

def _setting(source, path, line, action, value):
    return {'source': source, 'path': path, 'line': line, 'action': action, 'value': value,
            'disables': disables(value) if action == 'set' else False}


def system_conf_settings(data):
    """``DefaultEnvironment=`` lines of a systemd system.conf (or drop-in) for the variable."""
    result = []
    for _key, value in _assignments(data, 'Manager', ('DefaultEnvironment',)):
        if not value:
            result.append(('reset', None))
            continue
        assigned = environment_assignments(value)
        if VARIABLE in assigned:
            result.append(('set', assigned[VARIABLE]))
        elif VARIABLE in value:
            result.append(('mention', None))
    return result


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
        except ScanError as exc:
            errors.append(str(exc))
            return None

    data = read(ETC_ENVIRONMENT)
    if _mentions(data):
        for lineno, name, value in parse_etc_environment(data):
            if name == VARIABLE:
                settings.append(_setting(GLOBAL_ETC_ENVIRONMENT, ETC_ENVIRONMENT, lineno, 'set', value))
    try:
        names = files.listdir(PROFILE_D) or []
    except ScanError as exc:
        errors.append(str(exc))
        names = []
    for name in names:
        path = PROFILE_D + '/' + name
        data = read(path) if not _is_dir(files, path) else None
        if _mentions(data):
            for lineno, action, value in parse_shell_settings(data):
                settings.append(_setting(GLOBAL_PROFILE_D, path, lineno, action, value))
    conf_files = [SYSTEM_CONF] + _dropins_in(files, SYSTEM_CONF_DIRS, errors)
    seen_setting = False
    for path in conf_files:
        data = read(path)
        if data is None or (not seen_setting and not _mentions(data)):
            continue
        for action, value in system_conf_settings(data):
            if action == 'reset' and not seen_setting:
                continue
            seen_setting = True
            settings.append(_setting(GLOBAL_SYSTEM_CONF, path, None, action, value))
    return settings, errors


def _is_dir(files, path):
    info = files.stat(path)
    return info is not None and stat.S_ISDIR(info.st_mode)


def _dropins_in(files, folders, errors):
    """``*.conf`` across ``folders`` by name (first folder wins a name), sorted by name."""
    chosen = {}
    for folder in folders:
        try:
            names = files.listdir(folder) or []
        except ScanError as exc:
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


# ---------------------------------------------------------------------------------------------
# Unit files: one pass over the unit folders
# ---------------------------------------------------------------------------------------------

class UnitFiles(object):
    """Every service unit file and drop-in in systemd's search path, read once."""

    def __init__(self):
        self.fragments = {}     # unit name -> path (highest-priority folder)
        self.masked = set()     # unit names linked to /dev/null
        self.dropins = {}       # drop-in folder name -> [(folder priority, conf name, path)]
        self.content = {}       # path -> bytes (drop-ins, and unit files that need a look)
        self.errors = []

    def units(self):
        """Unit names that have a unit file or a drop-in folder of their own (not prefixes)."""
        names = set(self.fragments)
        for folder in self.dropins:
            unit = folder[:-2]
            if unit.endswith('.service') and not unit.endswith('-.service') and unit != 'service':
                names.add(unit)
        return sorted(names)

    def fragment_of(self, unit):
        if unit in self.fragments:
            return self.fragments[unit]
        template = dropin.template_of(unit)
        return self.fragments.get(template) if template else None

    def prefixes_that_matter(self):
        """Patterns for prefix drop-in folders (``app-.service.d``, ``service.d``) that may matter."""
        patterns = []
        for folder, confs in sorted(self.dropins.items()):
            if folder != 'service.d' and not folder.endswith('-.service.d'):
                continue
            for _priority, _name, path in confs:
                data = self.content.get(path)
                if data is not None and (_VARIABLE_B in data or b'EnvironmentFile' in data):
                    patterns.append('*.service' if folder == 'service.d' else folder[:-len('.service.d')] + '*.service')
                    break
        return patterns

    def may_matter(self, unit):
        """Whether ``unit``'s files on disk mention the variable or name environment files."""
        for path in [self.fragment_of(unit)] + self.dropins_of(unit):
            data = self.content.get(path)
            if data is not None and (_VARIABLE_B in data or b'EnvironmentFile' in data):
                return True
        return False

    def dropins_of(self, unit):
        """The drop-in paths that apply to ``unit``, in the order systemd applies them."""
        best = {}
        for specificity, folder in enumerate(dropin_dir_names(unit)):
            for priority, name, path in self.dropins.get(folder, ()):
                key = (priority, specificity)
                if name not in best or key < best[name][0]:
                    best[name] = (key, path)
        return [best[name][1] for name in sorted(best)]


def scan_unit_files(files, unit_paths=UNIT_SEARCH_PATHS):
    """One pass over the unit folders: service unit files, their drop-ins, their content."""
    inventory = UnitFiles()
    seen = set()
    for priority, folder in enumerate(unit_paths):
        try:
            real = files.resolve(folder, file_path=False).real
            names = files.listdir(folder)
        except ScanError as exc:
            inventory.errors.append(str(exc))
            continue
        if names is None or real in seen:
            continue
        seen.add(real)
        for name in names:
            path = folder + '/' + name
            if name.endswith('.service'):
                if name in inventory.fragments or name in inventory.masked:
                    continue
                if files.is_masked(path):
                    inventory.masked.add(name)
                    continue
                inventory.fragments[name] = path
                _keep(inventory, files, path, dropin_file=False)
            elif name.endswith('.service.d') or name == 'service.d':
                _scan_dropin_folder(inventory, files, priority, folder, name)
    return inventory


def _scan_dropin_folder(inventory, files, priority, folder, name):
    path = folder + '/' + name
    try:
        entries = files.listdir(path)
    except ScanError as exc:
        inventory.errors.append(str(exc))
        return
    for entry in entries or ():
        if entry.endswith('.conf'):
            conf = path + '/' + entry
            inventory.dropins.setdefault(name, []).append((priority, entry, conf))
            _keep(inventory, files, conf, dropin_file=True)


def _keep(inventory, files, path, dropin_file):
    try:
        data = files.read(path)
    except ScanError as exc:
        inventory.errors.append(str(exc))
        return
    if data is None:
        return
    # A unit file matters only when it sets the variable or points at environment files.
    if dropin_file or _VARIABLE_B in data or b'EnvironmentFile' in data:
        inventory.content[path] = data


# ---------------------------------------------------------------------------------------------
# Service records
# ---------------------------------------------------------------------------------------------

def _managed_dropin(paths, content):
    """(path, parsed marker header) of the last drop-in of ours among ``paths``."""
    found = (None, None)
    for path in paths:
        data = content.get(path)
        if data is None:
            continue
        parsed = dropin.parse_dropin(data)
        if parsed is not None:
            found = (path, parsed)
    return found


def _int_or_none(value):
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


def _first_argv(show_value):
    commands = systemd.parse_exec_start(show_value)
    return commands[0] if commands else None


def service_record(unit, inventory, files, show=None, manager_env=None, environ_reader=None, today=None,
                   force=False):
    """One entry of ``services``, or None when nothing about ``unit`` mentions the variable.

    ``show`` is systemctl's record for the unit (None: files only). ``environ_reader(pid)``
    returns (environment, error) of a running process (None: processes are not looked at).
    ``today`` (a date) decides ``expired``. ``force``: a record even when the configuration no
    longer mentions the variable (its running process still has it).
    """
    on_disk = inventory.dropins_of(unit)
    if show is not None and show.get('LoadState') != 'not-found':
        fragment = show.get('FragmentPath') or None
        dropin_paths = (show.get('DropInPaths') or '').split()
    else:
        fragment = inventory.fragment_of(unit)
        dropin_paths = on_disk
    _ensure_content(inventory, files, [fragment] + dropin_paths)
    chain = [(fragment, SOURCE_UNIT, inventory.content.get(fragment))] if fragment else []
    chain += [(path, SOURCE_DROPIN, inventory.content.get(path)) for path in dropin_paths]
    configured = unit_configuration(chain)
    mentioned = [path for path, _kind, data in chain if _mentions(data)]
    mentioned += [path for path in on_disk if _mentions(inventory.content.get(path))]

    errors = []
    if show is not None:
        env_files = show_environment_files(show.get('EnvironmentFiles'))
        value = systemd.parse_environment(show.get('Environment') or '').get(VARIABLE)
        # systemd knows the value; the files say which of them set it.
        source, source_kind = (configured['source'], configured['source_kind']) if value is not None else (None, None)
        exec_argv = _first_argv(show.get('ExecStart'))
    else:
        env_files = configured['environment_files']
        value, source, source_kind = configured['value'], configured['source'], configured['source_kind']
        exec_argv = configured['exec_argv']
    set_in_unit = value is not None

    for path, optional in env_files:
        try:
            data = files.read(path)
        except ScanError as exc:
            errors.append(str(exc))
            continue
        if data is None:
            if not optional:
                errors.append('EnvironmentFile=%s does not exist, so systemd refuses to start the unit' % path)
            continue
        if _mentions(data):
            mentioned.append(path)
            file_value = environment_file_value(data)[0]
            if file_value is not None:
                value, source, source_kind = file_value, path, SOURCE_ENVIRONMENT_FILE

    if not mentioned and not set_in_unit and not force:
        return None
    if value is None and manager_env and VARIABLE in manager_env:
        value, source, source_kind = manager_env[VARIABLE], None, SOURCE_MANAGER

    ours, marker = _managed_dropin(_unique(dropin_paths + on_disk), inventory.content)
    marker = marker or {}
    expires = marker.get('expires')
    record = {
        'unit': unit,
        'load_state': show.get('LoadState') if show is not None else None,
        'active_state': show.get('ActiveState') if show is not None else None,
        'fragment_path': fragment,
        'dropin_paths': dropin_paths,
        'mentioned_in': sorted(set(mentioned)),
        'value': value,
        'verify': None if value is None else not disables(value),
        'source': source,
        'source_kind': source_kind,
        'managed': ours is not None,
        'dropin': ours,
        'managed_value': marker.get('value'),
        'overridden': ours is not None and source != ours,
        'reason': marker.get('reason'),
        'expires': _text(str(expires)) if expires else None,
        'expired': bool(expires and today and dropin.is_expired(expires, today)),
        'needs_daemon_reload': (show.get('NeedDaemonReload') == 'yes') if show is not None else None,
        'main_pid': None,
        'running_value': None,
        'running_value_error': None,
        'pending_restart': False,
        'executable': exec_argv[0] if exec_argv else None,
        'python3': None,
        'effective': None,
        'errors': errors,
    }
    _running(record, show, environ_reader)
    _effect(record, exec_argv, files)
    return record


def show_arguments(inventory, wanted=None, nominated=()):
    """The units (and patterns) to name in the one ``systemctl show`` call.

    ``systemctl show`` costs one D-Bus round trip per unit it shows (about a millisecond: a
    third of a second for 300 units), so it is asked only about units that may matter: those
    whose files on disk mention the variable or name environment files, the loaded instances
    of such templates and prefixes (``w@*.service``, ``app-*.service``; a top-level
    ``service.d`` drop-in means every service), and ``nominated`` units (a process of theirs
    has the variable). With ``wanted``: those units, and the instances of wanted templates.
    Templates themselves cannot be shown (systemctl fails the whole call).
    """
    if wanted is None:
        names = [u for u in inventory.units() if inventory.may_matter(u)]
        names += inventory.prefixes_that_matter() + list(nominated)
    else:
        names = list(wanted)
    result = []
    for name in names:
        if dropin.is_template(name):
            result.append(name[:-len('.service')] + '*.service')
            continue
        if '*' not in name:
            try:
                dropin.validate_unit_name(name)
            except dropin.UnitNameError:
                continue
        result.append(name)
    return _unique(result)


def units_of_processes(expected=None, proc='/proc'):
    """Services with a process whose PYTHONHTTPSVERIFY differs from ``expected`` (the manager's).

    One pass over /proc: each process's environment is read once, and for the few that carry
    the variable, its cgroup says which service it belongs to. No process is started.
    """
    units = set()
    try:
        pids = [name for name in os.listdir(proc) if name.isdigit()]
    except OSError:
        return []
    for pid in pids:
        try:
            with open('%s/%s/environ' % (proc, pid), 'rb') as handle:
                blob = handle.read()
        except (IOError, OSError):
            continue    # gone, or a kernel thread's that cannot be read
        if _VARIABLE_B not in blob:
            continue
        environment = parse_environ(blob)
        if VARIABLE not in environment or environment[VARIABLE] == expected:
            continue
        unit = _service_of_cgroup(proc, pid)
        if unit:
            units.add(unit)
    return sorted(units)


def _service_of_cgroup(proc, pid):
    try:
        with open('%s/%s/cgroup' % (proc, pid), 'rb') as handle:
            lines = _text(handle.read()).splitlines()
    except (IOError, OSError):
        return None
    for line in lines:
        # cgroup v2 "0::/system.slice/app.service", v1 "1:name=systemd:/system.slice/app.service"
        hierarchy, _sep, path = line.partition(':')
        controllers, _sep, path = path.partition(':')
        if hierarchy != '0' and controllers != 'name=systemd':
            continue
        services = [part for part in path.split('/') if part.endswith('.service')]
        if services and '/user.slice/' not in path:
            return services[-1]
    return None


def _already_read(running):
    """An environ reader that answers with what was read already (each environ is read once)."""
    def reader(_pid):
        return running
    return reader


def _wanted_unit(unit, wanted):
    return wanted is None or unit in wanted or dropin.template_of(unit) in wanted


def scan_services(inventory, files, show_blocks=None, manager_env=None, environ_reader=None,
                  today=None, wanted=None):
    """The ``services`` list: every service whose configuration mentions the variable, and
    every running service whose main process has a value its unit no longer gives.

    ``show_blocks`` is parse_show() of the one ``systemctl show`` call (None: files only).
    Cost per unit that does not matter: a few dictionary look-ups and, when it runs, one read
    of its /proc/<pid>/environ; no process.
    """
    records = []
    seen = set()
    environment_files = {}

    def read_cached(path):
        if path not in environment_files:
            try:
                environment_files[path] = files.read(path)
            except ScanError:
                environment_files[path] = None
        return environment_files[path]

    for block in show_blocks or ():
        unit = block.get('Id')
        if not unit or unit in seen or not _wanted_unit(unit, wanted):
            continue
        seen.add(unit)
        relevant = (VARIABLE in (block.get('Environment') or '') or inventory.may_matter(unit)
                    or any(_mentions(read_cached(path)) for path, _optional
                           in show_environment_files(block.get('EnvironmentFiles'))))
        reader = environ_reader
        forced = False
        if not relevant and environ_reader is not None and _int_or_none(block.get('MainPID')):
            # A process started while a setting existed keeps it after the setting is gone.
            running = environ_reader(_int_or_none(block['MainPID']))
            expected = (manager_env or {}).get(VARIABLE)
            relevant = forced = running[0] is not None and running[0].get(VARIABLE) != expected
            reader = _already_read(running)
        if relevant:
            record = service_record(unit, inventory, files, block, manager_env, reader, today, force=forced)
            if record is not None:
                records.append(record)
    for unit in inventory.units():
        if unit in seen or not _wanted_unit(unit, wanted) or not inventory.may_matter(unit):
            continue
        if dropin.is_template(unit) and any(dropin.template_of(name) == unit for name in seen):
            continue    # its loaded instances are reported with systemd's own view
        record = service_record(unit, inventory, files, None, manager_env, None, today)
        if record is not None:
            records.append(record)
    return sorted(records, key=lambda r: r['unit'])


def _unique(items):
    seen = set()
    return [i for i in items if not (i in seen or seen.add(i))]


def _ensure_content(inventory, files, paths):
    for path in paths:
        if path and path not in inventory.content:
            try:
                data = files.read(path)
            except ScanError as exc:
                inventory.errors.append(str(exc))
                data = None
            if data is not None:
                inventory.content[path] = data


def _running(record, show, environ_reader):
    pid = _int_or_none(show.get('MainPID')) if show is not None else None
    record['main_pid'] = pid
    if pid is None or environ_reader is None:
        return
    environment, error = environ_reader(pid)
    if environment is None:
        record['running_value_error'] = error
        record['pending_restart'] = None
        return
    record['running_value'] = environment.get(VARIABLE)
    record['pending_restart'] = record['running_value'] != record['value']


def _effect(record, exec_argv, files):
    if not exec_argv:
        return
    try:
        python3 = systemd.python3_interpreter(exec_argv, files.head, files.host_path)
    except (ValueError, ScanError):
        python3 = None
    record['python3'] = python3
    record['effective'] = None if python3 is None else not python3


# ---------------------------------------------------------------------------------------------
# Summary
# ---------------------------------------------------------------------------------------------

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
    exceptions = [r for r in services if r['value'] is not None and r['source_kind'] != SOURCE_MANAGER]
    return {
        'host_default': host_default(interpreters, global_settings, probed),
        'python2_interpreters': len(python2) if probed else None,
        'exceptions': len(exceptions),
        'opt_outs': len([r for r in exceptions if disables(r['value'])]),
        'managed': len([r for r in services if r['managed']]),
        'unmanaged': len([r for r in exceptions if not r['managed'] or r['overridden']]),
        'expired': len([r for r in services if r['expired']]),
        'pending_restart': len([r for r in services if _restart_matters(r)]),
        'ineffective': len([r for r in services if r['value'] is not None and r['effective'] is False]),
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
        lines = ', '.join(str(e['line']) for e in config['errors'])
        nobody = ' (no interpreter on this host reads it)' if config['readers'] == [] else ''
        found.append('%s is malformed (line %s): "import ssl" raises for RHEL 7 Python 2 programs%s; repair it with '
                     'pep493.https.cert_verification repair=true.' % (path, lines, nobody))
    elif config['verify'] == 'disable' and config['readers'] != []:
        found.append('%s says verify=disable: every Python 2 program that reads it skips certificate checks; '
                     'set verify=enable and give exceptions per service.' % path)
    if config['duplicates']:
        found.append('%s has several [https] sections or verify keys; only the last one counts.' % path)
    if config['rpmnew']:
        found.append('%s exists: a package update left a new default beside the edited file; compare and remove it.'
                     % config['rpmnew'])
    return found


def _where(setting):
    if setting['path'] is None:
        return "systemd's manager environment (systemctl show-environment)"
    return '%s line %s' % (setting['path'], setting['line'])


def _global_findings(setting):
    if setting['action'] != 'set':
        return []
    if setting['disables']:
        who = {
            GLOBAL_ETC_ENVIRONMENT: 'every login session',
            GLOBAL_PROFILE_D: 'every login shell',
            GLOBAL_SYSTEM_CONF: 'every service started by systemd',
            GLOBAL_MANAGER: 'every service started from now on',
        }[setting['source']]
        return ['%s sets PYTHONHTTPSVERIFY=0 for %s: Python 2 programs there skip certificate checks whatever '
                'the host-wide file says; remove it.' % (_where(setting), who)]
    if setting['value'] != '1':
        return ['%s sets PYTHONHTTPSVERIFY=%s, which leaves verification on (only "0" disables it).'
                % (_where(setting), dropin.show(setting['value']))]
    return []


def _service_findings(record):
    unit = record['unit']
    value = record['value']
    found = []
    if record['expired']:
        found.append('%s: the exception expired on %s (%s); remove it or renew it with a new date.'
                     % (unit, record['expires'], record['dropin']))
    if _restart_matters(record):
        found.append('%s: the running process (PID %s) has PYTHONHTTPSVERIFY=%s but the unit now gives %s; '
                     'restart it.' % (unit, record['main_pid'], _shown(record['running_value']), _shown(value)))
    if record['needs_daemon_reload']:
        found.append('%s: its files changed since systemd read them; run systemctl daemon-reload.' % unit)
    if value is not None and record['effective'] is False:
        found.append('%s runs Python 3 (%s): PYTHONHTTPSVERIFY=%s has no effect on it; remove the setting.'
                     % (unit, record['executable'], value))
    if value is not None and record['source_kind'] != SOURCE_MANAGER:
        if record['overridden']:
            found.append('%s: %s sets PYTHONHTTPSVERIFY=%s and wins over the managed drop-in %s.'
                         % (unit, record['source'] or 'another setting', value, record['dropin']))
        elif not record['managed'] and disables(value):
            found.append('%s: verification is off (PYTHONHTTPSVERIFY=0 from %s) without a reason or an expiry '
                         'date; manage it with pep493.https.service_verification.' % (unit, record['source']))
    if value is not None and value not in ('0', '1'):
        found.append('%s: PYTHONHTTPSVERIFY=%s leaves verification on (only "0" disables it).'
                     % (unit, dropin.show(value)))
    for error in record['errors']:
        found.append('%s: %s.' % (unit, error))
    return found


def _restart_matters(record):
    """A pending restart that changes something (not for a service the variable cannot affect)."""
    return bool(record['pending_restart']) and record['effective'] is not False


def _shown(value):
    return 'unset' if value is None else dropin.show(value)
