# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What systemd says about units, read from ``systemctl show`` output and unit files.

Pure parsers (text in, data out) plus two small look-ups: whether systemd runs here, and
where a unit's file is. Nothing here runs a process: callers run ``systemctl`` themselves
(module.run_command with an argument list) and hand the text over.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

from ansible_collections.pep493.https.plugins.module_utils import hostfiles

# Properties one `systemctl show -p ...` call asks for, for every unit at once.
SHOW_PROPERTIES = ('Id', 'LoadState', 'ActiveState', 'FragmentPath', 'ExecStart', 'Environment')

# The unit search path of the system manager, most important first (systemd.unit(5)).
UNIT_PATHS = ('/etc/systemd/system', '/run/systemd/system', '/usr/local/lib/systemd/system',
              '/usr/lib/systemd/system', '/lib/systemd/system')

_ESCAPES = {'a': '\a', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v',
            's': ' ', '\\': '\\', '"': '"', "'": "'", ' ': ' '}
_OCTAL = re.compile(r'[0-7]{3}')
_HEX = {'x': 2, 'u': 4, 'U': 8}
_EXEC = re.compile(r'\{ path=(?P<path>.*?) ; argv\[\]=(?P<argv>.*?) ; (?:ignore_errors|flags)=')
_PY3 = re.compile(r'^(python3(\.\d+)?[dmu]*|pypy3(\.\d+)?|platform-python3?(\.\d+)?)$')
_PY2 = re.compile(r'^(python2(\.\d+)?[dmu]*|pypy2?(\.\d+)?)$')
_EXEC_PREFIXES = '-@:+!'


def systemd_running(root=None):
    """True when systemd is PID 1 here (sd_booted(3)) and no ``root`` redirects the files."""
    return not root and os.path.isdir('/run/systemd/system')


def parse_show(text):
    """The blocks of one ``systemctl show`` call for several units, in the order printed.

    Blocks are separated by blank lines; each line is ``Key=Value`` split at the first ``=``
    (values may contain ``=``). A key printed several times (one ``ExecStart=`` line per
    command) keeps all its values, joined by newlines.
    """
    blocks = []
    current = None
    for line in text.splitlines():
        if line.strip() == '':
            if current is not None:
                blocks.append(current)
                current = None
            continue
        key, sep, value = line.partition('=')
        if not sep:
            continue
        if current is None:
            current = {}
        if key in current:
            current[key] = current[key] + '\n' + value
        else:
            current[key] = value
    if current is not None:
        blocks.append(current)
    return blocks


def _unescape(text, index):
    """(character, next index) for the backslash escape starting at ``text[index]``."""
    following = text[index + 1]
    if following in _ESCAPES:
        return _ESCAPES[following], index + 2
    if following in _HEX:
        digits = text[index + 2:index + 2 + _HEX[following]]
        if len(digits) == _HEX[following] and all(c in '0123456789abcdefABCDEF' for c in digits):
            return _chr(int(digits, 16)), index + 2 + len(digits)
    if _OCTAL.match(text, index + 1):
        return _chr(int(text[index + 1:index + 4], 8)), index + 4
    return following, index + 2


def _chr(code):
    # systemd refuses an escape beyond U+10FFFF; here it becomes U+FFFD instead of an exception.
    try:
        try:
            return unichr(code)  # noqa: F821 - Python 2
        except NameError:
            return chr(code)
    except (ValueError, OverflowError):
        return u'\ufffd'


def split_words(text):
    """Words as systemd's extract_first_word() cuts them with unquoting and C unescaping."""
    words = []
    index = 0
    length = len(text)
    while index < length:
        while index < length and text[index] in ' \t\n':
            index += 1
        if index >= length:
            break
        word = []
        quote = None
        while index < length:
            char = text[index]
            if quote is None and char in ' \t\n':
                break
            if char == quote:
                quote = None
                index += 1
            elif quote is None and char in '"\'':
                quote = char
                index += 1
            elif char == '\\' and index + 1 < length:
                char, index = _unescape(text, index)
                word.append(char)
            else:
                word.append(char)
                index += 1
        words.append(''.join(word))
    return words


def parse_environment(value):
    """The variables of an ``Environment=`` value (as ``systemctl show`` prints it, or as a
    unit file holds it): quoted words, backslash escapes; a later assignment wins."""
    result = {}
    for word in split_words(value or ''):
        name, sep, setting = word.partition('=')
        if sep and name:
            result[name] = setting
    return result


def parse_exec_start(value):
    """The commands of an ``ExecStart=`` property as ``systemctl show`` prints it.

    Each ``{ path=... ; argv[]=... ; ... }`` becomes one argv list whose first element is the
    program systemd executes (``path``), followed by its arguments.
    """
    commands = []
    for match in _EXEC.finditer(value or ''):
        path = match.group('path')
        argv = split_words(match.group('argv'))
        commands.append([path] + argv[1:])
    return commands


