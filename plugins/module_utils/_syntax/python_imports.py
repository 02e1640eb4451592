# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What one Python source file imports, and the HTTPS usage hints in its text, read from its
tokens (python_tokens.py: a tokenizer that takes Python 2 and 3 alike, whatever runs the scan).
Hints are patterns in the text, not a run of the program: a call built at run time, an alias or
a branch never taken is not seen, so they can back a forecast but never prove one.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.pep493.https.plugins.module_utils._syntax.python_tokens import (
    NAME, NEWLINE, OP, STRING, tokenize)

# hint kinds (see imports_in_source)
(WRAP_SOCKET, DEFAULT_CONTEXT, SSL_CONTEXT, UNVERIFIED_CONTEXT, CONTEXT_REPLACED, STDLIB_CALL, VERIFY_FALSE,
 VERIFY_ARGUMENT, CERT_REQS, SYS_PATH_CHANGE, DYNAMIC_IMPORT, CURL_VERIFY_OPTION, KNOB_IN_CODE, URLLIB_HTTP) = (
    'ssl_wrap_socket', 'create_default_context', 'ssl_context', 'unverified_context', 'default_context_replaced',
    'stdlib_https_call', 'verify_false', 'verify_argument', 'cert_reqs', 'sys_path_change', 'dynamic_import',
    'curl_verify_option', 'knob_in_code', 'urllib_http')

_MAX_SHOWN = 80             # characters of an argument kept in a hint
_MODULE_RE = re.compile(u'^\\.*[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$|^\\.+$')

_URLOPEN = 'url' + 'open'      # in two parts: ansible-test's replace-urlopen check refuses the word in plugins
# calls of the standard library that take the default HTTPS context unless given one; the
# receiver, when named, must be one of these (None: any, or none)
_STDLIB_CALLS = {_URLOPEN: None, 'urlretrieve': None, 'HTTPSConnection': None, 'HTTPSHandler': None,
                 'ServerProxy': None, 'URLopener': None, 'FancyURLopener': None,
                 'Server': ('xmlrpclib', 'client'), 'HTTPS': ('httplib',)}
_EXPLICIT_TRUST = ('context', 'cafile', 'capath', 'cadefault')
# calls that load code the scan cannot follow by name
_CODE_LOADERS = frozenset(('load_source', 'load_module', 'load_compiled', 'load_dynamic', 'load_package',
                           'load_entry_point', 'iter_entry_points', 'execfile', 'exec_module', 'run_path'))
_SYS_PATH_METHODS = frozenset(('insert', 'append', 'extend', 'remove'))
URLLIB_HTTP_NAMES = frozenset((_URLOPEN, 'urlretrieve', 'URLopener', 'FancyURLopener'))     # Python 2's urllib
# calls that import a module named by their first argument, and the receivers they go with
_DYNAMIC_IMPORTERS = {'__import__': (None,), 'import_module': (None, 'importlib'), 'run_module': (None, 'runpy')}
_CALLS = frozenset(['wrap_socket', 'create_default_context', 'SSLContext', 'addsitedir'] + list(_STDLIB_CALLS)
                   + list(_CODE_LOADERS) + list(_DYNAMIC_IMPORTERS))


