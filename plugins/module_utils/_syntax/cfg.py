# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read and write /etc/python/cert-verification.cfg exactly as RHEL 7's python reads it.

RHEL/CentOS 7's ``ssl`` module runs, at ``import ssl``::

    config = ConfigParser.RawConfigParser(); config.read(path)
    status = config.get('https', 'verify')   # NoSection/NoOption -> 'platform_default'

This module re-implements Python 2.7's ``RawConfigParser._read`` line by line, on bytes, so
that the answer is the same whatever the file holds (CRLF, non-UTF-8 bytes, continuation
lines, ``rem`` comments, ``[DEFAULT]``). Everything here is a pure function: bytes in, data or
bytes out. No file system, no AnsibleModule.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.pep493.https.plugins.module_utils._syntax import quoting

SECTION = b'https'
OPTION = b'verify'
DEFAULT_SECTION = b'DEFAULT'
VALUES = ('enable', 'disable', 'platform_default')
DEFAULT_PATH = '/etc/python/cert-verification.cfg'
# The writing modules refuse a larger cfg (or backup) before parsing it: RHEL 7 ships about 400
# bytes, and parsing keeps every line (about 140 bytes of memory per byte of input).
MAX_CFG_SIZE = 256 * 1024
QUOTE_LIMIT = quoting.QUOTE_LIMIT   # characters of an offending line a message quotes
ERRORS_LISTED = 20                  # offending lines (number and kind) a failure lists

# Python 2.7 ConfigParser's own patterns, as bytes (\s is ASCII whitespace, as on Python 2 str).
_SECTION_RE = re.compile(br'\[(?P<header>[^]]+)\]')
_OPTION_RE = re.compile(br'(?P<option>[^:=\s][^:=]*)\s*(?P<vi>[:=])\s*(?P<value>.*)$')

# Line kinds.
BLANK = 'blank'
COMMENT = 'comment'
SECTION_HEADER = 'section'
OPTION_LINE = 'option'
CONTINUATION = 'continuation'
NO_SECTION = 'missing_section_header'
JUNK = 'parsing_error'

NEW_FILE_HEADER = (
    b"# Managed by pep493.https.cert_verification.\n"
    b"# Default HTTPS certificate verification for this host's Python 2 stdlib clients\n"
    b"# (urllib2, httplib, xmlrpclib) on Pythons that read this file (RHEL/CentOS 7):\n"
    b"#   enable           - verify certificates by default\n"
    b"#   disable          - do not verify certificates by default (insecure)\n"
    b"#   platform_default - the Python build's own default (RHEL 7: verify from\n"
    b"#                      python-2.7.5-51 on, no verification before)\n"
    b"# A process started with PYTHONHTTPSVERIFY set follows that variable instead.\n"
    b"# See PEP 493: https://peps.python.org/pep-0493/\n"
)


class MalformedConfigError(Exception):
    """The file makes ``import ssl`` raise on RHEL 7 (it is not an INI file ConfigParser takes)."""

    def __init__(self, errors):
        self.errors = errors
        super(MalformedConfigError, self).__init__(format_errors(errors))


class Line(object):
    """One physical line of the file, with what Python 2.7's ConfigParser makes of it."""

    __slots__ = ('lineno', 'raw', 'kind', 'section', 'option', 'value', 'owner')

    def __init__(self, lineno, raw, kind, section=None, option=None, value=None, owner=None):
        self.lineno = lineno      # 1-based
        self.raw = raw            # bytes, including its own line ending
        self.kind = kind
        self.section = section    # bytes: the section the line belongs to (None before any)
        self.option = option      # bytes: lower-cased option name (option lines)
        self.value = value        # bytes: the value as ConfigParser stores it (option lines)
        self.owner = owner        # for continuation lines: the option Line they extend


