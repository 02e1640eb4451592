# -*- coding: utf-8 -*-
"""Test fixture (molecule/forecast_clients): the loop every client program shares. Python 2.7.

Each client_<library>.py imports its one HTTPS library and calls ``run(attempt)``: this
module imports no HTTPS stack of its own (it reads the ssl module the library has loaded from
sys.modules), so that each program uses exactly one library, as a real service does.

    python2 client_<library>.py URL LOG

``run`` makes one request to URL (``attempt``), waits 0.3 s, and again, and appends one line
to LOG per attempt, so that what the service really gets is recorded by the service itself:

    <time> <pid> start stdlib_default=<verify|no_verify|unknown> PYTHONHTTPSVERIFY=<value|unset>
    <time> <pid> ok <HTTP status or XML-RPC answer>
    <time> <pid> fail <kind> <the error, on one line>

The start line says what this process's standard library does by default (PEP 493's knobs as
the process itself sees them). <kind> sorts the error by its text: verify_failed,
hostname_mismatch, not_tls, connection_reset, timeout, refused, http_error, other. (Python 2.7's
ssl says "certificate verify failed" without the reason, so an untrusted and an expired
certificate are both verify_failed.)
"""
import os
import socket
import sys
import time
import warnings

URL, LOG = sys.argv[1], sys.argv[2]
HOST, _SEP, _PORT = URL.split('/')[2].partition(':')
PORT = int(_PORT or 443)
# longer than each wait of the endpoints (vars/clients.yml: fc_server_delay before the handshake,
# fc_answer_delay before the answer) with a handshake
TIMEOUT = 5.0
INTERVAL = 0.3

# the first pattern found in the error's text (lower case) names its kind
KINDS = (
    ("doesn't match", 'hostname_mismatch'),
    ('certificate verify failed', 'verify_failed'),
    ('wrong version number', 'not_tls'),
    ('unknown protocol', 'not_tls'),
    ('reset by peer', 'connection_reset'),
    ('eof occurred in violation of protocol', 'connection_reset'),
    ('timed out', 'timeout'),
    ('connection refused', 'refused'),
    ('http_error', 'http_error'),
)


def kind_of(text):
    lowered = text.lower()
    for pattern, kind in KINDS:
        if pattern in lowered:
            return kind
    return 'other'


def stdlib_default():
    ssl_module = sys.modules.get('ssl')
    factory = getattr(ssl_module, '_create_default_https_context', None)
    if factory is None:
        return 'unknown'
    return 'no_verify' if factory is getattr(ssl_module, '_create_unverified_context', None) else 'verify'


def log(line):
    with open(LOG, 'a') as handle:
        handle.write('%.3f %d %s\n' % (time.time(), os.getpid(), line))


def run(attempt):
    """Call attempt() (one request: returns what came back, raises what went wrong) forever."""
    # xmlrpclib takes no timeout of its own; the other programs pass TIMEOUT as well
    socket.setdefaulttimeout(TIMEOUT)
    # urllib3 warns at every unverified request; keep the journal readable (no effect on TLS)
    warnings.simplefilter('ignore')
    log('start stdlib_default=%s PYTHONHTTPSVERIFY=%s' % (stdlib_default(), os.environ.get('PYTHONHTTPSVERIFY', 'unset')))
    while True:
        try:
            line = 'ok %s' % attempt()
        except Exception as exc:  # every failure is a result to log
            text = ('%s: %s' % (type(exc).__name__, exc)).replace('\n', ' ')
            line = 'fail %s %s' % (kind_of(text), text[:300])
        log(line)
        time.sleep(INTERVAL)
