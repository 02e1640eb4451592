# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which HTTPS stacks a service's Python program uses, and whether PEP 493's knobs reach them.

The knobs (PYTHONHTTPSVERIFY, RHEL 7's cert-verification.cfg) choose only the standard
library's default HTTPS context, the one urllib2, httplib.HTTPSConnection without a context,
xmlrpclib and urllib take. requests (its own bundle, always verifying), urllib3 used directly,
ssl.wrap_socket, pycurl and any call given context=, cafile= or capath= ignore them, and Python 3
never reads them. ``scan_program`` walks the program and the modules it imports outside the
standard library, read-only and within limits; ``PACKAGE_SCRIPT`` asks the service's own
interpreter which of those packages it has, in which versions and with which CA bundle;
``stack_verdict_inputs`` joins both per stack. A walk that could not see everything says so
(``complete`` False, ``partial``), and the stacks it did not see are then ``used`` None.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.pep493.https.plugins.module_utils._forecast import imports as _imports
from ansible_collections.pep493.https.plugins.module_utils._forecast.imports import imports_in_source
from ansible_collections.pep493.https.plugins.module_utils._forecast.package_probe import PACKAGE_SCRIPT

__all__ = ['STDLIB_27', 'STDLIB_3', 'PACKAGE_SCRIPT', 'STACKS', 'is_stdlib', 'stack_of', 'classify',
           'imports_in_source', 'scan_program', 'stack_verdict_inputs', 'knobs_reach']

STDLIB, REQUESTS, URLLIB3, RAW_SSL, PYCURL, HTTPLIB2, OTHER = (
    'stdlib', 'requests', 'urllib3', 'raw_ssl', 'pycurl', 'httplib2', 'other')
STACKS = (STDLIB, REQUESTS, URLLIB3, RAW_SSL, PYCURL, HTTPLIB2, OTHER)

# Top-level modules of Python 2.7's standard library, from its documentation's module index
# (platform-specific ones included) plus the undocumented and C modules its lib folder holds.
STDLIB_27 = frozenset('''
__builtin__ __future__ __main__ _winreg abc aepack aetools aetypes aifc al AL anydbm applesingle argparse array
ast asynchat asyncore atexit audiodev audioop autoGIL base64 BaseHTTPServer Bastion bdb binascii binhex bisect
bsddb buildtools bz2 calendar Carbon cd cfmfile cgi CGIHTTPServer cgitb chunk cmath cmd code codecs codeop
collections ColorPicker colorsys commands compileall compiler ConfigParser contextlib Cookie cookielib copy
copy_reg cPickle cProfile crypt cStringIO csv ctypes curses datetime dbhash dbm decimal DEVICE difflib dircache
dis distutils dl doctest DocXMLRPCServer dumbdbm dummy_thread dummy_threading EasyDialogs email encodings
ensurepip errno exceptions fcntl filecmp fileinput findertools FL fl flp fm fnmatch formatter fpectl fpformat
fractions FrameWork ftplib functools future_builtins gc gdbm gensuitemodule getopt getpass gettext gl GL glob
grp gzip hashlib heapq hmac hotshot htmlentitydefs htmllib HTMLParser httplib ic icopen idlelib ihooks imageop
imaplib imgfile imghdr imp importlib imputil inspect io itertools jpeg json keyword lib2to3 linecache
linuxaudiodev locale logging macerrors MacOS macostools macpath macresource mailbox mailcap markupbase marshal
math md5 mhlib mimetools mimetypes MimeWriter mimify MiniAEFrame mmap modulefinder msilib msvcrt multifile
multiprocessing mutex Nav netrc new nis nntplib ntpath nturl2path numbers opcode operator optparse os os2emxpath
ossaudiodev parser pdb pickle pickletools pipes PixMapWrapper pkgutil platform plistlib popen2 poplib posix
posixfile posixpath pprint profile pstats pty pwd py_compile pyclbr pydoc pydoc_data pyexpat Queue quopri random
re readline repr resource rexec rfc822 rlcompleter robotparser runpy sched ScrolledText select sets sgmllib sha
shelve shlex shutil signal SimpleHTTPServer SimpleXMLRPCServer site smtpd smtplib sndhdr socket SocketServer spwd
sqlite3 sre sre_compile sre_constants sre_parse ssl stat statvfs string StringIO stringprep strop struct
subprocess sunau sunaudiodev SUNAUDIODEV symbol symtable sys sysconfig syslog tabnanny tarfile telnetlib tempfile
termios test textwrap this thread threading time timeit Tix Tkconstants Tkdnd Tkinter tkColorChooser
tkCommonDialog tkFileDialog tkFont tkMessageBox tkSimpleDialog token tokenize trace traceback ttk tty turtle
types unicodedata unittest urllib urllib2 urlparse user UserDict UserList UserString uu uuid videoreader W
warnings wave weakref webbrowser whichdb winsound wsgiref xdrlib xml xmlrpclib zipfile zipimport zlib
_abcoll _ast _bisect _bsddb _codecs _codecs_cn _codecs_hk _codecs_iso2022 _codecs_jp _codecs_kr _codecs_tw
_collections _csv _ctypes _curses _curses_panel _elementtree _functools _hashlib _heapq _hotshot _io _json
_locale _LWPCookieJar _lsprof _md5 _MozillaCookieJar _multibytecodec _multiprocessing _osx_support _pyio _random
_sha _sha256 _sha512 _socket _sqlite3 _sre _ssl _strptime _struct _symtable _sysconfigdata _threading_local
_tkinter _warnings _weakref _weakrefset antigravity genericpath sitecustomize usercustomize CDROM Canvas DLFCN
Dialog FileDialog FixTk IN SimpleDialog TYPES __phello__ _ctypes_test _testcapi macurl2path stringold sunaudio
toaiff xmllib xxsubtype
'''.split())

# Python 3's names that 2.7 lacks (3.0 to 3.14), and 2.7's names that Python 3 no longer has.
_ADDED_IN_3 = frozenset('''
_thread builtins copyreg queue reprlib socketserver configparser winreg http html xmlrpc tkinter _dummy_thread
_markupbase asyncio concurrent contextvars dataclasses enum faulthandler graphlib ipaddress lzma pathlib secrets
selectors statistics tracemalloc typing venv zipapp zoneinfo tomllib _bootlocale _collections_abc _compat_pickle
_compression _pydecimal _sitebuiltins _aix_support _pydatetime _pylong _py_abc _pyrepl _colorize _ios_support
_android_support _opcode_metadata _posixsubprocess _asyncio _blake2 _sha1 _sha2 _sha3 _bz2 _lzma _decimal
_datetime _pickle _queue _contextvars _statistics _uuid _zoneinfo _opcode _stat _string _tracemalloc _abc
_operator _imp _frozen_importlib _frozen_importlib_external _tokenize _typing _posixshmem _dbm _gdbm _crypt
_signal _thread _weakref _winapi _overlapped nt xxsubtype _bootsubprocess _testcapi turtledemo __hello__ _msi
_scproxy _testbuffer _testclinic _testclinic_limited _testexternalinspection _testimportmultiple _testinternalcapi
_testlimitedcapi _testmultiphase _testsinglephase _xxinterpchannels _xxsubinterpreters _xxtestfuzz xxlimited
xxlimited_35 _interpchannels _interpqueues _interpreters _suggestions _sysconfig _wmi annotationlib compression
'''.split())
_GONE_IN_3 = frozenset('''
__builtin__ _winreg BaseHTTPServer Bastion CGIHTTPServer ConfigParser Cookie cookielib copy_reg cPickle cStringIO
commands compiler dircache dl DocXMLRPCServer dumbdbm dummy_thread exceptions fpformat future_builtins
htmlentitydefs htmllib HTMLParser httplib hotshot ihooks imageop imputil md5 mhlib mimetools MimeWriter mimify
multifile mutex new popen2 posixfile Queue repr rexec rfc822 robotparser ScrolledText sets sgmllib sha
SimpleHTTPServer SimpleXMLRPCServer SocketServer statvfs StringIO thread Tix Tkconstants Tkdnd Tkinter
tkColorChooser tkCommonDialog tkFileDialog tkFont tkMessageBox tkSimpleDialog ttk urllib2 urlparse user UserDict
UserList UserString whichdb xmlrpclib markupbase strop sunaudiodev SUNAUDIODEV linuxaudiodev audiodev anydbm
dbhash os2emxpath _abcoll _LWPCookieJar _MozillaCookieJar _sha _bsddb bsddb _hotshot Canvas Dialog FileDialog FixTk
SimpleDialog stringold sunaudio toaiff xmllib
'''.split())
STDLIB_3 = (STDLIB_27 - _GONE_IN_3) | _ADDED_IN_3


def is_stdlib(module, python_major=2):
    """Whether ``module``'s top-level name is in the standard library of that Python."""
    top = module.split('.', 1)[0]
    return top in (STDLIB_27 if python_major == 2 else STDLIB_3) or top.startswith('_sysconfigdata')


# module -> (stack, governed by the knobs on Python 2, whether its submodules count too).
# governed None: not a standard library module, the stack's own rules decide.
_STACK_OF = {
    'urllib2': (STDLIB, True, True), 'httplib': (STDLIB, True, True), 'xmlrpclib': (STDLIB, True, True),
    'urllib': (STDLIB, True, False),
    # six and future give Python 2's modules under these names
    'six.moves.urllib': (STDLIB, True, False), 'six.moves.urllib.request': (STDLIB, True, True),
    'six.moves.urllib_request': (STDLIB, True, True), 'six.moves.http_client': (STDLIB, True, True),
    'six.moves.xmlrpc_client': (STDLIB, True, True), 'future.moves.urllib.request': (STDLIB, True, True),
    'future.moves.http.client': (STDLIB, True, True), 'future.moves.xmlrpc.client': (STDLIB, True, True),
    # Python 3's names: Python 3 never reads the knobs
    'urllib.request': (STDLIB, False, True), 'http.client': (STDLIB, False, True),
    'xmlrpc.client': (STDLIB, False, True),
    'requests': (REQUESTS, None, True), 'pip._vendor.requests': (REQUESTS, None, True),
    'botocore.vendored.requests': (REQUESTS, None, True),
    'urllib3': (URLLIB3, None, True), 'requests.packages.urllib3': (URLLIB3, None, True),
    'pip._vendor.urllib3': (URLLIB3, None, True), 'botocore.vendored.requests.packages.urllib3': (URLLIB3, None, True),
    'ssl': (RAW_SSL, None, False), '_ssl': (RAW_SSL, None, False),
    'pycurl': (PYCURL, None, True), 'httplib2': (HTTPLIB2, None, True),
    # HTTP clients that make their own TLS contexts (their internals are theirs: not walked)
    'tornado.httpclient': (OTHER, None, True), 'tornado.simple_httpclient': (OTHER, None, True),
    'tornado.curl_httpclient': (OTHER, None, True), 'twisted.web.client': (OTHER, None, True),
    'treq': (OTHER, None, True), 'aiohttp': (OTHER, None, True), 'httpx': (OTHER, None, True),
    'M2Crypto': (OTHER, None, True), 'OpenSSL': (OTHER, None, True), 'websocket': (OTHER, None, True),
    'future.backports.urllib.request': (OTHER, None, True), 'future.backports.http.client': (OTHER, None, True),
}
# Not walked, on purpose: six's moves are classified by the names imported from it, and
# pkg_resources loads entry points by name (a dynamic import the walk reports where it is called).
NOT_WALKED = frozenset(('six', 'pkg_resources'))


def stack_of(module, names=None):
    """(stack, module that says so, governed) for a dotted module name, or None.

    ``names``: what ``from module import ...`` takes; Python 2's urllib counts only for its
    HTTP names (imports.URLLIB_HTTP_NAMES, or *), not for quote or urlencode.
    governed: True for Python 2's standard library modules, False for Python 3's names, None
    for the other stacks (their own rules). The longest known prefix wins.
    """
    parts = module.split('.')
    for size in range(len(parts), 0, -1):
        prefix = '.'.join(parts[:size])
        entry = _STACK_OF.get(prefix)
        if entry is None or (size < len(parts) and not entry[2]):
            continue
        if prefix == 'urllib' and names is not None and not (set(names) & (_imports.URLLIB_HTTP_NAMES | set('*'))):
            return None
        return entry[0], prefix, entry[1]
    return None


def classify(module_names):
    """[{stack, module, governed}] for the names given (strings), each name at most once, in
    order; names of no known stack are left out."""
    found, seen = [], set()
    for name in module_names:
        hit = stack_of(name) if name not in seen else None
        seen.add(name)
        if hit is not None:
            found.append(dict(stack=hit[0], module=name, matched=hit[1], governed=hit[2]))
    return found


def scan_program(program, read_file, search_path, limits, **options):
    """The bounded walk of a service's program: see walk.scan_program (kept in its own file for
    its size; imported here when first used, since it builds on the tables above)."""
    from ansible_collections.pep493.https.plugins.module_utils._forecast import walk
    return walk.scan_program(program, read_file, search_path, limits, **options)


# --- per stack, what a forecast needs -----------------------------------------------------------

# Bundles that are the distribution's system store (RHEL/Fedora, Debian/Ubuntu, SUSE, Alpine)
SYSTEM_BUNDLES = frozenset(('/etc/pki/tls/certs/ca-bundle.crt', '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
                            '/etc/ssl/certs/ca-certificates.crt', '/etc/ssl/ca-bundle.pem', '/etc/ssl/cert.pem'))
# the package the probe reports for each module a stack was seen through
_PACKAGE_OF = {'requests': 'requests', 'pip._vendor.requests': 'pip._vendor.requests', 'urllib3': 'urllib3',
               'requests.packages.urllib3': 'requests.packages.urllib3', 'pycurl': 'pycurl', 'httplib2': 'httplib2'}


def stack_verdict_inputs(scan, packages=None):
    """Per stack, what a forecast needs, from a scan (scan_program) and the service
    interpreter's package facts (PACKAGE_SCRIPT's output, or None when it could not run).

    {stack: {used: True|False|None, governed_by_knobs: True|False|None, verifies_today_without_knobs:
    True|False|None, trust: 'system'|'bundle:<path>'|None, evidence: [...], notes: [...]}}.
    used is None when the walk was not complete and did not see the stack; a stack imported
    but not importable under that interpreter is not used. governed_by_knobs is None when the
    program replaces the default context itself. A forecast then says: would_break only when a
    governed stack fails; already_failing when a stack that verifies anyway fails today;
    unaffected when no governed stack is used (knobs_reach False); unknown otherwise.
    """
    facts = (packages or {}).get('packages') or {}
    hints = {}
    for hint in scan['hints']:
        hints.setdefault(hint['hint'], []).append(hint)
    unseen = False if scan['complete'] else None
    inputs = {}
    for stack in STACKS:
        evidence = list(scan['stacks'].get(stack, ()))
        inputs[stack] = dict(used=True if evidence else unseen, governed_by_knobs=False, trust=None,
                             verifies_today_without_knobs=None, evidence=evidence, notes=[])
        if stack not in (STDLIB, RAW_SSL, OTHER):
            _drop_not_importable(inputs[stack], facts, unseen)
    _stdlib(inputs[STDLIB], scan, hints, unseen)
    requests = inputs[REQUESTS]
    requests['verifies_today_without_knobs'] = True
    loose = hints.get(_imports.VERIFY_FALSE, []) + hints.get(_imports.VERIFY_ARGUMENT, [])
    if loose:
        requests['verifies_today_without_knobs'] = None
        requests['notes'].append('verify= is set at %s: those calls choose for themselves' % _places(loose))
    bundle = (facts.get('requests') or {}).get('ca_bundle')
    if bundle:
        requests['trust'] = 'bundle:' + bundle
        if bundle in SYSTEM_BUNDLES:
            requests['notes'].append('its bundle is the system bundle (%s)' % bundle)
    _urllib3(inputs[URLLIB3], facts, hints)
    _raw_ssl(inputs[RAW_SSL], hints)
    pycurl = inputs[PYCURL]
    options = hints.get(_imports.CURL_VERIFY_OPTION, [])
    pycurl['verifies_today_without_knobs'] = None if options else True     # libcurl verifies peers unless told not to
    if options:
        pycurl['notes'].append('SSL_VERIFYPEER/SSL_VERIFYHOST set at %s' % _places(options))
    pycurl['notes'].append("libcurl's own bundle: not read here")
    inputs[HTTPLIB2]['notes'].append('its own bundle and defaults, not decided here')
    return inputs


def knobs_reach(inputs):
    """True when the program uses a stack the knobs govern, False when it uses none (and the walk
    saw everything), None when that cannot be told."""
    stdlib = inputs[STDLIB]
    if stdlib['used'] and stdlib['governed_by_knobs']:
        return True
    if stdlib['used'] is None or (stdlib['used'] and stdlib['governed_by_knobs'] is None):
        return None
    return False


def _places(hints, most=3):
    shown = ['%s:%s' % (hint.get('file'), hint['line']) for hint in hints[:most]]
    return ', '.join(shown) + (' and %d more' % (len(hints) - most) if len(hints) > most else '')


def _drop_not_importable(entry, facts, unseen):
    """An import of a package the interpreter does not have fails (or falls back): not a use."""
    if not entry['evidence'] or not facts:
        return
    missing = []
    for item in entry['evidence']:
        fact = facts.get(_PACKAGE_OF.get(item['module'], ''))
        if fact and fact.get('alias_of'):
            fact = facts.get(fact['alias_of'])
        if not fact or fact.get('importable') is not False:
            return
        missing.append(item)
    entry['used'] = unseen
    entry['notes'].append('imported at %s, but not importable under the service interpreter' % _places(missing))


def _stdlib(entry, scan, hints, unseen):
    governed = [item for item in entry['evidence'] if item['governed']]
    python3_names = [item for item in entry['evidence'] if not item['governed']]
    entry['evidence'] = governed
    entry['used'] = True if governed else unseen
    entry['governed_by_knobs'] = scan.get('python_major', 2) == 2
    if python3_names:
        entry['notes'].append('Python 3 names at %s: Python 3 never reads the knobs' % _places(python3_names))
    if governed:
        entry['trust'] = 'system'       # the default context loads the system store (SSL_CERT_FILE/DIR apply)
        replaced = hints.get(_imports.CONTEXT_REPLACED, [])
        if replaced and entry['governed_by_knobs']:
            entry['governed_by_knobs'] = None
            entry['notes'].append('the program sets ssl._create_default_https_context itself at %s: '
                                  'the knobs may not reach its calls' % _places(replaced))
        knob = hints.get(_imports.KNOB_IN_CODE, [])
        if knob:
            entry['notes'].append('PYTHONHTTPSVERIFY is named in the code at %s: the program may set it '
                                  'itself' % _places(knob))
        explicit = [hint for hint in hints.get(_imports.STDLIB_CALL, []) if hint['explicit']]
        if explicit:
            entry['notes'].append('calls at %s pass their own context, cafile or capath: '
                                  'those are not governed' % _places(explicit))
    entry['notes'].append('whether it verifies without the knobs is the interpreter\'s and its cfg\'s default')


def _urllib3(entry, facts, hints):
    verdicts = set()
    for item in entry['evidence']:
        fact = facts.get(_PACKAGE_OF.get(item['module'], '')) or {}
        if fact.get('alias_of'):
            fact = facts.get(fact['alias_of']) or {}
        verdicts.add(fact.get('verifies_by_default'))
    if len(verdicts) == 1:
        entry['verifies_today_without_knobs'] = verdicts.pop()
    cert_reqs = hints.get(_imports.CERT_REQS, [])
    if cert_reqs:
        entry['verifies_today_without_knobs'] = None
        entry['notes'].append('cert_reqs is passed at %s: those calls choose for themselves' % _places(cert_reqs))
    if entry['verifies_today_without_knobs']:
        entry['trust'] = 'system'       # urllib3 1.25 and later load the system store (load_default_certs)


def _raw_ssl(entry, hints):
    wraps = hints.get(_imports.WRAP_SOCKET, [])
    defaults = hints.get(_imports.DEFAULT_CONTEXT, [])
    contexts = hints.get(_imports.SSL_CONTEXT, [])
    entry['evidence'] = entry['evidence'] + wraps + defaults + contexts
    if wraps or defaults or contexts:
        entry['used'] = True
    elif entry['used']:
        entry['used'] = None
        entry['notes'].append('ssl is imported, but no wrap_socket, SSLContext or create_default_context call is seen')
    unverified = [hint for hint in wraps if hint['cert_reqs'] is False or 'CERT_NONE' in (hint['value'] or '')]
    if wraps and not defaults and not contexts and len(unverified) == len(wraps):
        entry['verifies_today_without_knobs'] = False
    elif defaults and not wraps and not contexts:
        entry['verifies_today_without_knobs'] = True
        if not any(hint['explicit'] for hint in defaults):
            entry['trust'] = 'system'
