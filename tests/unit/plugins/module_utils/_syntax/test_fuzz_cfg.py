# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fuzzing the cfg reader/writer over arbitrary bytes and INI-shaped files.

Profiles: PEP493_FUZZ_PROFILE=short (default, make test) or long (make fuzz)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


import pytest
from hypothesis import given, strategies as st

from ansible_collections.pep493.https.plugins.module_utils._syntax import cfg
from ansible_collections.pep493.https.tests.unit.fuzz import FUZZ


SPACE = st.sampled_from([b'', b' ', b'\t', b'  '])
KEY = st.one_of(st.sampled_from([b'verify', b'VERIFY', b'Verify', b'other', b'rem', b'x y']),
                st.binary(min_size=1, max_size=6))
VALUE = st.one_of(st.sampled_from([b'enable', b'disable', b'platform_default', b'', b'""', b'Disable']),
                  st.binary(max_size=10))
COMMENT = st.one_of(st.sampled_from([b'', b' ;c', b';c', b' # c', b'\t; note']), st.binary(max_size=4))


@st.composite
def ini_line(draw):
    kind = draw(st.sampled_from(['section', 'option', 'comment', 'blank', 'continuation', 'raw']))
    if kind == 'section':
        name = draw(st.one_of(st.sampled_from([b'https', b'HTTPS', b'DEFAULT', b'other', b'https ']),
                              st.binary(min_size=1, max_size=6)))
        return b'[' + name + b']' + draw(st.sampled_from([b'', b' x', b' ;c']))
    if kind == 'option':
        return (draw(KEY) + draw(SPACE) + draw(st.sampled_from([b'=', b':'])) + draw(SPACE) + draw(VALUE)
                + draw(COMMENT))
    if kind == 'comment':
        return draw(st.sampled_from([b'#', b';', b'rem ', b'REM'])) + draw(st.binary(max_size=8))
    if kind == 'blank':
        return draw(SPACE)
    if kind == 'continuation':
        return draw(st.sampled_from([b' ', b'\t'])) + draw(VALUE)
    return draw(st.binary(max_size=12))


@st.composite
def ini_files(draw):
    lines = draw(st.lists(ini_line(), max_size=12))
    endings = [draw(st.sampled_from([b'\n', b'\r\n'])) for dummy in lines]
    data = b''.join(line + ending for line, ending in zip(lines, endings))
    if data and draw(st.booleans()):
        data = data.rstrip(b'\r\n')  # no trailing newline
    return data


def about_verify(line):
    if line.kind == cfg.OPTION_LINE:
        return line.option == cfg.OPTION and line.section in (cfg.SECTION, cfg.DEFAULT_SECTION)
    if line.kind == cfg.CONTINUATION:
        return about_verify(line.owner)
    return False


def in_order(needles, haystack):
    """Every item of ``needles`` appears in ``haystack``, in the same order."""
    it = iter(haystack)
    return all(any(item == other for other in it) for item in needles)


@FUZZ
@given(st.one_of(st.binary(max_size=2048), ini_files()))
def test_reader_takes_any_bytes(data):
    parsed = cfg.parse_cfg(data)
    assert parsed.verify in cfg.VALUES
    assert b''.join(line.raw for line in parsed.lines) == data
    for lineno, kind, text in parsed.errors:
        assert kind in (cfg.NO_SECTION, cfg.JUNK) and 1 <= lineno <= len(parsed.lines)
    if parsed.errors:
        with pytest.raises(cfg.MalformedConfigError) as info:
            cfg.effective_verify(data)
        assert 'line %d' % parsed.errors[0][0] in str(info.value)
    else:
        assert cfg.effective_verify(data) == parsed.verify


@FUZZ
@given(ini_files(), st.sampled_from(cfg.VALUES + (None,)))
def test_writer_yields_the_request_and_keeps_the_rest_in_order(data, verify):
    if not cfg.parse_cfg(data).valid:
        repaired = cfg.repair_cfg(data)
        assert cfg.parse_cfg(repaired).valid
        assert len(cfg.split_lines(repaired)) == len(cfg.split_lines(data))
        data = repaired
    before = cfg.parse_cfg(data)
    new = cfg.render_cfg(data, verify)
    after = cfg.parse_cfg(new)
    assert after.valid
    if verify is None:
        assert after.value is None and after.verify == 'platform_default'
    else:
        assert after.value == verify and after.verify == verify
        assert after.verify_keys == 1 or new == data
    kept = [line.raw.rstrip(b'\r\n') for line in before.lines if not about_verify(line)]
    assert in_order(kept, [line.raw.rstrip(b'\r\n') for line in after.lines])
    assert cfg.render_cfg(new, verify) == new  # idempotent to the byte


@FUZZ
@given(st.sampled_from(cfg.VALUES))
def test_new_file_reads_back(verify):
    assert cfg.effective_verify(cfg.new_cfg(verify)) == verify


@FUZZ
@given(ini_files(), st.text(max_size=12))
def test_writer_refuses_values_outside_the_three(data, value):
    if value in cfg.VALUES:
        return
    with pytest.raises((ValueError, cfg.MalformedConfigError)):
        cfg.render_cfg(data, value)