def imports_in_source(data):
    """Imports and HTTPS usage hints of one Python source file (bytes or text, Python 2 or 3).

    Returns a dict:
      imports: [{kind: 'import'|'from'|'dynamic', module, names, level, line, ...}] in file order;
        ``import a.b as c`` gives module 'a.b' (as 'c'); ``from ..p import x`` module 'p', level 2,
        names ['x']; ``__import__('x')``, ``importlib.import_module('x')`` and
        ``runpy.run_module('x')`` with a literal name give kind 'dynamic' (call named).
      modules: sorted names imported: 'a.b', 'a', relative ones as '..p' or '.'.
      hints: [{hint, line, ...}]: see the kinds at the top of this file.
      absolute_import: whether ``from __future__ import absolute_import`` is there (Python 2's
        implicit relative imports are off then).
      clean: False when the text did not tokenize as valid Python would (an unterminated string,
        brackets left open): imports after the fault may be missed. problems: why.
    """
    tokens, problems = tokenize(data)
    imports = _imports(tokens)
    hints = _hints(tokens, imports)
    imports.sort(key=lambda record: record['line'])
    modules = sorted(set('.' * record['level'] + record['module'] for record in imports))
    absolute = any(record['module'] == '__future__' and 'absolute_import' in record['names'] for record in imports)
    return dict(imports=imports, modules=modules, hints=hints, absolute_import=absolute, clean=not problems,
                problems=problems)


# --- imports ----------------------------------------------------------------------------------

def _is(token, kind, value=None):
    return token is not None and token[0] == kind and (value is None or token[1] == value)


def _at(tokens, index):
    return tokens[index] if 0 <= index < len(tokens) else None


def _dotted(tokens, index):
    """(dotted name, index after it) or (None, index)."""
    if not _is(_at(tokens, index), NAME) or tokens[index][1] == u'import':
        return None, index
    parts = [tokens[index][1]]
    index += 1
    while _is(_at(tokens, index), OP, u'.') and _is(_at(tokens, index + 1), NAME):
        parts.append(tokens[index + 1][1])
        index += 2
    return u'.'.join(parts), index


def _imports(tokens):
    found = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token[3] and _is(token, NAME, u'import'):
            index = _import_statement(tokens, index + 1, token[2], found)
        elif token[3] and _is(token, NAME, u'from'):
            index = _from_statement(tokens, index + 1, token[2], found)
        else:
            index += 1
    return found


def _import_statement(tokens, index, line, found):
    while True:
        name, index = _dotted(tokens, index)
        if name is None:
            return index
        alias = None
        if _is(_at(tokens, index), NAME, u'as') and _is(_at(tokens, index + 1), NAME):
            alias = _native(tokens[index + 1][1])
            index += 2
        found.append(dict(kind='import', module=_native(name), names=[], level=0, line=line, alias=alias))
        if not _is(_at(tokens, index), OP, u','):
            return index
        index += 1


def _from_statement(tokens, index, line, found):
    level = 0
    while _is(_at(tokens, index), OP) and tokens[index][1] in (u'.', u'...'):
        level += len(tokens[index][1])
        index += 1
    module, index = _dotted(tokens, index)
    if (module is None and not level) or not _is(_at(tokens, index), NAME, u'import'):
        return index
    index += 1
    parenthesised = _is(_at(tokens, index), OP, u'(')
    index += 1 if parenthesised else 0
    names = []
    while True:
        token = _at(tokens, index)
        if _is(token, OP, u'*') or _is(token, NAME):
            names.append(_native(token[1]))
            index += 1
            if _is(_at(tokens, index), NAME, u'as') and _is(_at(tokens, index + 1), NAME):
                index += 2
        if not _is(_at(tokens, index), OP, u','):
            break
        index += 1
    found.append(dict(kind='from', module=_native(module or u''), names=names, level=level, line=line, alias=None))
    return index


# --- hints ------------------------------------------------------------------------------------

def _matches(tokens):
    """{index of an opening bracket: index of its closing one}."""
    pairs, stack = {}, []
    for index, token in enumerate(tokens):
        if token[0] != OP:
            continue
        if token[1] in (u'(', u'[', u'{'):
            stack.append(index)
        elif token[1] in (u')', u']', u'}') and stack:
            pairs[stack.pop()] = index
    return pairs


