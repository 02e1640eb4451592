# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""TLS handshakes made by a service's own interpreter, to see what the service will see.

One process per (interpreter, environment). It first learns what the interpreter has
(package_probe: requests and its CA bundle in that environment, urllib3's version, sys.path),
then reads the endpoints and makes for each: an unverified handshake (the peer certificate's
subject, issuer, names and dates, and the certificate itself as PEM); a handshake with the interpreter's default verifying context
(``ssl.create_default_context()``: what the standard library verifies with once PEP 493's knobs
turn verification on, OpenSSL's store with ``SSL_CERT_FILE``/``SSL_CERT_DIR`` of the service's
environment); and, where requests is there, one with only the CA bundle requests would load.
The name checked is the ``server_name`` given, or the address itself when the endpoint was
declared by address (what a client asking for that address checks); an endpoint seen only by
its address is not name-checked, and says so. No application data is sent and nothing is
retried.

Every endpoint is bounded as a whole - name lookup, connection, every handshake - by one
deadline: an endpoint whose work is not done by then is ``timeout`` and left behind. The process
is started in its own process group and the whole group is killed at the budget's end, so a
wrapper script's children cannot outlive the module.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import signal
import subprocess
import tempfile
import time

from ansible_collections.pep493.https.plugins.module_utils._forecast import package_probe

OK = 'ok'
UNTRUSTED = 'untrusted'
EXPIRED = 'expired'
HOSTNAME_MISMATCH = 'hostname_mismatch'
NOT_TLS = 'not_tls'
HANDSHAKE_FAILED = 'handshake_failed'
UNREACHABLE = 'unreachable'
NAME_UNKNOWN = 'name_unknown'
TIMEOUT = 'timeout'
RESULTS = (OK, UNTRUSTED, EXPIRED, HOSTNAME_MISMATCH, NOT_TLS, HANDSHAKE_FAILED, UNREACHABLE, NAME_UNKNOWN, TIMEOUT)
# verification failed: the client breaks on it once it verifies
VERIFY_FAILURES = (UNTRUSTED, EXPIRED, HOSTNAME_MISMATCH)
# nothing about verification was learnt: the endpoint's part of a verdict cannot be proven
UNPROVEN = (HANDSHAKE_FAILED, TIMEOUT, NAME_UNKNOWN)
THREADS = 8
# processes of one forecast at once, whatever the number of groups
PARALLEL = 8

# Runs on Python 2.7.9 and later (RHEL 7's 2.7.5 carries the same ssl backport) and on Python 3.
_TLS_CODE = r'''
import errno, socket, ssl, tempfile, threading

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
            "not_before": info.get("notBefore"), "not_after": info.get("notAfter"),
            "serial": info.get("serialNumber")}

def out_of_dates(peer):
    try:
        now = time.time()
        return (ssl.cert_time_to_seconds(peer["not_after"]) < now
                or ssl.cert_time_to_seconds(peer["not_before"]) > now)
    except Exception:
        return False

NOT_TLS_WORDS = ("wrong version number", "unknown protocol", "http request", "https proxy request",
                 "record layer failure", "packet length too long", "unexpected message")

class Deadline(Exception):
    pass

def left(deadline):
    remaining = deadline - time.time()
    if remaining <= 0:
        raise Deadline()
    return remaining

def connect(addresses, deadline):
    last = None
    for family, kind, proto, _name, address in addresses:
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(left(deadline))
            sock.connect(address)
            return sock
        except socket.timeout:
            sock.close()
            raise Deadline()
        except socket.error as exc:
            sock.close()
            last = exc
    raise last or socket.error("no address")

def handshake(context, addresses, name, deadline):
    sock = connect(addresses, deadline)
    try:
        sock.settimeout(left(deadline))
        tls = context.wrap_socket(sock, server_hostname=name)
        try:
            return tls.getpeercert(True), tls.getpeercert()
        finally:
            tls.close()
    finally:
        sock.close()

def failure(exc, peer, deadline):
    """The result of a verifying handshake that raised ``exc``."""
    if isinstance(exc, (Deadline, socket.timeout)) or time.time() >= deadline:
        return "timeout", "no answer within %s seconds" % TIMEOUT
    code = getattr(exc, "verify_code", None)
    message = getattr(exc, "verify_message", None) or str(exc) or type(exc).__name__
    if code is not None:
        return {9: "expired", 10: "expired", 62: "hostname_mismatch"}.get(code, "untrusted"), message
    if isinstance(exc, getattr(ssl, "CertificateError", ())) or (isinstance(exc, ValueError)
                                                                and "hostname" in str(exc)):
        return "hostname_mismatch", message
    if isinstance(exc, ssl.SSLError) and "certificate verify failed" in str(exc):
        return ("expired" if peer is not None and out_of_dates(peer) else "untrusted"), message
    return "handshake_failed", "the verifying handshake did not finish: %s" % message

def classify_unverified(exc, deadline):
    """The result of an unverified handshake that raised ``exc``: not TLS, or unproven."""
    if isinstance(exc, (Deadline, socket.timeout)) or time.time() >= deadline:
        return "timeout", "no answer within %s seconds" % TIMEOUT
    text = str(exc).lower()
    if isinstance(exc, ssl.SSLError) and any(word in text for word in NOT_TLS_WORDS):
        return "not_tls", "the answer is not TLS: %s" % (exc or type(exc).__name__)
    return "handshake_failed", "the handshake did not finish (%s): %s" % (type(exc).__name__, exc)

def name_matches(name, parsed):
    """Whether ``name`` is in the certificate ``parsed`` (getpeercert()), as the interpreter's
    own ssl.match_hostname decides; None when it cannot say."""
    match = getattr(ssl, "match_hostname", None)
    if match is None or not parsed:
        return None
    try:
        match(parsed, name)
        return True
    except Exception:
        return False

def probe(endpoint, deadline, bundle):
    host, port = endpoint["host"], endpoint["port"]
    name = endpoint.get("server_name") or (host if endpoint.get("check_address") else None)
    result = {"result": None, "error": None, "peer": None, "name_checked": name is not None,
              "requests": None}
    try:
        addresses = socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)
    except socket.gaierror as exc:
        result.update(result="unreachable", error="the name does not resolve: %s" % exc)
        return result
    try:
        der, dummy = handshake(shared_context("unverified"), addresses, name, deadline)
    except (Deadline, socket.timeout):
        result.update(result="timeout", error="no answer within %s seconds" % TIMEOUT)
        return result
    except ssl.SSLError as exc:
        result["result"], result["error"] = classify_unverified(exc, deadline)
        return result
    except socket.error as exc:
        if isinstance(exc, (getattr(socket, "ConnectionRefusedError", ()), )) or getattr(exc, "errno", None) in (
                errno.ECONNREFUSED, errno.EHOSTUNREACH, errno.ENETUNREACH):
            result.update(result="unreachable", error=str(getattr(exc, "strerror", None) or exc))
        else:
            result["result"], result["error"] = classify_unverified(exc, deadline)
        return result
    peer = decode(der) if der else None
    result["peer"] = peer
    # the certificate itself, for matching it to the CAs a policy configures (getpeercert(True)
    # gives it with verification off, on 2.7.5 too)
    result["certificate"] = ssl.DER_cert_to_PEM_cert(der) if der else None
    try:
        handshake(shared_context("verify_name" if name else "verify"), addresses, name, deadline)
        result.update(result="ok", error=None)
    except Exception as exc:
        result["result"], result["error"] = failure(exc, peer, deadline)
    if bundle:
        result["requests"] = requests_verdict(addresses, name, bundle, peer, deadline)
    if name is None and result["result"] == "ok":
        result.update(result="name_unknown", error="its certificate is trusted, but the name the service asks "
                                                     "for is not known (seen by its address only): declare the "
                                                     "endpoint with its server_name")
    return result

IP_ADDRESS = re.compile(r"^[0-9.]+$|:")

def requests_verdict(addresses, name, bundle, peer, deadline):
    """What requests sees: only its bundle is trusted; names are checked as urllib3 checks them
    (an address against the certificate's IP Address names, which Python 2's ssl cannot)."""
    by_address = name is not None and bool(IP_ADDRESS.search(name))
    try:
        dummy, parsed = handshake(shared_context("bundle" if name and not by_address else "bundle_no_name", bundle),
                                  addresses, None if by_address else name, deadline)
    except Exception as exc:
        kind, message = failure(exc, peer, deadline)
        return {"result": kind, "error": message}
    if name is None:
        return {"result": "name_unknown", "error": "the name the service asks for is not known"}
    if by_address:
        names = (parsed or {}).get("subjectAltName", ())
        if HAS_IPADDRESS:
            addresses_named = [value for kind, value in names if kind == "IP Address"]
            if name not in addresses_named:
                return {"result": "hostname_mismatch", "error": "%s is not among the certificate's IP addresses %s"
                        % (name, addresses_named)}
        elif name not in [value for kind, value in names if kind == "DNS"]:
            # urllib3 1.x reads an address as an address only when the ipaddress module imports
            # (Python 3, or its backport on Python 2); without it the address is matched against
            # the DNS names, as a name
            return {"result": "hostname_mismatch", "error": "%s is matched against the certificate's DNS names only "
                    "(this Python has no ipaddress module, which urllib3 needs to match an address)" % name}
    return {"result": "ok", "error": None}

try:
    import ipaddress
    HAS_IPADDRESS = bool(ipaddress)
except ImportError:
    HAS_IPADDRESS = False

contexts = {}
contexts_lock = threading.Lock()

def shared_context(kind, bundle=None):
    # One context of each kind per process, built on first use: building a verifying context
    # loads the whole CA store, the largest part of an endpoint's cost.
    with contexts_lock:
        if kind not in contexts:
            if kind == "unverified":
                contexts[kind] = ssl._create_unverified_context()
            elif kind in ("bundle", "bundle_no_name"):
                # what requests does with its bundle: only that file is trusted
                contexts[kind] = ssl.create_default_context(cafile=bundle)
                contexts[kind].check_hostname = kind == "bundle"
            else:
                contexts[kind] = ssl.create_default_context()
                contexts[kind].check_hostname = kind == "verify_name"
        return contexts[kind]

def run_probes(endpoints, threads, bundle):
    results = [None] * len(endpoints)
    lock = threading.Lock()
    todo = list(range(len(endpoints)))
    running = {}

    def work(index, deadline):
        try:
            found = probe(endpoints[index], deadline, bundle)
        except Exception as exc:
            found = {"result": None, "error": "the probe failed: %s: %s" % (type(exc).__name__, exc),
                     "peer": None, "name_checked": False, "requests": None}
        with lock:
            if results[index] is None:
                results[index] = found

    while todo or running:
        while todo and len(running) < threads:
            index = todo.pop(0)
            deadline = time.time() + TIMEOUT
            thread = threading.Thread(target=work, args=(index, deadline))
            thread.daemon = True    # one stuck in a name lookup is left behind at its deadline
            thread.start()
            running[index] = (thread, deadline)
        time.sleep(0.005)
        for index, (thread, deadline) in list(running.items()):
            if not thread.is_alive():
                del running[index]
            elif time.time() >= deadline:
                with lock:
                    if results[index] is None:
                        results[index] = {"result": "timeout", "peer": None, "name_checked": False,
                                          "requests": None,
                                          "error": "not done within %s seconds (name lookup, connection and "
                                                   "handshakes together)" % TIMEOUT}
                del running[index]
    return results

REAL_STDOUT = sys.stdout
sys.stdout = Sink()         # what an imported package prints must not spoil the JSON
ERRORS = []
REQUEST = read_request(ERRORS)
TIMEOUT = float(REQUEST.get("timeout") or 5)
out = {"version": "%d.%d.%d" % tuple(sys.version_info[:3]), "errors": ERRORS,
       "honours_env": hasattr(ssl, "_https_verify_envvar"),
       "default_verifies": getattr(ssl, "_create_default_https_context", None) is not None
       and ssl._create_default_https_context is not getattr(ssl, "_create_unverified_context", None),
       "results": [None] * len(REQUEST.get("endpoints") or [])}
out["packages"] = package_facts({"timeout": max(1, int(min(TIMEOUT * 2, 30)))})
if not hasattr(ssl, "create_default_context"):
    out["error"] = "this Python has no ssl.create_default_context (older than 2.7.9)"
else:
    requests_facts = out["packages"]["packages"].get("requests") or {}
    BUNDLE = requests_facts.get("ca_bundle") if requests_facts.get("importable") else None
    if BUNDLE and not os.path.isfile(BUNDLE):
        out["errors"].append("requests' CA bundle %s is not a file" % BUNDLE)
        BUNDLE = None
    out["requests_bundle"] = BUNDLE
    out["results"] = run_probes(REQUEST.get("endpoints") or [], int(REQUEST.get("threads") or 8), BUNDLE)
REAL_STDOUT.write(json.dumps(text(out)))
REAL_STDOUT.flush()
'''

PROBE_SCRIPT = package_probe.PACKAGE_CODE + _TLS_CODE


class Group(object):
    """Endpoints probed by one process: ``interpreter``, ``environment`` ({name: value}) and
    ``endpoints`` ([{host, port, server_name, check_address}]); ``answer`` is filled in by
    run_groups."""

    def __init__(self, interpreter, environment, endpoints):
        self.interpreter = interpreter
        self.environment = environment
        self.endpoints = endpoints
        self.answer = None


# What decides how the probe's interpreter finds its modules and trusts certificates: the rest of
# a service's environment does not change a handshake, and would only split the groups.
PROBE_VARIABLES = ('PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'HOME', 'PYTHONPATH', 'PYTHONHOME', 'PYTHONNOUSERSITE',
                   'PYTHONUSERBASE', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE',
                   'OPENSSL_CONF', 'LD_LIBRARY_PATH', 'VIRTUAL_ENV')


def probe_environment(environment, variable='PYTHONHTTPSVERIFY'):
    """The service's environment for the probe: the variables that decide what it loads and
    trusts, as text, without ``variable``."""
    return dict((name, value) for name, value in environment.items()
                if name in PROBE_VARIABLES and name != variable and isinstance(value, (str, type(u'')))
                and '\0' not in name + value)


def run_groups(groups, timeout, budget, threads=THREADS, clock=time.time, parallel=PARALLEL):
    """Run the groups, at most ``parallel`` at once, all within ``budget`` seconds from now; sets
    each group's ``answer``: {version, honours_env, default_verifies, packages, requests_bundle,
    results: [one per endpoint], error}."""
    deadline = clock() + budget
    waiting = list(groups)
    running = []
    while waiting or running:
        while waiting and len(running) < parallel and clock() < deadline:
            group = waiting.pop(0)
            started = _start(group, timeout, threads)
            if started is not None:
                running.append(started)
        if not running and waiting:     # the budget ran out before these could start
            for group in waiting:
                group.answer = _failed(group, 'not probed: the budget of %s seconds ran out' % budget, TIMEOUT)
            break
        time.sleep(0.01)
        for entry in list(running):
            group, proc, streams = entry
            if proc.poll() is not None:
                group.answer = _parse(group, proc.returncode, _contents(streams[1]), _contents(streams[2]))
            elif clock() >= deadline:
                _kill(proc)
                group.answer = _failed(group, 'the budget of %s seconds ran out' % budget, TIMEOUT)
            else:
                continue
            _close(streams)
            running.remove(entry)
    return groups


def _start(group, timeout, threads):
    request = json.dumps(dict(timeout=timeout, threads=threads, endpoints=group.endpoints))
    # files, not pipes: a process is never blocked on a full pipe while others are waited for
    streams = [tempfile.TemporaryFile() for _name in ('stdin', 'stdout', 'stderr')]
    streams[0].write(request.encode('utf-8'))
    streams[0].seek(0)
    try:
        # Not run_command: the groups run at once, all under one deadline, each in its own
        # process group so that the deadline ends whatever it started.
        proc = subprocess.Popen([group.interpreter, '-B', '-c', PROBE_SCRIPT], stdin=streams[0],  # pylint: disable=ansible-bad-function
                                stdout=streams[1], stderr=streams[2], env=group.environment, close_fds=True,
                                cwd='/', preexec_fn=os.setsid)
    except (OSError, IOError) as exc:
        group.answer = _failed(group, 'cannot run %s: %s' % (group.interpreter, exc.strerror or exc))
        _close(streams)
        return None
    return group, proc, streams


def _kill(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        proc.kill()
    proc.wait()


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
    data['results'] = [r if isinstance(r, dict) else dict(result=None, error=data['error'] or 'not probed', peer=None,
                                                          name_checked=False, requests=None)
                       for r in data['results']]
    return data


def _failed(group, why, result=None):
    return dict(version=None, honours_env=None, default_verifies=None, error=why, packages=None, requests_bundle=None,
                results=[dict(result=result, error=why, peer=None, name_checked=False, requests=None)
                         for _endpoint in group.endpoints])
