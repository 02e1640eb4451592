# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""systemd's own syntaxes, as pure functions: unit files (systemd.syntax(7)), quoted and
C-escaped words, unit specifiers (systemd.unit(5)), and what ``systemctl`` prints.

Each rule follows systemd 247 (Debian bullseye), read from its source where the manual is
silent: config_parse() for unit files, extract_first_word() for words, cunescape_one() for
escapes, specifier_printf() for specifiers. Nothing here reads a file or runs a process.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.pep493.https.plugins.module_utils._syntax import quoting
from ansible_collections.pep493.https.plugins.module_utils._syntax import unit_names

_WHITESPACE = ' \t\n\r'
_ESCAPES = {'a': 0x07, 'b': 0x08, 'f': 0x0c, 'n': 0x0a, 'r': 0x0d, 't': 0x09, 'v': 0x0b, '\\': 0x5c, '"': 0x22,
            "'": 0x27, 's': 0x20}
_HEX = '0123456789abcdefABCDEF'
_ALNUM = re.compile(r'[A-Za-z0-9]')
_BOM = u'\ufeff'
_SURROGATE = re.compile(u'[\ud800-\udfff]')


class WordError(ValueError):
    """Text systemd refuses to split into words (an unbalanced quote, a bad escape)."""


# ---------------------------------------------------------------------------------------------
# Unit files: config_parse()
# ---------------------------------------------------------------------------------------------

class UnitFileError(ValueError):
    """A line that makes systemd stop reading the file (invalid UTF-8, a broken section header)."""

    def __init__(self, message, line):
        super(UnitFileError, self).__init__(message)
        self.line = line


def _physical_lines(data):
    """Lines as read_line() cuts them: at \\n, \\r\\n, \\r or NUL."""
    return re.split(b'\r\n|\n|\r|\x00', data)


_ASSIGNMENTS = {}


def unit_file_assignments(data):
    """[(line, section, key, value)] of a unit file or drop-in (bytes), and the UnitFileError that
    stopped systemd reading it (or None). Files with the same bytes (drop-ins of ours written for
    many units alike) are parsed once."""
    if data not in _ASSIGNMENTS:
        if len(_ASSIGNMENTS) > 2000:
            _ASSIGNMENTS.clear()
        _ASSIGNMENTS[data] = _unit_file_assignments(data)
    found, error = _ASSIGNMENTS[data]
    return list(found), error


def _unit_file_assignments(data):
    """unit_file_assignments() without the memory.

    As config_parse(): a line whose first non-blank character is ``#`` or ``;`` is a comment,
    even inside a continuation; a line ending in an odd number of backslashes continues on the
    next one (that backslash becomes a space); assignments outside a section are ignored; an
    invalid UTF-8 line or a section header without ``]`` ends the file there.
    """
    found = []
    section = None
    continuation = None
    lines = _physical_lines(data)
    if lines and lines[-1] == b'':
        lines.pop()
    lineno = 0
    for raw in lines:
        lineno += 1
        stripped = raw.lstrip(b' \t\n\r')
        if stripped[:1] in (b'#', b';'):
            continue
        line = raw
        if lineno == 1 and line.startswith(b'\xef\xbb\xbf'):
            line = line[3:]
        joined = continuation + line if continuation is not None else line
        trailing = len(joined) - len(joined.rstrip(b'\\'))
        if trailing % 2 == 1:
            continuation = joined[:-1] + b' '
            continue
        continuation = None
        try:
            section = _parse_line(joined, lineno, section, found)
        except UnitFileError as exc:
            return found, exc
    if continuation is not None:
        try:
            _parse_line(continuation, lineno + 1, section, found)
        except UnitFileError as exc:
            return found, exc
    return found, None


def _parse_line(raw, lineno, section, found):
    """parse_line(): returns the current section; appends an assignment to ``found``."""
    stripped = raw.strip(b' \t\n\r')
    if not stripped:
        return section
    try:
        line = stripped.decode('utf-8')
    except UnicodeDecodeError:
        raise UnitFileError('line %d is not valid UTF-8' % lineno, lineno)
    if line.startswith('['):
        if not line.endswith(']'):
            raise UnitFileError('line %d: invalid section header %r' % (lineno, line), lineno)
        return line[1:-1]
    if section is None:
        return section
    key, sep, value = line.partition('=')
    if not sep or not key.strip(_WHITESPACE):
        return section
    found.append((lineno, section, key.strip(_WHITESPACE), value.strip(_WHITESPACE)))
    return section


# ---------------------------------------------------------------------------------------------
# Words: extract_first_word() with EXTRACT_UNQUOTE and EXTRACT_CUNESCAPE
# ---------------------------------------------------------------------------------------------

