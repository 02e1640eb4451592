# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The standard-library certificate reader (_trust.x509, _trust.der) against the ``openssl`` CLI:
certificates and names made by openssl in a temporary folder, every parsed field compared with what
``openssl x509`` prints, names OpenSSL cannot make crafted in DER and compared with its hash, the
refusals of validate_ca, and fuzzing (hypothesis when importable, a seeded loop otherwise) that only
CertificateError ever leaves the reader. Cross-checks with ``cryptography`` run where it is importable."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import atexit
import binascii
import datetime
import os
import random
import re
import shutil
import subprocess
import tempfile
import time
import timeit
import warnings

import pytest

from ansible_collections.pep493.https.plugins.module_utils._trust import der, x509

try:
    from hypothesis import given, strategies as st
    from ansible_collections.pep493.https.tests.unit.fuzz import FUZZ
except ImportError:  # the seeded loops at the end stand in
    given = None

CONFIG = b'\n'.join([  # one openssl.cnf for req, x509 -extfile and a minimal `openssl ca`
    b'[req]', b'distinguished_name = dn', b'[dn]', b'[ca]', b'default_ca = dated', b'[dated]', b'database = index.txt',
    b'new_certs_dir = .', b'serial = serial.txt', b'default_md = sha256', b'policy = any', b'unique_subject = no',
    b'preserve = yes', b'[any]', b'organizationName = optional', b'commonName = optional',
    b'[ca_ext]', b'basicConstraints = critical,CA:TRUE,pathlen:0', b'keyUsage = critical,keyCertSign,cRLSign',
    b'subjectKeyIdentifier = hash', b'authorityKeyIdentifier = keyid:always',
    b'[leaf_ext]', b'basicConstraints = CA:FALSE', b'keyUsage = critical,digitalSignature',
    b'subjectKeyIdentifier = hash', b'authorityKeyIdentifier = keyid,issuer:always', b''])
ROOT_SUBJECT = '/C=US/O=Test Org/CN=Test Root CA'
CA = ['-addext', 'basicConstraints=critical,CA:TRUE']
# Certificates compared field by field with openssl (every one also parsed from DER when .der exists)
PKI = ('root', 'rekeyed', 'pss', 'ed_root', 'v1', 'no_key_id', 'inter', 'leaf', 'no_aki', 'expired', 'future',
       'century', 'trusted')
NAMES = [  # (-subj, string_mask) for openssl req: mixed case, spaces, multi-valued RDNs, every string type it makes
    (u'/CN=Plain', None), (u'/C=DE/ST=Berlin/L=Berlin/O=Example GmbH/OU=IT/CN=Mixed Case Root', None),
    (u'/CN=  Leading And   Inner  Spaces  /O=\tTabbed\tValue\t', None), (u'/CN=UPPER lower MiXeD/O=ACME/OU=Dept', 'pkix'),
    (u'/CN=a+O=b+OU=c/C=US', None), (u'/O=z+CN=y/OU=Y+OU=y', None),
    (u'/CN=Caf\u00e9 \u65e5\u672c \u00dcN\u00cfC\u00d6DE/O=Stra\u00dfe', None), (u'/CN=\u00c6r\u00f8 K\u00fcl/O=Plain Ascii', 'pkix'),
    (u'/CN=Caf\u00e9 M\u00fcller/OU=T61', 'default'), (u'/CN=Smile \U0001F600 \u00c9T\u00c9', 'pkix'),
    (u'/emailAddress=Admin@Example.COM/CN=Mail Root', None), (u'/DC=com/DC=Example/CN=dc', None),
    (u'/CN=Quote"Back\\\\slash, comma\\+plus<>;=/O=#hash/OU= lead', None), (u'/CN=New\nLine\x1bEsc\x7fDel\x01', None),
    (u'/CN=x/CN=X/CN= x ', None), (u'/CN=trailing space ', None),
    (u'/serialNumber=0042/title=Boss/GN=Ann/SN=Lee/UID=u1/street=Main  St/postalCode=12345/initials=AL'
     u'/pseudonym=P/dnQualifier=q/businessCategory=B/jurisdictionC=US', None),
]
MONTHS = dict((month, number) for number, month in enumerate(
    ('Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'), 1))


def _tlv(tag, content):
    """One DER element, written independently of the code under test."""
    length = len(content)
    octets = bytearray()
    while length:
        octets.insert(0, length & 0xff)
        length >>= 8
    head = bytearray([tag, len(content)]) if len(content) < 0x80 else bytearray([tag, 0x80 | len(octets)]) + octets
    return bytes(head) + bytes(content)


def _split(data):
    """[(encoding, content)] of concatenated DER elements (well-formed input only)."""
    data = bytearray(data)
    out = []
    index = 0
    while index < len(data):
        size, body = data[index + 1], index + 2
        if size >= 0x80:
            body += size & 0x7f
            size = int(binascii.hexlify(bytes(data[index + 2:body])), 16)
        out.append((bytes(data[index:body + size]), bytes(data[body:body + size])))
        index = body + size
    return out


