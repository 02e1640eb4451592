# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read X.509 certificates (PEM or DER) with the standard library alone, for the ca_trust module on
hosts whose only Python is RHEL 7's 2.7.5 without ``cryptography``: check that an input is exactly
one CA certificate, report its subject, fingerprints and dates, compute the subject hash that
``openssl rehash`` / ``c_rehash`` name their links after, and tell whether a certificate names a CA
as its issuer. Nothing here verifies a signature. Every refusal is a CertificateError (a
ValueError) whose message says which certificate and why; no other exception escapes for any bytes.

Names are shown as OpenSSL 1.1.1 and 3.x show them by default (``openssl x509 -noout -subject``,
its ``-nameopt oneline``): ``C = US, O = "Acme, Inc.", CN = Root CA``, RDNs in the certificate's
order, `` + `` inside a multi-valued RDN, a value quoted when it holds ``,+;<>`` or starts with
``#`` or starts or ends with a space, ``"`` and ``\\`` escaped by a backslash, and every byte of the
value's UTF-8 outside printable ASCII (control characters, DEL, all non-ASCII) written as ``\\XX``:
the text is always printable ASCII, never a line break or an escape sequence.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import binascii
import hashlib
import re

from ansible_collections.pep493.https.plugins.module_utils._trust import der

CertificateError = der.CertificateError

CERTIFICATE_LABELS = ('CERTIFICATE', 'TRUSTED CERTIFICATE', 'X509 CERTIFICATE')

# OpenSSL's long names, as ``openssl x509 -text`` prints them; any other algorithm shows as its dotted OID.
ALGORITHM_NAMES = {
    '1.2.840.113549.1.1.1': 'rsaEncryption', '1.2.840.113549.1.1.10': 'rsassaPss',
    '1.2.840.10045.2.1': 'id-ecPublicKey', '1.3.101.110': 'X25519', '1.3.101.111': 'X448',
    '1.3.101.112': 'ED25519', '1.3.101.113': 'ED448', '1.2.840.10040.4.1': 'dsaEncryption',
    '1.2.840.113549.1.1.4': 'md5WithRSAEncryption', '1.2.840.113549.1.1.5': 'sha1WithRSAEncryption',
    '1.2.840.113549.1.1.11': 'sha256WithRSAEncryption', '1.2.840.113549.1.1.12': 'sha384WithRSAEncryption',
    '1.2.840.113549.1.1.13': 'sha512WithRSAEncryption', '1.2.840.113549.1.1.14': 'sha224WithRSAEncryption',
    '1.2.840.10045.4.1': 'ecdsa-with-SHA1', '1.2.840.10045.4.3.1': 'ecdsa-with-SHA224',
    '1.2.840.10045.4.3.2': 'ecdsa-with-SHA256', '1.2.840.10045.4.3.3': 'ecdsa-with-SHA384',
    '1.2.840.10045.4.3.4': 'ecdsa-with-SHA512', '1.2.840.10040.4.3': 'dsaWithSHA1',
    '2.16.840.1.101.3.4.3.1': 'dsa_with_SHA224', '2.16.840.1.101.3.4.3.2': 'dsa_with_SHA256',
}

BASIC_CONSTRAINTS = '2.5.29.19'
KEY_USAGE = '2.5.29.15'
SUBJECT_KEY_IDENTIFIER = '2.5.29.14'
AUTHORITY_KEY_IDENTIFIER = '2.5.29.35'

_BASE64 = re.compile(br'[A-Za-z0-9+/]*={0,2}\Z')
_BASE64_LINE = re.compile(br'[A-Za-z0-9+/=]*\Z')
_PRINTABLE_LABEL = re.compile(br'[\x20-\x7e]*\Z')
_BEGIN_LINE = re.compile(br'^-----BEGIN ([^\r\n]*?)-----[ \t\r]*$', re.M)
_CERTIFICATE_BEGIN = re.compile(br'^-----BEGIN (?:X509 |TRUSTED )?CERTIFICATE-----', re.M)
_CERTIFICATE_BLOCK = re.compile(
    br'^-----BEGIN ((?:X509 |TRUSTED )?CERTIFICATE)-----[ \t\r]*\n([^-]*)^-----END \1-----', re.M)