def _cunescape_one(text, index):
    """(bytes, characters consumed) for the escape after a backslash at ``text[index]``, as
    cunescape_one(); WordError for an escape systemd refuses."""
    char = text[index] if index < len(text) else ''
    if char in _ESCAPES:
        return _byte(_ESCAPES[char]), 1
    if char == 'x':
        digits = text[index + 1:index + 3]
        if len(digits) == 2 and all(d in _HEX for d in digits) and digits != '00':
            return _byte(int(digits, 16)), 3       # a raw byte, not a code point
        raise WordError('bad \\x escape')
    if char in ('u', 'U'):
        width = 4 if char == 'u' else 8
        digits = text[index + 1:index + 1 + width]
        if len(digits) == width and all(d in _HEX for d in digits):
            code = int(digits, 16)
            if code != 0 and (char == 'u' or (code < 0x110000 and not 0xd800 <= code <= 0xdfff)):
                return _utf8(code), 1 + width
        raise WordError('bad \\%s escape' % char)
    if char and char in '01234567':
        digits = text[index:index + 3]
        if len(digits) == 3 and all(d in '01234567' for d in digits):
            code = int(digits, 8)
            if 0 < code <= 255:
                return _byte(code), 3
        raise WordError('bad octal escape')
    raise WordError('unknown escape \\%s' % char)


def _byte(value):
    return bytes(bytearray([value]))


