# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A minimal, strict DER reader for X.509 certificates, standard library only (Python 2.7.5 and 3.6+).

Only what a certificate needs: tag/length/value elements with definite, shortest-form lengths,
every length checked against the end of its container, nesting limited to MAX_DEPTH, the
primitive types (INTEGER, BOOLEAN, OBJECT IDENTIFIER, BIT STRING, the two time types, the
string types), and X.501 Names read as OpenSSL reads them: the same value types accepted, the
same one-line text, the same canonical encoding that its subject hash is taken over. Every
malformed input raises CertificateError, whose message names the byte offset; offsets count from
the start of the certificate's DER.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import binascii
import datetime
import re

MAX_DEPTH = 32

BOOLEAN = 0x01
INTEGER = 0x02
BIT_STRING = 0x03
OCTET_STRING = 0x04
OBJECT_IDENTIFIER = 0x06
UTF8_STRING = 0x0c
NUMERIC_STRING = 0x12
PRINTABLE_STRING = 0x13
T61_STRING = 0x14
IA5_STRING = 0x16
UTC_TIME = 0x17
GENERALIZED_TIME = 0x18
VISIBLE_STRING = 0x1a
UNIVERSAL_STRING = 0x1c
BMP_STRING = 0x1e
SEQUENCE = 0x30
SET = 0x31

TAG_NAMES = {
    BOOLEAN: 'BOOLEAN', INTEGER: 'INTEGER', BIT_STRING: 'BIT STRING', OCTET_STRING: 'OCTET STRING',
    0x05: 'NULL', OBJECT_IDENTIFIER: 'OBJECT IDENTIFIER', UTF8_STRING: 'UTF8String',
    NUMERIC_STRING: 'NumericString', PRINTABLE_STRING: 'PrintableString', T61_STRING: 'T61String',
    0x15: 'VideotexString', IA5_STRING: 'IA5String', UTC_TIME: 'UTCTime', GENERALIZED_TIME: 'GeneralizedTime',
    0x19: 'GraphicString', VISIBLE_STRING: 'VisibleString', 0x1b: 'GeneralString',
    UNIVERSAL_STRING: 'UniversalString', BMP_STRING: 'BMPString', SEQUENCE: 'SEQUENCE', SET: 'SET',
}

_UTC_TIME = re.compile(br'([0-9]{2})([0-9]{2})([0-9]{2})([0-9]{2})([0-9]{2})([0-9]{2})Z\Z')
_GENERALIZED_TIME = re.compile(br'([0-9]{4})([0-9]{2})([0-9]{2})([0-9]{2})([0-9]{2})([0-9]{2})Z\Z')


class CertificateError(ValueError):
    """The input is not a certificate this reader accepts; the message says where and why."""


def describe_tag(tag):
    """'SEQUENCE', 'UTF8String', '[3]' ... for an identifier byte, for error messages."""
    if tag in TAG_NAMES:
        return TAG_NAMES[tag]
    if tag & 0x20 and (tag & 0xdf) in TAG_NAMES:
        return 'constructed %s (BER, not DER)' % TAG_NAMES[tag & 0xdf]
    if tag & 0xc0 == 0x80:
        return '[%d]' % (tag & 0x1f)
    return 'tag 0x%02x' % tag


class Element(object):
    """One tag/length/value inside ``data`` (a bytearray): the tag byte, where it starts, where its
    content starts and ends, and how deep it is nested."""

    __slots__ = ('data', 'tag', 'start', 'body', 'end', 'depth')

    def __init__(self, data, tag, start, body, end, depth):
        self.data = data
        self.tag = tag
        self.start = start
        self.body = body
        self.end = end
        self.depth = depth

    def content(self):
        return bytes(self.data[self.body:self.end])

    def encoding(self):
        return bytes(self.data[self.start:self.end])

    def children(self):
        """The elements inside a constructed element, each bounded by this one's end."""
        if not self.tag & 0x20:
            raise CertificateError('the %s at byte %d is not a constructed element' % (describe_tag(self.tag), self.start))
        items = []
        offset = self.body
        while offset < self.end:
            child = read_element(self.data, offset, self.end, self.depth + 1)
            items.append(child)
            offset = child.end
        return items

    def inner(self):
        """The single element that an OCTET STRING (an extension's value) wraps."""
        child = read_element(self.data, self.body, self.end, self.depth + 1)
        if child.end != self.end:
            raise CertificateError('%d unexpected byte(s) at byte %d after the value wrapped at byte %d'
                                   % (self.end - child.end, child.end, self.start))
        return child


