# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The runner's payload, built on the controller: one Python script that any target Python from
2.7.5 on runs from stdin (or from a private temp file without pipelining).

It carries only the collection's code - the runner (module_utils/_runner) and the module_utils the
module's backend imports, found by reading their imports - and the request (the checked parameters,
check and diff mode, ...), both as base64 of zlib of JSON inside the script: nothing travels on a
command line. The sources of a module are read once per run and kept in ansible-core's per-run
local temp folder, as ansible-core keeps its own module payloads.
"""

from __future__ import annotations

import ast
import base64
import json
import os
import tempfile
import zlib

from ansible import constants as C

PACKAGE = 'ansible_collections.pep493.https.plugins.module_utils'
MODULE_UTILS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'module_utils')
BOOTSTRAP = os.path.join(MODULE_UTILS, '_runner', 'bootstrap.py')
ENTRY = PACKAGE + '._runner.entry'
BACKENDS = PACKAGE + '._backends.'
CACHE_FOLDER = 'pep493_https_runner'

# Before anything else is imported: the script's own folder (or the working folder, for a script
# read from stdin) and "." out of sys.path, so that no file there stands in for a standard module.
PRELUDE = '''# -*- coding: utf-8 -*-
import sys
sys.path[:] = [p for p in sys.path[1:] if p not in ('', '.')]
_scope = {'__name__': 'pep493_https_runner'}
exec(compile(%r, %r, 'exec', 0, True), _scope)
_scope['main'](%r, %r)
'''


class PayloadError(Exception):
    """The collection's code cannot be carried by the runner (a defect of the collection)."""


def _file_of(name):
    """The file of module_utils module or package ``name`` (a full dotted name), or None."""
    if name != PACKAGE and not name.startswith(PACKAGE + '.'):
        return None
    base = os.path.join(MODULE_UTILS, *name[len(PACKAGE) + 1:].split('.')) if name != PACKAGE else MODULE_UTILS
    if os.path.isfile(base + '.py'):
        return base + '.py'
    if os.path.isdir(base):
        return os.path.join(base, '__init__.py')
    return None


def _imports(name, source):
    """The collection module_utils ``source`` imports; PayloadError for ansible-core code or a relative import."""
    found = []
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                raise PayloadError('%s has a relative import, which the runner does not resolve' % name)
            names = [node.module] + ['%s.%s' % (node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for imported in names:
            if imported == 'ansible' or imported.startswith('ansible.'):
                raise PayloadError('%s imports %s: the runner carries no ansible-core code' % (name, imported))
            if imported.startswith(PACKAGE + '.') and _file_of(imported):
                found.append(imported)
    return found


def collect_sources(module):
    """{'modules': {name: source}, 'packages': {name: source}} of what ``module``'s backend needs."""
    modules, packages = {}, {}
    pending = [ENTRY, BACKENDS + module]
    while pending:
        name = pending.pop()
        if name in modules or name in packages:
            continue
        path = _file_of(name)
        if path is None or not os.path.exists(path):
            raise PayloadError('%s is not part of the collection' % name)
        with open(path, encoding='utf-8') as handle:
            source = handle.read()
        (packages if path.endswith('__init__.py') else modules)[name] = source
        pending.extend(_imports(name, source))
        parent = name.rpartition('.')[0]
        while parent.startswith(PACKAGE + '.'):
            pending.append(parent)
            parent = parent.rpartition('.')[0]
    return dict(modules=modules, packages=packages)


def _pack(data):
    return base64.b64encode(zlib.compress(json.dumps(data, sort_keys=True).encode('utf-8'), 6)).decode('ascii')


def sources_blob(module):
    """The packed sources of ``module``, read once per run (kept in the per-run local temp folder)."""
    folder = os.path.join(C.DEFAULT_LOCAL_TMP, CACHE_FOLDER)
    cached = os.path.join(folder, '%s.sources' % module)
    try:
        with open(cached, encoding='ascii') as handle:
            return handle.read()
    except OSError:
        pass
    blob = _pack(collect_sources(module))
    os.makedirs(folder, mode=0o700, exist_ok=True)
    handle, partial = tempfile.mkstemp(dir=folder, prefix='.%s.' % module)
    with os.fdopen(handle, 'w', encoding='ascii') as out:
        out.write(blob)
    os.replace(partial, cached)  # workers of the same run may race: each writes a whole file
    return blob


def script(module, request):
    """The payload that runs ``module`` with ``request`` on the target, as bytes."""
    with open(BOOTSTRAP, encoding='utf-8') as handle:
        bootstrap = handle.read()
    if not bootstrap.isascii():
        raise PayloadError('%s must be ASCII: it travels as a Python 2 string literal' % BOOTSTRAP)
    text = PRELUDE % (bootstrap, '<pep493.https runner payload>/bootstrap.py', sources_blob(module), _pack(request))
    return text.encode('ascii')