class ParsedConfig(object):
    """What RHEL 7's python makes of one cert-verification.cfg."""

    def __init__(self, lines, errors, value, verify, https_sections, verify_keys):
        self.lines = lines                    # [Line]
        self.errors = errors                  # [(lineno, kind, raw_text)]; empty when valid
        self.value = value                    # raw value of https/verify (text) or None
        self.verify = verify                  # 'enable' | 'disable' | 'platform_default'
        self.https_sections = https_sections  # how many [https] headers
        self.verify_keys = verify_keys        # how many verify options in [https]

    @property
    def valid(self):
        return not self.errors

    def as_dict(self):
        return {
            'valid': self.valid,
            # a junk file of any size gives a bounded report: the first ERRORS_LISTED lines, cut
            'errors': [{'line': n, 'kind': k, 'text': t if len(t) <= QUOTE_LIMIT else t[:QUOTE_LIMIT] + '...'}
                       for n, k, t in self.errors[:ERRORS_LISTED]],
            'errors_total': len(self.errors),
            'value': self.value,
            'verify': self.verify,
            'https_sections': self.https_sections,
            'verify_keys': self.verify_keys,
            'duplicates': self.https_sections > 1 or self.verify_keys > 1,
        }


def split_lines(data):
    """Split like Python 2's ``file.readline``: on LF only, each line keeping its ending."""
    lines = data.split(b'\n')
    result = [line + b'\n' for line in lines[:-1]]
    if lines[-1]:
        result.append(lines[-1])
    return result


def _strip_inline_comment(value):
    # ConfigParser: ';' starts a comment only when the character before it is white space.
    # At position 0 it looks at value[-1] (Python's negative index), which we keep.
    pos = value.find(b';')
    if pos != -1 and value[pos - 1:pos or None].isspace():
        value = value[:pos]
    value = value.strip()
    if value == b'""':
        value = b''
    return value


def parse_cfg(data):
    """Parse cfg bytes. Never raises for any input; problems are in ``.errors``."""
    lines = []
    errors = []
    section = None
    last_option = None          # the option Line that a continuation line would extend
    values = {}                 # section -> {option: [value parts]}
    https_sections = 0
    verify_keys = 0
    for lineno, raw in enumerate(split_lines(data), 1):
        body = raw[:-1] if raw.endswith(b'\n') else raw
        if raw.strip() == b'' or raw[:1] in (b'#', b';'):
            lines.append(Line(lineno, raw, BLANK if raw.strip() == b'' else COMMENT, section))
            continue
        if raw[:1] in (b'r', b'R') and raw.split(None, 1)[0].lower() == b'rem':
            lines.append(Line(lineno, raw, COMMENT, section))
            continue
        if raw[:1].isspace() and section is not None and last_option is not None:
            part = raw.strip()
            lines.append(Line(lineno, raw, CONTINUATION, section, owner=last_option))
            if part:
                values[section][last_option.option].append(part)
            continue
        match = _SECTION_RE.match(body)
        if match:
            section = match.group('header')
            values.setdefault(section, {})
            last_option = None
            if section == SECTION:
                https_sections += 1
            lines.append(Line(lineno, raw, SECTION_HEADER, section))
            continue
        if section is None:
            errors.append((lineno, NO_SECTION, quoting.text(body)))
            lines.append(Line(lineno, raw, NO_SECTION))
            continue
        match = _OPTION_RE.match(body)
        if not match:
            errors.append((lineno, JUNK, quoting.text(body)))
            lines.append(Line(lineno, raw, JUNK, section))
            continue
        name = match.group('option').rstrip().lower()
        value = _strip_inline_comment(match.group('value'))
        line = Line(lineno, raw, OPTION_LINE, section, name, value)
        values[section][name] = [value]
        if section == SECTION and name == OPTION:
            verify_keys += 1
        last_option = line
        lines.append(line)

    raw_value = None
    if not errors and SECTION in values:
        parts = values[SECTION].get(OPTION)
        if parts is None:
            # RawConfigParser.get falls back to [DEFAULT] for a section that exists.
            parts = values.get(DEFAULT_SECTION, {}).get(OPTION)
        if parts is not None:
            raw_value = quoting.text(b'\n'.join(parts))
    verify = raw_value if raw_value in VALUES else 'platform_default'
    return ParsedConfig(lines, errors, raw_value, verify, https_sections, verify_keys)


def effective_verify(data):
    """The value RHEL 7's python acts on; raises MalformedConfigError where it would raise."""
    parsed = parse_cfg(data)
    if parsed.errors:
        raise MalformedConfigError(parsed.errors)
    return parsed.verify


