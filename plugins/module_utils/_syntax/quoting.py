# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one way a value is quoted in a message, the same on Python 2.7 and 3."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

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


# The characters a reason may not hold, by explicit code point ranges, not by the interpreter's
# Unicode tables (Python 2.7's are older: it took an emoji for an unassigned "control" character).
# Every other character is accepted.
REFUSED_CLASSES = (
    ('control character', ((0x00, 0x1F), (0x7F, 0x9F))),
    ('line separator', ((0x2028, 0x2029),)),
    ('invisible formatting character', ((0xAD, 0xAD), (0x61C, 0x61C), (0x180E, 0x180E), (0x200B, 0x200F),
                                        (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF),
                                        (0xFFF9, 0xFFFB), (0xE0000, 0xE007F))),
    ('surrogate', ((0xD800, 0xDFFF),)),
    ('noncharacter', ((0xFDD0, 0xFDEF), (0xFFFE, 0xFFFF))),
)

_NOT_PRINTABLE_ASCII = re.compile(u'[^\x20-\x7e]')     # text without such a character has none refused


def refused_class(char):
    """The name of the class of REFUSED_CLASSES ``char`` is in, or None (accepted)."""
    point = ord(char)
    if point & 0xFFFE == 0xFFFE:
        return 'noncharacter'  # U+xFFFE and U+xFFFF of every plane
    for name, ranges in REFUSED_CLASSES:
        for low, high in ranges:
            if low <= point <= high:
                return name
    return None


def escaped(text):
    """``text`` with every character of REFUSED_CLASSES written as its escape (\\x1b, \\u200b):
    what a file says is reported, never a terminal control sequence. None stays None."""
    if text is None:
        return None
    if not _NOT_PRINTABLE_ASCII.search(text):
        return text
    out = []
    for char in text:
        if refused_class(char) is None:
            out.append(char)
        elif ord(char) < 0x100:
            out.append('\\x%02x' % ord(char))
        elif ord(char) < 0x10000:
            out.append('\\u%04x' % ord(char))
        else:
            out.append('\\U%08x' % ord(char))
    return ''.join(out)
