# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""chmod's symbolic modes (``u=rw,g+r,o-wx``, ``a+X``, ``=r``) read as ansible-core 2.16's
AnsibleModule reads them: against the file's current mode, with the umask for a clause without
a user, and ``X`` only for a folder or a file something may already execute."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
import stat

PERMISSION_BITS = 0o7777
EXECUTE_BITS = 0o111
OPERATOR = re.compile(r'[+=-]')
USERS = re.compile(r'^[ugo]+$')
PERMISSIONS = re.compile(r'^[rwxXstugo]*$')

# What "=" clears for each user class: its rwx and its special bit.
CLEARED_BY_ASSIGN = {
    'u': stat.S_IRWXU | stat.S_ISUID,
    'g': stat.S_IRWXG | stat.S_ISGID,
    'o': stat.S_IRWXO | stat.S_ISVTX,
}
# Where r, w and x sit for each user class.
SHIFT = {'u': 6, 'g': 3, 'o': 0}


def symbolic_to_octal(path_stat, symbolic_mode):
    """The mode ``symbolic_mode`` gives a file whose stat is ``path_stat``; ValueError when
    it is not a symbolic mode."""
    mode = stat.S_IMODE(path_stat.st_mode)
    for clause in symbolic_mode.split(','):
        parts = OPERATOR.split(clause)
        operators = OPERATOR.findall(clause)
        users = parts.pop(0)
        with_umask = users == ''
        if users in ('', 'a'):
            users = 'ugo'
        if not USERS.match(users):
            raise ValueError('bad symbolic permission for mode: %s' % clause)
        for operator, letters in zip(operators, parts):
            if not PERMISSIONS.match(letters):
                raise ValueError('bad symbolic permission for mode: %s' % clause)
            for user in users:
                bits = _bits(path_stat, user, letters, with_umask, mode)
                mode = _apply(user, operator, bits, mode)
    return mode


def _apply(user, operator, bits, mode):
    if operator == '=':
        return (mode & (CLEARED_BY_ASSIGN[user] ^ PERMISSION_BITS)) | bits
    if operator == '+':
        return mode | bits
    return mode - (mode & bits)


def _current_umask():
    umask = os.umask(0)
    os.umask(umask)
    return umask


def _bits(path_stat, user, letters, with_umask, current):
    """The bits ``letters`` stand for in ``user``'s place (u, g or o)."""
    allowed = (_current_umask() ^ PERMISSION_BITS) if with_umask else PERMISSION_BITS
    shift = SHIFT[user]
    executable = stat.S_ISDIR(path_stat.st_mode) or (current & EXECUTE_BITS) > 0
    result = 0
    for letter in letters:
        if letter in 'rwx':
            bit = {'r': 4, 'w': 2, 'x': 1}[letter] << shift
            result |= bit & allowed
        elif letter == 'X':
            result |= (1 << shift) if executable else 0
        elif letter == 's':
            result |= {'u': stat.S_ISUID, 'g': stat.S_ISGID, 'o': 0}[user]
        elif letter == 't':
            result |= stat.S_ISVTX if user == 'o' else 0
        else:  # u, g or o: copy that class's current rwx into this one's place
            result |= ((current >> SHIFT[letter]) & 0o7) << shift
    return result
