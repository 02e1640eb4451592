# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How the runner turns values into the JSON a module prints, as ansible-core 2.16's module side
does: text and bytes on Python 2 and 3 (``surrogate_or_strict``), ``no_log`` values masked
wherever they appear (``remove_values``), and the JSON itself (``jsonify``)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import json
import sys

PY2 = sys.version_info[0] == 2

try:
    TEXT = unicode  # noqa: F821 - Python 2
    BYTES = str
    STRINGS = (str, unicode)  # noqa: F821 - Python 2
    INTEGERS = (int, long)  # noqa: F821 - Python 2
except NameError:
    TEXT = str
    BYTES = bytes
    STRINGS = (str,)
    INTEGERS = (int,)

# Python 3 keeps undecodable bytes as lone surrogates; Python 2 has no such handler.
SURROGATE_OR_STRICT = 'strict' if PY2 else 'surrogateescape'

HIDDEN_VALUE = 'VALUE_SPECIFIED_IN_NO_LOG_PARAMETER'
MASK = '*' * 8


def to_bytes(value, encoding='utf-8', errors=None):
    """``value`` as bytes; text is encoded, anything else goes through its str() first."""
    if isinstance(value, BYTES):
        return value
    if not isinstance(value, TEXT):
        value = TEXT(value) if not PY2 else str(value)
        if isinstance(value, BYTES):
            return value
    return value.encode(encoding, _handler(errors, encoding))


def to_text(value, encoding='utf-8', errors=None):
    """``value`` as text; bytes are decoded, anything else goes through its str() first."""
    if isinstance(value, TEXT):
        return value
    if isinstance(value, BYTES):
        return value.decode(encoding, _handler(errors, encoding))
    return TEXT(value) if not PY2 else str(value).decode('utf-8', 'replace')


def to_native(value, encoding='utf-8', errors=None):
    """The native ``str`` of the running Python: bytes on 2, text on 3."""
    return to_bytes(value, encoding, errors) if PY2 else to_text(value, encoding, errors)


def _handler(errors, encoding):
    if errors in (None, 'surrogate_or_strict'):
        return SURROGATE_OR_STRICT
    if errors == 'surrogate_or_replace':
        return 'replace' if PY2 else 'surrogateescape'
    if errors == 'surrogate_then_replace':
        return 'replace' if PY2 else 'surrogateescape'
    return errors


def native_strings(value):
    """JSON data as the module sees it: on Python 2 every text (keys too) becomes UTF-8 bytes,
    as ansible-core 2.16 hands parameters to modules there."""
    if not PY2:
        return value
    if isinstance(value, TEXT):
        return value.encode('utf-8')
    if isinstance(value, dict):
        return dict((native_strings(k), native_strings(v)) for k, v in value.items())
    if isinstance(value, list):
        return [native_strings(v) for v in value]
    return value


def no_log_strings(value):
    """The strings a ``no_log`` value hides: itself, or every scalar inside a container."""
    if isinstance(value, (TEXT, BYTES)):
        return [to_native(value)] if value else []
    if isinstance(value, dict):
        return [s for item in value.values() for s in no_log_strings(item)]
    if value is None or isinstance(value, bool):
        return []
    if isinstance(value, (list, tuple, set, frozenset)):
        return [s for item in value for s in no_log_strings(item)]
    if isinstance(value, INTEGERS + (float,)):
        return [to_native(str(value))]
    raise TypeError('Unknown parameter type: %s' % type(value))


def remove_values(value, hidden):
    """``value`` with every string of ``hidden`` masked: a whole value equal to one becomes
    VALUE_SPECIFIED_IN_NO_LOG_PARAMETER, one inside a longer text ********; containers are
    copied (iteratively: results may nest deeply)."""
    hidden = [to_native(s) for s in hidden]
    pending = []
    top = _masked(value, hidden, pending)
    while pending:
        old, new = pending.pop(0)
        if isinstance(new, dict):
            for key, item in old.items():
                new[key] = _masked(item, hidden, pending)
        elif isinstance(new, list):
            new.extend(_masked(item, hidden, pending) for item in old)
        else:
            for item in old:
                new.add(_masked(item, hidden, pending))
    return top


def _masked(value, hidden, pending):
    if isinstance(value, (TEXT, BYTES)):
        is_text = isinstance(value, TEXT)
        native = to_native(value)
        if native in hidden:
            return HIDDEN_VALUE
        for secret in hidden:
            native = native.replace(secret, MASK)
        if is_text:
            return to_text(native, errors='surrogate_then_replace')
        return to_bytes(native, errors='surrogate_then_replace')
    # results are made of JSON's containers (and sets, which JSON gets as lists)
    if isinstance(value, (list, tuple)):
        copy = type(value)() if isinstance(value, list) else []
    elif isinstance(value, (set, frozenset)):
        copy = type(value)() if isinstance(value, set) else set()
    elif isinstance(value, dict):
        copy = type(value)()
    elif value is None or isinstance(value, INTEGERS + (float, bool)):
        shown = to_native(value)
        if shown in hidden or any(secret in shown for secret in hidden):
            return HIDDEN_VALUE
        return value
    elif isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    else:
        raise TypeError('Value of unknown type: %s, %s' % (type(value), value))
    pending.append((value, copy))
    return copy


def _texts(value, encoding):
    if isinstance(value, BYTES):
        return value.decode(encoding, SURROGATE_OR_STRICT)
    if isinstance(value, dict):
        return dict((_texts(k, encoding), _texts(v, encoding)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [_texts(v, encoding) for v in value]
    return value


def _fallback(value):
    if isinstance(value, (set, frozenset)):
        return list(value)
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    raise TypeError('Cannot json serialize %s' % to_native(value))


def jsonify(data):
    """The JSON of ``data``: bytes read as UTF-8, else as Latin-1, as ansible-core 2.16 does."""
    for encoding in ('utf-8', 'latin-1'):
        try:
            texts = _texts(data, encoding)
        except UnicodeDecodeError:
            continue
        return json.dumps(texts, default=_fallback)
    raise UnicodeError('Invalid unicode encoding encountered')
