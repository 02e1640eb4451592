# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one rule for whether PYTHONHTTPSVERIFY can reach Python 2 code in a service.

Used by service_verification (``effective`` of each exception) and verification_info (of each
service) alike. The commands that count are every ``ExecStartPre=`` and ``ExecStart=``: they
start with the unit's environment each time the service starts and do its work (a oneshot
service may run several ``ExecStart=`` commands, a preparation step may be Python 2 while the
main program is not). ``ExecStartPost=``, ``ExecReload=``, ``ExecStop=`` and
``ExecStopPost=`` are left out: they get the same environment, but they are mostly signals
and clean-up (``kill``, ``rm``), and counting them would turn nearly every service into
"cannot tell".

For each command, the program is followed the way the kernel and the programs themselves
follow it: ``env`` wrappers (``-i``, ``-u NAME``, ``NAME=value``, ``-S``), ``#!`` lines (one
optional argument, as Linux passes it), and Python's own options (``-E`` ignores every
``PYTHON*`` variable, also inside combined flags such as ``-Es`` or after ``-tt``; Python 2
has no ``-I`` and refuses to start with it). The answer is True (some command runs Python 2
code with the variable), False (none does), or None ("cannot tell": a shell, a binary, a
script that cannot be read).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import posixpath
import re

from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._syntax import systemd

VARIABLE = 'PYTHONHTTPSVERIFY'
# the fixed search path systemd 247 uses for a program named without a folder
EXEC_SEARCH_PATH = ('/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin')

PYTHON2 = 'python2'             # reaches Python 2 code
PYTHON3 = 'python3'             # Python 3 ignores the variable
IGNORED = 'ignore-environment'  # python -E (or a Python 2 that refuses -I)
ENV_UNSET = 'env-unset'         # env -i / env -u removes it first
ENV_OVERRIDE = 'env-override'   # env NAME=value sets its own value
UNKNOWN = 'unknown'             # cannot tell
NO_COMMAND = 'no-command'
MASKED = 'masked'
NOT_LOADED = 'not-loaded'
CANNOT_START = 'cannot-start'
# the unit never starts a process, so no value of the variable reaches one
NEVER_STARTS = (MASKED, CANNOT_START)
# the variable reaches Python 2 code, but that code uses no HTTPS the knobs govern (requests, urllib3, raw ssl)
NOT_GOVERNED = 'not-governed'

_PY3 = re.compile(r'^(python3(\.\d+)?[dmu]*|pypy3(\.\d+)?|platform-python3?(\.\d+)?)$')
_PY2 = re.compile(r'^(python2(\.\d+)?[dmu]*(-dbg)?|pypy2?(\.\d+)?)$')
# Python 2.7's getopt string (Modules/main.c): a ":" marks an option that takes a value.
_PY2_OPTIONS = '3bBc:dEhiJm:OQ:RsStuUvVW:xX?'
_PY2_WITH_VALUE = 'cmQW'
_MAX_DEPTH = 6


class CommandEffect(object):
    """What one command does with the variable: ``kind`` (one of the constants above), the
    ``python`` it ends in (2, 3 or None), the ``program`` that finally runs, what ``env``
    wrappers on the way do to the variable (``sets``: None, ('unset',) or ('set', value)),
    ``why`` for UNKNOWN, and for Python the code it runs (``script``: ('file', path),
    ('module', name), ('code', text) or None when it reads its standard input)."""

    __slots__ = ('kind', 'python', 'program', 'sets', 'why', 'script')

    def __init__(self, kind, python=None, program=None, sets=None, why=None, script=None):
        self.kind = kind
        self.python = python
        self.program = program
        self.sets = sets
        self.why = why
        self.script = script

    def as_dict(self):
        return dict(kind=self.kind, python=self.python, program=self.program,
                    sets=list(self.sets) if self.sets else None, why=self.why,
                    script=list(self.script) if self.script else None)


class Effect(object):
    """The service's answer: ``effective`` (True, False or None), ``kind`` (why), the
    ``commands`` looked at (CommandEffect each), ``main`` (the one of the first ExecStart=,
    whose process is the service's main process) and ``python3`` (every command is Python 3)."""

    __slots__ = ('effective', 'kind', 'commands', 'python3', 'executable', 'main')

    def __init__(self, effective, kind, commands=(), executable=None, main=None):
        self.effective = effective
        self.kind = kind
        self.commands = list(commands)
        self.python3 = bool(self.commands) and all(c.python == 3 for c in self.commands)
        self.executable = executable
        self.main = main


def combine(effects, executable=None, main=None):
    """The service's Effect from the CommandEffect of every counted command."""
    if not effects:
        return Effect(None, NO_COMMAND, executable=executable)
    kinds = [e.kind for e in effects]
    if PYTHON2 in kinds:
        return Effect(True, PYTHON2, effects, executable, main)
    if UNKNOWN in kinds:
        return Effect(None, UNKNOWN, effects, executable, main)
    for kind in (IGNORED, ENV_UNSET, ENV_OVERRIDE, PYTHON3):
        if kind in kinds:
            return Effect(False, kind, effects, executable, main)
    return Effect(False, PYTHON3, effects, executable, main)


