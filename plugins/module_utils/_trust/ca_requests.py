# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a valid ``cas`` item of ca_trust is: a name that is a plain file-name stem, and content that
is exactly one CA certificate (``x509.validate_ca``), valid now when it is to be trusted; a CA to be
removed is judged without its dates (an expired CA is what one removes). Every problem of every
item is found at once, each message naming the item (``cas[2].content: ...``), so that one run
tells an operator everything to fix."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.pep493.https.plugins.module_utils._syntax import quoting
from ansible_collections.pep493.https.plugins.module_utils._trust import x509

NAME_MAX = 64
# ASCII only, no "/" and no leading "." or "-": a file name every tool and shell takes as it is
_NAME = re.compile(r'[A-Za-z0-9][A-Za-z0-9._-]*\Z')
_EXTENSIONS = ('.pem', '.crt', '.cer', '.der')
STATES = ('present', 'absent')


class CaRequest(object):
    """One ``cas`` item once validated: ``label`` (``cas[0]``), ``name``, ``state``, and
    ``certificate`` (an x509.Certificate, or None for an item to remove given without content)."""

    __slots__ = ('label', 'name', 'state', 'certificate')

    def __init__(self, label, name, state, certificate):
        self.label = label
        self.name = name
        self.state = state
        self.certificate = certificate


def name_error(name):
    """What is wrong with ``name`` as the stem of an anchor file's name, or None."""
    if not name:
        return 'is empty; give a file-name stem such as "acme-root-2026"'
    if len(name) > NAME_MAX or not _NAME.match(name):
        return ('%s is not a plain file-name stem: use 1 to %d letters, digits, ".", "_" or "-", starting with a '
                'letter or digit' % (quoting.show(name), NAME_MAX))
    for extension in _EXTENSIONS:
        if name.lower().endswith(extension):
            return ('%s ends with %s: give the stem only; the module adds the extension the host\'s tool reads '
                    '(.pem on RHEL, .crt on Debian)' % (quoting.show(name), extension))
    return None


def undated_ca(content, now, what):
    """``x509.validate_ca`` without the dates: a CA to be removed may have expired, so it is judged
    at its own notBefore when the content holds exactly one certificate (every other refusal - a
    private key, garbage, several certificates, not a CA - stays as it is)."""
    moment = now
    try:
        found = x509.load_certificates(content)
    except x509.CertificateError:
        found = []
    if len(found) == 1:
        moment = found[0].not_before
    return x509.validate_ca(content, moment, what)


def content_certificate(content, state, now, what):
    """The certificate of one item's ``content``; CertificateError (its message starts with
    ``what``) when refused."""
    if state == 'absent':
        return undated_ca(content, now, what)
    certificate = x509.validate_ca(content, now, what)
    if certificate.pem_label == 'TRUSTED CERTIFICATE':
        # the anchor file holds the certificate alone: trust settings would be dropped without a word
        raise x509.CertificateError(
            "%s: '%s' is a TRUSTED CERTIFICATE (OpenSSL's format with trust settings), whose settings this module "
            "would drop: give the plain certificate (openssl x509 -in FILE -out plain.pem)" % (what, certificate.subject))
    return certificate


def validate(items, now):
    """([CaRequest], [errors]) of the ``cas`` option; ``now``: a naive UTC datetime."""
    requests = []
    errors = []
    names = {}
    fingerprints = {}
    for index, item in enumerate(items):
        label = 'cas[%d]' % index
        name, state, content = item.get('name'), item.get('state') or 'present', item.get('content')
        problem = name_error(name)
        if problem:
            errors.append('%s.name: %s' % (label, problem))
        elif name in names:
            errors.append('%s.name: %s is given twice (%s too); give each CA once' % (label, quoting.show(name), names[name]))
        else:
            names[name] = label
        certificate = None
        if content is None or content == '':
            if state == 'present':
                errors.append('%s.content: required with state=present: give the PEM text of the CA certificate' % label)
        else:
            try:
                certificate = content_certificate(content, state, now, '%s.content' % label)
            except x509.CertificateError as exc:
                errors.append(str(exc))
        if certificate is not None:
            seen = fingerprints.get(certificate.sha256_fingerprint)
            if seen:
                errors.append("%s.content: '%s' is the same CA as %s.content; give each CA once"
                              % (label, certificate.subject, seen))
            else:
                fingerprints[certificate.sha256_fingerprint] = label
        requests.append(CaRequest(label, name, state, certificate))
    return requests, errors