_text = der.native_text


def _colon_hex(digest):
    hexadecimal = _text(binascii.hexlify(digest).upper())
    return ':'.join(hexadecimal[index:index + 2] for index in range(0, len(hexadecimal), 2))


def _as_bytes(data):
    if isinstance(data, bytes):
        return data
    if isinstance(data, bytearray):
        return bytes(data)
    if isinstance(data, type(u'')):
        try:
            return data.encode('utf-8')
        except UnicodeError:
            raise CertificateError('the text holds characters that cannot be written as UTF-8')
    raise TypeError('certificate data must be bytes, not %s' % type(data).__name__)


def _looks_like_der(data):
    # A certificate is longer than 127 bytes, so DER starts 0x30 then a long-form length: never text.
    return len(data) >= 2 and bytearray(data[:2])[0] == 0x30 and bytearray(data[:2])[1] >= 0x80


def _read_algorithm(element, what):
    der.expect(element, der.SEQUENCE, what)
    parts = element.children()
    if not 1 <= len(parts) <= 2:
        raise CertificateError('%s at byte %d: expected an algorithm and its parameters' % (what, element.start))
    oid = der.decode_oid(parts[0], what)
    return ALGORITHM_NAMES.get(oid, oid)


class Certificate(object):
    """One parsed certificate. ``version`` is 1, 2 or 3 (as openssl prints it); dates are naive UTC
    datetimes; key identifiers lowercase hex; fingerprints as ``openssl x509 -fingerprint`` prints them;
    ``pem_label`` is the PEM block's label ('TRUSTED CERTIFICATE' for OpenSSL's format with trust
    settings appended, which ``der`` leaves out) or None for DER input. Beyond the fields the module
    reports: ``has_basic_constraints``, ``authority_cert_serial`` and ``authority_cert_issuers`` (the
    rest of authorityKeyIdentifier), and ``subject_canonical``/``issuer_canonical``, the encodings
    OpenSSL hashes and compares names by."""

    __slots__ = ('der', 'pem_label', 'version', 'serial', 'subject', 'issuer', 'subject_der', 'issuer_der',
                 'not_before', 'not_after', 'is_ca', 'path_len', 'key_cert_sign', 'subject_key_id',
                 'authority_key_id', 'authority_cert_serial', 'sha256_fingerprint', 'sha1_fingerprint',
                 'self_issued', 'public_key_algorithm', 'signature_algorithm', 'has_basic_constraints',
                 'subject_canonical', 'issuer_canonical', 'authority_cert_issuers')

    def __init__(self, der_bytes, pem_label=None):
        data = bytearray(der_bytes)
        root = der.expect(der.read_element(data, 0, len(data)), der.SEQUENCE, 'certificate')
        if root.end != len(data):
            if pem_label != 'TRUSTED CERTIFICATE':
                raise CertificateError('%d byte(s) after the end of the certificate at byte %d' % (len(data) - root.end, root.end))
            trailer = der.read_element(data, root.end, len(data))
            if trailer.end != len(data):
                raise CertificateError('%d byte(s) after the trust settings at byte %d' % (len(data) - trailer.end, trailer.end))
        parts = root.children()
        if parts and parts[0].tag == der.INTEGER:
            raise CertificateError('this is not a certificate: it starts like a private key or a PKCS#12 file')
        if len(parts) != 3:
            raise CertificateError('a certificate has 3 parts, this one has %d' % len(parts))
        self.der = root.encoding()
        self.pem_label = pem_label
        self.sha256_fingerprint = _colon_hex(hashlib.sha256(self.der).digest())
        self.sha1_fingerprint = _colon_hex(hashlib.sha1(self.der).digest())
        self.signature_algorithm = _read_algorithm(parts[1], 'signature algorithm')
        der.expect(parts[2], der.BIT_STRING, 'signature')
        self.is_ca = self.has_basic_constraints = False
        self.path_len = self.key_cert_sign = self.subject_key_id = self.authority_key_id = None
        self.authority_cert_serial = None
        self.authority_cert_issuers = []
        self._read_tbs(der.expect(parts[0], der.SEQUENCE, 'tbsCertificate'))

    def __repr__(self):
        return '<Certificate %s, SHA256 %s>' % (self.subject, self.sha256_fingerprint)

    def _read_tbs(self, tbs):
        fields = tbs.children()
        self.version = 1
        if fields and fields[0].tag == 0xa0:
            wrapped = fields.pop(0).children()
            if len(wrapped) != 1:
                raise CertificateError('version at byte %d: expected one INTEGER' % tbs.body)
            number = der.decode_integer(wrapped[0], 'version')
            if number not in (0, 1, 2):
                raise CertificateError('version at byte %d: unknown version %d' % (wrapped[0].start, number + 1))
            self.version = number + 1
        if len(fields) < 6:
            raise CertificateError('tbsCertificate at byte %d ends after %d of its fields' % (tbs.start, len(fields)))
        self.serial = der.decode_integer(fields[0], 'serial number')
        _read_algorithm(fields[1], 'tbsCertificate signature algorithm')
        self.issuer, self.issuer_canonical = der.read_name(fields[2], 'issuer')
        self.issuer_der = fields[2].encoding()
        validity = der.expect(fields[3], der.SEQUENCE, 'validity').children()
        if len(validity) != 2:
            raise CertificateError('validity at byte %d: expected two dates, found %d' % (fields[3].start, len(validity)))
        self.not_before = der.decode_time(validity[0], 'notBefore')
        self.not_after = der.decode_time(validity[1], 'notAfter')
        self.subject, self.subject_canonical = der.read_name(fields[4], 'subject')
        self.subject_der = fields[4].encoding()
        self.self_issued = self.subject_der == self.issuer_der
        key_info = der.expect(fields[5], der.SEQUENCE, 'subjectPublicKeyInfo').children()
        if len(key_info) != 2:
            raise CertificateError('subjectPublicKeyInfo at byte %d: expected an algorithm and a key' % fields[5].start)
        self.public_key_algorithm = _read_algorithm(key_info[0], 'public key algorithm')
        der.expect(key_info[1], der.BIT_STRING, 'public key')
        previous = 0
        for field in fields[6:]:
            # issuerUniqueID [1], subjectUniqueID [2], extensions [3], each optional, in this order
            if field.tag not in (0x81, 0x82, 0xa3) or field.tag & 0x1f <= previous:
                raise CertificateError('unexpected %s at byte %d after the public key' % (der.describe_tag(field.tag), field.start))
            previous = field.tag & 0x1f
            if field.tag == 0xa3:
                self._read_extensions(field)

    def _read_extensions(self, field):
        wrapped = field.children()
        if len(wrapped) != 1:
            raise CertificateError('extensions at byte %d: expected one SEQUENCE' % field.start)
        seen = set()
        for extension in der.expect(wrapped[0], der.SEQUENCE, 'extensions').children():
            parts = der.expect(extension, der.SEQUENCE, 'extension').children()
            if len(parts) == 3:
                der.decode_boolean(parts[1], 'extension critical flag')
            elif len(parts) != 2:
                raise CertificateError('extension at byte %d: expected 2 or 3 elements, found %d' % (extension.start, len(parts)))
            oid = der.decode_oid(parts[0], 'extension')
            value = der.expect(parts[-1], der.OCTET_STRING, 'extension %s value' % oid)
            if oid in seen:
                raise CertificateError('extension %s appears twice (second at byte %d)' % (_EXTENSION_NAMES.get(oid, oid), extension.start))
            seen.add(oid)
            reader = _EXTENSION_READERS.get(oid)
            if reader is not None:
                try:
                    reader(self, value.inner())
                except CertificateError as error:
                    raise CertificateError('extension %s: %s' % (_EXTENSION_NAMES[oid], error))

    def _read_basic_constraints(self, element):
        items = der.expect(element, der.SEQUENCE, 'basicConstraints').children()
        self.has_basic_constraints = True
        if items and items[0].tag == der.BOOLEAN:
            self.is_ca = der.decode_boolean(items.pop(0), 'cA')
        if items:
            self.path_len = der.decode_integer(items.pop(0), 'pathLenConstraint')
            if self.path_len < 0:
                raise CertificateError('a negative pathLenConstraint')
        if items:
            raise CertificateError('unexpected %s at byte %d' % (der.describe_tag(items[0].tag), items[0].start))

    def _read_key_usage(self, element):
        bits = bytearray(der.decode_bit_string(element, 'keyUsage')[1])
        self.key_cert_sign = bool(bits and bits[0] & 0x04)  # keyCertSign is bit 5, counted from the top

    def _read_subject_key_identifier(self, element):
        self.subject_key_id = _text(binascii.hexlify(der.expect(element, der.OCTET_STRING, 'keyIdentifier').content()))

    def _read_authority_key_identifier(self, element):
        previous = -1
        for item in der.expect(element, der.SEQUENCE, 'authorityKeyIdentifier').children():
            # keyIdentifier [0], authorityCertIssuer [1], authorityCertSerialNumber [2], in this order
            if item.tag not in (0x80, 0xa1, 0x82) or item.tag & 0x1f <= previous:
                raise CertificateError('unexpected %s at byte %d' % (der.describe_tag(item.tag), item.start))
            previous = item.tag & 0x1f
            if item.tag == 0x80:
                self.authority_key_id = _text(binascii.hexlify(item.content()))
            elif item.tag == 0x82:
                self.authority_cert_serial = der.integer_from_content(item.content(), 'authorityCertSerialNumber', item.start)
            else:
                for general_name in item.children():
                    if general_name.tag == 0xa4:  # directoryName [4], an explicitly tagged Name
                        wrapped = general_name.children()
                        if len(wrapped) != 1:
                            raise CertificateError('directoryName at byte %d: expected one Name' % general_name.start)
                        self.authority_cert_issuers.append(der.read_name(wrapped[0], 'authorityCertIssuer')[1])