def read_element(data, offset, limit, depth=0):
    """The element starting at ``offset`` of the bytearray ``data``, which must end by ``limit``."""
    if depth > MAX_DEPTH:
        raise CertificateError('elements nested more than %d deep at byte %d' % (MAX_DEPTH, offset))
    if offset + 2 > limit:
        raise _overrun(data, offset, limit, 'a tag and a length')
    tag = data[offset]
    if tag & 0x1f == 0x1f:
        raise CertificateError('multi-byte tag at byte %d, which certificates do not use' % offset)
    first = data[offset + 1]
    body = offset + 2
    if first < 0x80:
        length = first
    elif first == 0x80:
        raise CertificateError('indefinite length at byte %d (BER, not DER)' % (offset + 1))
    else:
        count = first & 0x7f
        if count > 4:
            raise CertificateError('a %d-byte length at byte %d is far too large' % (count, offset + 1))
        if body + count > limit:
            raise _overrun(data, offset, limit, 'its %d length bytes' % count)
        length = 0
        for index in range(body, body + count):
            length = (length << 8) | data[index]
        if length < 0x80 or data[body] == 0:
            raise CertificateError('the length at byte %d is not written in its shortest form (not DER)' % (offset + 1))
        body += count
    if body + length > limit:
        raise _overrun(data, offset, limit, '%d bytes of content' % length)
    return Element(data, tag, offset, body, body + length, depth)


def _overrun(data, offset, limit, needed):
    if limit >= len(data):
        return CertificateError('truncated at byte %d: the %s at byte %d needs %s'
                                % (len(data), describe_tag(data[offset]) if offset < len(data) else 'element',
                                   offset, needed))
    return CertificateError('the %s at byte %d runs past the end of its container at byte %d'
                            % (describe_tag(data[offset]), offset, limit))


def expect(element, tag, what):
    """Refuse ``element`` unless its identifier byte is ``tag``; ``what`` names the field."""
    if element.tag != tag:
        raise CertificateError('%s at byte %d: expected %s, found %s'
                               % (what, element.start, describe_tag(tag), describe_tag(element.tag)))
    return element


def decode_integer(element, what):
    expect(element, INTEGER, what)
    return integer_from_content(element.content(), what, element.start)


def integer_from_content(content, what, offset):
    """Two's complement, shortest form only (DER)."""
    octets = bytearray(content)
    if not octets:
        raise CertificateError('%s at byte %d: an INTEGER with no content' % (what, offset))
    if len(octets) > 1 and ((octets[0] == 0 and octets[1] < 0x80) or (octets[0] == 0xff and octets[1] >= 0x80)):
        raise CertificateError('%s at byte %d: INTEGER not in its shortest form (not DER)' % (what, offset))
    value = int(binascii.hexlify(content), 16)
    if octets[0] & 0x80:
        value -= 1 << (8 * len(octets))
    return value


def decode_boolean(element, what):
    expect(element, BOOLEAN, what)
    if element.end - element.body != 1:
        raise CertificateError('%s at byte %d: a BOOLEAN must be one byte long' % (what, element.start))
    return element.data[element.body] != 0