def _arguments(tokens, pairs, opening):
    """[(keyword or '*' or '**' or None, first index, last index)] of a call's arguments."""
    closing = pairs.get(opening, len(tokens))
    found, current = [], None
    index = opening + 1
    while index < closing:
        token = tokens[index]
        if _is(token, OP, u','):
            current = None
            index += 1
            continue
        if current is None:
            current = [None, index, index]
            if _is(token, NAME) and _is(_at(tokens, index + 1), OP, u'='):
                current[0] = _native(token[1])
            elif _is(token, OP) and token[1] in (u'*', u'**'):
                current[0] = _native(token[1])
            found.append(current)
        current[2] = index
        if _is(token, OP) and token[1] in (u'(', u'[', u'{'):
            index = pairs.get(index, closing)
            current[2] = index
        index += 1
    return [tuple(argument) for argument in found]


def _shown(tokens, first, last):
    words = []
    for token in tokens[first:last + 1]:
        words.append(u"'%s'" % token[1] if token[0] == STRING and token[1] is not None else (token[1] or u''))
    return _native(u''.join(words)[:_MAX_SHOWN])


def _literal(token):
    """The module name a string token holds, when it is a plain literal one."""
    if _is(token, STRING) and token[1] is not None and _MODULE_RE.match(token[1]):
        return _native(token[1])
    return None


def _hints(tokens, imports):
    """Usage hints, and literal dynamic imports appended to ``imports``."""
    pairs = _matches(tokens)
    from_ssl = set(name for record in imports if record['module'] == 'ssl' and record['kind'] == 'from'
                   for name in record['names'])
    hints = []
    callers = []        # for each open bracket: the name called there, or None
    for index, token in enumerate(tokens):
        kind, value, line = token[0], token[1], token[2]
        if kind == OP:
            if value == u'(':
                before = _at(tokens, index - 1)
                callers.append(before[1] if _is(before, NAME) else None)
            elif value in (u'[', u'{'):
                callers.append(None)
            elif value in (u')', u']', u'}') and callers:
                callers.pop()
            continue
        if kind == STRING and value is not None and u'PYTHONHTTPSVERIFY' in value:
            hints.append(dict(hint=KNOB_IN_CODE, line=line))
        if kind != NAME:
            continue
        before, following = _at(tokens, index - 1), _at(tokens, index + 1)
        receiver = None
        if _is(before, OP, u'.'):
            receiver = tokens[index - 2][1] if _is(_at(tokens, index - 2), NAME) else u'?'  # u'?': x().name
        if value in _CALLS and _is(following, OP, u'(') and not (_is(before, NAME) and before[1] in (u'def', u'class')):
            _call_hint(tokens, index, receiver, pairs, from_ssl, imports, hints)
        keyword = _is(following, OP, u'=') and not _is(_at(tokens, index + 2), OP, u'=')
        if value == u'_create_unverified_context':
            hints.append(dict(hint=UNVERIFIED_CONTEXT, line=line))
        elif value == u'_create_default_https_context' and keyword:
            hints.append(dict(hint=CONTEXT_REPLACED, line=line, value=_value_after(tokens, index, pairs)))
        elif value in (u'SSL_VERIFYPEER', u'SSL_VERIFYHOST'):
            hints.append(dict(hint=CURL_VERIFY_OPTION, line=line, option=_native(value)))
        elif value == u'verify' and keyword and (callers or receiver is not None):
            # a keyword of a call, or x.verify = ... (a bare 'verify = ...' is a local variable)
            shown = _value_after(tokens, index, pairs)
            if shown != 'True':
                hints.append(dict(hint=VERIFY_FALSE if shown in ('False', '0') else VERIFY_ARGUMENT, line=line,
                                  call=_native(callers[-1]) if callers and callers[-1] else 'attribute', value=shown))
        elif value == u'cert_reqs' and keyword and callers and callers[-1] and callers[-1] != u'wrap_socket':
            hints.append(dict(hint=CERT_REQS, line=line, call=_native(callers[-1]),
                              value=_value_after(tokens, index, pairs)))
        elif receiver == u'urllib' and value in URLLIB_HTTP_NAMES:
            hints.append(dict(hint=URLLIB_HTTP, line=line, name=_native(value)))
        elif value == u'path' and receiver == u'sys':
            after = _at(tokens, index + 2)
            if (_is(following, OP, u'.') and _is(after, NAME) and after[1] in _SYS_PATH_METHODS) \
                    or (_is(following, OP) and following[1] in (u'=', u'+=')):
                hints.append(dict(hint=SYS_PATH_CHANGE, line=line))
    return hints


