# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a service's configuration says, and the environment its processes get, exactly as
systemd computes it (systemd.exec(5), "Environment"; exec_spawn() and exec_child() in systemd
247's src/core/execute.c):

1. the manager's environment (``DefaultEnvironment=`` of system.conf, ``systemctl
   set-environment``: ``systemctl show -p Environment``) - lowest;
2. ``PassEnvironment=``: those names, from the manager's own process environment (PID 1's);
3. ``Environment=``: assignments in order, a later one wins, an empty one resets the list;
4. ``EnvironmentFile=``: files in the order named (a glob names its matches in sorted order,
   ``-`` makes a missing or unreadable one harmless, an empty assignment resets the list),
   read when the process starts; they win over everything above;
5. ``UnsetEnvironment=``: removes a name, or only that exact ``NAME=value``, last of all.

A value the files cannot tell (PID 1's environment under ``root``, a host-dependent
specifier) is reported as unknown, never guessed.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._syntax import envfile
from ansible_collections.pep493.https.plugins.module_utils._syntax import systemd

VARIABLE = envfile.VARIABLE

KIND_UNIT = 'unit'
KIND_DROPIN = 'dropin'
KIND_ENVIRONMENT_FILE = 'environment_file'
KIND_MANAGER = 'manager'
KIND_PASS = 'pass_environment'
KIND_UNSET = 'unset_environment'

_SETTINGS = ('Environment', 'EnvironmentFile', 'PassEnvironment', 'UnsetEnvironment', 'ExecStart', 'ExecStartPre',
             'PAMName', 'RootDirectory', 'RootImage', 'Type')


class Setting(object):
    """Where something was set: a file, its kind (unit, dropin, ...) and line."""

    __slots__ = ('path', 'kind', 'line')

    def __init__(self, path, kind, line=None):
        self.path = path
        self.kind = kind
        self.line = line


_MANAGER = Setting(None, KIND_MANAGER)


class ExecCommand(object):
    """One command of ExecStart= or ExecStartPre=: ``path`` is what systemd executes, ``argv``
    its arguments (argv[0] first), ``expand``: whether ``$VAR`` in arguments is replaced."""

    __slots__ = ('path', 'argv', 'expand', 'setting', 'directive')

    def __init__(self, path, argv, expand, setting, directive):
        self.path = path
        self.argv = argv
        self.expand = expand
        self.setting = setting
        self.directive = directive


class UnitConfig(object):
    """The [Service] settings of a unit that decide its environment and what it runs."""

    def __init__(self):
        self.environment = []       # [(name or None, value or None, Setting, why unknown or None)], None: reset
        self.environment_files = []  # [(pattern, optional, Setting)]
        self.pass_environment = []  # [(name, Setting)]
        self.unset_environment = []  # [(name or NAME=value, Setting)]
        self.exec_start_pre = []
        self.exec_start = []
        self.pam_name = None
        self.root_directory = None
        self.root_image = None
        self.service_type = None
        self.fatal = None           # why systemd would not load the unit (its fragment), or None
        self.mentioned_in = []      # files of the unit that name the variable
        self.files_unknown = None   # why the environment files cannot be told


def unit_config(unit):
    """The UnitConfig of a units.Unit, its files applied in order."""
    config = UnitConfig()
    for path, kind, data in unit.files:
        if envfile.mentions(data):
            config.mentioned_in.append(path)
        assignments, error = systemd.unit_file_assignments(data)
        for line, section, key, value in assignments:
            if section == 'Service' and key in _SETTINGS:
                _apply(config, unit.id, key, value, Setting(path, kind, line))
        if error is not None and kind == 'unit' and config.fatal is None:
            config.fatal = '%s: %s, so systemd does not load the unit' % (path, error)
    return config


def _apply(config, unit_id, key, value, setting):
    if key == 'Environment':
        _apply_environment(config, unit_id, value, setting)
    elif key == 'EnvironmentFile':
        if value == '':
            config.environment_files = []
            return
        try:
            path = systemd.expand_specifiers(value, unit_id)
        except systemd.SpecifierError as exc:
            if exc.host:
                config.files_unknown = '%s line %s: EnvironmentFile=%s uses %s' % (setting.path, setting.line,
                                                                                   value, exc)
            return
        config.environment_files.append((path[1:] if path.startswith('-') else path, path.startswith('-'), setting))
    elif key in ('PassEnvironment', 'UnsetEnvironment'):
        _apply_name_list(config, unit_id, key, value, setting)
    elif key in ('ExecStart', 'ExecStartPre'):
        target = config.exec_start if key == 'ExecStart' else config.exec_start_pre
        if value == '':
            del target[:]
            return
        commands, fatal = parse_exec(value, unit_id, setting, key)
        target.extend(commands)
        if fatal and config.fatal is None:
            config.fatal = '%s line %s: %s=%s: %s, so systemd does not load the unit' % (
                setting.path, setting.line, key, value, fatal)
    elif key == 'PAMName':
        config.pam_name = value or None
    elif key == 'RootDirectory':
        config.root_directory = value or None
    elif key == 'RootImage':
        config.root_image = value or None
    elif key == 'Type':
        config.service_type = value or None


