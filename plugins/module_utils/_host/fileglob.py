# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""glob(3) over the host's files (what systemd does with ``EnvironmentFile=`` patterns), with
the folder listing and the tests of what exists given by the caller (hostfiles.HostFiles), so
the patterns are matched on the same host, under the same ``root``, as every file is read."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re


def glob(pattern, listdir, is_dir, lexists):
    """Host paths matching ``pattern`` as glob(3) matches them, sorted byte-wise: ``*``, ``?``
    and ``[...]`` within one component, a leading dot only matched by a dot, a backslash quoting
    the next character. A pattern without wildcards matches itself when it exists.

    ``listdir(folder)``: the names in a folder ([] when it cannot be listed); ``is_dir(path)``,
    ``lexists(path)``: whether a path is a folder (links followed), whether it exists (the last
    link not followed)."""
    parts = [part for part in pattern.split('/') if part != '']
    found = ['']
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        matcher = _glob_component(part)
        following = []
        for base in found:
            folder = base or '/'
            if matcher is None:
                candidate = base + '/' + _unescape_glob(part)
                if lexists(candidate) if last else is_dir(candidate):
                    following.append(candidate)
                continue
            for name in listdir(folder):
                if matcher.match(name) and (part.startswith('.') or not name.startswith('.')):
                    candidate = base + '/' + name
                    if last or is_dir(candidate):
                        following.append(candidate)
        found = following
    return sorted(path for path in found if path)


_GLOB_SPECIAL = re.compile(r'(?<!\\)[*?\[]')


def _unescape_glob(part):
    return re.sub(r'\\(.)', r'\1', part)


def _glob_component(part):
    """A compiled regular expression for one glob(3) component, or None without wildcards."""
    if not _GLOB_SPECIAL.search(part):
        return None
    out = []
    index = 0
    while index < len(part):
        char = part[index]
        if char == '\\' and index + 1 < len(part):
            out.append(re.escape(part[index + 1]))
            index += 2
            continue
        if char == '*':
            out.append('.*')
        elif char == '?':
            out.append('.')
        elif char == '[':
            end = index + 1
            if end < len(part) and part[end] in '!^':
                end += 1
            if end < len(part) and part[end] == ']':
                end += 1
            while end < len(part) and part[end] != ']':
                end += 1
            if end >= len(part):
                out.append(re.escape(char))
            else:
                body = part[index + 1:end]
                negate = body[:1] in ('!', '^')
                if negate:
                    body = body[1:]
                body = body.replace('\\', '\\\\')
                out.append('[%s%s]' % ('^' if negate else '', body))
                index = end + 1
                continue
        else:
            out.append(re.escape(char))
        index += 1
    return re.compile('(?s)' + ''.join(out) + r'\Z')
