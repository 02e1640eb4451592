# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""TLS handshakes made by a service's own interpreter, to see what the service will see.

One process per (interpreter, environment): it reads the endpoints as JSON on its standard
input, makes for each an unverified handshake (the peer certificate's subject, issuer, names
and dates) and, when that works, a handshake with the interpreter's default verifying context
(``ssl.create_default_context()``: the CA store of its OpenSSL, ``SSL_CERT_FILE`` and
``SSL_CERT_DIR`` of its environment), each context built once per process and shared by its
endpoints. No application data is sent. Nothing is retried: an
endpoint that does not answer costs one timeout. Every process started is ended by the
deadline of the budget.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import subprocess
import tempfile
import time

OK = 'ok'
UNTRUSTED = 'untrusted'
EXPIRED = 'expired'
HOSTNAME_MISMATCH = 'hostname_mismatch'
NOT_TLS = 'not_tls'
UNREACHABLE = 'unreachable'
TIMEOUT = 'timeout'
RESULTS = (OK, UNTRUSTED, EXPIRED, HOSTNAME_MISMATCH, NOT_TLS, UNREACHABLE, TIMEOUT)
# verification failed: the service breaks on it once it verifies
VERIFY_FAILURES = (UNTRUSTED, EXPIRED, HOSTNAME_MISMATCH)
THREADS = 8

# Runs on Python 2.7.9 and later (RHEL 7's 2.7.5 carries the same ssl backport) and on Python 3.
PROBE_SCRIPT = r'''
import json, os, socket, ssl, sys, tempfile, threading, time
request = json.loads(sys.stdin.read())
TIMEOUT = float(request["timeout"])
out = {"version": "%d.%d.%d" % tuple(sys.version_info[:3]),
       "honours_env": hasattr(ssl, "_https_verify_envvar"),
       "default_verifies": getattr(ssl, "_create_default_https_context", None) is not None
       and ssl._create_default_https_context is not getattr(ssl, "_create_unverified_context", None),
       "results": [None] * len(request["endpoints"])}
if not hasattr(ssl, "create_default_context"):
    out["error"] = "this Python has no ssl.create_default_context (older than 2.7.9)"
    sys.stdout.write(json.dumps(out))
    sys.exit(0)

def decode(der):
    fd, path = tempfile.mkstemp(suffix=".pem")
    try:
        os.write(fd, ssl.DER_cert_to_PEM_cert(der).encode("ascii"))
        os.close(fd)
        info = ssl._ssl._test_decode_cert(path)
    except Exception:
        return None
    finally:
        os.remove(path)
    def name(entry):
        return ", ".join("%s=%s" % pair for rdn in entry for pair in rdn)
    return {"subject": name(info.get("subject", ())), "issuer": name(info.get("issuer", ())),
            "sans": ["%s:%s" % pair for pair in info.get("subjectAltName", ())],
            "not_before": info.get("notBefore"), "not_after": info.get("notAfter")}

def out_of_dates(peer):
    try:
        now = time.time()
        return (ssl.cert_time_to_seconds(peer["not_after"]) < now
                or ssl.cert_time_to_seconds(peer["not_before"]) > now)
    except Exception:
        return False

contexts = {}
contexts_lock = threading.Lock()

def shared_context(kind):
    # One context of each kind per process, built on first use: building a verifying context
    # loads the whole CA store, the largest part of an endpoint's cost. Handshakes on one
    # context may run in several threads at once.
    with contexts_lock:
        if kind not in contexts:
            if kind == "unverified":
                contexts[kind] = ssl._create_unverified_context()
            else:
                contexts[kind] = ssl.create_default_context()
                contexts[kind].check_hostname = kind == "verify_name"
        return contexts[kind]

def connect(host, port, deadline):
    left = deadline - time.time()
    if left <= 0:
        raise socket.timeout("timed out")
    return socket.create_connection((host, port), left)

def handshake(context, sock, name, deadline):
    try:
        sock.settimeout(max(deadline - time.time(), 0.001))
        tls = context.wrap_socket(sock, server_hostname=name)
        try:
            return tls.getpeercert(True)
        finally:
            tls.close()
    finally:
        sock.close()

def timed_out(result):
    result.update(result="timeout", error="no answer within %s seconds" % TIMEOUT)
    return result

def probe(endpoint):
    host, port, name = endpoint["host"], endpoint["port"], endpoint.get("server_name")
    deadline = time.time() + TIMEOUT
    result = {"result": None, "error": None, "peer": None}
    try:
        sock = connect(host, port, deadline)
    except socket.timeout:
        return timed_out(result)
    except socket.error as exc:
        result.update(result="unreachable", error=str(getattr(exc, "strerror", None) or exc))
        return result
    try:
        der = handshake(shared_context("unverified"), sock, name, deadline)
    except socket.timeout:
        return timed_out(result)
    except (ssl.SSLError, socket.error) as exc:
        if time.time() >= deadline:
            return timed_out(result)
        result.update(result="not_tls", error="no TLS handshake: %s" % (exc or type(exc).__name__))
        return result
    peer = decode(der) if der else None
    result["peer"] = peer
    context = shared_context("verify_name" if name else "verify")
    try:
        handshake(context, connect(host, port, deadline), name, deadline)
    except socket.timeout:
        return timed_out(result)
    except (ssl.SSLError, ValueError) as exc:
        code = getattr(exc, "verify_code", None)
        message = getattr(exc, "verify_message", None) or str(exc)
        if code is not None:
            kind = {9: "expired", 10: "expired", 62: "hostname_mismatch"}.get(code, "untrusted")
        elif not isinstance(exc, ssl.SSLError):
            kind = "hostname_mismatch"
        elif peer is not None and out_of_dates(peer):
            kind = "expired"
        else:
            kind = "untrusted"
        result.update(result=kind, error=message)
        return result
    except socket.error as exc:
        result.update(result="unreachable", error=str(getattr(exc, "strerror", None) or exc))
        return result
    result["result"] = "ok"
    return result

lock = threading.Lock()
todo = list(enumerate(request["endpoints"]))

def work():
    while True:
        with lock:
            if not todo:
                return
            index, endpoint = todo.pop(0)
        try:
            found = probe(endpoint)
        except Exception as exc:
            found = {"result": None, "error": "the probe failed: %s: %s" % (type(exc).__name__, exc), "peer": None}
        with lock:
            out["results"][index] = found

threads = [threading.Thread(target=work) for _ in range(min(int(request["threads"]), len(todo)))]
for thread in threads:
    thread.daemon = True
    thread.start()
for thread in threads:
    thread.join()
sys.stdout.write(json.dumps(out))
'''