def unit_file_assignments(text):
    """(section, key, value) of every assignment in a unit file, in order.

    Follows systemd.syntax(7): ``#``/``;`` comment lines, a trailing backslash joins the next
    line (comment lines in between are skipped).
    """
    section = None
    pending = None
    for raw in text.splitlines():
        line = raw.strip()
        if line and line[0] in '#;':
            continue
        if pending is not None:
            line = pending + ' ' + line
            pending = None
        elif line == '':
            continue
        if line.endswith('\\'):
            pending = line[:-1]
            continue
        if line.startswith('[') and line.endswith(']'):
            section = line[1:-1]
            continue
        key, sep, setting = line.partition('=')
        if sep:
            yield section, key.strip(), setting.strip()
    if pending is not None:
        key, sep, setting = pending.partition('=')
        if sep:
            yield section, key.strip(), setting.strip()


def unit_file_exec_start(text):
    """The argv lists of a unit file's ``[Service] ExecStart=`` lines (an empty one resets)."""
    commands = []
    for section, key, setting in unit_file_assignments(text):
        if section != 'Service' or key != 'ExecStart':
            continue
        if setting == '':
            commands = []
            continue
        words = split_words(setting)
        if not words:
            continue
        prefixes = ''
        while words[0] and words[0][0] in _EXEC_PREFIXES:
            prefixes += words[0][0]
            words[0] = words[0][1:]
        if words[0] == '':
            words = words[1:]
        if not words:
            continue
        if '@' in prefixes:
            # "@path argv0 args": path runs, argv0 is only what it sees as its name.
            words = [words[0]] + words[2:]
        commands.append(words)
    return commands


def _interpreter_kind(program):
    name = os.path.basename(program)
    if _PY3.match(name):
        return True
    if _PY2.match(name):
        return False
    if name == 'python':
        return 'python'
    return None


def _env_command(argv):
    """The command ``/usr/bin/env [options] [NAME=VALUE...] command ...`` runs, or []."""
    index = 1
    while index < len(argv):
        arg = argv[index]
        if arg.startswith('-S') or arg.startswith('--split-string'):
            rest = arg[2:] if arg.startswith('-S') else arg.partition('=')[2]
            if rest == '' and index + 1 < len(argv):
                index += 1
                rest = argv[index]
            return split_words(rest) + argv[index + 1:]
        if arg in ('-u', '--unset', '-C', '--chdir'):
            index += 2
            continue
        if arg.startswith('-') or ('=' in arg and not arg.startswith('/')):
            index += 1
            continue
        return argv[index:]
    return []


def python3_interpreter(argv, read_head=None, resolve=None, _depth=0):
    """Whether ``argv`` runs Python 3: True, False (Python 2), or None (cannot tell).

    ``argv[0]`` may be an interpreter (``python3.11``, ``platform-python``, ``pypy3``),
    ``/usr/bin/env python3 ...``, or a script whose ``#!`` line names one of those.
    ``read_head(path)`` returns the first bytes of a file (or None); ``resolve(path)`` the real
    path of a bare ``python`` (a link to python2 or python3), or None.
    """
    if not argv or _depth > 3:
        return None
    program = argv[0]
    if os.path.basename(program) == 'env':
        return python3_interpreter(_env_command(argv), read_head, resolve, _depth + 1)
    kind = _interpreter_kind(program)
    if kind is True or kind is False:
        return kind
    if kind == 'python':
        real = resolve(program) if resolve else None
        kind = _interpreter_kind(real) if real else None
        return kind if kind is True or kind is False else None
    if read_head is None:
        return None
    head = read_head(program)
    if not head or not head.startswith(b'#!'):
        return None
    line = head[2:].split(b'\n', 1)[0].decode('utf-8', 'replace').strip()
    shebang = line.split(None, 1)
    if not shebang:
        return None
    if os.path.basename(shebang[0]) == 'env':
        interpreter = shebang[:1] + split_words(shebang[1]) if len(shebang) > 1 else shebang
    else:
        interpreter = shebang[:1]  # Linux passes the rest of the line as one argument
    return python3_interpreter(interpreter + [program], None, resolve, _depth + 1)


def find_unit_file(unit, files):
    """The host path of ``unit``'s file in the unit search path (``files``: hostfiles.HostFiles), or None.

    An instance ``a@b.service`` without its own file uses its template ``a@.service``.
    """
    names = [unit]
    stem = unit[:-len('.service')] if unit.endswith('.service') else unit
    prefix, at, instance = stem.partition('@')
    if at and instance:
        names.append(prefix + '@.service')
    for name in names:
        for folder in UNIT_PATHS:
            try:
                resolved = files.resolve('%s/%s' % (folder, name))
            except hostfiles.HostFileError:
                continue
            if resolved.is_null:
                return '/dev/null'
            if resolved.exists and os.path.isfile(resolved.real):
                return resolved.host
    return None