def format_errors(errors, path=None):
    """The first offending line (its number, why, its text quoted and cut to QUOTE_LIMIT
    characters) and how many more there are: a message never quotes more than one line."""
    where = '%s line ' % path if path else 'line '
    reasons = {
        NO_SECTION: 'text before any [section] header (Python 2 raises MissingSectionHeaderError at import ssl)',
        JUNK: 'neither a [section], an option (key=value), a comment nor blank (Python 2 raises ParsingError at import ssl)',
    }
    number, kind, text = errors[0]
    message = '%s%d: %s: %s' % (where, number, reasons[kind], quoting.show(text, QUOTE_LIMIT))
    if len(errors) > 1:
        message += ' (and %d more malformed line%s)' % (len(errors) - 1, 's' if len(errors) > 2 else '')
    return message


def errors_for_result(errors):
    """The ``errors`` of a failure: line number and kind of the first ERRORS_LISTED offending
    lines, the text of none (the message quotes the first one, cut)."""
    return [{'line': number, 'kind': kind} for number, kind, text in errors[:ERRORS_LISTED]]


def line_ending(data):
    """The file's own line ending: CRLF when its first line ends so, else LF."""
    first = data.find(b'\n')
    if first > 0 and data[first - 1:first] == b'\r':
        return b'\r\n'
    return b'\n'


def repair_cfg(data):
    """Comment out every line that makes the file malformed, keeping its text."""
    parsed = parse_cfg(data)
    out = []
    for line in parsed.lines:
        out.append(b'#' + line.raw if line.kind in (NO_SECTION, JUNK) else line.raw)
    return b''.join(out)


def _is_verify_line(line, sections):
    return line.kind == OPTION_LINE and line.option == OPTION and line.section in sections


def render_cfg(data, verify):
    """Return new file bytes whose https/verify is ``verify`` (None: no verify left in effect).

    Every line that is not a ``verify`` option of ``[https]`` (or of ``[DEFAULT]`` for
    removal) is kept byte for byte. Raises MalformedConfigError on a malformed file.
    """
    if verify is not None and verify not in VALUES:
        raise ValueError('verify must be one of %s, got %r' % (', '.join(VALUES), verify))
    parsed = parse_cfg(data)
    if parsed.errors:
        raise MalformedConfigError(parsed.errors)
    eol = line_ending(data)
    if verify is None:
        # [DEFAULT] only counts for https when an [https] section exists (RawConfigParser.get).
        in_effect = (SECTION, DEFAULT_SECTION) if parsed.https_sections else (SECTION,)
        return _remove_verify(parsed, in_effect)
    wanted = OPTION + b'=' + verify.encode('ascii')
    if parsed.verify_keys == 1 and parsed.value == verify and _has_no_continuation(parsed):
        return data
    targets = [line for line in parsed.lines if _is_verify_line(line, (SECTION,))]
    out = []
    if targets:
        keep = targets[-1]
        for line in parsed.lines:
            if _is_verify_line(line, (SECTION,)) or (line.kind == CONTINUATION and line.owner in targets):
                if line is keep:
                    out.append(wanted + _own_ending(line.raw))
                continue
            out.append(line.raw)
        return b''.join(out)
    headers = [line for line in parsed.lines if line.kind == SECTION_HEADER and line.section == SECTION]
    if headers:
        for line in parsed.lines:
            out.append(line.raw)
            if line is headers[-1]:
                if not line.raw.endswith(b'\n'):
                    out.append(eol)
                out.append(wanted + eol)
        return b''.join(out)
    if data and not data.endswith(b'\n'):
        data += eol
    if data.strip():
        data += eol
    return data + b'[https]' + eol + wanted + eol


def _own_ending(raw):
    if raw.endswith(b'\r\n'):
        return b'\r\n'
    return b'\n' if raw.endswith(b'\n') else b''


def _has_no_continuation(parsed):
    return not any(
        line.kind == CONTINUATION and _is_verify_line(line.owner, (SECTION,)) for line in parsed.lines
    )


def _remove_verify(parsed, sections):
    out = []
    for line in parsed.lines:
        if _is_verify_line(line, sections):
            continue
        if line.kind == CONTINUATION and _is_verify_line(line.owner, sections):
            continue
        out.append(line.raw)
    return b''.join(out)


def new_cfg(verify):
    """Content of a file created by the module."""
    return NEW_FILE_HEADER + b'[https]\nverify=' + verify.encode('ascii') + b'\n'