_EXTENSION_NAMES = {BASIC_CONSTRAINTS: 'basicConstraints', KEY_USAGE: 'keyUsage',
                    SUBJECT_KEY_IDENTIFIER: 'subjectKeyIdentifier', AUTHORITY_KEY_IDENTIFIER: 'authorityKeyIdentifier'}
_EXTENSION_READERS = {
    BASIC_CONSTRAINTS: Certificate._read_basic_constraints,
    KEY_USAGE: Certificate._read_key_usage,
    SUBJECT_KEY_IDENTIFIER: Certificate._read_subject_key_identifier,
    AUTHORITY_KEY_IDENTIFIER: Certificate._read_authority_key_identifier,
}


def _decode_base64(label, begin_line, body):
    """The bytes of one PEM block's base64 lines [(line number, stripped line)], RFC 1421 headers skipped."""
    if body and b':' in body[0][1]:
        blank = [position for position, (number, line) in enumerate(body) if not line]
        if not blank:
            raise CertificateError("PEM block '%s' at line %d: its headers are not followed by an empty line" % (label, begin_line))
        body = body[blank[0] + 1:]
    chunks = []
    for number, line in body:
        chunk = b''.join(line.split())
        if not _BASE64_LINE.match(chunk):
            raise CertificateError("PEM block '%s' at line %d: line %d is not base64" % (label, begin_line, number))
        chunks.append(chunk)
    encoded = b''.join(chunks)
    if not encoded:
        raise CertificateError("PEM block '%s' at line %d is empty" % (label, begin_line))
    if len(encoded) % 4 or not _BASE64.match(encoded):
        raise CertificateError("PEM block '%s' at line %d: the base64 is cut short or padded in the middle" % (label, begin_line))
    try:
        return binascii.a2b_base64(encoded)
    except (binascii.Error, TypeError, ValueError):
        raise CertificateError("PEM block '%s' at line %d: invalid base64" % (label, begin_line))


