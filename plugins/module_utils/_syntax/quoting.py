# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one way a value is quoted in a message, the same on Python 2.7 and 3."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

try:
    TEXT_TYPES = (str, unicode)  # noqa: F821 - Python 2
    _ascii = repr  # Python 2's repr() of text is ASCII already
except NameError:
    TEXT_TYPES = (str,)
    _ascii = ascii  # noqa: F821 - Python 3 builtin

# How much of a value a message quotes: a longer one is cut and "..." follows the quote.
QUOTE_LIMIT = 80


def show(value, limit=QUOTE_LIMIT):
    """repr() of ``value``, ASCII only and without Python 2's u'' prefix, so control
    characters and look-alike letters are visible in a message; text (or bytes) longer than
    ``limit`` characters is cut there and followed by "...". Bytes (Python 2's native str
    included) are quoted as the UTF-8 text they hold: the same message on Python 2.7 and 3."""
    if isinstance(value, bytes):
        value = value.decode('utf-8', 'replace')
    if isinstance(value, TEXT_TYPES) and len(value) > limit:
        return show(value[:limit]) + '...'
    text = _ascii(value)
    if text.startswith("u'") or text.startswith('u"'):
        text = text[1:]
    return text


def text(value):
    """``value`` as text, never failing: bytes decoded as UTF-8 (a byte that is not UTF-8 becomes
    U+FFFD), text as it is, anything else through str()."""
    if isinstance(value, bytes):
        return value.decode('utf-8', 'replace')
    if isinstance(value, TEXT_TYPES):
        return value
    return str(value)
