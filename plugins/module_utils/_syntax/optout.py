# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hand-made opt-outs: a drop-in nobody made with this collection that sets ``PYTHONHTTPSVERIFY=0``
(``/etc/systemd/system/foo.service.d/override.conf``). ``take_out_optout`` removes that assignment
and nothing else: the other assignments of its ``Environment=`` line stay as they were written, every
other line stays byte for byte, and the line as it was is kept in a comment above it. A line that
holds nothing else is commented out, never left as an empty ``Environment=`` (which would reset
every assignment made before it)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.plugins.module_utils._syntax import systemd

VARIABLE = dropin.VARIABLE
OPT_OUT = '0'
NOTE = b'# pep493.https took PYTHONHTTPSVERIFY=0 out of this line; it was: '
_LINE = re.compile(b'([^\r\n\x00]*)(\r\n|\n|\r|\x00|$)')
_WHITESPACE = ' \t\n\r'


class OptoutError(ValueError):
    """A drop-in whose opt-out cannot be taken out safely by a program; the message says why."""


def _lines(data):
    """[(content, ending)] of ``data`` as systemd cuts lines (at \\n, \\r\\n, \\r or NUL)."""
    found = []
    for match in _LINE.finditer(data):
        if match.start() == len(data) and found:
            break
        found.append((match.group(1), match.group(2)))
        if not match.group(2):
            break
    return found


def _raw_words(text):
    """[(raw text of the word as written, its value)] of an ``Environment=`` value."""
    words = []
    index = 0
    while True:
        while index < len(text) and text[index] in _WHITESPACE:
            index += 1
        start = index
        word, index = systemd.extract_first_word(text, index)
        if word is None:
            return words
        words.append((text[start:index].rstrip(_WHITESPACE), systemd.decode_word(word)))


def _odd_backslashes(line):
    return (len(line) - len(line.rstrip(b'\\'))) % 2 == 1


def take_out_optout(data, where='the drop-in'):
    """(new bytes, number of assignments taken out) of a drop-in's ``data`` without its
    ``PYTHONHTTPSVERIFY=0`` assignments in ``[Service]`` ``Environment=`` lines; (data, 0) when it
    has none. OptoutError (naming ``where`` and the line) for a line this cannot rewrite safely: one
    continued on the next line, or not valid UTF-8, or with words systemd refuses."""
    out = []
    section = None
    taken = 0
    lines = _lines(data)
    index = 0
    while index < len(lines):
        lineno = index + 1
        content, ending = lines[index]
        stripped = content.strip(b' \t')
        index += 1
        if not stripped or stripped[:1] in (b'#', b';'):
            out.append(content + ending)
            continue
        if stripped.startswith(b'['):
            section = stripped[1:-1] if stripped.endswith(b']') else None
            out.append(content + ending)
            continue
        key, sep, value = stripped.partition(b'=')
        is_environment = section == b'Service' and bool(sep) and key.strip(b' \t') == b'Environment'
        if _odd_backslashes(stripped):
            # a line continued on the next ones (comment lines between them are skipped, as systemd does)
            joined = [content + ending]
            while index < len(lines):
                more = lines[index][0].strip(b' \t')
                joined.append(lines[index][0] + lines[index][1])
                index += 1
                if more[:1] not in (b'#', b';') and not _odd_backslashes(more):
                    break
            if is_environment and VARIABLE.encode('ascii') in b''.join(joined):
                raise OptoutError('%s line %d: the Environment= line goes on over the next line; take '
                                  'PYTHONHTTPSVERIFY=0 out of it by hand' % (where, lineno))
            out.extend(joined)
            continue
        if not is_environment or VARIABLE.encode('ascii') not in value:
            out.append(content + ending)
            continue
        try:
            text = value.decode('utf-8')
        except UnicodeDecodeError:
            raise OptoutError('%s line %d is not valid UTF-8; take PYTHONHTTPSVERIFY=0 out of it by hand'
                              % (where, lineno))
        try:
            words = _raw_words(text)
        except systemd.WordError as exc:
            raise OptoutError('%s line %d: systemd would stop reading it at %s; take PYTHONHTTPSVERIFY=0 out of '
                              'it by hand' % (where, lineno, exc))
        kept = [raw for raw, word in words if word != '%s=%s' % (VARIABLE, OPT_OUT)]
        if len(kept) == len(words):
            out.append(content + ending)
            continue
        taken += len(words) - len(kept)
        out.append(NOTE + content.lstrip(b' \t') + (ending or b'\n'))
        if kept:
            indent = content[:len(content) - len(content.lstrip(b' \t'))]
            out.append(indent + b'Environment=' + u' '.join(kept).encode('utf-8') + ending)
    if not taken:
        return data, 0
    return b''.join(out), taken