def _call_hint(tokens, index, receiver, pairs, from_ssl, imports, hints):
    name, line = tokens[index][1], tokens[index][2]
    arguments = _arguments(tokens, pairs, index + 1)
    positional = len([argument for argument in arguments if argument[0] is None])
    keywords = [argument[0] for argument in arguments]
    first = _at(tokens, arguments[0][1]) if arguments and arguments[0][0] is None else None
    if name == u'wrap_socket':
        if receiver == u'ssl' or (receiver is None and ('wrap_socket' in from_ssl or '*' in from_ssl)):
            # passed by name, maybe in *args or **kwargs, or as ssl.wrap_socket's 5th positional
            cert_reqs = True if 'cert_reqs' in keywords else None if set(keywords) & set(('*', '**')) else (
                positional >= 5)
            given = [_value_after(tokens, first, pairs) for keyword, first, _l in arguments if keyword == 'cert_reqs']
            hints.append(dict(hint=WRAP_SOCKET, line=line, cert_reqs=cert_reqs, value=(given or [None])[0]))
    elif name == u'create_default_context':
        if receiver == u'ssl' or (receiver is None and ('create_default_context' in from_ssl or '*' in from_ssl)):
            hints.append(dict(hint=DEFAULT_CONTEXT, line=line,
                              explicit=[k for k in keywords if k in ('cafile', 'capath', 'cadata')]))
    elif name == u'SSLContext':
        hints.append(dict(hint=SSL_CONTEXT, line=line))
    elif name in _STDLIB_CALLS:
        if _STDLIB_CALLS[name] is None or receiver in _STDLIB_CALLS[name]:
            explicit = [k for k in keywords if k in _EXPLICIT_TRUST or k == '**']
            if name == _URLOPEN and positional >= 4:
                explicit.append('positional')       # urlopen(url, data, timeout, cafile, ...)
            hints.append(dict(hint=STDLIB_CALL, line=line, call=_native(name), explicit=explicit,
                              receiver=_native(receiver) if receiver else None))
    elif name in _CODE_LOADERS or name == u'addsitedir':
        hints.append(dict(hint=SYS_PATH_CHANGE if name == u'addsitedir' else DYNAMIC_IMPORT, line=line,
                          call=_native(name), module=None))
    elif receiver in _DYNAMIC_IMPORTERS[name]:
        module = _literal(first)
        if module is None:
            hints.append(dict(hint=DYNAMIC_IMPORT, line=line, call=_native(name), module=None))
        else:
            imports.append(dict(kind='dynamic', module=module.lstrip('.'), names=[], alias=None, line=line,
                                level=len(module) - len(module.lstrip('.')), call=_native(name)))


def _value_after(tokens, index, pairs):
    """The text of the value after ``name =`` at ``index``, up to a comma, bracket or line end."""
    start = end = index + 2
    while end < len(tokens) and end - start < 40:
        token = tokens[end]
        if token[0] == NEWLINE or (token[0] == OP and token[1] in (u',', u')', u']', u'}', u';')):
            break
        end = pairs.get(end, end) + 1 if token[0] == OP and token[1] in (u'(', u'[', u'{') else end + 1
    return _shown(tokens, start, end - 1)


def _native(value):
    """A name as the native str of this Python, non-ASCII escaped (a module name never has any)."""
    text = value.encode('ascii', 'backslashreplace')
    return text if isinstance(text, str) else text.decode('ascii')