def pem_blocks(data):
    """[(label, decoded bytes, line number of its BEGIN line)] for every PEM block in ``data``, text
    around and between blocks ignored as openssl ignores it, CRLF or LF line ends. A BEGIN line without
    its matching END line, or a body that is not base64, raises CertificateError naming the line."""
    lines = _as_bytes(data).split(b'\n')
    blocks = []
    index = 0
    while index < len(lines):
        line = lines[index].rstrip()
        index += 1
        if not line.startswith(b'-----BEGIN ') or not line.endswith(b'-----'):
            continue  # openssl too reads past a BEGIN line that does not end in five dashes
        begin_line = index
        label_bytes = line[len(b'-----BEGIN '):-5]
        if not label_bytes or not _PRINTABLE_LABEL.match(label_bytes):
            raise CertificateError('line %d: a PEM BEGIN line without a readable label' % begin_line)
        label = _text(label_bytes)
        body = []
        end = None
        while index < len(lines):
            current = lines[index].strip()
            index += 1
            if current.startswith(b'-----END ') or current.startswith(b'-----BEGIN '):
                end = current
                break
            body.append((index, current))
        if end != b'-----END ' + label_bytes + b'-----':
            found = ('line %d' % index) if end is not None else 'the end of the data'
            raise CertificateError("PEM block '%s' at line %d: no '-----END %s-----' line before %s"
                                   % (label, begin_line, label, found))
        blocks.append((label, _decode_base64(label, begin_line, body), begin_line))
    return blocks


