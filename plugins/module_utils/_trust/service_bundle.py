# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Per-service trust: the combined CA bundle service_verification writes for one service whose
exception carries a CA, and how the audit tells whether it is still in step with the system's.

One bundle per service, ``/etc/pki/pep493-https/<unit>.pem``: three comment lines (the marker, the
system bundle it was built from with that bundle's SHA-256, the added CA's fingerprint - nothing
else of the CA: a subject may contain ``-----BEGIN``), the system bundle's bytes, then the CA as
PEM. OpenSSL's PEM reader and requests (through
``ssl.SSLContext.load_verify_locations``) skip text between PEM blocks, so the whole file is one
CA file; ``SSL_CERT_FILE`` (which replaces OpenSSL's default file, it does not add to it) and
``REQUESTS_CA_BUNDLE`` name it in the service's drop-in.

When the system bundle changes (a package update, ca_trust), the bundle is stale: a re-run of
service_verification builds it again, and verification_info reports it as ``stale`` until then.
Pure functions over bytes, and reads through hostfiles.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import hashlib
import re

from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles

BUNDLE_DIR = '/etc/pki/pep493-https'
MARKER = b'# Managed by pep493.https.service_verification (a CA bundle for one service); edits here are overwritten.'
# The bundles the update tools write (store.RHEL.bundle, store.DEBIAN.bundle; a test keeps them
# equal), in the order they are looked for: the first that exists is the system bundle.
SYSTEM_BUNDLES = ('/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/certs/ca-certificates.crt')
MAX_SYSTEM_BUNDLE = 8 * 1024 * 1024
_SAFE_NAME = re.compile(r'[A-Za-z0-9_.@:-]+\Z')
_SYSTEM_LINE = re.compile(br'# system bundle: (/\S*) sha256:([0-9a-f]{64})\r?\Z')
_CA_LINE = re.compile(br'# added CA: SHA-256 ([0-9A-F:]{95})\r?\Z')

CURRENT, STALE, MISSING, FOREIGN = 'current', 'stale', 'missing', 'foreign'


class BundleError(Exception):
    """No system bundle to build a service's bundle from; the message is for the operator."""


def bundle_path(unit):
    """The bundle of ``unit`` (a canonical service name). A name with a backslash (systemd's
    ``\\x2d`` escapes) gets a digest instead: systemd unescapes ``Environment=`` values."""
    if _SAFE_NAME.match(unit):
        return '%s/%s.pem' % (BUNDLE_DIR, unit)
    return '%s/unit-%s.pem' % (BUNDLE_DIR, hashlib.sha256(unit.encode('utf-8')).hexdigest()[:32])


def system_bundle(files):
    """(path, bytes) of the system bundle (the first of SYSTEM_BUNDLES that exists, links
    followed); BundleError naming what was looked for when there is none."""
    for path in SYSTEM_BUNDLES:
        try:
            data = files.read(path, MAX_SYSTEM_BUNDLE)
        except hostfiles.HostFileError as exc:
            raise BundleError('the system CA bundle cannot be read: %s' % exc)
        if data is not None:
            return path, data
    raise BundleError('no system CA bundle found (looked for %s); install the ca-certificates package'
                      % ' and '.join(files.show(path) for path in SYSTEM_BUNDLES))


def certificate_pem(certificate):
    encoded = base64.b64encode(certificate.der)
    lines = [encoded[start:start + 64] for start in range(0, len(encoded), 64)]
    return b'\n'.join([b'-----BEGIN CERTIFICATE-----'] + lines + [b'-----END CERTIFICATE-----', b''])


def render_bundle(system_path, system_data, certificate):
    """The bytes of a service's bundle: the system bundle and ``certificate`` (an x509.Certificate)."""
    header = [MARKER,
              ('# system bundle: %s sha256:%s' % (system_path, hashlib.sha256(system_data).hexdigest())).encode('utf-8'),
              ('# added CA: SHA-256 %s' % certificate.sha256_fingerprint).encode('ascii')]
    body = system_data if system_data.endswith(b'\n') or not system_data else system_data + b'\n'
    return b'\n'.join(header) + b'\n' + body + certificate_pem(certificate)


def parse_bundle_header(data):
    """{system_path, system_sha256, ca_fingerprint} of a bundle of ours, or None."""
    if not data:
        return None
    lines = data.split(b'\n', 3)
    if len(lines) < 4 or lines[0].rstrip(b'\r') != MARKER:
        return None
    system, added = _SYSTEM_LINE.match(lines[1]), _CA_LINE.match(lines[2])
    if not system or not added:
        return None
    return dict(system_path=system.group(1).decode('utf-8'), system_sha256=system.group(2).decode('ascii'),
                ca_fingerprint=added.group(1).decode('ascii'))


def bundle_state(files, path):
    """(state, header) of the bundle at ``path``: ``current`` (built from the system bundle as it
    is now), ``stale`` (the system bundle changed or is gone since), ``missing``, or ``foreign``
    (a file without our header); header as parse_bundle_header, or None."""
    try:
        data = files.read(path, MAX_SYSTEM_BUNDLE)
    except hostfiles.HostFileError:
        return FOREIGN, None
    if data is None:
        return MISSING, None
    header = parse_bundle_header(data)
    if header is None:
        return FOREIGN, None
    try:
        system = files.read(header['system_path'], MAX_SYSTEM_BUNDLE)
    except hostfiles.HostFileError:
        system = None
    if system is None or hashlib.sha256(system).hexdigest() != header['system_sha256']:
        return STALE, header
    return CURRENT, header
