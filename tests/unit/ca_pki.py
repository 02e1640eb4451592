# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""CA certificates made by the ``openssl`` CLI for the ca_trust tests, once per process, and
throw-away roots laid out like a RHEL and a Debian host (their update tool and anchor folder).

Subjects and the dates of the expired and future CAs are fixed, so that messages naming them are
the same on every run (docs/errors.md quotes them)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import atexit
import os
import shutil
import subprocess
import tempfile

from ansible_collections.pep493.https.plugins.module_utils._syntax import dates

CONFIG = b'\n'.join([
    b'[req]', b'distinguished_name = dn', b'[dn]', b'[ca]', b'default_ca = dated', b'[dated]',
    b'database = index.txt', b'new_certs_dir = .', b'serial = serial.txt', b'default_md = sha256', b'policy = any',
    b'unique_subject = no', b'preserve = yes', b'[any]', b'organizationName = optional', b'commonName = optional',
    b'[ca_ext]', b'basicConstraints = critical,CA:TRUE', b'keyUsage = critical,keyCertSign,cRLSign',
    b'subjectKeyIdentifier = hash', b''])
CA = ['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
      '-addext', 'subjectKeyIdentifier=hash']
# name: (subject, days valid, extra req options); 'rekeyed' has acme's subject and another key
SELF_SIGNED = {
    'acme': ('/O=Acme/CN=Acme Internal Root', 3650, CA),
    'rekeyed': ('/O=Acme/CN=Acme Internal Root', 3650, CA),
    'other': ('/O=Other/CN=Other Root', 3650, CA),
    'expiring': ('/O=Acme/CN=Acme Short Root', 10, CA),
    'leaf': ('/CN=leaf.example', 3650, ['-addext', 'basicConstraints=CA:FALSE']),
    'plain': ('/CN=No Extensions', 3650, []),
}
SUBJECTS = {'acme': 'O = Acme, CN = Acme Internal Root', 'other': 'O = Other, CN = Other Root',
            'expired': 'O = Acme, CN = Acme Expired Root', 'future': 'O = Acme, CN = Acme Future Root'}

RHEL_TOOL = 'usr/bin/update-ca-trust'
RHEL_ANCHORS = 'etc/pki/ca-trust/source/anchors'
DEBIAN_TOOL = 'usr/sbin/update-ca-certificates'
DEBIAN_ANCHORS = 'usr/local/share/ca-certificates'

# ansible-test runs each test in a fork of its worker: made once, in a folder the importing process owns
FOLDER = tempfile.mkdtemp(prefix='pep493-ca-')
atexit.register(shutil.rmtree, FOLDER, True)


def openssl(*args):
    env = dict(os.environ, OPENSSL_CONF=os.path.join(FOLDER, 'openssl.cnf'), HOME=FOLDER)
    process = subprocess.Popen(('openssl',) + args, cwd=FOLDER, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = process.communicate()
    if process.returncode:
        raise AssertionError('openssl %r failed: %r' % (args, err))
    return out


def _write(name, data):
    with open(os.path.join(FOLDER, name), 'wb') as handle:
        handle.write(data)


def _read(name):
    with open(os.path.join(FOLDER, name), 'rb') as handle:
        return handle.read()


def _make():
    _write('openssl.cnf', CONFIG)
    _write('index.txt', b'')
    _write('serial.txt', b'1000\n')
    for name in sorted(SELF_SIGNED):
        subject, days, extra = SELF_SIGNED[name]
        openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', name + '.key')
        openssl(*(['req', '-x509', '-new', '-key', name + '.key', '-subj', subject, '-days', str(days),
                   '-out', name + '.pem'] + extra))
    for name, start, end in (('expired', '20200101000000Z', '20210101000000Z'),
                             ('future', '20990101000000Z', '20991231235959Z')):
        openssl('req', '-new', '-key', 'acme.key', '-subj', '/O=Acme/CN=Acme %s Root' % name.title(), '-out', name + '.csr')
        openssl('ca', '-batch', '-config', 'openssl.cnf', '-in', name + '.csr', '-cert', 'acme.pem', '-keyfile',
                'acme.key', '-startdate', start, '-enddate', end, '-extensions', 'ca_ext', '-notext', '-out', name + '.pem')
    openssl('x509', '-in', 'acme.pem', '-addtrust', 'serverAuth', '-out', 'trusted.pem')
    _write('made', b'')


def pem(name):
    """The PEM bytes of certificate ``name`` (or ``name.key`` for a key), made on first use."""
    if not os.path.exists(os.path.join(FOLDER, 'made')):
        _make()
    return _read(name if name.endswith('.key') else name + '.pem')


def now_after_making():
    """The clock, read once the certificates exist: a clock read before a first use would be older
    than their notBefore, and they would be refused as not valid yet."""
    pem('acme')
    return dates.utc_now()


def text(name):
    return pem(name).decode('ascii')


def lay_out(root, family):
    """Make ``root`` look like a RHEL or a Debian host's trust store; returns the anchor folder."""
    tool, anchors = (RHEL_TOOL, RHEL_ANCHORS) if family == 'rhel' else (DEBIAN_TOOL, DEBIAN_ANCHORS)
    for folder in (os.path.dirname(tool), anchors):
        path = os.path.join(root, folder)
        if not os.path.isdir(path):
            os.makedirs(path)
        os.chmod(path, 0o755)
    with open(os.path.join(root, tool), 'wb') as handle:
        handle.write(b'#!/bin/sh\nexit 0\n')
    return os.path.join(root, anchors)
