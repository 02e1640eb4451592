# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What one Python source file imports, and the HTTPS usage hints in its text, read from its
bytes by a tokenizer of our own: the interpreter running this scan (2.7.5 to 3.13) is often not
the one the file was written for, so ``ast`` would reject a Python 2 program under Python 3 and
the reverse. Strings (all prefixes, triple quotes, f-strings with nested quotes), comments and
line continuations are skipped as Python's tokenizer does; any byte sequence is accepted, since
bytes are read as Latin-1 (every ASCII-compatible coding keeps its keywords and punctuation).
Hints are patterns in the text, not a run of the program: a call built at run time, an alias or
a branch never taken is not seen, so they can back a forecast but never prove one.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

NAME, STRING, NUMBER, OP, NEWLINE = 'name', 'string', 'number', 'op', 'newline'

# hint kinds (see imports_in_source)
(WRAP_SOCKET, DEFAULT_CONTEXT, SSL_CONTEXT, UNVERIFIED_CONTEXT, CONTEXT_REPLACED, STDLIB_CALL, VERIFY_FALSE,
 VERIFY_ARGUMENT, CERT_REQS, SYS_PATH_CHANGE, DYNAMIC_IMPORT, CURL_VERIFY_OPTION, KNOB_IN_CODE, URLLIB_HTTP) = (
    'ssl_wrap_socket', 'create_default_context', 'ssl_context', 'unverified_context', 'default_context_replaced',
    'stdlib_https_call', 'verify_false', 'verify_argument', 'cert_reqs', 'sys_path_change', 'dynamic_import',
    'curl_verify_option', 'knob_in_code', 'urllib_http')

_PREFIXES = frozenset(('r', 'u', 'b', 'f', 't', 'br', 'rb', 'ur', 'fr', 'rf', 'tr', 'rt'))
_MAX_NESTING = 8            # f-strings inside f-strings; Python itself allows far fewer
_MAX_SHOWN = 80             # characters of an argument kept in a hint
_NAME_RE = re.compile(u'[A-Za-z_\x80-\xff][A-Za-z0-9_\x80-\xff]*')
_SPACE_RE = re.compile(u'[ \t\f\v]+')
_NUMBER_RE = re.compile(u'[0-9][0-9A-Za-z_.]*|\\.[0-9][0-9A-Za-z_]*')
_OP_RE = re.compile(u'\\.\\.\\.|\\*\\*=?|//=?|>>=?|<<=?|->|:=|[-+*/%&|^@<>=!:]=|<>|.', re.S)
_MODULE_RE = re.compile(u'^\\.*[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$|^\\.+$')
_BODY_RE = dict(((quote, fmt), re.compile(u'[\\\\\n' + quote + (u'{}' if fmt else u'') + u']'))
                for quote in u'\'"' for fmt in (False, True))
_SPEC_RE = dict((quote, re.compile(u'[\\\\\n{}' + quote + u']')) for quote in u'\'"')
_FIELD_RE = re.compile(u'[\\\\\n\'"()\\[\\]{}:#]')

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
    text = data.decode('latin-1') if isinstance(data, bytes) else data
    for mark in (u'\ufeff', u'\xef\xbb\xbf'):     # a UTF-8 byte order mark, as text or as its bytes
        text = text[len(mark):] if text.startswith(mark) else text
    text = text.replace(u'\r\n', u'\n').replace(u'\r', u'\n')
    tokens, problems = _tokenize(text)
    imports = _imports(tokens)
    hints = _hints(tokens, imports)
    imports.sort(key=lambda record: record['line'])
    modules = sorted(set('.' * record['level'] + record['module'] for record in imports))
    absolute = any(record['module'] == '__future__' and 'absolute_import' in record['names'] for record in imports)
    return dict(imports=imports, modules=modules, hints=hints, absolute_import=absolute, clean=not problems,
                problems=problems)


# --- tokens -----------------------------------------------------------------------------------