def _with_names(certificate_der, subject=None, issuer=None):
    """The certificate with its subject and/or issuer Name replaced (its signature no longer valid)."""
    tbs, algorithm, signature = _split(_split(certificate_der)[0][1])
    fields = [encoding for encoding, content in _split(tbs[1])]
    offset = 1 if fields[0][:1] == b'\xa0' else 0
    if issuer is not None:
        fields[offset + 2] = issuer
    if subject is not None:
        fields[offset + 4] = subject
    return _tlv(0x30, _tlv(0x30, b''.join(fields)) + algorithm[0] + signature[0])


def _name(*rdns):
    return _tlv(0x30, b''.join(_tlv(0x31, b''.join(rdn)) for rdn in rdns))


def _attribute(oid, tag, value):
    return _tlv(0x30, _tlv(0x06, oid) + _tlv(tag, value))


CN, O, OU = b'\x55\x04\x03', b'\x55\x04\x0a', b'\x55\x04\x0b'
CRAFTED = [  # names OpenSSL cannot make, for its reading of them
    _name([_attribute(CN, 0x1a, b'Visible')]), _name([_attribute(CN, 0x12, b'12 34')]),
    _name([_attribute(CN, 0x1c, b'\0\0\0A\0\0\0b\0\x01\xf6\x00')]), _name([_attribute(CN, 0x04, b'octets')]),
    _name([_attribute(CN, 0x03, b'\x07\x81')]), _name([_attribute(CN, 0x03, b'\x01\x81')]),
    _name([_attribute(CN, 0x30, _tlv(0x02, b'\x01'))]), _name([_attribute(CN, 0x07, b'Xy')]), _name(),
    _name([_attribute(CN, 0x0c, b'')]), _name([_attribute(CN, 0x0c, b'\t\x0b A\x0c\r\nB  \x0b')]),
    _name([_attribute(O, 0x13, b'b'), _attribute(CN, 0x0c, b'A')]),
    _name([_attribute(CN, 0x0c, b'b'), _attribute(CN, 0x13, b'A')]),
    _name([_attribute(CN, 0x0c, b'\xc0\x80')]), _name([_attribute(CN, 0x0c, b'\xed\xa0\x80')]),
    _name([_attribute(CN, 0x0c, b'\xf4\x90\x80\x80')]), _name([_attribute(CN, 0x1e, b'\0A\0')]),
    _name([_attribute(CN, 0x1e, b'\xd8\x00')]), _name([_attribute(CN, 0x1e, b'\x00C\x00\xe9\x00 \x00\x20')]),
    _name([_attribute(CN, 0x14, b'caf\xe9 X\x9b')]), _name([_attribute(CN, 0x0c, b'a\0B')]),
    _name([_attribute(b'\x2a\x03\x04', 0x0c, b'Hi There')]), _name([_attribute(b'\x2a\x80\x03', 0x0c, b'x')]),
    _name([_attribute(CN, 0x0c, b'\xc2\xa0x\xc2\xa0\xe2\x80\xa8')]), _name([_attribute(CN, 0x19, b'x')]),
    _name([_attribute(CN, 0x15, b'x')]), _name([_attribute(CN, 0x80, b'x')]), _name([_attribute(CN, 0x01, b'\xff')]),
    _name([_attribute(OU, 0x16, b' MiXeD  Case\t')], [_attribute(CN, 0x13, b'A'), _attribute(CN, 0x13, b'a')]),
    _tlv(0x30, _tlv(0x31, b'') + _tlv(0x31, _attribute(CN, 0x0c, b'x'))),
]
EMPTY_RDN = CRAFTED[-1]  # OpenSSL skips an empty RDN; this reader refuses it, as RFC 5280 does


