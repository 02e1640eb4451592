# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Python tokenizer of our own: tokens, their lines and statement starts, string bodies, and
the names and logical lines it finds in the collection's own host code compared with those the
running Python's ``tokenize`` finds (python_imports.py's imports and hints are tested in
test_python_imports.py, next to this file)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import glob
import io
import os
import tokenize as python_tokenize

import pytest

from ansible_collections.pep493.https.plugins.module_utils._syntax.python_tokens import (
    NAME, NEWLINE, NUMBER, OP, STRING, tokenize)

HOST_CODE = os.path.join(os.path.dirname(os.path.abspath(__file__)), *(['..'] * 5 + ['plugins', 'module_utils']))


def test_tokens_lines_and_statement_starts():
    tokens, problems = tokenize(b'import a.b as c; x = 0x1F\nif y: z(1,\n  2)\n')
    assert problems == []
    assert tokens == [
        (NAME, u'import', 1, True), (NAME, u'a', 1, False), (OP, u'.', 1, False), (NAME, u'b', 1, False),
        (NAME, u'as', 1, False), (NAME, u'c', 1, False), (OP, u';', 1, False), (NAME, u'x', 1, True),
        (OP, u'=', 1, False), (NUMBER, u'0x1F', 1, False), (NEWLINE, None, 1, False),
        (NAME, u'if', 2, True), (NAME, u'y', 2, False), (OP, u':', 2, False), (NAME, u'z', 2, True),
        (OP, u'(', 2, False), (NUMBER, u'1', 2, False), (OP, u',', 2, False), (NUMBER, u'2', 3, False),
        (OP, u')', 3, False), (NEWLINE, None, 3, False)]


@pytest.mark.parametrize('source, values', [
    (b'x = "a" \'b\' """c\nd""" r\'\\e\' B"f" Rb\'g\'', [u'a', u'b', u'c\nd', u'\\e', u'f', u'g']),
    (b'x = u"\\"" + "#not a comment"', [u'\\"', u'#not a comment']),
    # f-strings have no plain value; their fields may hold strings with the outer quote (3.12)
    (b'x = f"{a["k"]!r:>{w}}" + f\'{{\' + "after"', [None, None, u'after']),
    (b'x = f"{f\'{f"{1}"}\'}" + rf"\\N{x}" + "after"', [None, None, u'after']),
])
def test_string_bodies(source, values):
    tokens, problems = tokenize(source)
    assert problems == []
    assert [token[1] for token in tokens if token[0] == STRING] == values


def test_comments_continuations_and_blank_lines_make_no_tokens():
    tokens, problems = tokenize(b'# import a\n\n  \na = \\\n  1  # one\n\n')
    assert problems == []
    assert [(token[0], token[1], token[2]) for token in tokens] == [
        (NAME, u'a', 4), (OP, u'=', 4), (NUMBER, u'1', 5), (NEWLINE, None, 5)]


def test_bytes_text_byte_order_mark_and_line_ends_read_alike():
    data = b'\xef\xbb\xbfa = "\xff"\r\nb = 1\rc = 2\n'
    expected = [(NAME, u'a', 1), (STRING, u'\xff', 1), (NAME, u'b', 2), (NAME, u'c', 3)]
    for source in (data, data.decode('latin-1'), u'\ufeff' + data[3:].decode('latin-1')):
        tokens, problems = tokenize(source)
        assert problems == []
        assert [(t[0], t[1], t[2]) for t in tokens if t[0] in (NAME, STRING)] == expected


@pytest.mark.parametrize('source, problems', [
    (b'x = "open\ny = 1\n', ['unterminated string from line 1']),
    (b'x = """open\n\n', ['unterminated string from line 1']),
    (b'x = f"{a\n', ['unterminated string from line 1']),
    (b'x = (1,\n', ['brackets still open at the end of the file']),
    (b'x = 1)\n', ['unmatched ) at line 1']),
])
def test_what_does_not_tokenize_is_named(source, problems):
    assert tokenize(source)[1] == problems


def _python_names_and_newlines(text):
    """Python's NAME and NEWLINE tokens, without a NEWLINE after a line's last ``:`` or ``;``
    (a statement starts after those anyway, so the tokenizer under test adds none there)."""
    found, last = [], None
    for token in python_tokenize.generate_tokens(io.StringIO(text).readline):
        if token[0] == python_tokenize.NAME:
            found.append((NAME, token[1], token[2][0]))
        elif token[0] == python_tokenize.NEWLINE and token[1] and last not in (u':', u';'):
            found.append((NEWLINE, None, token[2][0]))
        if token[0] not in (python_tokenize.COMMENT, python_tokenize.NL):
            last = token[1]
    return found


@pytest.mark.parametrize('path', sorted(glob.glob(os.path.join(HOST_CODE, '*', '*.py'))),
                         ids=lambda path: os.path.relpath(path, HOST_CODE))
def test_names_and_logical_lines_agree_with_pythons_tokenizer(path):
    # the host code runs on Python 2.7 and 3.6+, so the running Python's tokenizer reads it all
    with io.open(path, encoding='utf-8') as handle:
        text = handle.read()
    tokens, problems = tokenize(text.encode('utf-8'))
    assert problems == []
    ours = [(token[0], token[1], token[2]) for token in tokens if token[0] in (NAME, NEWLINE)]
    assert ours == _python_names_and_newlines(text)


def test_the_host_code_is_found():
    # the comparison above must not pass by having nothing to compare
    found = [os.path.relpath(path, HOST_CODE) for path in glob.glob(os.path.join(HOST_CODE, '*', '*.py'))]
    assert len(found) > 40 and os.path.join('_syntax', 'python_tokens.py') in found
