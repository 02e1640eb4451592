# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit names, the one rule: systemd's (unit-name.c) for reading any unit, and the stricter one
for the services an exception may name (``validate_unit_name``: ``.service`` only, canonical
``x.service`` form, short enough for its ``.d`` folder). Every module, the policy role and the
reports make a name canonical here (``canonical``)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.pep493.https.plugins.module_utils._syntax import quoting
from ansible_collections.pep493.https.plugins.module_utils._syntax.quoting import show

# systemd.unit(5) names
UNIT_TYPES = ('service', 'socket', 'target', 'device', 'mount', 'automount', 'swap', 'timer', 'path', 'slice',
              'scope')
UNIT_NAME_MAX = 255
# Linux file systems (ext4, xfs, btrfs, tmpfs) take at most 255 bytes per file name: the drop-in
# folder <unit>.service.d and the drop-in file are each one name. Names here are ASCII only.
NAME_BYTES_MAX = 255
SUFFIX = '.service'
# systemd's VALID_CHARS (unit-name.h): a prefix and an instance use these; '@' separates them.
# \Z, not $: "$" would accept a trailing newline.
_VALID_CHARS = re.compile(r'[A-Za-z0-9:_.\\-]+\Z')
_INSTANCE_CHARS = re.compile(r'[A-Za-z0-9:_.\\@-]+\Z')
_UNIT_NAME = re.compile(r'\A[A-Za-z0-9:_.\\-]+(@[A-Za-z0-9:_.\\@-]*)?\.([a-z]+)\Z')


class UnitNameError(ValueError):
    """A unit name systemd would not accept as a service, or that this collection refuses."""


def validate_unit_name(name):
    """The canonical ``x.service`` form of ``name``, or UnitNameError naming the value.

    ``legacy-app`` means ``legacy-app.service``. Accepted forms are systemd's: plain
    ``a.service``, template ``a@.service`` and instance ``a@b.service``; at most 255 characters
    with the suffix; characters ``A-Z a-z 0-9 : _ . \\ -`` (and ``@`` as described). Any other
    unit type (``.socket``, ``.timer``, ...) is refused.
    """
    if not isinstance(name, quoting.TEXT_TYPES):
        raise UnitNameError('unit name %s is not a string' % show(name))
    name = quoting.text(name)
    if name == '':
        raise UnitNameError('unit name is empty; give a service name such as "legacy-app"')
    canonical = name
    if not name.endswith(SUFFIX):
        dot = name.rfind('.')
        if dot >= 0 and name[dot + 1:] in UNIT_TYPES:
            raise UnitNameError('unit name %s is a .%s unit; only .service units take PYTHONHTTPSVERIFY'
                                % (show(name), name[dot + 1:]))
        canonical = name + SUFFIX
    if len(canonical) > UNIT_NAME_MAX:
        raise UnitNameError('unit name %s is %d characters long with its suffix; systemd allows at most %d'
                            % (show(name), len(canonical), UNIT_NAME_MAX))
    folder = len((canonical + '.d').encode('utf-8'))
    if folder > NAME_BYTES_MAX:
        raise UnitNameError('unit name %s is %d characters long with its suffix; its drop-in folder (<name>.service.d) '
                            "would be %d bytes long, and a file name has at most %d bytes (the file system's limit)"
                            % (show(name), len(canonical), folder, NAME_BYTES_MAX))
    stem = canonical[:-len(SUFFIX)]
    prefix, at, instance = stem.partition('@')
    if prefix == '':
        raise UnitNameError('unit name %s has nothing before "%s"; systemd needs a name there'
                            % (show(name), '@' if at else SUFFIX))
    if not _VALID_CHARS.match(prefix):
        raise UnitNameError('unit name %s contains %s; systemd allows only letters, digits and ":_.\\-" '
                            '(plus "@" for templates); use systemd-escape for other characters'
                            % (show(name), show(_first_bad(prefix, _VALID_CHARS))))
    if instance and not _INSTANCE_CHARS.match(instance):
        raise UnitNameError('unit name %s has an instance with %s; systemd allows only letters, digits '
                            'and ":_.\\-@"; use systemd-escape for other characters'
                            % (show(name), show(_first_bad(instance, _INSTANCE_CHARS))))
    return str(canonical)  # only ASCII gets here; a native str on Python 2 too


def _first_bad(text, pattern):
    for char in text:
        if not pattern.match(char):
            return char
    return text


def canonical(name):
    """The canonical ``x.service`` name of a service named in a policy, a report or a forecast
    (``legacy-app`` is ``legacy-app.service``); a name that is not valid is kept as given, with
    ``.service`` added when it has no unit type."""
    name = quoting.text(name).strip()
    try:
        return validate_unit_name(name)
    except UnitNameError:
        dot = name.rfind('.')
        return name if dot >= 0 and name[dot + 1:] in UNIT_TYPES else name + SUFFIX


_PARTS = {}


def unit_name_parts(name):
    """(prefix, instance or None, type) of a valid unit name, or None.

    ``a@b.service`` -> ('a', 'b', 'service'); the template ``a@.service`` -> ('a', '', 'service').
    """
    if name not in _PARTS:
        if len(_PARTS) > 10000:
            _PARTS.clear()
        _PARTS[name] = _unit_name_parts(name)
    return _PARTS[name]


def _unit_name_parts(name):
    match = _UNIT_NAME.match(name or '')
    if not match or match.group(2) not in UNIT_TYPES or len(name) > 255:
        return None
    stem = name[:-len(match.group(2)) - 1]
    prefix, at, instance = stem.partition('@')
    if not prefix:
        return None
    return prefix, instance if at else None, match.group(2)


def is_template(name):
    parts = unit_name_parts(name)
    return bool(parts) and parts[1] == ''


def is_instance(name):
    parts = unit_name_parts(name)
    return bool(parts) and bool(parts[1])


def template_of(name):
    """``a@.service`` for the instance ``a@b.service``, None otherwise."""
    parts = unit_name_parts(name)
    if not parts or not parts[1]:
        return None
    return '%s@.%s' % (parts[0], parts[2])