class Pki(object):
    """A temporary folder where openssl makes keys and certificates."""

    def __init__(self, folder):
        self.folder = folder
        self.env = dict(os.environ, OPENSSL_CONF=os.path.join(folder, 'openssl.cnf'), HOME=folder)

    def run(self, *args, **kwargs):
        process = subprocess.Popen(('openssl',) + args, cwd=self.folder, env=self.env, stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = process.communicate(kwargs.get('stdin'))
        if process.returncode and kwargs.get('check', True):
            raise AssertionError('openssl %r failed: %r' % (args, err))
        return out if not kwargs.get('status') else (process.returncode, out)

    def read(self, name):
        with open(os.path.join(self.folder, name), 'rb') as handle:
            return handle.read()

    def write(self, name, data):
        with open(os.path.join(self.folder, name), 'wb') as handle:
            handle.write(data)

    def load(self, name):
        return x509.load_certificates(self.read(name))[0]

    def self_signed(self, name, key, subject, *extra):
        self.run('req', '-x509', '-new', '-key', key, '-subj', subject, '-days', '30', '-out', name + '.pem', *extra)

    def issue(self, name, request, ca, key, *extra):
        self.run('x509', '-req', '-in', request + '.csr', '-CA', ca + '.pem', '-CAkey', key, '-days', '20',
                 '-out', name + '.pem', *extra)

    def dated(self, name, start, end):
        self.run('ca', '-batch', '-config', 'openssl.cnf', '-in', 'dated.csr', '-cert', 'root.pem', '-keyfile', 'rsa.key',
                 '-startdate', start, '-enddate', end, '-extensions', 'ca_ext', '-notext', '-out', name + '.pem')


# ansible-test runs each test in a fork of its worker, where a module fixture would make the
# certificates again for every test: they are made once, in a folder the importing process owns.
FOLDER = tempfile.mkdtemp(prefix='pep493-x509-')
atexit.register(shutil.rmtree, FOLDER, True)


@pytest.fixture(scope='module')
def pki():
    pki = Pki(FOLDER)
    if not os.path.exists(os.path.join(FOLDER, 'made')):
        shutil.rmtree(FOLDER, True)
        os.mkdir(FOLDER)
        _make(pki)
        pki.write('made', b'')
    return pki


def _make(pki):
    pki.write('openssl.cnf', CONFIG)
    pki.write('index.txt', b'')
    pki.write('serial.txt', b'1000\n')
    pki.run('genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:1024', '-out', 'rsa.key')  # quick to make
    for key, curve in (('ec.key', 'P-256'), ('ec384.key', 'P-384')):
        pki.run('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:' + curve, '-out', key)
    pki.run('genpkey', '-algorithm', 'ED25519', '-out', 'ed.key')
    pki.self_signed('root', 'rsa.key', ROOT_SUBJECT, '-sha256', '-set_serial', '1', '-addext',
                    'basicConstraints=critical,CA:TRUE,pathlen:1', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
                    '-addext', 'subjectKeyIdentifier=hash')
    pki.self_signed('rekeyed', 'ec384.key', ROOT_SUBJECT, '-sha384', '-addext', 'subjectKeyIdentifier=hash', *CA)
    pki.self_signed('pss', 'rsa.key', '/CN=PSS Root', '-sigopt', 'rsa_padding_mode:pss', *CA)
    pki.self_signed('ed_root', 'ed.key', '/CN=Ed Root', '-addext', 'keyUsage=keyCertSign', *CA)
    pki.self_signed('v1', 'ec.key', '/CN=Version One')
    pki.self_signed('no_key_id', 'ec.key', '/CN=No Key Id CA', '-addext', 'subjectKeyIdentifier=none',
                    '-addext', 'authorityKeyIdentifier=none', *CA)
    for name, key, subject in (('inter', 'ec.key', '/O=Test Org/OU=Unit B+OU=Unit A/CN=Test Intermediate'),
                               ('leaf', 'ed.key', '/CN=leaf.example'), ('dated', 'ec.key', '/O=Test Org/CN=Dated CA')):
        pki.run('req', '-new', '-key', key, '-subj', subject, '-out', name + '.csr')
    pki.issue('inter', 'inter', 'root', 'rsa.key', '-set_serial', '0x1234567890abcdef1234', '-extfile', 'openssl.cnf',
              '-extensions', 'ca_ext')
    pki.issue('leaf', 'leaf', 'inter', 'ec.key', '-sha384', '-set_serial', '0', '-extfile', 'openssl.cnf',
              '-extensions', 'leaf_ext')
    pki.issue('no_aki', 'leaf', 'no_key_id', 'ec.key', '-set_serial', '-5')
    pki.dated('expired', '20200101000000Z', '20210101000000Z')
    pki.dated('future', '20990101000000Z', '99991231235959Z')
    pki.dated('century', '500101000000Z', '491231235959Z')
    pki.run('x509', '-in', 'root.pem', '-addtrust', 'serverAuth', '-out', 'trusted.pem')
    for name in ('root', 'inter', 'leaf'):
        pki.run('x509', '-in', name + '.pem', '-outform', 'DER', '-out', name + '.der')
    pki.run('pkey', '-in', 'ec.key', '-outform', 'DER', '-out', 'ec.key.der')


def _openssl_view(pki, path, form='PEM'):
    """What ``openssl x509`` prints of a certificate, by field."""
    out = pki.run('x509', '-inform', form, '-in', path, '-noout', '-subject', '-issuer', '-serial', '-dates',
                  '-fingerprint', '-sha256', '-hash', '-issuer_hash', '-ext',
                  'basicConstraints,keyUsage,subjectKeyIdentifier,authorityKeyIdentifier', '-text').decode('latin-1')
    view = {}
    for line in out.split('\n'):
        key, equals, value = line.partition('=')
        if equals and not key.startswith(' '):
            view.setdefault(key, value)
    view['hash'], view['issuer_hash'] = re.findall(r'^([0-9a-f]{8})$', out, re.M)[:2]
    for title in ('Basic Constraints', 'Key Usage', 'Subject Key Identifier', 'Authority Key Identifier'):
        match = re.search(r'^X509v3 %s:.*\n    (?:keyid:)?(.*)' % title, out, re.M)
        view[title] = match and match.group(1)
    for key, pattern in (('version', r'Version: (\d)'), ('signature', r'Signature Algorithm: (\S+)'),
                         ('key', r'Public Key Algorithm: (\S+)')):
        view[key] = re.search(pattern, out).group(1)
    return view


def _openssl_date(text):
    month, day, clock, year = text.split()[:4]
    return datetime.datetime(*([int(year), MONTHS[month], int(day)] + [int(part) for part in clock.split(':')]))


@pytest.mark.parametrize('name', PKI)
def test_fields_match_openssl(pki, name):
    view = _openssl_view(pki, name + '.pem')
    for certificate in x509.load_certificates(pki.read(name + '.pem')) + (
            x509.load_certificates(pki.read(name + '.der')) if os.path.exists(os.path.join(pki.folder, name + '.der')) else []):
        assert (certificate.subject, certificate.issuer) == (view['subject'], view['issuer'])
        assert certificate.serial == int(view['serial'], 16)
        assert (certificate.not_before, certificate.not_after) == (_openssl_date(view['notBefore']), _openssl_date(view['notAfter']))
        assert certificate.sha256_fingerprint == view['sha256 Fingerprint']
        assert (x509.subject_hash(certificate), x509.issuer_hash(certificate)) == (view['hash'], view['issuer_hash'])
        constraints = view['Basic Constraints']
        assert certificate.has_basic_constraints == (constraints is not None)
        assert certificate.is_ca == bool(constraints and constraints.startswith('CA:TRUE'))
        path_len = constraints and re.search(r'pathlen:(\d+)', constraints)
        assert certificate.path_len == (int(path_len.group(1)) if path_len else None)
        usage = view['Key Usage']
        assert certificate.key_cert_sign == (None if usage is None else 'Certificate Sign' in usage)
        assert (certificate.subject_key_id, certificate.authority_key_id) == tuple(
            text and text.replace(':', '').lower() for text in (view['Subject Key Identifier'], view['Authority Key Identifier']))
        assert certificate.version == int(view['version'])
        assert (certificate.signature_algorithm, certificate.public_key_algorithm) == (view['signature'], view['key'])
        assert certificate.self_issued == (view['subject'] == view['issuer'])


def test_fixed_values(pki):
    names = ('root', 'inter', 'leaf', 'expired', 'future', 'century')
    root, inter, leaf, expired, future, century = [pki.load(name + '.pem') for name in names]
    assert (root.public_key_algorithm, inter.public_key_algorithm, leaf.public_key_algorithm) == (
        'rsaEncryption', 'id-ecPublicKey', 'ED25519')
    assert (leaf.signature_algorithm, pki.load('pss.pem').signature_algorithm) == ('ecdsa-with-SHA384', 'rsassaPss')
    assert (root.serial, inter.serial, leaf.serial, pki.load('no_aki.pem').serial) == (1, 0x1234567890abcdef1234, 0, -5)
    assert (root.is_ca, root.path_len, root.key_cert_sign, inter.path_len, leaf.is_ca) == (True, 1, True, 0, False)
    assert (expired.not_before, expired.not_after) == (datetime.datetime(2020, 1, 1), datetime.datetime(2021, 1, 1))
    assert (future.not_before, future.not_after) == (datetime.datetime(2099, 1, 1), datetime.datetime(9999, 12, 31, 23, 59, 59))
    assert (century.not_before, century.not_after) == (datetime.datetime(1950, 1, 1), datetime.datetime(2049, 12, 31, 23, 59, 59))
    assert root.subject == 'C = US, O = Test Org, CN = Test Root CA' and root.self_issued and not inter.self_issued
    assert inter.subject == 'O = Test Org, OU = Unit A + OU = Unit B, CN = Test Intermediate'
    assert (leaf.authority_cert_serial, leaf.authority_key_id) == (inter.serial, inter.subject_key_id)
    assert (root.pem_label, pki.load('root.der').pem_label, pki.load('trusted.pem').pem_label) == (
        'CERTIFICATE', None, 'TRUSTED CERTIFICATE')
    assert pki.load('trusted.pem').der == root.der == pki.read('root.der')
    sha1 = pki.run('x509', '-in', 'root.pem', '-noout', '-fingerprint', '-sha1').decode('ascii')
    assert root.sha1_fingerprint == sha1.strip().split('=')[1]


def test_names_made_by_openssl_match_its_text_and_hash(pki):
    names = os.path.basename(tempfile.mkdtemp(dir=pki.folder))
    tags = set()
    for index, (subject, mask) in enumerate(NAMES):
        path = '%s/%d.pem' % (names, index)
        config = ['-config', 'mask.cnf'] if mask else []
        pki.write('mask.cnf', b'[req]\ndistinguished_name = dn\nstring_mask = ' + (mask or '').encode('ascii') + b'\n[dn]\n')
        pki.run('req', *(config + ['-x509', '-new', '-key', 'ec.key', '-utf8', '-subj', subject.encode('utf-8'),
                                   '-days', '5', '-out', path, '-subject']))  # "subject=..." then the PEM block
        certificate = pki.load(path)
        assert 'subject=' + certificate.subject == pki.read(path).decode('latin-1').split('\n')[0], subject
        assert re.match(r'[ -~]*\Z', certificate.subject)
        tags.update(bytearray(value)[0] for rdn in _split(_split(certificate.subject_der)[0][1])
                    for attribute in _split(rdn[1]) for value in [_split(attribute[1])[1][0]])
    assert set([0x0c, 0x13, 0x14, 0x16, 0x1e]) <= tags  # UTF8, Printable, T61, IA5 and BMPString all seen
    pki.run('rehash', names)  # the <hash>.0 links c_rehash / openssl rehash make for SSL_CERT_DIR
    links = [name for name in os.listdir(os.path.join(pki.folder, names)) if name.endswith('.0')]
    assert len(links) == len(NAMES)
    for link in links:
        target = os.readlink(os.path.join(pki.folder, names, link))
        assert x509.subject_hash(pki.load(names + '/' + target)) + '.0' == link


@pytest.mark.parametrize('index', range(len(CRAFTED)))
def test_crafted_names_read_as_openssl_reads_them(pki, index):
    data = _with_names(pki.read('inter.der'), subject=CRAFTED[index], issuer=CRAFTED[index - 1])
    status, out = pki.run('x509', '-inform', 'DER', '-noout', '-subject', '-issuer', '-hash', '-issuer_hash',
                          stdin=data, check=False, status=True)
    if status or CRAFTED[index] is EMPTY_RDN or CRAFTED[index - 1] is EMPTY_RDN:
        with pytest.raises(x509.CertificateError) as caught:
            x509.load_certificates(data)
        assert re.search(r'(subject|issuer) .*at byte \d+', str(caught.value))
        return
    certificate = x509.load_certificates(data)[0]
    printed = out.decode('latin-1').split('\n')
    assert printed[:4] == ['subject=' + certificate.subject, 'issuer=' + certificate.issuer,
                           x509.subject_hash(certificate), x509.issuer_hash(certificate)]


@pytest.mark.parametrize('name', PKI)
def test_fields_match_cryptography(pki, name):
    crypto_x509 = pytest.importorskip('cryptography.x509')
    hashes = pytest.importorskip('cryptography.hazmat.primitives.hashes')
    ours = pki.load(name + '.pem')
    with warnings.catch_warnings():  # it warns about (and may one day refuse) the serials 0 and -5 RFC 5280 forbids
        warnings.simplefilter('ignore')
        try:
            theirs = crypto_x509.load_der_x509_certificate(ours.der)
            serial = theirs.serial_number
        except ValueError:
            if ours.serial > 0:
                raise
            pytest.skip('this cryptography refuses a serial number of %d' % ours.serial)
    assert (ours.serial, ours.version) == (serial, theirs.version.value + 1)
    assert (ours.subject_der, ours.issuer_der) == (theirs.subject.public_bytes(), theirs.issuer.public_bytes())
    before = getattr(theirs, 'not_valid_before_utc', None) or theirs.not_valid_before
    after = getattr(theirs, 'not_valid_after_utc', None) or theirs.not_valid_after
    assert (ours.not_before, ours.not_after) == (before.replace(tzinfo=None), after.replace(tzinfo=None))
    assert ours.sha256_fingerprint.replace(':', '').lower() == binascii.hexlify(theirs.fingerprint(hashes.SHA256())).decode()
    oid = theirs.signature_algorithm_oid.dotted_string
    assert ours.signature_algorithm == x509.ALGORITHM_NAMES.get(oid, oid)
    extensions = dict((extension.oid.dotted_string, extension.value) for extension in theirs.extensions)
    constraints = extensions.get(x509.BASIC_CONSTRAINTS)
    assert (ours.is_ca, ours.path_len) == ((constraints.ca, constraints.path_length) if constraints else (False, None))
    usage = extensions.get(x509.KEY_USAGE)
    assert ours.key_cert_sign == (usage.key_cert_sign if usage else None)
    ski, aki = extensions.get(x509.SUBJECT_KEY_IDENTIFIER), extensions.get(x509.AUTHORITY_KEY_IDENTIFIER)
    assert ours.subject_key_id == (binascii.hexlify(ski.digest).decode() if ski else None)
    assert ours.authority_key_id == (binascii.hexlify(aki.key_identifier).decode() if aki else None)
    assert ours.authority_cert_serial == (aki.authority_cert_serial_number if aki else None)


def _now():
    return datetime.datetime(*time.gmtime()[:6])


def _pem_of(pki, *names):
    return b''.join(pki.read(name) for name in names)


REFUSALS = [  # (what the input is made of, what the message must say)
    (lambda pki: pki.read('leaf.pem'), "'CN = leaf.example' is not a CA certificate (its basicConstraints says CA:FALSE)"),
    (lambda pki: pki.read('v1.pem'), 'it has no basicConstraints extension'),
    (lambda pki: pki.read('expired.pem'), "'O = Test Org, CN = Dated CA' expired on 2021-01-01 00:00:00 UTC"),
    (lambda pki: pki.read('future.pem'), 'is not valid before 2099-01-01 00:00:00 UTC'),
    (lambda pki: _pem_of(pki, 'root.pem', 'inter.pem'), 'holds 2 certificates; give exactly one CA certificate per entry'),
    (lambda pki: _pem_of(pki, 'ec.key', 'root.pem'), "private key (PEM block 'PRIVATE KEY' at line 1); a private key must never be sent"),
    (lambda pki: _pem_of(pki, 'root.pem', 'inter.csr', 'rsa.key'), "PEM block 'PRIVATE KEY' at line "),
    (lambda pki: pki.read('ec.key.der'), 'DER data shaped like a private key'),
    (lambda pki: b'', 'holds no certificate'),
    (lambda pki: b'just some text\n', 'holds no certificate'),
    (lambda pki: _pem_of(pki, 'root.pem', 'inter.csr'), "not a certificate: the PEM block at line "),
    (lambda pki: pki.read('root.pem')[:500], "no '-----END CERTIFICATE-----' line before the end of the data"),
    (lambda pki: pki.read('root.der')[:412], 'certificate 1 (DER): truncated at byte 412'),
    (lambda pki: pki.read('root.pem').replace(b'\n', b'\n!', 2), "PEM block 'CERTIFICATE' at line 1: line 2 is not base64"),
    (lambda pki: pki.read('root.der') + b'\0', '1 byte(s) after the end of the certificate'),
    (lambda pki: b'0\x82\xff\xff', 'certificate 1 (DER): truncated at byte 4: the SEQUENCE at byte 0 needs 65535 bytes'),
]


@pytest.mark.parametrize('make, message', REFUSALS)
def test_validate_ca_refuses_naming_the_input(pki, make, message):
    with pytest.raises(x509.CertificateError) as caught:
        x509.validate_ca(make(pki), _now(), 'pep493_https_trusted_cas[2].content')
    assert str(caught.value).startswith('pep493_https_trusted_cas[2].content: ')
    assert message in str(caught.value)


def test_validate_ca_accepts_one_ca_in_any_form(pki):
    root = pki.load('root.pem')
    wrapped = b'# our CA\r\nsubject=whatever\r\n' + pki.read('root.pem').replace(b'\n', b'\r\n') + b'\r\ntrailing words\r\n'
    for data in (pki.read('root.pem'), pki.read('root.der'), pki.read('trusted.pem'), wrapped, bytearray(wrapped),
                 wrapped.decode('ascii')):
        assert x509.validate_ca(data, _now()).sha256_fingerprint == root.sha256_fingerprint
    assert x509.validate_ca(pki.read('expired.pem'), datetime.datetime(2020, 6, 1)).not_after.year == 2021
    assert x509.validate_ca(pki.read('century.pem'), datetime.datetime(1999, 12, 31), what='x').not_before.year == 1950


def test_pem_blocks(pki):
    key, csr = pki.read('ec.key'), pki.read('inter.csr')
    data = b'text first\r\n' + pki.read('root.pem').replace(b'\n', b'\r\n') + key + b'\n# comment\n' + csr
    blocks = x509.pem_blocks(data)
    assert [(label, line) for label, block, line in blocks] == [
        ('CERTIFICATE', 2), ('PRIVATE KEY', 2 + pki.read('root.pem').count(b'\n')),
        ('CERTIFICATE REQUEST', data[:data.index(csr)].count(b'\n') + 1)]
    assert blocks[0][1] == pki.read('root.der')
    assert x509.pem_blocks(pki.read('trusted.pem'))[0][0] == 'TRUSTED CERTIFICATE'
    headers = b'-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\nAAAA\n-----END RSA PRIVATE KEY-----\n'
    assert x509.pem_blocks(headers) == [('RSA PRIVATE KEY', b'\0\0\0', 1)]
    assert x509.pem_blocks(b'-----BEGIN CERTIFICATE----- not quite\nAAAA\n-----END CERTIFICATE-----\n') == []
    for bad, message in ((b'x\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END X509 CRL-----\n', "at line 2: no '-----END CERTIFICATE-----' line before line 4"),
                         (b'-----BEGIN CERTIFICATE-----\nAA=A\n-----END CERTIFICATE-----\n', 'padded in the middle'),
                         (b'-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n', 'is empty'),
                         (b'\n\n-----BEGIN \x1b[31m-----\n', 'line 3: a PEM BEGIN line without a readable label')):
        with pytest.raises(x509.CertificateError) as caught:
            x509.pem_blocks(bad)
        assert message in str(caught.value)


def test_fingerprints_in_bundle(pki):
    names = ('root.pem', 'inter.pem', 'leaf.pem', 'expired.pem', 'future.pem', 'trusted.pem', 'pss.pem', 'ed_root.pem')
    bundle = b'# header\n' + b'\n'.join(pki.read(name).replace(b'\n', b'\r\n') for name in names)
    expected = set(certificate.sha256_fingerprint for certificate in x509.load_certificates(bundle))
    assert x509.fingerprints_in_bundle(bundle) == (expected, 0) and len(expected) == 7
    broken = pki.read('v1.pem').replace(b'\n', b'\n!', 2) + pki.read('v1.pem')[:300] + b'\n' + bundle
    assert x509.fingerprints_in_bundle(broken) == (expected, 2)
    assert x509.fingerprints_in_bundle(pki.read('root.der')) == (set([pki.load('root.der').sha256_fingerprint]), 0)
    big = b''.join([pki.read(name) for name in names] * 18) + pki.read('v1.pem') * 6  # 150 blocks
    elapsed = min(timeit.Timer(lambda: x509.fingerprints_in_bundle(big)).repeat(3, 1))
    assert elapsed < 0.05, elapsed
    system = '/etc/ssl/certs/ca-certificates.crt'
    if os.path.exists(system):  # the real thing, read only: both readers agree on every certificate
        with open(system, 'rb') as handle:
            data = handle.read()
        assert x509.fingerprints_in_bundle(data) == (set(c.sha256_fingerprint for c in x509.load_certificates(data)), 0)


def test_subject_hash_names_the_links_of_this_hosts_cert_dir():
    folder = '/etc/ssl/certs'  # read only: the <hash>.N links c_rehash made for the system's CAs
    links = [name for name in os.listdir(folder) if re.match(r'[0-9a-f]{8}\.[0-9]+\Z', name)] if os.path.isdir(folder) else []
    if not links:
        pytest.skip('no hashed links in %s' % folder)
    for link in links:
        with open(os.path.join(folder, link), 'rb') as handle:
            assert x509.subject_hash(x509.load_certificates(handle.read())[0]) == link.split('.')[0], link


def test_issued_by(pki):
    root, rekeyed, inter, leaf, no_key_id, no_aki, expired = [pki.load(name + '.pem') for name in (
        'root', 'rekeyed', 'inter', 'leaf', 'no_key_id', 'no_aki', 'expired')]
    assert (x509.issued_by(inter, root), x509.issued_by(leaf, inter), x509.issued_by(expired, root)) == (True, True, True)
    assert (x509.issued_by(leaf, root), x509.issued_by(inter, rekeyed), x509.issued_by(root, inter)) == (False, False, False)
    assert (x509.issued_by(no_aki, no_key_id), x509.issued_by(root, root)) == (None, None)
    # names compare as OpenSSL compares them: case, surrounding and repeated spaces, string type aside
    folded = _name([_attribute(b'\x55\x04\x06', 0x0c, b'us')], [_attribute(O, 0x1e, b'\0 \0T\0E\0S\0T\0 \0 \0o\0r\0g')],
                   [_attribute(CN, 0x13, b'TEST  ROOT   Ca ')])
    assert x509.issued_by(x509.load_certificates(_with_names(pki.read('inter.der'), issuer=folded))[0], root) is True
    other = _name([_attribute(CN, 0x0c, b'Test Root CA')])
    assert x509.issued_by(x509.load_certificates(_with_names(pki.read('inter.der'), issuer=other))[0], root) is False


def _element(data):
    return der.read_element(bytearray(data), 0, len(data))


def _walk(element):
    for child in element.children():
        if child.tag & 0x20:
            _walk(child)


def test_der_reader_refusals():
    nested = b'\x30\x00'
    for dummy in range(40):
        nested = _tlv(0x30, nested)
    for data, message in ((b'\x30\x80\x00\x00', 'indefinite length at byte 1'), (b'\x30\x81\x01\x00', 'shortest form'),
                          (b'\x30\x85\x01\x01\x01\x01\x01', 'far too large'), (b'\x3f\x01\x00', 'multi-byte tag'),
                          (b'\x30\x03\x04\x05\x00\x00\x00\x00', 'runs past the end of its container at byte 5'),
                          (nested, 'nested more than 32 deep'), (b'\x30', 'truncated at byte 1')):
        with pytest.raises(der.CertificateError) as caught:
            _walk(_element(data))
        assert message in str(caught.value)
    for decode, data, message in ((der.decode_integer, b'\x02\x02\x00\x01', 'shortest form'),
                                  (der.decode_integer, b'\x02\x00', 'no content'),
                                  (der.decode_oid, b'\x06\x02\x2a\x83', 'cut short'),
                                  (der.decode_time, b'\x17\x0b0101120000Z', 'not in the form RFC 5280 requires'),
                                  (der.decode_time, b'\x17\x0d991301000000Z', 'not a real date'),
                                  (der.decode_time, b'\x18\x0f00000101000000Z', 'not a real date'),
                                  (der.decode_bit_string, b'\x03\x01\x01', 'malformed BIT STRING')):
        with pytest.raises(der.CertificateError) as caught:
            decode(_element(data), 'field')
        assert message in str(caught.value)
    assert der.decode_integer(_element(b'\x02\x02\xff\x7f'), 'x') == -129
    assert der.decode_oid(_element(b'\x06\x03\x88\x37\x01'), 'x') == '2.999.1'


def _survives(data, deep=True):
    """Whatever the bytes, the reader answers or raises CertificateError, nothing else."""
    try:
        for certificate in x509.load_certificates(data):
            assert re.match(r'[ -~]*\Z', certificate.subject + certificate.issuer)
            x509.subject_hash(certificate), x509.issuer_hash(certificate), x509.issued_by(certificate, certificate)
    except x509.CertificateError as error:
        assert str(error)
    if deep:
        for function in (x509.pem_blocks, lambda data: x509.validate_ca(data, _now(), 'fuzz')):
            try:
                function(data)
            except x509.CertificateError:
                pass
        found, skipped = x509.fingerprints_in_bundle(data)
        assert skipped >= 0


def test_every_truncation_and_byte_flip_of_a_certificate(pki):
    data = pki.read('inter.der')
    for length in range(len(data)):
        _survives(data[:length], deep=False)
    for position in range(len(data)):
        for mask in (0x01, 0xff):
            damaged = bytearray(data)
            damaged[position] ^= mask
            _survives(bytes(damaged), deep=False)


PEM_PIECES = [b'-----BEGIN CERTIFICATE-----', b'-----END CERTIFICATE-----', b'-----BEGIN PRIVATE KEY-----',
              b'-----END X-----', b'-----BEGIN TRUSTED CERTIFICATE-----', b'MIIBkTCB+wIJAK', b'AAAA', b'====', b'',
              b'Proc-Type: 4,ENCRYPTED', b'\r', b'MA==', b'\xff\xfe', b'-----BEGIN \x00-----']


def _damage(data, edits, cut):
    damaged = bytearray(data)
    for position, value in edits:
        damaged[position % len(damaged)] = value
    return bytes(damaged[:len(damaged) - cut % 50])


def _fuzz_bytes(data):
    _survives(data)
    _survives(b'-----BEGIN CERTIFICATE-----\n' + binascii.b2a_base64(data) + b'-----END CERTIFICATE-----\n')


def _fuzz_damage(pki, edits, cut, pieces):
    _survives(_damage(pki.read('inter.der'), edits, cut))
    _survives(_damage(pki.read('inter.pem'), edits, cut))
    _survives(b'\n'.join(pieces + [pki.read('leaf.pem')] + pieces))


if given is not None:
    test_any_bytes_only_raise_certificate_error = FUZZ(given(data=st.binary(max_size=700))(_fuzz_bytes))
    test_damaged_certificates_only_raise_certificate_error = FUZZ(given(
        edits=st.lists(st.tuples(st.integers(0, 4096), st.integers(0, 255)), max_size=4), cut=st.integers(0, 60),
        pieces=st.lists(st.sampled_from(PEM_PIECES), max_size=8))(_fuzz_damage))
else:
    def test_any_bytes_only_raise_certificate_error():
        generator = random.Random(493)
        for dummy in range(1000):
            _fuzz_bytes(bytes(bytearray(generator.getrandbits(8) for dummy in range(generator.randint(0, 700)))))

    def test_damaged_certificates_only_raise_certificate_error(pki):
        generator = random.Random(493)
        for dummy in range(1000):
            _fuzz_damage(pki, [(generator.randint(0, 4096), generator.randint(0, 255)) for dummy in range(generator.randint(0, 4))],
                         generator.randint(0, 60), [generator.choice(PEM_PIECES) for dummy in range(generator.randint(0, 8))])
