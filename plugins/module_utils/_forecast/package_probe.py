# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""``PACKAGE_SCRIPT``: the code run under a service's own interpreter, with the service's own
environment, to learn which HTTPS packages that interpreter has (requests, urllib3, certifi,
pycurl, httplib2, pip's vendored requests, requests' vendored urllib3), their versions and files,
and the CA bundle requests would use there. It reads a JSON request on stdin (nothing from argv)
and prints one JSON object. It writes nothing: bytecode is off before any import (the caller
passes -B as well), packages are found by listing folders and versions read from their files or
their distribution's metadata, and only requests (whose bundle is code a distribution may patch)
and certifi are imported by default. It bounds itself with an alarm and opens no connection.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# Runs on Python 2.7.5 and 3.6 to 3.13, standard library only. Request (stdin, JSON, optional):
# {"timeout": seconds (1 to 120, default 10), "import": names to import for real
#  (default ["requests", "certifi"]; [] imports nothing and leaves ca_bundle to the variables)}.
PACKAGE_SCRIPT = r'''
import sys
sys.dont_write_bytecode = True
import json
import os
import re
import signal
import time
import warnings
import zipfile

STARTED = time.time()
PACKAGES = ('requests', 'urllib3', 'certifi', 'pycurl', 'httplib2', 'pip._vendor.requests',
            'requests.packages.urllib3')
# the files that hold each package's __version__, tried in order before its metadata
VERSION_FILES = {'requests': ('__version__.py', '__init__.py'), 'urllib3': ('_version.py', '__init__.py'),
                 'pip._vendor.requests': ('__version__.py', '__init__.py'),
                 'requests.packages.urllib3': ('_version.py', '__init__.py'),
                 'certifi': ('__init__.py',), 'httplib2': ('__init__.py',), 'pycurl': ()}
VERSION_RE = re.compile(r"""^__version__\s*=\s*['"]([^'"]+)['"]""", re.M)
METADATA_VERSION_RE = re.compile(r'^Version:\s*(\S+)', re.M)
LISTINGS = {}


class Timeout(BaseException):
    pass


class Sink(object):
    def write(self, text):
        pass

    def flush(self):
        pass


def on_alarm(signum, frame):
    raise Timeout()


def listing(folder):
    if folder not in LISTINGS:
        try:
            LISTINGS[folder] = frozenset(os.listdir(folder))
        except (IOError, OSError):
            LISTINGS[folder] = frozenset()
    return LISTINGS[folder]


def module_files(name, names):
    """The files that would be module ``name`` in a folder holding ``names``, in Python's order."""
    extensions = sorted(n for n in names if n in (name + '.so', name + 'module.so') or (
        n.startswith(name + '.') and n.endswith('.so') and n.count('.') == 2))
    return extensions + [n for n in (name + '.py', name + '.pyc') if n in names]


def locate(dotted):
    """{file, folder (of a package), root (the sys.path entry), zip} of module ``dotted``, found
    by listing sys.path's folders as the path finder would, without importing anything."""
    parts = dotted.split('.')
    for entry in sys.path:
        root = os.path.abspath(entry or os.curdir)
        if os.path.isdir(root):
            folder = root
            for index, part in enumerate(parts):
                inner = os.path.join(folder, part)
                init = module_files('__init__', listing(inner)) if part in listing(folder) else []
                if init:
                    if index == len(parts) - 1:
                        return dict(file=os.path.join(inner, init[0]), folder=inner, root=root, zip=None)
                    folder = inner
                    continue
                files = module_files(part, listing(folder)) if index == len(parts) - 1 else []
                if files:
                    return dict(file=os.path.join(folder, files[0]), folder=None, root=root, zip=None)
                break
        elif os.path.isfile(root) and zipfile.is_zipfile(root):
            archive = zipfile.ZipFile(root)
            try:
                names = set(archive.namelist())
            finally:
                archive.close()
            inner = '/'.join(parts)
            if inner + '/__init__.py' in names:
                return dict(file=root + '/' + inner + '/__init__.py', folder=inner, root=root, zip=root)
            if inner + '.py' in names:
                return dict(file=root + '/' + inner + '.py', folder=None, root=root, zip=root)
    return None


def read_text(found, name, limit=262144):
    try:
        if found['zip']:
            archive = zipfile.ZipFile(found['zip'])
            try:
                data = archive.read(found['folder'] + '/' + name)[:limit]
            finally:
                archive.close()
        else:
            handle = open(os.path.join(found['folder'], name), 'rb')
            try:
                data = handle.read(limit)
            finally:
                handle.close()
    except (IOError, OSError, KeyError):
        return None
    return data.decode('latin-1')


def metadata_version(found, distribution):
    """Version from NAME-VERSION.dist-info/METADATA or NAME-VERSION[-pyX.Y].egg-info beside it."""
    if found['zip']:
        return None, None
    pattern = re.compile('^' + re.escape(distribution) + r'-([0-9][^-]*?)(-py[0-9.]+)?\.(dist|egg)-info$', re.I)
    for entry in sorted(listing(found['root'])):
        match = pattern.match(entry)
        if match is None:
            continue
        path = os.path.join(found['root'], entry)
        for inner in ('METADATA', 'PKG-INFO', ''):
            candidate = os.path.join(path, inner) if inner else path
            if os.path.isfile(candidate):
                handle = open(candidate, 'rb')
                try:
                    text = handle.read(65536).decode('latin-1')
                finally:
                    handle.close()
                version = METADATA_VERSION_RE.search(text)
                if version:
                    return version.group(1), entry
        return match.group(1), entry
    return None, None


def version_tuple(text):
    numbers = []
    for part in re.split(r'[.+-]', text or ''):
        if not part.isdigit():
            break
        numbers.append(int(part))
    return tuple(numbers)


def import_for_real(name, out):
    import importlib
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        try:
            module = importlib.import_module(name)
        except (Exception, SystemExit) as exc:
            out['importable'] = False
            out['error'] = 'import failed: %s: %s' % (type(exc).__name__, exc)
            module = None
    out['imported'] = module is not None
    out['warnings'] = ['%s' % warning.message for warning in caught][:5]
    return module


def static_facts(name, environ):
    """What the files tell, importing nothing."""
    out = dict(importable=False, version=None, version_from=None, file=None, imported=False, error=None)
    found = locate(name)
    if found is None:
        if name == 'requests.packages.urllib3' and locate('requests') is not None:
            out['alias_of'] = 'urllib3'     # requests 2.16 and later: the urllib3 installed beside it
        return out
    out.update(importable=True, file=found['file'])
    for candidate in VERSION_FILES[name] if found['folder'] else ():
        match = VERSION_RE.search(read_text(found, candidate) or '')
        if match:
            out.update(version=match.group(1), version_from=candidate)
            break
    if out['version'] is None and '.' not in name:
        out['version'], out['version_from'] = metadata_version(found, name)
    if name == 'requests':
        out['ca_bundle'], out['ca_bundle_from'] = None, None
        for variable in ('REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE'):
            if environ.get(variable):
                out['ca_bundle'], out['ca_bundle_from'] = environ[variable], variable
                break
    return out


def imported_facts(name, out):
    """What only importing tells: certifi's where(), and the bundle requests falls back to."""
    module = import_for_real(name, out)
    if module is None:
        return
    if out['version'] is None:
        out['version'] = getattr(module, '__version__', None)
        out['version_from'] = 'import' if out['version'] else None
    if name == 'certifi':
        out['where'] = module.where()
    if name == 'requests':
        # where() is code that RHEL, Fedora and Debian patch (here or in certifi) to name the
        # system bundle: only running it tells which file this environment gets
        certs = import_for_real('requests.certs', dict())
        out['certs_where'] = certs.where() if certs is not None else None
        if out['ca_bundle'] is None:
            out['ca_bundle'], out['ca_bundle_from'] = out['certs_where'], 'requests.certs.where()'


def text(value):
    if isinstance(value, dict):
        return dict((text(key), text(item)) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return [text(item) for item in value]
    if isinstance(value, bytes) and not isinstance(value, type(u'')):
        return value.decode('utf-8', 'replace')
    return value


def main(real_stdout):
    result = dict(python=sys.version, version_info=list(sys.version_info[:3]), executable=sys.executable,
                  path=list(sys.path), dont_write_bytecode=sys.dont_write_bytecode, packages={}, errors=[],
                  timed_out=False, environment=dict((name, os.environ.get(name)) for name in (
                      'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'SSL_CERT_FILE', 'SSL_CERT_DIR')))
    current = None
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(10)            # reading the request is bounded too, until it says otherwise
    try:
        request = {}
        try:
            raw = sys.stdin.read(65536)
            request = json.loads(raw) if raw.strip() else {}
            if not isinstance(request, dict):
                raise ValueError('the request is not a JSON object')
        except (Exception, SystemExit) as exc:
            result['errors'].append('request: %s: %s' % (type(exc).__name__, exc))
            request = {}
        try:
            timeout = min(max(int(request.get('timeout', 10)), 1), 120)
            wanted = [name for name in request.get('import', ['requests', 'certifi']) if name in PACKAGES]
        except (Exception, SystemExit) as exc:
            result['errors'].append('request: %s: %s' % (type(exc).__name__, exc))
            timeout, wanted = 10, ['requests', 'certifi']
        signal.alarm(timeout)
        try:
            import ssl
            paths = ssl.get_default_verify_paths()
            result['ssl_default_verify_paths'] = dict(cafile=paths.cafile, capath=paths.capath)
        except (Exception, SystemExit) as exc:
            result['ssl_default_verify_paths'] = None
            result['errors'].append('ssl: %s: %s' % (type(exc).__name__, exc))
        for name in PACKAGES:       # first what the files tell, for every package
            try:
                result['packages'][name] = static_facts(name, os.environ)
            except (Exception, SystemExit) as exc:
                result['packages'][name] = dict(importable=None, error='%s: %s' % (type(exc).__name__, exc))
        for name in [name for name in PACKAGES if name in wanted and result['packages'][name]['importable']]:
            current = result['packages'][name]
            try:
                imported_facts(name, current)
            except (Exception, SystemExit) as exc:
                current['error'] = '%s: %s' % (type(exc).__name__, exc)
            current = None
    except Timeout:
        result['timed_out'] = True
        result['errors'].append('timed out')
        if current is not None:
            current.update(importable=None, error='timed out while importing')
    signal.alarm(0)
    for name in ('urllib3', 'requests.packages.urllib3'):      # urllib3 1.25 and later verify by default
        facts = result['packages'].get(name) or {}
        numbers = version_tuple(facts.get('version'))
        facts['verifies_by_default'] = numbers >= (1, 25) if numbers else None
    result['elapsed'] = round(time.time() - STARTED, 3)
    real_stdout.write(json.dumps(text(result), sort_keys=True) + '\n')
    real_stdout.flush()


REAL_STDOUT = sys.stdout
sys.stdout = Sink()         # what an imported package prints must not spoil the JSON
main(REAL_STDOUT)
'''