def load_certificates(data):
    """Every certificate in ``data``: PEM text (any number of blocks) or one DER certificate. A PEM
    block that is not a certificate (a key, a CSR, a CRL ...) is refused; text without any PEM block
    gives []."""
    data = _as_bytes(data)
    if _looks_like_der(data):
        return [_parse(data, None, 'certificate 1 (DER)')]
    certificates = []
    for label, block, line in pem_blocks(data):
        if label not in CERTIFICATE_LABELS:
            raise CertificateError("not a certificate: the PEM block at line %d is labelled '%s'" % (line, label))
        where = 'certificate %d (PEM block at line %d)' % (len(certificates) + 1, line)
        certificates.append(_parse(block, label, where))
    return certificates


def _parse(block, label, where):
    try:
        return Certificate(block, label)
    except CertificateError as error:
        raise CertificateError('%s: %s' % (where, error))


def _private_key_in(data):
    """How ``data`` holds a private key, or None."""
    for match in _BEGIN_LINE.finditer(data):
        if b'PRIVATE KEY' in match.group(1):
            return "a private key (PEM block '%s' at line %d)" % (der.escape_value(match.group(1)), data.count(b'\n', 0, match.start()) + 1)
    if data[:1] == b'\x30':  # PKCS#1, SEC 1, PKCS#8 and PKCS#12 all open with a version INTEGER
        try:
            buffer = bytearray(data)
            whole = der.read_element(buffer, 0, len(buffer))
            first = whole.children()[:1]
        except CertificateError:
            return None
        if whole.end == len(buffer) and first and first[0].tag == der.INTEGER:
            return 'DER data shaped like a private key or a PKCS#12 file'
    return None


def validate_ca(data, now, what='ca'):
    """The one CA certificate in ``data``, valid at ``now`` (a naive UTC datetime). Refuses, with a
    message that starts with ``what``: a private key anywhere in the input, anything unreadable,
    zero or several certificates, a certificate without basicConstraints CA:TRUE, one whose notAfter
    is not after ``now``, one whose notBefore is after ``now``. Nothing else is judged here."""
    data = _as_bytes(data)
    key = _private_key_in(data)
    if key is not None:
        raise CertificateError('%s: holds %s; a private key must never be sent to a host that only has to trust a CA: '
                               'give the CA certificate alone' % (what, key))
    try:
        certificates = load_certificates(data)
    except CertificateError as error:
        raise CertificateError('%s: %s' % (what, error))
    if not certificates:
        raise CertificateError('%s: holds no certificate (no -----BEGIN CERTIFICATE----- block, and not DER)' % what)
    if len(certificates) > 1:
        raise CertificateError('%s: holds %d certificates; give exactly one CA certificate per entry (split the bundle)'
                               % (what, len(certificates)))
    ca = certificates[0]
    if not ca.is_ca:
        reason = 'its basicConstraints says CA:FALSE' if ca.has_basic_constraints else 'it has no basicConstraints extension'
        raise CertificateError("%s: '%s' is not a CA certificate (%s)" % (what, ca.subject, reason))
    if ca.not_after <= now:
        raise CertificateError("%s: '%s' expired on %s UTC" % (what, ca.subject, ca.not_after))
    if ca.not_before > now:
        raise CertificateError("%s: '%s' is not valid before %s UTC" % (what, ca.subject, ca.not_before))
    return ca


