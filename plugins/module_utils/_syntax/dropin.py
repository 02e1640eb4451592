# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Per-service PYTHONHTTPSVERIFY drop-ins: rendering, reading back, the reason and the name.

A drop-in of ours is recognised by its marker line, never by its file name alone. Its header
comments carry the reason and the expiry date of the exception, so that the module and the
audit read them back from the file itself. Pure functions: text/bytes in, data/bytes out.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._syntax import quoting
from ansible_collections.pep493.https.plugins.module_utils._syntax import systemd
from ansible_collections.pep493.https.plugins.module_utils._syntax import unit_names
from ansible_collections.pep493.https.plugins.module_utils._syntax.quoting import show  # noqa: F401 - dropin.show

MARKER = '# Managed by pep493.https.service_verification; edits here are overwritten.'

# systemd applies the drop-ins of all folders (/etc, /run, /usr/lib) together, sorted by
# file name, and the last assignment of a variable wins: "zz-" sorts after the numbered
# (10-..., 50-..., 99-...) and lower-case names packages and `systemctl edit` (override.conf) use.
DEFAULT_DROPIN_NAME = 'zz-pep493-https.conf'

VARIABLE = 'PYTHONHTTPSVERIFY'
# A drop-in that trusts a CA for its service names the service's combined bundle in these: the
# standard library's default context (OpenSSL's default file) and requests read them.
CA_VARIABLES = ('SSL_CERT_FILE', 'REQUESTS_CA_BUNDLE')
REASON_MAX = 200
# A drop-in of ours is under 1 KiB; a larger file at its name is refused before it is parsed.
MAX_DROPIN_SIZE = 64 * 1024

_DROPIN_NAME = re.compile(r'[A-Za-z0-9_][A-Za-z0-9_.@+-]*\.conf\Z')
_REASON_LINE = '# reason: '
_EXPIRES_LINE = '# expires: '
_CA_LINE = '# ca: SHA-256 '


class DropinValueError(ValueError):
    """A reason, expiry date or drop-in file name that cannot go into a drop-in."""


def validate_dropin_name(name):
    """A file name systemd reads from a ``.d`` folder (``*.conf``), with no path in it."""
    if not isinstance(name, quoting.TEXT_TYPES) or not _DROPIN_NAME.match(name) or '..' in name:
        raise DropinValueError('dropin_name %s must be a plain file name ending in ".conf" (letters, digits, '
                               '"_.@+-", not starting with "." or "-"); systemd reads only *.conf drop-ins'
                               % show(name))
    if len(name.encode('utf-8')) > unit_names.NAME_BYTES_MAX:
        raise DropinValueError('dropin_name %s is %d bytes long; a file name has at most %d bytes (the file '
                               "system's limit)" % (show(name), len(name.encode('utf-8')), unit_names.NAME_BYTES_MAX))
    return str(name)


def validate_reason(text):
    """A single printable line of at most REASON_MAX characters, stripped; None when empty."""
    if text is None:
        return None
    if not isinstance(text, quoting.TEXT_TYPES):
        raise DropinValueError('reason %s is not a string' % show(text))
    text = quoting.text(text).strip()
    if text == '':
        return None
    for char in text:
        refused = quoting.refused_class(char)
        if refused:
            raise DropinValueError('reason %s contains the %s %s; it must be one printable line'
                                   % (show(text), refused, show(char)))
    if len(text) > REASON_MAX:
        raise DropinValueError('reason is %d characters long; at most %d are allowed (%s...)'
                               % (len(text), REASON_MAX, show(text[:40])))
    if text.endswith('\\'):
        # systemd joins a line ending in a backslash with the next one.
        raise DropinValueError('reason %s ends with a backslash, which systemd reads as a line continuation'
                               % show(text))
    return text