def _apply_environment(config, unit_id, value, setting):
    """config_parse_environ(): words, each with specifiers expanded; a bad word stops the line."""
    if value == '':
        config.environment.append((None, None, setting, None))
        return
    words, _error = systemd.extract_words(value)
    for word in words:
        text = systemd.decode_word(word)
        if text is None:
            continue
        try:
            text = systemd.expand_specifiers(text, unit_id)
        except systemd.SpecifierError as exc:
            if exc.host:
                name = text.partition('=')[0]
                why = '%s line %s sets %s with %s' % (setting.path, setting.line, name, exc)
                config.environment.append((name if '%' not in name else None, None, setting, why))
            continue
        assignment = systemd.env_assignment(text)
        if assignment:
            config.environment.append((assignment[0], assignment[1], setting, None))


def _apply_name_list(config, unit_id, key, value, setting):
    target = config.pass_environment if key == 'PassEnvironment' else config.unset_environment
    if value == '':
        del target[:]
        return
    words, _error = systemd.extract_words(value, cunescape=key == 'UnsetEnvironment')
    for word in words:
        text = systemd.decode_word(word)
        if text is None:
            continue
        try:
            text = systemd.expand_specifiers(text, unit_id)
        except systemd.SpecifierError:
            continue
        valid = systemd.env_name_is_valid(text) or (key == 'UnsetEnvironment' and systemd.env_assignment(text))
        if valid and text not in [item[0] for item in target]:
            target.append((text, setting))


def parse_exec(value, unit_id, setting, directive):
    """config_parse_exec(): ([ExecCommand], why systemd refuses the line or None).

    Prefixes ``-@:+!`` (``@``: the next word is argv[0]; ``:``: no ``$VAR`` replacement); an
    unquoted ``;`` alone separates commands, ``\\;`` is a literal ``;``; specifiers are
    expanded in every word.
    """
    commands = []
    index = 0
    while True:
        try:
            word, index = systemd.extract_first_word(value, index)
        except systemd.WordError:
            return commands, None               # systemd ignores the rest of such a line
        if word is None:
            return commands, None
        first = systemd.decode_word(word) or ''
        if first == ';':
            continue
        ignore = separate_argv0 = False
        expand = True
        while first and first[0] in '-@:+!':
            if first[0] == '-':
                ignore = True
            elif first[0] == '@':
                separate_argv0 = True
            elif first[0] == ':':
                expand = False
            first = first[1:]
        refused = None if ignore else '%s=%s' % (directive, value)
        try:
            path = systemd.expand_specifiers(first, unit_id)
        except systemd.SpecifierError as exc:
            return commands, refused and 'the program name uses %s' % exc
        if not path or path.endswith('/') or not (path.startswith('/') or '/' not in path):
            return commands, refused and 'no valid program in %r' % first
        argv = [] if separate_argv0 else [path]
        semicolon = False
        while index < len(value):
            if value[index] == ';' and value[index + 1:index + 2] in ('', ' ', '\t', '\n', '\r'):
                index = _skip_blanks(value, index + 1)
                semicolon = True
                break
            if value[index:index + 2] == '\\;' and value[index + 2:index + 3] in ('', ' ', '\t', '\n', '\r'):
                argv.append(';')
                index = _skip_blanks(value, index + 2)
                continue
            try:
                word, index = systemd.extract_first_word(value, index)
            except systemd.WordError as exc:
                return commands, refused and 'its words cannot be split (%s)' % exc
            if word is None:
                break
            try:
                argv.append(systemd.expand_specifiers(systemd.decode_word(word) or '', unit_id))
            except systemd.SpecifierError as exc:
                return commands, refused and 'an argument uses %s' % exc
        if not argv:
            return commands, refused and 'no argv[0]'
        commands.append(ExecCommand(path, argv, expand, setting, directive))
        if not semicolon:
            return commands, None


def _skip_blanks(text, index):
    while index < len(text) and text[index] in ' \t\n\r':
        index += 1
    return index


# ---------------------------------------------------------------------------------------------
# The environment
# ---------------------------------------------------------------------------------------------

class Unknown(object):
    """A variable whose value cannot be told from what can be read, and why."""

    __slots__ = ('why',)

    def __init__(self, why):
        self.why = why

    def __eq__(self, other):
        return isinstance(other, Unknown) and other.why == self.why

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self.why)