def decode_oid(element, what):
    """The dotted form of an OBJECT IDENTIFIER, e.g. '2.5.4.3'."""
    expect(element, OBJECT_IDENTIFIER, what)
    octets = element.data[element.body:element.end]
    if not octets or octets[-1] & 0x80:
        raise CertificateError('%s at byte %d: an OBJECT IDENTIFIER cut short' % (what, element.start))
    arcs = []
    value = 0
    fresh = True
    for octet in octets:
        if fresh and octet == 0x80:
            raise CertificateError('%s at byte %d: OBJECT IDENTIFIER not in its shortest form' % (what, element.start))
        value = (value << 7) | (octet & 0x7f)
        fresh = not octet & 0x80
        if fresh:
            arcs.append(value)
            value = 0
    first = min(arcs[0] // 40, 2)
    return '.'.join(str(arc) for arc in [first, arcs[0] - 40 * first] + arcs[1:])


def decode_bit_string(element, what):
    """(number of unused bits, the bytes with those unused bits cleared)."""
    expect(element, BIT_STRING, what)
    octets = element.data[element.body:element.end]
    if not octets or octets[0] > 7 or (len(octets) == 1 and octets[0]):
        raise CertificateError('%s at byte %d: malformed BIT STRING' % (what, element.start))
    unused = octets[0]
    bits = octets[1:]
    if bits:
        bits[-1] &= (0xff << unused) & 0xff
    return unused, bytes(bits)


def decode_time(element, what):
    """A naive UTC datetime from RFC 5280's UTCTime (YYMMDDHHMMSSZ, 50-99 meaning 19xx) or
    GeneralizedTime (YYYYMMDDHHMMSSZ)."""
    content = element.content()
    if element.tag == UTC_TIME:
        match = _UTC_TIME.match(content)
    elif element.tag == GENERALIZED_TIME:
        match = _GENERALIZED_TIME.match(content)
    else:
        raise CertificateError('%s at byte %d: expected UTCTime or GeneralizedTime, found %s'
                               % (what, element.start, describe_tag(element.tag)))
    if match is None:
        raise CertificateError('%s at byte %d: %s %r is not in the form RFC 5280 requires'
                               % (what, element.start, describe_tag(element.tag), _printable(content)))
    fields = [int(field) for field in match.groups()]
    if element.tag == UTC_TIME:
        fields[0] += 1900 if fields[0] >= 50 else 2000
    try:
        return datetime.datetime(*fields)
    except ValueError:
        raise CertificateError('%s at byte %d: %r is not a real date and time' % (what, element.start, _printable(content)))


def _printable(content):
    return ''.join(chr(octet) if 0x20 <= octet < 0x7f else '\\x%02x' % octet for octet in bytearray(content))


def code_points(tag, content):
    """The characters of a string value as integers, read the way OpenSSL's ASN1_STRING_to_UTF8 reads
    them: UTF8String strictly, BMPString as UCS-2, UniversalString as UCS-4, and the one-byte types
    (PrintableString, T61String, IA5String, NumericString, VisibleString) as Latin-1. Raises
    CertificateError(reason) where OpenSSL would refuse the string."""
    octets = bytearray(content)
    if tag == UTF8_STRING:
        return _utf8_code_points(octets)
    if tag in (BMP_STRING, UNIVERSAL_STRING):
        width = 2 if tag == BMP_STRING else 4
        if len(octets) % width:
            raise CertificateError('a %s of %d bytes, not a multiple of %d' % (describe_tag(tag), len(octets), width))
        values = []
        for index in range(0, len(octets), width):
            value = 0
            for octet in octets[index:index + width]:
                value = (value << 8) | octet
            if value > 0x10ffff or 0xd800 <= value <= 0xdfff:
                raise CertificateError('a %s holding U+%04X, which is not a character' % (describe_tag(tag), value))
            values.append(value)
        return values
    return list(octets)


def _utf8_code_points(octets):
    values = []
    index = 0
    size = len(octets)
    while index < size:
        lead = octets[index]
        if lead < 0x80:
            values.append(lead)
            index += 1
            continue
        if 0xc2 <= lead <= 0xdf:
            count, value, lowest = 1, lead & 0x1f, 0x80
        elif 0xe0 <= lead <= 0xef:
            count, value, lowest = 2, lead & 0x0f, 0x800
        elif 0xf0 <= lead <= 0xf4:
            count, value, lowest = 3, lead & 0x07, 0x10000
        else:
            raise CertificateError('invalid UTF-8 at byte %d of the value' % index)
        if index + count >= size:
            raise CertificateError('UTF-8 cut short at byte %d of the value' % index)
        for follower in octets[index + 1:index + 1 + count]:
            if follower & 0xc0 != 0x80:
                raise CertificateError('invalid UTF-8 at byte %d of the value' % index)
            value = (value << 6) | (follower & 0x3f)
        if value < lowest or value > 0x10ffff or 0xd800 <= value <= 0xdfff:
            raise CertificateError('invalid UTF-8 at byte %d of the value' % index)
        values.append(value)
        index += 1 + count
    return values


def utf8_encode(values):
    """UTF-8 bytes of a list of code points, without going through a Python 2 narrow-build unicode."""
    out = bytearray()
    for value in values:
        if value < 0x80:
            out.append(value)
        elif value < 0x800:
            out.extend((0xc0 | value >> 6, 0x80 | value & 0x3f))
        elif value < 0x10000:
            out.extend((0xe0 | value >> 12, 0x80 | (value >> 6) & 0x3f, 0x80 | value & 0x3f))
        else:
            out.extend((0xf0 | value >> 18, 0x80 | (value >> 12) & 0x3f, 0x80 | (value >> 6) & 0x3f, 0x80 | value & 0x3f))
    return bytes(out)


def encode(tag, content):
    """One DER element: the tag byte, the shortest length, the content."""
    length = len(content)
    if length < 0x80:
        header = bytearray((tag, length))
    else:
        octets = bytearray()
        while length:
            octets.insert(0, length & 0xff)
            length >>= 8
        header = bytearray((tag, 0x80 | len(octets))) + octets
    return bytes(header) + bytes(content)


# --- X.501 Names, read the way OpenSSL 1.1.1/3.x reads, shows and canonicalises them ---------

# OpenSSL's short names of the attributes found in names; any other type shows as its dotted OID.
ATTRIBUTE_NAMES = {
    '2.5.4.3': 'CN', '2.5.4.4': 'SN', '2.5.4.5': 'serialNumber', '2.5.4.6': 'C', '2.5.4.7': 'L',
    '2.5.4.8': 'ST', '2.5.4.9': 'street', '2.5.4.10': 'O', '2.5.4.11': 'OU', '2.5.4.12': 'title',
    '2.5.4.13': 'description', '2.5.4.15': 'businessCategory', '2.5.4.17': 'postalCode',
    '2.5.4.18': 'postOfficeBox', '2.5.4.20': 'telephoneNumber', '2.5.4.41': 'name', '2.5.4.42': 'GN',
    '2.5.4.43': 'initials', '2.5.4.44': 'generationQualifier', '2.5.4.45': 'x500UniqueIdentifier',
    '2.5.4.46': 'dnQualifier', '2.5.4.65': 'pseudonym', '2.5.4.72': 'role', '2.5.4.97': 'organizationIdentifier',
    '1.2.840.113549.1.9.1': 'emailAddress', '1.2.840.113549.1.9.2': 'unstructuredName',
    '0.9.2342.19200300.100.1.1': 'UID', '0.9.2342.19200300.100.1.25': 'DC',
    '1.3.6.1.4.1.311.60.2.1.1': 'jurisdictionL', '1.3.6.1.4.1.311.60.2.1.2': 'jurisdictionST',
    '1.3.6.1.4.1.311.60.2.1.3': 'jurisdictionC',
}

# Value types OpenSSL turns into UTF8String, lower-cased and space-folded, in its canonical name.
_FOLDED_TEXT = (UTF8_STRING, BMP_STRING, UNIVERSAL_STRING, PRINTABLE_STRING, T61_STRING, IA5_STRING)
# The rest of what OpenSSL's name decoder accepts: NumericString is shown, the others dumped as #hex.
_KEPT_TEXT = (NUMERIC_STRING,)
_DUMPED = (BIT_STRING, 0x07, 0x08, 0x09, 0x0b, 0x0d, 0x0e, 0x0f, 0x1d, SEQUENCE)

_NAME_WHITESPACE = b'\t\n\x0b\x0c\r '
_WHITESPACE_RUN = re.compile(b'[' + _NAME_WHITESPACE + b']+')
_ASCII_LOWER = bytes(bytearray(octet + 32 if 0x41 <= octet <= 0x5a else octet for octet in range(256)))
_QUOTED_BY = bytearray(b',+;<>')


def native_text(octets):
    """Native str from ASCII bytes, on Python 2 and 3."""
    return octets if str is bytes else octets.decode('ascii')


def escape_value(utf8):
    """One attribute value as ``openssl x509 -noout -subject`` shows it (its default ``-nameopt
    oneline``): quoted when it holds ``,+;<>`` or starts with ``#`` or starts or ends with a space,
    ``"`` and ``\\`` escaped by a backslash, every UTF-8 byte outside printable ASCII written ``\\XX``."""
    octets = bytearray(utf8)
    last = len(octets) - 1
    quoted = False
    out = []
    for index, octet in enumerate(octets):
        if octet < 0x20 or octet >= 0x7f:
            out.append('\\%02X' % octet)
        elif octet in (0x22, 0x5c):
            out.append('\\' + chr(octet))
        else:
            if octet in _QUOTED_BY or (octet == 0x20 and index in (0, last)) or (octet == 0x23 and index == 0):
                quoted = True
            out.append(chr(octet))
    text = ''.join(out)
    return '"%s"' % text if quoted else text


def _canonical_text(utf8):
    """OpenSSL's canonical form of a text value: surrounding whitespace removed, inner runs folded
    to one space, ASCII upper case lowered (bytes >= 0x80 untouched)."""
    return _WHITESPACE_RUN.sub(b' ', utf8.strip(_NAME_WHITESPACE)).translate(_ASCII_LOWER)


def _read_attribute(element, what):
    """(text 'CN = x', canonical AttributeTypeAndValue encoding) of one name attribute."""
    expect(element, SEQUENCE, what + ' attribute')
    parts = element.children()
    if len(parts) != 2:
        raise CertificateError('%s attribute at byte %d: expected a type and a value, found %d elements'
                               % (what, element.start, len(parts)))
    oid = decode_oid(parts[0], what + ' attribute type')
    field = ATTRIBUTE_NAMES.get(oid, oid)
    value = parts[1]
    where = '%s %s at byte %d' % (what, field, value.start)
    if value.tag in _FOLDED_TEXT or value.tag in _KEPT_TEXT:
        try:
            utf8 = utf8_encode(code_points(value.tag, value.content()))
        except CertificateError as error:
            raise CertificateError('%s: %s' % (where, error))
        text = escape_value(utf8)
        if value.tag in _KEPT_TEXT:
            canonical = value.encoding()
        else:
            canonical = encode(UTF8_STRING, _canonical_text(utf8))
    elif value.tag in _DUMPED:
        canonical = value.encoding()
        if value.tag == BIT_STRING:
            unused, bits = decode_bit_string(value, where)
            canonical = encode(BIT_STRING, bytes(bytearray([unused])) + bits)
        text = '#' + native_text(binascii.hexlify(canonical).upper())
    else:
        raise CertificateError('%s: a value of type %s, which OpenSSL refuses in a name' % (where, describe_tag(value.tag)))
    return field + ' = ' + text, encode(SEQUENCE, parts[0].encoding() + canonical)


def read_name(element, what):
    """(one-line text, OpenSSL's canonical encoding) of a Name: each RDN a SET of its attributes
    re-encoded and sorted as DER sorts a SET OF, the RDNs concatenated without the outer SEQUENCE."""
    expect(element, SEQUENCE, what)
    rdn_texts = []
    canonical = []
    for rdn in element.children():
        expect(rdn, SET, what + ' RDN')
        attributes = [_read_attribute(attribute, what) for attribute in rdn.children()]
        if not attributes:
            raise CertificateError('%s RDN at byte %d is empty' % (what, rdn.start))
        rdn_texts.append(' + '.join(text for text, encoding in attributes))
        canonical.append(encode(SET, b''.join(sorted(encoding for text, encoding in attributes))))
    return ', '.join(rdn_texts), b''.join(canonical)