def service_effect(commands, files, environment=None, root_directory=None, cache=None):
    """The Effect of a service's commands (service_env.ExecCommand, ExecStartPre= ones first).

    ``files``: the host (hostfiles.HostFiles) to read programs and ``#!`` lines from;
    ``environment``: {name: value} for ``$NAME`` in arguments (a name missing from it, or with
    a value that cannot be told, makes a command that depends on it "cannot tell");
    ``root_directory``: the unit's ``RootDirectory=``, where its programs are looked up;
    ``cache``: a dict kept for one host, where commands already followed are remembered.
    """
    effects = []
    for command in commands:
        # a command that names no variable gives the same answer wherever it appears
        key = (command.path, tuple(command.argv), root_directory) if not any(
            '$' in arg for arg in command.argv) else None
        if cache is not None and key in cache:
            effects.append(cache[key])
            continue
        found = command_effect(command.path, command.argv, files, environment if command.expand else None,
                               root_directory)
        if cache is not None and key is not None:
            cache[key] = found
        effects.append(found)
    starts = [index for index, c in enumerate(commands) if c.directive == 'ExecStart']
    main = effects[starts[0]] if starts else None
    return combine(effects, commands[starts[0]].path if starts else None, main)


def command_effect(path, argv, files, environment=None, root_directory=None):
    """The CommandEffect of one command: ``path`` is executed with ``argv``."""
    argv = _expand(argv, environment)
    if argv is None:
        return CommandEffect(UNKNOWN, program=path, why='its arguments name variables that cannot be told')
    return _follow(path, argv[1:], files, root_directory, 0)


def _expand(argv, environment):
    """replace_env_argv(): a word that is exactly ``$NAME`` becomes the words of its value,
    ``${NAME}`` is replaced inside words; None when a value cannot be told."""
    if environment is None:
        return list(argv)
    out = []
    for word in argv:
        if word.startswith('$') and word[1:2] not in ('{', '$') and len(word) > 1:
            value = environment.get(word[1:])
            if not isinstance(value, (str, type(u''))) and value is not None:
                return None
            out.extend((value or '').split())
            continue
        if '${' in word:
            replaced = _replace_braces(word, environment)
            if replaced is None:
                return None
            word = replaced
        out.append(word)
    return out


def _replace_braces(word, environment):
    out = []
    index = 0
    while index < len(word):
        start = word.find('${', index)
        end = word.find('}', start) if start >= 0 else -1
        if start < 0 or end < 0:
            out.append(word[index:])
            break
        out.append(word[index:start])
        value = environment.get(word[start + 2:end])
        if value is not None and not isinstance(value, (str, type(u''))):
            return None
        out.append(value or '')
        index = end + 1
    return ''.join(out)


def _lookup(program, files, root_directory):
    """The host path of ``program`` (a bare name is looked up in the fixed search path)."""
    if program.startswith('/'):
        return _under(program, root_directory)
    for folder in EXEC_SEARCH_PATH:
        candidate = _under(folder + '/' + program, root_directory)
        info = files.stat(candidate)
        if info is not None:
            return candidate
    return None


def _under(path, root_directory):
    if root_directory:
        return root_directory.rstrip('/') + path
    return path


def _follow(program, args, files, root_directory, depth):
    if depth > _MAX_DEPTH:
        return CommandEffect(UNKNOWN, program=program, why='too many interpreters in a row')
    name = posixpath.basename(program)
    if name == 'env':
        return _env(program, args, files, root_directory, depth)
    python = _python_of(name, program, files, root_directory)
    if python is not None:
        return _python(program, python, args)
    path = _lookup(program, files, root_directory)
    head = files.head(path) if path else None
    if not head:
        return CommandEffect(UNKNOWN, program=program, why='%s cannot be read' % program)
    if not head.startswith(b'#!'):
        return CommandEffect(UNKNOWN, program=program, why='%s is a program, not a script' % program)
    line = head[2:].split(b'\n', 1)[0].decode('utf-8', 'replace')
    match = re.match(r'[ \t]*([^ \t]*)[ \t]*(.*)', line)
    interpreter, argument = match.group(1), match.group(2).rstrip(' \t')
    if not interpreter:
        return CommandEffect(UNKNOWN, program=program, why='%s has an empty #! line' % program)
    # Linux passes the rest of the #! line as one argument, then the script and its arguments
    new_args = ([argument] if argument else []) + [program] + list(args)
    return _follow(interpreter, new_args, files, root_directory, depth + 1)


def _python_of(name, program, files, root_directory):
    """2 or 3 when ``program`` is a Python interpreter (a bare ``python`` by what it links to)."""
    if _PY3.match(name):
        return 3
    if _PY2.match(name):
        return 2
    if name == 'python':
        path = _lookup(program, files, root_directory)
        try:
            real = files.resolve(path).host if path else None
        except hostfiles.HostFileError:
            real = None
        if real and real != path:
            return _python_of(posixpath.basename(real), real, files, root_directory)
    return None


