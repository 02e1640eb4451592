# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Files that set environment variables, each read as its own reader reads it (pure functions):

- ``EnvironmentFile=`` files, as systemd 247 reads them (parse_env_file_internal() in
  src/basic/env-file.c, a character state machine ported here state for state);
- ``/etc/environment``, as pam_env reads it;
- shell snippets (``/etc/profile.d/*``), for the lines that set, unset or name the variable;
- ``/proc/<pid>/environ`` blobs.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.pep493.https.plugins.module_utils._syntax import quoting
from ansible_collections.pep493.https.plugins.module_utils._syntax import systemd

VARIABLE = 'PYTHONHTTPSVERIFY'
# systemd 247 refuses environment files larger than this (READ_FULL_BYTES_MAX); 252 and later
# allow 64 MiB, above the collection's own reading limit.
SYSTEMD_247_MAX = 4 * 1024 * 1024

_WHITESPACE = ' \t\n\r'
_NEWLINE = '\n\r'
_SHELL_NEED_ESCAPE = '"\\`$'

(_PRE_KEY, _KEY, _PRE_VALUE, _VALUE, _VALUE_ESCAPE, _SINGLE, _DOUBLE, _DOUBLE_ESCAPE, _COMMENT,
 _COMMENT_ESCAPE) = range(10)


class EnvFileError(ValueError):
    """A file systemd refuses to load (the unit then does not start unless the name had "-")."""


def parse_environment_file(data):
    """[(line, name, value)] of an ``EnvironmentFile=`` file, in file order, exactly as systemd
    247 reads it; EnvFileError when systemd would refuse the whole file (invalid UTF-8).

    What systemd then does with the list is assignments_of() below: later ones win, invalid
    names (``export X``, ``bad name``) are dropped. Worth knowing from the state machine: a
    comment line ending in a backslash swallows the next line (systemd 254 changed that); quotes
    are special only at the start of a value (``A=0""`` is ``0""``); a quoted value may span
    lines; inside double quotes only ``\\" \\\\ \\` \\$`` lose their backslash (``"\\0"`` stays
    ``\\0``); a NUL byte ends the file.
    """
    if not isinstance(data, bytes):
        data = data.encode('utf-8')
    data = data.split(b'\0', 1)[0]
    text = data.decode('latin-1')   # one character per byte: the machine works on bytes
    found = []
    state = _PRE_KEY
    key = []
    value = []
    last_key_ws = None
    last_value_ws = None
    line = 1
    start = 1

    def push(end_state):
        name = ''.join(key)
        if last_key_ws is not None:
            name = name[:last_key_ws]
        content = ''.join(value)
        if end_state == _VALUE and last_value_ws is not None:
            content = content[:last_value_ws]
        found.append((start, _utf8(name, start), _utf8(content, start)))

    for char in text:
        if state == _PRE_KEY:
            if char in '#;':
                state = _COMMENT
            elif char not in _WHITESPACE:
                state, key, last_key_ws, start = _KEY, [char], None, line
            elif char in _NEWLINE:
                line += 1
        elif state == _KEY:
            if char in _NEWLINE:
                state, key = _PRE_KEY, []
                line += 1
            elif char == '=':
                state, last_value_ws = _PRE_VALUE, None
            else:
                if char not in _WHITESPACE:
                    last_key_ws = None
                elif last_key_ws is None:
                    last_key_ws = len(key)
                key.append(char)
        elif state == _PRE_VALUE:
            if char in _NEWLINE:
                push(_PRE_VALUE)
                state, key, value = _PRE_KEY, [], []
                line += 1
            elif char == "'":
                state = _SINGLE
            elif char == '"':
                state = _DOUBLE
            elif char == '\\':
                state = _VALUE_ESCAPE
            elif char not in _WHITESPACE:
                state = _VALUE
                value.append(char)
        elif state == _VALUE:
            if char in _NEWLINE:
                push(_VALUE)
                state, key, value = _PRE_KEY, [], []
                line += 1
            elif char == '\\':
                state, last_value_ws = _VALUE_ESCAPE, None
            else:
                if char not in _WHITESPACE:
                    last_value_ws = None
                elif last_value_ws is None:
                    last_value_ws = len(value)
                value.append(char)
        elif state == _VALUE_ESCAPE:
            state = _VALUE
            if char not in _NEWLINE:
                value.append(char)
            else:
                line += 1
        elif state == _SINGLE:
            if char == "'":
                state = _PRE_VALUE
            else:
                value.append(char)
                line += char == '\n'
        elif state == _DOUBLE:
            if char == '"':
                state = _PRE_VALUE
            elif char == '\\':
                state = _DOUBLE_ESCAPE
            else:
                value.append(char)
                line += char == '\n'
        elif state == _DOUBLE_ESCAPE:
            state = _DOUBLE
            if char in _SHELL_NEED_ESCAPE:
                value.append(char)
            elif char != '\n':
                value.extend(('\\', char))
            else:
                line += 1
        elif state == _COMMENT:
            if char == '\\':
                state = _COMMENT_ESCAPE
            elif char in _NEWLINE:
                state = _PRE_KEY
                line += 1
        else:  # _COMMENT_ESCAPE: systemd 247 stays in the comment, whatever the character
            state = _COMMENT
            line += char == '\n'
    if state in (_PRE_VALUE, _VALUE, _VALUE_ESCAPE, _SINGLE, _DOUBLE, _DOUBLE_ESCAPE):
        push(state)
    return found


def _utf8(latin, line):
    try:
        return latin.encode('latin-1').decode('utf-8')
    except UnicodeDecodeError:
        raise EnvFileError('line %d is not valid UTF-8, so systemd refuses the whole file' % line)


def assignments_of(parsed):
    """{name: (value, line)} of parse_environment_file() output as systemd keeps it: a later
    assignment wins, an invalid name (``export X``, ``bad name``) is dropped."""
    result = {}
    for line, name, value in parsed:
        if systemd.env_name_is_valid(name):
            result[name] = (value, line)
    return result


def mentions(data):
    return data is not None and VARIABLE.encode('ascii') in data


# ---------------------------------------------------------------------------------------------
# /etc/environment and shell snippets
# ---------------------------------------------------------------------------------------------

_ENV_NAME_RE = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*$')


def parse_etc_environment(data):
    """/etc/environment as pam_env reads it: [(line, name, value)]; ``export`` is allowed."""
    result = []
    for lineno, raw in enumerate(quoting.text(data).split('\n'), 1):
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
    for lineno, raw in enumerate(quoting.text(data).split('\n'), 1):
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


# ---------------------------------------------------------------------------------------------
# /proc/<pid>/environ
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
        key = quoting.text(name)
        if key not in env:
            env[key] = quoting.text(value)
    return env
