# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Python source as tokens, read from its bytes by a tokenizer of our own: the interpreter running
a scan (2.7.5 to 3.13) is often not the one the file was written for, so ``ast`` would reject a
Python 2 program under Python 3 and the reverse. Strings (all prefixes, triple quotes, f-strings
with nested quotes), comments and line continuations are skipped as Python's tokenizer does; any
byte sequence is accepted, since bytes are read as Latin-1 (every ASCII-compatible coding keeps
its keywords and punctuation).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

NAME, STRING, NUMBER, OP, NEWLINE = 'name', 'string', 'number', 'op', 'newline'

_PREFIXES = frozenset(('r', 'u', 'b', 'f', 't', 'br', 'rb', 'ur', 'fr', 'rf', 'tr', 'rt'))
_MAX_NESTING = 8            # f-strings inside f-strings; Python itself allows far fewer
_NAME_RE = re.compile(u'[A-Za-z_\x80-\xff][A-Za-z0-9_\x80-\xff]*')
_SPACE_RE = re.compile(u'[ \t\f\v]+')
_NUMBER_RE = re.compile(u'[0-9][0-9A-Za-z_.]*|\\.[0-9][0-9A-Za-z_]*')
_OP_RE = re.compile(u'\\.\\.\\.|\\*\\*=?|//=?|>>=?|<<=?|->|:=|[-+*/%&|^@<>=!:]=|<>|.', re.S)
_BODY_RE = dict(((quote, fmt), re.compile(u'[\\\\\n' + quote + (u'{}' if fmt else u'') + u']'))
                for quote in u'\'"' for fmt in (False, True))
_SPEC_RE = dict((quote, re.compile(u'[\\\\\n{}' + quote + u']')) for quote in u'\'"')
_FIELD_RE = re.compile(u'[\\\\\n\'"()\\[\\]{}:#]')


def tokenize(data):
    """The tokens of one Python source file (bytes or text, Python 2 or 3), and the problems met.

    Returns ([(kind, value, line, starts_statement)], [problems]): kind is one of NAME, STRING,
    NUMBER, OP and NEWLINE; a string's value is its body (None for f-strings and unterminated
    ones); NEWLINE ends a logical line, as in Python, but none follows a line's last ``;`` or ``:``;
    starts_statement is True for the first token of a statement (after a line end, ``;`` or a
    block's ``:``). problems is empty when the text tokenized as valid Python would; otherwise it
    says where it did not (an unterminated string, brackets left open).
    """
    text = data.decode('latin-1') if isinstance(data, bytes) else data
    for mark in (u'\ufeff', u'\xef\xbb\xbf'):     # a UTF-8 byte order mark, as text or as its bytes
        text = text[len(mark):] if text.startswith(mark) else text
    text = text.replace(u'\r\n', u'\n').replace(u'\r', u'\n')
    return _tokenize(text)


def _tokenize(text):
    """``tokenize`` of text already decoded, without a byte order mark, with ``\n`` line ends."""
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