def _utf8(code):
    """UTF-8 bytes of ``code`` as utf8_encode_unichar() writes them (surrogates included)."""
    if code < 0x80:
        values = [code]
    elif code < 0x800:
        values = [0xc0 | (code >> 6), 0x80 | (code & 0x3f)]
    elif code < 0x10000:
        values = [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
    else:
        values = [0xf0 | (code >> 18), 0x80 | ((code >> 12) & 0x3f), 0x80 | ((code >> 6) & 0x3f),
                  0x80 | (code & 0x3f)]
    return bytes(bytearray(values))


# runs of characters with no special meaning: outside quotes, and inside each kind of quote
_PLAIN = {None: re.compile(u'[^ \t\n\r"\'\\\\]+'), '"': re.compile(u'[^"\\\\]+'),
          "'": re.compile(u"[^'\\\\]+")}
_PLAIN_NO_QUOTES = re.compile(u'[^ \t\n\r\\\\]+')


def extract_first_word(text, index=0, cunescape=True, unquote=True):
    """(word as bytes or None at the end, index after it) of ``text`` from ``index``, as
    extract_first_word(): quotes may appear anywhere in a word; inside and outside them a
    backslash starts a C escape (``cunescape``) or quotes the next character. Raises
    WordError for a word systemd refuses."""
    length = len(text)
    while index < length and text[index] in _WHITESPACE:
        index += 1
    if index >= length:
        return None, index
    word = []
    quote = None
    while index < length:
        plain = (_PLAIN[quote] if unquote else _PLAIN_NO_QUOTES).match(text, index)
        if plain:
            word.append(plain.group().encode('utf-8'))
            index = plain.end()
            continue
        char = text[index]
        if quote is None and char in _WHITESPACE:
            break
        if char == '\\':
            if index + 1 >= length:
                raise WordError('a backslash at the end')
            if cunescape:
                piece, used = _cunescape_one(text, index + 1)
                word.append(piece)
                index += 1 + used
            else:
                word.append(text[index + 1].encode('utf-8'))
                index += 2
            continue
        if quote is not None and char == quote:
            quote = None
        elif quote is None and char in '"\'':
            quote = char
        else:
            word.append(char.encode('utf-8'))
        index += 1
    if quote is not None:
        raise WordError('an unbalanced quote')
    while index < length and text[index] in _WHITESPACE:
        index += 1
    return b''.join(word), index


def extract_words(text, cunescape=True, unquote=True):
    """Words of ``text`` (bytes each) as systemd splits them: (words, error), the words before
    the first one systemd refuses and why it refused it (None when all were taken)."""
    text = quoting.text(text)
    words = []
    index = 0
    while True:
        try:
            word, index = extract_first_word(text, index, cunescape, unquote)
        except WordError as exc:
            return words, str(exc)
        if word is None:
            return words, None
        words.append(word)


def decode_word(word):
    """A word as text, or None when it is not valid UTF-8 (systemd then ignores it)."""
    try:
        text = word.decode('utf-8')
    except UnicodeDecodeError:
        return None
    if _SURROGATE.search(text):
        return None     # Python 2 decodes encoded surrogates; systemd's UTF-8 check refuses them
    return text


def split_words(text):
    """Words of ``text`` as text (quotes removed, escapes applied), up to the first error."""
    return [decode_word(word) or word.decode('utf-8', 'replace') for word in extract_words(text)[0]]


# ---------------------------------------------------------------------------------------------
# Environment names and assignments: env-util.c
# ---------------------------------------------------------------------------------------------

_ENV_NAME = re.compile(r'\A[A-Za-z_][A-Za-z0-9_]*\Z')


def env_name_is_valid(name):
    return bool(name) and bool(_ENV_NAME.match(name))


def env_assignment(text):
    """(name, value) of a valid ``NAME=value`` assignment, or None (env_assignment_is_valid())."""
    if text is None:
        return None
    name, sep, value = text.partition('=')
    if not sep or not env_name_is_valid(name):
        return None
    return name, value


def parse_environment(value):
    """The variables of an ``Environment=`` value (as systemctl prints it, or as one unit-file
    line holds it, specifiers aside): later assignments win; invalid ones are skipped."""
    result = {}
    words, _error = extract_words(value or '')
    for word in words:
        assignment = env_assignment(decode_word(word))
        if assignment:
            result[assignment[0]] = assignment[1]
    return result


# ---------------------------------------------------------------------------------------------
# Unit name escapes and specifiers: unit-name.c, unit-printf.c, specifier.c
# ---------------------------------------------------------------------------------------------

def unescape_unit_name(text):
    """unit_name_unescape(): ``-`` is ``/``, ``\\xNN`` a byte."""
    out = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == '-':
            out.append(b'/')
        elif char == '\\' and text[index + 1:index + 2] == 'x' and len(text) >= index + 4:
            try:
                out.append(_byte(int(text[index + 2:index + 4], 16)))
            except ValueError:
                return None
            index += 4
            continue
        elif char == '\\':
            return None
        else:
            out.append(char.encode('utf-8'))
        index += 1
    return decode_word(b''.join(out))


def _unescape_path(text):
    """unit_name_path_unescape(): "-" alone is "/", otherwise a leading "/" is added."""
    if text in ('', '-'):
        return '/'
    unescaped = unescape_unit_name(text)
    return None if unescaped is None else '/' + unescaped


# Specifiers whose value is fixed for the system manager (systemd.unit(5), "Specifiers").
_FIXED_SPECIFIERS = {'C': '/var/cache', 'E': '/etc', 'L': '/var/log', 'S': '/var/lib', 't': '/run', 'T': '/tmp',
                     'V': '/var/tmp'}
# Specifiers that depend on the host or the running manager: they cannot be told from files.
_HOST_SPECIFIERS = 'abBHlmovwWgGuUhscrR'


class SpecifierError(ValueError):
    """A specifier systemd refuses (the word is then ignored), with ``host`` True when systemd
    would know its value but it cannot be told from the files (the host name, the machine ID...)."""

    def __init__(self, message, host=False):
        super(SpecifierError, self).__init__(message)
        self.host = host


def expand_specifiers(text, unit):
    """``text`` with ``%`` specifiers replaced for the unit named ``unit``, as specifier_printf().

    Raises SpecifierError for an unknown specifier (systemd ignores the word) and for one that
    depends on the host (``host`` is True).
    """
    if '%' not in text:
        return text
    prefix, instance, _type = unit_names.unit_name_parts(unit) or (unit, None, 'service')
    out = []
    index = 0
    while index < len(text):
        char = text[index]
        if char != '%':
            out.append(char)
            index += 1
            continue
        if index + 1 >= len(text):
            out.append('%')
            break
        spec = text[index + 1]
        index += 2
        value = _specifier(spec, unit, prefix, instance)
        if value is not None:
            out.append(value)
        elif spec in _HOST_SPECIFIERS:
            raise SpecifierError('%%%s depends on the host' % spec, host=True)
        elif _ALNUM.match(spec):
            raise SpecifierError('unknown specifier %%%s' % spec)
        else:
            out.append('%' + spec)
    return ''.join(out)


def _specifier(spec, unit, prefix, instance):
    if spec == '%':
        return '%'
    if spec in _FIXED_SPECIFIERS:
        return _FIXED_SPECIFIERS[spec]
    last = prefix.rsplit('-', 1)[-1] if '-' in prefix else prefix
    plain = {'n': unit, 'N': unit[:-len(unit_names.SUFFIX)] if unit.endswith(unit_names.SUFFIX) else unit.rsplit('.', 1)[0],
             'p': prefix, 'i': instance or '', 'j': last}
    if spec in plain:
        return plain[spec]
    unescaped = {'P': prefix, 'I': instance or '', 'J': last}
    if spec in unescaped:
        value = unescape_unit_name(unescaped[spec])
        if value is None:
            raise SpecifierError('%%%s cannot be unescaped' % spec)
        return value
    if spec == 'f':
        value = _unescape_path(instance if instance else prefix)
        if value is None:
            raise SpecifierError('%f cannot be unescaped')
        return value
    return None


# ---------------------------------------------------------------------------------------------
# What systemctl prints
# ---------------------------------------------------------------------------------------------

def parse_show(text):
    """The blocks of one ``systemctl show`` call, in the order printed.

    Blocks are separated by blank lines; each line is ``Key=Value`` split at the first ``=``.
    A key printed several times keeps all its values, joined by newlines.
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


def parse_list_units(text):
    """{unit: (load state, active state, sub state)} from ``systemctl list-units --all --plain
    --no-legend --full --type=service`` (a status mark such as "●" before a name is skipped)."""
    units = {}
    for line in text.splitlines():
        fields = line.split()
        if fields and not fields[0].endswith(unit_names.SUFFIX):
            fields = fields[1:]
        if len(fields) >= 4 and fields[0].endswith(unit_names.SUFFIX):
            units[fields[0]] = (fields[1], fields[2], fields[3])
    return units