class ServiceEnvironment(object):
    """The environment a process of the service gets when it starts.

    ``variables``: {name: (value or Unknown, Setting or None)}; ``starts``: False when systemd
    would refuse to start it (an environment file that cannot be loaded: ``errors`` says which);
    ``unknown``: why any variable may be missing from ``variables`` (None when all are known).
    """

    def __init__(self):
        self.variables = {}
        self.starts = True
        self.errors = []
        self.unknown = None
        self.mentioned_in = []

    def get(self, name):
        """(value, Setting): value is None when unset, an Unknown when it cannot be told."""
        if name in self.variables:
            return self.variables[name]
        if self.unknown:
            return Unknown(self.unknown), None
        return None, None


def service_environment(config, files, manager_env, pid1_env=None, manager_unknown=None, pam_sets_variable=False):
    """The ServiceEnvironment of a unit (a UnitConfig) on the host ``files`` (hostfiles.HostFiles).

    ``manager_env``: {name: value} of the manager (``systemctl show -p Environment``), or of
    system.conf's ``DefaultEnvironment=`` under ``root``; ``pid1_env``: PID 1's own environment
    (/proc/1/environ) for ``PassEnvironment=``, None when it cannot be read;
    ``pam_sets_variable``: whether pam_env's files (/etc/environment) set the variable, which a
    unit with ``PAMName=`` may then get.
    """
    result = ServiceEnvironment()
    result.mentioned_in = list(config.mentioned_in)
    for name, value in (manager_env or {}).items():
        result.variables[name] = (value, _MANAGER)
    if manager_unknown:
        result.unknown = manager_unknown
    for name, setting in config.pass_environment:
        if pid1_env is None:
            result.variables[name] = (Unknown("%s line %s passes %s from PID 1's own environment, which cannot be "
                                              "read here" % (setting.path, setting.line, name)), setting)
        elif name in pid1_env:
            result.variables[name] = (pid1_env[name], Setting(setting.path, KIND_PASS, setting.line))
    _apply_assignments(result, config.environment)
    _apply_files(result, config, files)
    if config.pam_name and pam_sets_variable:
        pam = 'PAMName=%s: its PAM session (pam_env) may set %s from /etc/environment' % (config.pam_name, VARIABLE)
        result.variables[VARIABLE] = (Unknown(pam), result.get(VARIABLE)[1])
    for entry, setting in config.unset_environment:
        name, sep, exact = entry.partition('=')
        current = result.variables.get(name)
        if current is None or (sep and current[0] != exact):
            continue
        result.variables[name] = (None, Setting(setting.path, KIND_UNSET, setting.line))
    return result


def _apply_assignments(result, operations):
    environment = {}
    for name, value, setting, why in operations:
        if name is None and value is None and why is None:
            environment = {}
        elif why is not None:
            environment[name or VARIABLE] = (Unknown(why), setting)
        else:
            environment[name] = (value, setting)
    result.variables.update(environment)


def _apply_files(result, config, files):
    """exec_context_load_environment(): every file, in order; later assignments win."""
    if config.files_unknown:
        for name in list(result.variables):
            result.variables[name] = (Unknown(config.files_unknown), result.variables[name][1])
        result.unknown = config.files_unknown
        return
    for pattern, optional, setting in config.environment_files:
        if not pattern.startswith('/'):
            if not optional:
                _cannot_start(result, 'EnvironmentFile=%s is not an absolute path' % pattern)
            continue
        matches = files.glob(pattern)
        if not matches:
            if not optional:
                _cannot_start(result, 'EnvironmentFile=%s matches no file, so systemd refuses to start the unit'
                              % pattern)
            continue
        for path in matches:
            parsed = _load_file(result, files, path, optional)
            if parsed is None:
                continue
            if envfile.mentions(parsed[1]):
                result.mentioned_in.append(path)
            for name, (value, line) in envfile.assignments_of(parsed[0]).items():
                result.variables[name] = (value, Setting(path, KIND_ENVIRONMENT_FILE, line))


def _load_file(result, files, path, optional):
    try:
        data = files.read(path)
        if data is None:
            raise hostfiles.HostFileError('%s does not exist' % path)
        if len(data) > envfile.SYSTEMD_247_MAX:
            # systemd 247 refuses it (E2BIG); 252 and later read up to 64 MiB
            raise hostfiles.HostFileError('%s is larger than 4 MiB, which systemd 247 refuses' % path)
        return envfile.parse_environment_file(data), data
    except (hostfiles.HostFileError, envfile.EnvFileError) as exc:
        if not optional:
            _cannot_start(result, 'EnvironmentFile=%s: %s; systemd refuses to start the unit' % (path, exc))
        return None


def _cannot_start(result, why):
    result.starts = False
    result.errors.append(why)
