# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Ask the host's Python interpreters what PEP 493 knobs they honour, and where their OpenSSL
looks for trusted CAs.

One short process per interpreter, all started at once, each bounded by a timeout. The probe
runs with ``-E`` (PYTHON* variables ignored, so the file alone decides) and ``-S`` (no site
packages: faster, and only the standard ``ssl`` module matters), in an environment of PATH and
LC_ALL only (no SSL_CERT_FILE or SSL_CERT_DIR from the module's own).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import glob
import json
import os
import re
import subprocess
import time

CANDIDATE_GLOBS = (
    '/usr/bin/python*',
    '/usr/local/bin/python*',
    '/usr/libexec/platform-python*',
    '/opt/rh/*/root/usr/bin/python*',
)
_NAME_RE = re.compile(r'^(python|platform-python)(\d+(\.\d+)?)?$')
DEFAULT_TIMEOUT = 5.0

# Runs on any Python from 2.6 on; prints one JSON object.
PROBE_SCRIPT = r'''
import sys, json
out = {"version": "%d.%d.%d" % tuple(sys.version_info[:3])}
try:
    import ssl
except Exception as exc:
    out["error"] = "import ssl failed: %s: %s" % (type(exc).__name__, exc)
    # RHEL 7's ssl raises on a malformed cfg file after naming it; Python 2 empties a module
    # that failed, so run its source again into a namespace kept here to see what it reads.
    found = {}
    try:
        try:
            from importlib.util import find_spec
            source = find_spec("ssl").origin
        except ImportError:
            import imp
            source = imp.find_module("ssl")[1]
        handle = open(source, "rb")
        try:
            code = compile(handle.read(), source, "exec")
        finally:
            handle.close()
        found.update({"__name__": "ssl", "__file__": source})
        exec(code, found)
    except Exception:
        pass
    if isinstance(found.get("_cert_verification_config"), type("")):
        out["reads_config"] = found["_cert_verification_config"]
    if "_https_verify_envvar" in found:
        out["honours_env"] = True
else:
    out["honours_env"] = hasattr(ssl, "_https_verify_envvar")
    out["reads_config"] = getattr(ssl, "_cert_verification_config", None)
    default = getattr(ssl, "_create_default_https_context", None)
    unverified = getattr(ssl, "_create_unverified_context", None)
    out["verifies_by_default"] = default is not None and default is not unverified
sys.stdout.write(json.dumps(out))
'''


# The CA file and folder OpenSSL loads by default for this interpreter (its compiled-in paths,
# whatever SSL_CERT_FILE says); Python 2.7.9+ and RHEL 7's 2.7.5 have get_default_verify_paths.
VERIFY_PATHS_SCRIPT = r'''
import sys, json
out = {"version": "%d.%d.%d" % tuple(sys.version_info[:3])}
try:
    import ssl
    paths = ssl.get_default_verify_paths()
    out["cafile"] = paths.openssl_cafile
    out["capath"] = paths.openssl_capath
except Exception as exc:
    out["error"] = "cannot tell where OpenSSL looks: %s: %s" % (type(exc).__name__, exc)
sys.stdout.write(json.dumps(out))
'''


def candidate_interpreters(extra=None):
    """Interpreter paths to probe: the usual places plus ``extra``, one per real file.

    ``extra`` paths are always kept (a broken one is reported by the probe, not dropped).
    """
    seen = set()
    result = []
    found = []
    for pattern in CANDIDATE_GLOBS:
        found.extend(sorted(p for p in glob.glob(pattern) if _NAME_RE.match(os.path.basename(p))))
    for path in found:
        real = os.path.realpath(path)
        if real not in seen and os.path.isfile(real) and os.access(real, os.X_OK):
            seen.add(real)
            result.append(path)
    for path in extra or []:
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            result.append(path)
    return result


def probe_interpreters(paths, timeout=DEFAULT_TIMEOUT):
    """Probe every interpreter in ``paths`` in parallel. Returns one dict per path.

    Each dict has ``path``, ``version``, ``honours_env``, ``reads_config``,
    ``verifies_by_default`` and ``error`` (None, or why the probe failed).
    """
    blank = {'version': None, 'honours_env': None, 'reads_config': None, 'verifies_by_default': None}
    return _probe(paths, PROBE_SCRIPT, blank, timeout)


def probe_verify_paths(paths, timeout=DEFAULT_TIMEOUT):
    """Where each interpreter in ``paths`` looks for trusted CAs by default, in parallel: one
    dict per path with ``path``, ``version``, ``cafile``, ``capath`` (OpenSSL's compiled-in
    file and folder, which may not exist) and ``error``."""
    return _probe(paths, VERIFY_PATHS_SCRIPT, {'version': None, 'cafile': None, 'capath': None}, timeout)


def _probe(paths, script, blank, timeout):
    env = {'PATH': '/usr/sbin:/usr/bin:/sbin:/bin', 'LC_ALL': 'C'}
    running = []
    devnull = open(os.devnull, 'rb')
    try:
        for path in paths:
            try:
                # Not run_command: it runs one process at a time with no deadline, and every
                # interpreter is probed at once, each bounded by the same timeout.
                proc = subprocess.Popen([path, '-E', '-S', '-c', script], stdin=devnull,  # pylint: disable=ansible-bad-function
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, close_fds=True)
            except (OSError, IOError) as exc:
                running.append((path, None, 'cannot run: %s' % (exc.strerror or exc)))
                continue
            running.append((path, proc, None))
    finally:
        devnull.close()
    deadline = time.time() + timeout
    results = []
    for path, proc, error in running:
        result = dict(blank, path=path, error=error)
        if proc is not None:
            result.update(_collect(proc, deadline, timeout))
        results.append(result)
    return results


def _collect(proc, deadline, timeout):
    while proc.poll() is None and time.time() < deadline:
        time.sleep(0.005)
    if proc.poll() is None:
        proc.kill()
        proc.communicate()
        return {'error': 'no answer within %s seconds' % timeout}
    out, err = proc.communicate()
    try:
        data = json.loads(out.decode('utf-8', 'replace'))
    except ValueError:
        last = err.decode('utf-8', 'replace').strip().splitlines()[-1:] or ['no output']
        return {'error': 'probe failed (exit %s): %s' % (proc.returncode, last[0])}
    if not isinstance(data, dict):
        return {'error': 'probe printed unexpected output'}
    data.setdefault('error', None)
    return data


def readers_of(results, path):
    """The probed interpreters that read the cfg file at ``path``."""
    wanted = os.path.realpath(path)
    return [r for r in results if r.get('reads_config') and os.path.realpath(r['reads_config']) == wanted]