class Group(object):
    """Endpoints probed by one process: ``interpreter``, ``environment`` ({name: value}) and
    ``endpoints`` ([{host, port, server_name}]); ``answer`` is filled in by run_groups."""

    def __init__(self, interpreter, environment, endpoints):
        self.interpreter = interpreter
        self.environment = environment
        self.endpoints = endpoints
        self.answer = None


def probe_environment(environment, variable='PYTHONHTTPSVERIFY'):
    """The service's environment for the probe: text values only, without ``variable``."""
    return dict((name, value) for name, value in environment.items()
                if name != variable and isinstance(value, (str, type(u''))) and '\0' not in name + value)


def run_groups(groups, timeout, budget, threads=THREADS, clock=time.time):
    """Run every group at once, each bounded by ``budget`` seconds from now; sets each group's
    ``answer``: {version, honours_env, default_verifies, results: [one per endpoint], error}."""
    deadline = clock() + budget
    running = []
    for group in groups:
        request = json.dumps(dict(timeout=timeout, threads=threads, endpoints=group.endpoints))
        # files, not pipes: a process is never blocked on a full pipe while others are waited for
        streams = [tempfile.TemporaryFile() for _name in ('stdin', 'stdout', 'stderr')]
        streams[0].write(request.encode('utf-8'))
        streams[0].seek(0)
        try:
            # Not run_command: every group runs at once, all under one deadline.
            proc = subprocess.Popen([group.interpreter, '-c', PROBE_SCRIPT], stdin=streams[0],  # pylint: disable=ansible-bad-function
                                    stdout=streams[1], stderr=streams[2],
                                    env=group.environment, close_fds=True, cwd='/')
        except (OSError, IOError) as exc:
            group.answer = _failed(group, 'cannot run %s: %s' % (group.interpreter, exc.strerror or exc))
            _close(streams)
            continue
        running.append((group, proc, streams))
    for group, proc, streams in running:
        while proc.poll() is None and clock() < deadline:
            time.sleep(0.01)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
            group.answer = _failed(group, 'the budget of %s seconds ran out' % budget, TIMEOUT)
        else:
            group.answer = _parse(group, proc.returncode, _contents(streams[1]), _contents(streams[2]))
        _close(streams)
    return groups


def _contents(stream):
    stream.seek(0)
    return stream.read()


def _close(streams):
    for stream in streams:
        stream.close()


def _parse(group, returncode, out, err):
    try:
        data = json.loads(out.decode('utf-8', 'replace'))
        if not isinstance(data, dict) or len(data.get('results') or ()) != len(group.endpoints):
            raise ValueError('unexpected output')
    except ValueError:
        last = err.decode('utf-8', 'replace').strip().splitlines()[-1:] or ['no output']
        return _failed(group, 'the probe under %s failed (exit %s): %s' % (group.interpreter, returncode, last[0]))
    data.setdefault('error', None)
    data['results'] = [r if isinstance(r, dict) else dict(result=None, error=data['error'] or 'not probed', peer=None)
                       for r in data['results']]
    return data


def _failed(group, why, result=None):
    return dict(version=None, honours_env=None, default_verifies=None, error=why,
                results=[dict(result=result, error=why, peer=None) for _endpoint in group.endpoints])