def render_dropin(verify, reason=None, expires=None, ca=None):
    """The complete drop-in, as bytes, for ``verify`` (True: =1, False: =0).

    ``reason`` and ``expires`` must have been validated (validate_reason, dates.validate_expires);
    they are checked again so that no input can add a line to the file. ``ca``: (SHA-256
    fingerprint, bundle path) of the CA the service trusts (then ``verify`` is True), or None.
    """
    reason = validate_reason(reason)
    expires = dates.validate_expires(expires)
    lines = [MARKER]
    if reason is not None:
        lines.append(_REASON_LINE + reason)
    if expires is not None:
        lines.append(_EXPIRES_LINE + expires.isoformat())
    if ca is not None:
        lines.append(_CA_LINE + ca[0])
        lines.append('# PEP 493: Python in this service verifies HTTPS certificates against the system CAs and the CA '
                     'above (its bundle is %s).' % ca[1])
    elif verify:
        lines.append('# PEP 493: Python 2 in this service verifies HTTPS certificates, whatever the host default.')
    else:
        lines.append('# PEP 493: Python 2 in this service does not verify HTTPS certificates (insecure).')
    lines.append('[Service]')
    lines.append('Environment=%s=%s' % (VARIABLE, '1' if verify else '0'))
    if ca is not None:
        for name in CA_VARIABLES:
            lines.append('Environment=%s=%s' % (name, ca[1]))
    return ('\n'.join(lines) + '\n').encode('utf-8')


def environment_value(data, variable=VARIABLE):
    """The value a unit file's [Service] Environment= lines set ``variable`` to, or None."""
    if not isinstance(data, bytes):
        data = data.encode('utf-8')
    value = None
    assignments, _error = systemd.unit_file_assignments(data)
    for _line, section, key, assignment in assignments:
        if section != 'Service' or key != 'Environment':
            continue
        if assignment == '':
            value = None  # an empty Environment= resets the list
            continue
        found = systemd.parse_environment(assignment)
        if variable in found:
            value = found[variable]
    return value


def ca_fingerprint(data):
    """The SHA-256 fingerprint of the CA a drop-in of ours trusts (its ``# ca:`` line), or None."""
    text = data.decode('utf-8', 'replace') if isinstance(data, bytes) else data
    for line in text.split('\n'):
        if line.startswith('['):
            break
        if line.startswith(_CA_LINE):
            return line[len(_CA_LINE):].strip() or None
    return None


def parse_header(data):
    """(reason, expires) of a drop-in of ours, or None when ``data`` has no marker line."""
    if data is None:
        return None
    text = data.decode('utf-8', 'replace') if isinstance(data, bytes) else data
    lines = [line.rstrip('\r') for line in text.split('\n')]
    if MARKER not in [line.rstrip() for line in lines]:
        return None
    reason = None
    expires = None
    for line in lines:
        if line.startswith('['):
            break
        if line.startswith(_REASON_LINE):
            reason = line[len(_REASON_LINE):].strip() or None
        elif line.startswith(_EXPIRES_LINE):
            raw = line[len(_EXPIRES_LINE):].strip()
            try:
                expires = dates.validate_expires(raw)
            except dates.DateError:
                expires = raw or None
    return reason, expires


def parse_dropin(data):
    """What a drop-in of ours says, or None when ``data`` has no marker line (a foreign file).

    Returns ``{verify, value, reason, expires, ca, ca_bundle}``: ``value`` is the PYTHONHTTPSVERIFY
    string the file sets (None when it sets none), ``verify`` what Python 2 does with it (only ``0``
    disables), ``expires`` a date or None (or the raw text when it is not a date), ``ca`` the
    fingerprint of the CA it trusts and ``ca_bundle`` the SSL_CERT_FILE it sets (None without).
    """
    header = parse_header(data)
    if header is None:
        return None
    value = environment_value(data)
    return dict(verify=None if value is None else value != '0', value=value, reason=header[0], expires=header[1],
                ca=ca_fingerprint(data), ca_bundle=environment_value(data, CA_VARIABLES[0]))


def dropin_path(unit_dir, unit, dropin_name=DEFAULT_DROPIN_NAME):
    """``<unit_dir>/<unit>.d/<dropin_name>`` for a validated unit name and drop-in name."""
    return '%s/%s.d/%s' % (unit_dir.rstrip('/') or '', unit, dropin_name)


def unit_from_dropin_folder(folder_name):
    """The unit a ``<unit>.d`` folder name belongs to, or None when it is not a valid service."""
    if not folder_name.endswith(unit_names.SUFFIX + '.d'):
        return None
    try:
        return unit_names.validate_unit_name(folder_name[:-2])
    except unit_names.UnitNameError:
        return None


def exclusive_removals(ours, wanted):
    """Units (sorted) whose drop-in of ours must go because ``wanted`` does not list them.

    ``ours``: the units that have a drop-in of ours now; ``wanted``: canonical names kept.
    """
    keep = set(wanted)
    return sorted(unit for unit in set(ours) if unit not in keep)