def _python(program, python, args):
    script = _script_of(args)
    if python == 3:
        return CommandEffect(PYTHON3, python=3, program=program, script=script)
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == '--' or not arg.startswith('-') or arg == '-':
            break
        if arg.startswith('--'):
            return CommandEffect(UNKNOWN, python=2, program=program, why='the option %s' % arg, script=script)
        flags = arg[1:]
        position = 0
        while position < len(flags):
            flag = flags[position]
            if flag == 'E':
                return CommandEffect(IGNORED, python=2, program=program, script=script)
            if flag == 'I':
                return CommandEffect(IGNORED, python=2, program=program, why='Python 2 has no -I: it does not start')
            if flag not in _PY2_OPTIONS or flag in ':?JhVX':
                return CommandEffect(UNKNOWN, python=2, program=program, why='the option -%s' % flag, script=script)
            if flag in _PY2_WITH_VALUE:
                if flag in 'cm':
                    return CommandEffect(PYTHON2, python=2, program=program, script=script)
                if position + 1 == len(flags):
                    index += 1          # the value is the next argument
                break
            position += 1
        index += 1
    return CommandEffect(PYTHON2, python=2, program=program, script=script)


def _script_of(args):
    """The code a Python command runs, after its options: ('file', path), ('module', name) for
    -m, ('code', text) for -c, or None when it reads its standard input (``-`` or nothing)."""
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == '--':
            index += 1
            break
        if not arg.startswith('-') or arg == '-' or arg.startswith('--'):
            break
        flags = arg[1:]
        for position, flag in enumerate(flags):
            if flag in 'cm':
                value = flags[position + 1:] or (args[index + 1] if index + 1 < len(args) else None)
                return (('module' if flag == 'm' else 'code'), value) if value is not None else None
            if flag in _PY2_WITH_VALUE:
                if position + 1 == len(flags):
                    index += 1          # the value is the next argument
                break
        index += 1
    if index >= len(args) or args[index] == '-':
        return None
    return ('file', args[index])


def _env(program, args, files, root_directory, depth):
    """GNU env: options, NAME=value assignments, then the command it executes."""
    cleared = False
    unset = set()
    assigned = {}
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == '--':
            index += 1
            break
        if arg in ('-', '-i', '--ignore-environment'):
            cleared = True
        elif arg in ('-u', '--unset', '-C', '--chdir'):
            if arg in ('-u', '--unset') and index + 1 < len(args):
                unset.add(args[index + 1])
            index += 1
        elif arg.startswith('--unset='):
            unset.add(arg[len('--unset='):])
        elif arg.startswith('-S') or arg.startswith('--split-string'):
            rest = arg[2:] if arg.startswith('-S') else arg.partition('=')[2]
            if not rest and index + 1 < len(args):
                index += 1
                rest = args[index]
            if '${' in rest:
                return CommandEffect(UNKNOWN, program=program, why='env -S with ${...}')
            args = args[:index] + systemd.split_words(rest) + args[index + 1:]
            continue
        elif arg.startswith('--'):
            pass                        # --debug, --null, --default-signal=... change nothing here
        elif arg.startswith('-') and len(arg) > 1:
            rest = arg[1:]
            while rest:
                flag, rest = rest[0], rest[1:]
                if flag == 'i':
                    cleared = True
                elif flag in 'uC':
                    value = rest if rest else (args[index + 1] if index + 1 < len(args) else '')
                    if not rest:
                        index += 1
                    if flag == 'u':
                        unset.add(value)
                    rest = ''
                elif flag == 'S':
                    return CommandEffect(UNKNOWN, program=program, why='env -S combined with other flags')
        elif '=' in arg:
            name, _sep, value = arg.partition('=')
            assigned[name] = value
        else:
            break
        index += 1
    command = args[index:]
    if not command:
        return CommandEffect(UNKNOWN, program=program, why='env runs no command')
    inner = _follow(command[0], command[1:], files, root_directory, depth + 1)
    sets = inner.sets
    if sets is None and VARIABLE in assigned:
        sets = ('set', assigned[VARIABLE])
    elif sets is None and (cleared or VARIABLE in unset):
        sets = ('unset',)
    kind = inner.kind
    if kind == PYTHON2 and sets is not None:
        kind = ENV_OVERRIDE if sets[0] == 'set' else ENV_UNSET
    return CommandEffect(kind, inner.python, inner.program, sets, inner.why, inner.script)


def main_process_value(effect, value):
    """The variable as the service's main process (the first ExecStart= command) gets it, when
    the unit gives it ``value``: an env wrapper there may unset it or set its own."""
    sets = effect.main.sets if effect.main is not None else None
    if sets is None:
        return value
    return sets[1] if sets[0] == 'set' else None