def _tokenize(text):
    """[(kind, value, line, starts_statement)], [problems]. A string's value is its body (None
    for f-strings and unterminated ones); NEWLINE ends a logical line, as in Python."""
    tokens, problems, size = [], [], len(text)
    pos, line, depth, at_start = 0, 1, 0, True
    while pos < size:
        char = text[pos]
        if char == u'\n':
            if depth == 0 and not at_start:
                tokens.append((NEWLINE, None, line, False))
                at_start = True
            pos, line = pos + 1, line + 1
            continue
        if char in u' \t\f\v':
            pos = _SPACE_RE.match(text, pos).end()
            continue
        if char == u'#':
            end = text.find(u'\n', pos)
            pos = size if end < 0 else end
            continue
        if char == u'\\' and text.startswith(u'\\\n', pos):
            pos, line = pos + 2, line + 1
            continue
        quote_at, prefix = None, u''
        if char in u'\'"':
            quote_at = pos
        else:
            match = _NAME_RE.match(text, pos)
            if match is not None:
                end = match.end()
                if end < size and text[end] in u'\'"' and match.group().lower() in _PREFIXES:
                    quote_at, prefix = end, match.group().lower()
                else:
                    tokens.append((NAME, match.group(), line, at_start))
                    at_start = False
                    pos = end
                    continue
        if quote_at is not None:
            quote = text[quote_at]
            width = 3 if text.startswith(quote * 3, quote_at) else 1
            fmt = u'f' in prefix or u't' in prefix
            end, closed = _skip_string(text, quote_at + width, quote, width == 3, fmt, u'r' in prefix, 0)
            if not closed:
                problems.append('unterminated string from line %d' % line)
            value = text[quote_at + width:end - width] if closed and not fmt else None
            tokens.append((STRING, value, line, at_start))
            at_start = False
            line += text.count(u'\n', pos, end)
            pos = end
            continue
        match = _NUMBER_RE.match(text, pos) or _OP_RE.match(text, pos)
        kind = NUMBER if char.isdigit() or (char == u'.' and match.end() > pos + 1 and text[pos + 1].isdigit()) else OP
        value = match.group()
        tokens.append((kind, value, line, at_start))
        pos = match.end()
        if kind == OP and value in (u'(', u'[', u'{'):
            depth += 1
        elif kind == OP and value in (u')', u']', u'}'):
            if depth:
                depth -= 1
            else:
                problems.append('unmatched %s at line %d' % (value, line))
        at_start = kind == OP and depth == 0 and value in (u';', u':')
    if depth:
        problems.append('brackets still open at the end of the file')
    return tokens, problems


def _skip_string(text, pos, quote, triple, fmt, raw, nesting):
    """(position past the string whose body starts at ``pos``, whether it was closed)."""
    size = len(text)
    fmt = fmt and nesting < _MAX_NESTING
    special = _BODY_RE[(quote, fmt)]
    while True:
        match = special.search(text, pos)
        if match is None:
            return size, False
        at = match.start()
        char = text[at]
        if char == u'\\':
            pos = at + 2
            if fmt and not raw and text.startswith(u'N{', at + 1):
                end = text.find(u'}', at)       # \N{NAME}: a named character, no field
                pos = size if end < 0 else end + 1
            elif fmt and text[at + 1:at + 2] in (u'{', u'}'):
                pos = at + 1
        elif char == u'\n':
            if not triple:
                return at, False
            pos = at + 1
        elif char == quote:
            if not triple:
                return at + 1, True
            if text.startswith(quote * 3, at):
                return at + 3, True
            pos = at + 1
        elif char == u'{' and not text.startswith(u'{{', at):
            pos, closed = _skip_field(text, at + 1, quote, triple, nesting + 1)
            if not closed:
                return pos, False
        else:
            pos = at + (2 if text.startswith(char * 2, at) else 1)


def _skip_field(text, pos, quote, triple, nesting):
    """Past the '}' ending an f-string replacement field whose expression starts at ``pos``.
    Strings inside are skipped whole (Python 3.12 lets them reuse the outer quote)."""
    size = len(text)
    floor, level = pos, 0
    while True:
        match = _FIELD_RE.search(text, pos)
        if match is None:
            return size, False
        at = match.start()
        char = text[at]
        pos = at + 1
        if char in u'\'"':
            prefix = _prefix_before(text, at, floor)
            width = 3 if text.startswith(char * 3, at) else 1
            pos, closed = _skip_string(text, at + width, char, width == 3, u'f' in prefix or u't' in prefix,
                                       u'r' in prefix, nesting + 1)
            if not closed:
                return pos, False
        elif char in u'([{':
            level += 1
        elif char in u')]':
            level = max(level - 1, 0)
        elif char == u'}':
            if level == 0:
                return at + 1, True
            level -= 1
        elif char == u':' and level == 0:
            return _skip_spec(text, at + 1, quote, triple, nesting)
        elif char == u'#':
            end = text.find(u'\n', at)
            pos = size if end < 0 else end
        elif char == u'\\':
            pos = at + 2


def _skip_spec(text, pos, quote, triple, nesting):
    """Past the '}' ending a format spec (literal text with nested fields). On the outer
    string's quote or a line end of a one-line string, stops there for the string to decide."""
    size = len(text)
    while True:
        match = _SPEC_RE[quote].search(text, pos)
        if match is None:
            return size, False
        at = match.start()
        char = text[at]
        pos = at + 1
        if char == u'{' and nesting < _MAX_NESTING:
            pos, closed = _skip_field(text, at + 1, quote, triple, nesting + 1)
            if not closed:
                return pos, False
        elif char == u'}':
            return at + 1, True
        elif char == quote and (not triple or text.startswith(quote * 3, at)):
            return at, True
        elif char == u'\n' and not triple:
            return at, True
        elif char == u'\\':
            pos = at + 2


def _prefix_before(text, at, floor):
    start = at
    while start > floor and at - start < 2 and text[start - 1].isalpha():
        start -= 1
    prefix = text[start:at].lower()
    if prefix not in _PREFIXES or (start > floor and _NAME_RE.match(text[start - 1])):
        return u''
    return prefix


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