def _name_hash(canonical):
    digest = bytearray(hashlib.sha1(canonical).digest()[:4])
    return '%08x' % (digest[0] | digest[1] << 8 | digest[2] << 16 | digest[3] << 24)


def subject_hash(certificate):
    """OpenSSL's X509_NAME_hash of the subject (``openssl x509 -noout -hash``, the ``<hash>.0`` link
    names of ``openssl rehash``): the first 4 bytes of SHA-1 over the canonical name, little-endian."""
    return _name_hash(certificate.subject_canonical)


def issuer_hash(certificate):
    """The same hash of the issuer (``openssl x509 -noout -issuer_hash``)."""
    return _name_hash(certificate.issuer_canonical)


def _first_element_length(blob):
    head = bytearray(blob[:6])
    if len(head) < 2 or head[0] != 0x30:
        return None
    size, length = 2, head[1]
    if length >= 0x80:
        size += length & 0x7f
        if not 3 <= size <= 6 or len(head) < size:
            return None
        length = 0
        for octet in head[2:size]:
            length = (length << 8) | octet
    return size + length if size + length <= len(blob) else None


def fingerprints_in_bundle(data):
    """(set of SHA-256 fingerprints, formatted as Certificate.sha256_fingerprint, number of certificate
    blocks skipped because they could not be decoded) for a PEM bundle such as ca-certificates.crt,
    or for one DER certificate. Fast: base64 and a hash per block, no parsing beyond the outer length."""
    data = _as_bytes(data)
    if _looks_like_der(data):
        blobs = [data]
        expected = 1
    else:
        blobs = []
        for match in _CERTIFICATE_BLOCK.finditer(data):
            encoded = b''.join(match.group(2).split())
            if encoded and not len(encoded) % 4 and _BASE64.match(encoded):
                blobs.append(binascii.a2b_base64(encoded))
        expected = len(_CERTIFICATE_BEGIN.findall(data))
    found = set()
    decoded = 0
    for blob in blobs:
        length = _first_element_length(blob)
        if length is not None:
            found.add(_colon_hex(hashlib.sha256(blob[:length]).digest()))
            decoded += 1
    return found, max(expected - decoded, 0)


def issued_by(certificate, ca):
    """Whether ``certificate`` names ``ca`` as its issuer, from the names and key identifiers alone:
    NO SIGNATURE IS CHECKED. False when the issuer name differs from the CA's subject (compared in
    OpenSSL's canonical form), or when an identifier contradicts it (authorityKeyIdentifier's keyid
    against the CA's subjectKeyIdentifier, its issuer name and serial against the CA's). True when
    the name matches and an identifier confirms it. None when the name matches but neither carries an
    identifier to compare: another CA of the same name (a re-keyed one) would match as well."""
    if certificate.issuer_canonical != ca.subject_canonical:
        return False
    confirmed = None
    if certificate.authority_key_id is not None and ca.subject_key_id is not None:
        if certificate.authority_key_id != ca.subject_key_id:
            return False
        confirmed = True
    if certificate.authority_cert_serial is not None and certificate.authority_cert_issuers:
        if certificate.authority_cert_serial != ca.serial or ca.issuer_canonical not in certificate.authority_cert_issuers:
            return False
        confirmed = True
    return confirmed
