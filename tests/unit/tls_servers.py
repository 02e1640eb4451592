# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Servers on loopback for the forecast's tests: certificates made by ``openssl`` in a temp
folder (a private CA, a self-signed one, a name mismatch, an expired one), TLS servers that
finish the handshake and close, a plain TCP server and a black hole (accepts, never answers)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import socket
import ssl
import struct
import subprocess
import threading

EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']


def _openssl(folder, *args):
    subprocess.check_call(('openssl',) + args, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def make_certificates(folder):
    """{name: (cert, key)} in ``folder``: ca, self_signed, private (by the CA, for localhost and
    127.0.0.1), mismatch (by the CA, for wrong.example), expired (by the CA, for localhost)."""
    _openssl(folder, 'req', '-x509', *(EC + ['-keyout', 'ca.key', '-out', 'ca.pem', '-days', '30',
                                             '-subj', '/CN=Forecast Test CA',
                                             # what Python 3.13's strict default verification asks of a CA
                                             '-addext', 'basicConstraints=critical,CA:TRUE',
                                             '-addext', 'keyUsage=critical,keyCertSign,cRLSign']))
    _openssl(folder, 'req', '-x509', *(EC + ['-keyout', 'self_signed.key', '-out', 'self_signed.pem', '-days', '30',
                                             '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost']))
    made = {'ca': ('ca.pem', 'ca.key'), 'self_signed': ('self_signed.pem', 'self_signed.key')}
    for name, san, days in (('private', 'DNS:localhost,IP:127.0.0.1', '30'), ('mismatch', 'DNS:wrong.example', '30'),
                            ('expired', 'DNS:localhost,IP:127.0.0.1', '-1')):
        with open(os.path.join(folder, name + '.ext'), 'w') as handle:
            handle.write('subjectAltName=%s\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n'
                         'extendedKeyUsage=serverAuth\nsubjectKeyIdentifier=hash\n'
                         'authorityKeyIdentifier=keyid,issuer\n' % san)
        _openssl(folder, 'req', *(EC + ['-keyout', name + '.key', '-out', name + '.csr', '-subj', '/CN=' + name]))
        _openssl(folder, 'x509', '-req', '-in', name + '.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial',
                 str(len(made) + 1), '-out', name + '.pem', '-days', days, '-extfile', name + '.ext')
        made[name] = (name + '.pem', name + '.key')
    return dict((name, (os.path.join(folder, c), os.path.join(folder, k))) for name, (c, k) in made.items())


class Server(object):
    """A loopback server on a free port; ``kind``: 'tls' (with ``cert``), 'plain' (answers
    with an HTTP error line and closes), 'reset' (reads the ClientHello, then resets the
    connection) or 'black_hole' (accepts and never answers).
    ``connections`` counts the connections accepted."""

    def __init__(self, kind, cert=None):
        self.kind = kind
        self.connections = 0
        self.context = None
        if kind == 'tls':
            self.context = ssl.SSLContext(getattr(ssl, 'PROTOCOL_TLS_SERVER', ssl.PROTOCOL_SSLv23))
            self.context.load_cert_chain(cert[0], cert[1])
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(('127.0.0.1', 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.held = []
        self.thread = threading.Thread(target=self._serve)
        self.thread.daemon = True
        self.thread.start()

    def _serve(self):
        while True:
            try:
                conn, _address = self.listener.accept()
            except (socket.error, OSError):
                return
            self.connections += 1
            if self.kind == 'black_hole':
                self.held.append(conn)
                continue
            try:
                if self.kind == 'plain':
                    conn.sendall(b'HTTP/1.0 400 Bad Request\r\n\r\n')
                elif self.kind == 'reset':
                    # a transient reset mid-handshake: the ClientHello read, then RST, no answer
                    conn.settimeout(5)
                    conn.recv(1024)
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
                else:
                    conn.settimeout(5)
                    tls = self.context.wrap_socket(conn, server_side=True)
                    tls.close()
            except (socket.error, ssl.SSLError, OSError, ValueError):
                pass
            finally:
                conn.close()

    def close(self):
        for conn in self.held:
            conn.close()
        self.listener.close()


def free_port():
    """A loopback port nothing listens on (connections to it are refused)."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    probe.bind(('127.0.0.1', 0))
    port = probe.getsockname()[1]
    probe.close()
    return port
