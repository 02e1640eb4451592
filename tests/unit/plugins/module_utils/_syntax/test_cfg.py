# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cfg reader/writer against the RHEL 7 parse table of pep493-facts."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.pep493.https.plugins.module_utils._syntax import cfg

SHIPPED = (
    b"# Possible values are:\n"
    b"# 'enable' to ensure HTTPS certificate verification is enabled by default\n"
    b"# 'disable' to ensure HTTPS certificate verification is disabled by default\n"
    b"# 'platform_default' to delegate the decision to the redistributor providing this particular Python version\n"
    b"\n"
    b"# For more info refer to https://www.python.org/dev/peps/pep-0493/\n"
    b"[https]\n"
    b"verify=platform_default\n"
)

# (file content, what RHEL 7's python acts on)
PARSE_TABLE = [
    (b"[https]\nverify=disable\n", 'disable'),
    (b"[https]\nverify = disable\n", 'disable'),
    (b"[https]\nverify: disable\n", 'disable'),
    (b"[https]\nVERIFY=disable\n", 'disable'),
    (b"[https]\nverify=disable ; note\n", 'disable'),
    (b"[https]\nverify=disable\t; note\n", 'disable'),
    (b"[https]\nverify=enable\n", 'enable'),
    (b"[https]\nverify=platform_default\n", 'platform_default'),
    (b"[https]\nverify=Disable\n", 'platform_default'),
    (b"[HTTPS]\nverify=disable\n", 'platform_default'),
    (b"[https ]\nverify=disable\n", 'platform_default'),
    (b"[https]\nverify=disable # note\n", 'platform_default'),
    (b"[https]\nverify=disable;note\n", 'platform_default'),
    (b"[https]\nverify=off\n", 'platform_default'),
    (b"[https]\nverify=\n", 'platform_default'),
    (b"", 'platform_default'),
    (b"# only a comment\n", 'platform_default'),
    (b"[other]\nverify=disable\n", 'platform_default'),
    (b"[https]\nverify=disable\n[https]\nverify=enable\n", 'enable'),
    (b"[https]\nverify=enable\nverify=disable\n", 'disable'),
    (b"[https]\nverify=disable\n[other]\nx=1\n[https]\nkey=v\n", 'disable'),
    (b"[https]\r\nverify=disable\r\n", 'disable'),
    (b"[https]\nverify=disable", 'disable'),
    (b"[https] trailing text\nverify=disable\n", 'disable'),
    # a continuation line joins the value: "disable\nmore" is unknown
    (b"[https]\nverify=disable\n  more\n", 'platform_default'),
    (b"[https]\nverify=disable\n# c\n\tmore\n", 'platform_default'),
    # an indented empty-ish line is blank, not a continuation
    (b"[https]\nverify=disable\n   \n", 'disable'),
    # "rem" at column 0 is a comment
    (b"[https]\nrem verify=enable\nverify=disable\n", 'disable'),
    (b"[https]\nREM x\nverify=disable\n", 'disable'),
    (b"; c\n[https]\nverify=disable\n", 'disable'),
    # [DEFAULT] counts for a section that exists, not for a missing one
    (b"[DEFAULT]\nverify=disable\n[https]\nx=1\n", 'disable'),
    (b"[DEFAULT]\nverify=disable\n", 'platform_default'),
    (b"[DEFAULT]\nverify=disable\n[https]\nverify=enable\n", 'enable'),
    # ';' at the start of a value looks at the value's last character
    (b"[https]\nverify=;disable \n", 'platform_default'),
    (b"[https]\nverify=\"\"\n", 'platform_default'),
    (b"[https]\nverify=disable\xff\n", 'platform_default'),
    (b"# caf\xe9\n[https]\nverify=disable\n", 'disable'),
    (SHIPPED, 'platform_default'),
]

MALFORMED = [
    (b"verify=disable\n[https]\n", [(1, cfg.NO_SECTION)]),
    (b"  \n junk\n", [(2, cfg.NO_SECTION)]),
    (b"[https]\njunk\n", [(2, cfg.JUNK)]),
    (b"[https]\n  verify=disable\n", [(2, cfg.JUNK)]),
    (b"[https]\n  # indented comment after a header\n", [(2, cfg.JUNK)]),
    (b"[https]\nverify=enable\njunk\nmore junk\n", [(3, cfg.JUNK), (4, cfg.JUNK)]),
    (b"[https\nverify=enable\n", [(1, cfg.NO_SECTION), (2, cfg.NO_SECTION)]),
    (b"[https]\n=disable\n", [(2, cfg.JUNK)]),
]


@pytest.mark.parametrize('content, expected', PARSE_TABLE)
def test_reads_as_rhel7(content, expected):
    parsed = cfg.parse_cfg(content)
    assert parsed.valid
    assert parsed.verify == expected
    assert cfg.effective_verify(content) == expected


@pytest.mark.parametrize('content, expected', MALFORMED)
def test_malformed_reports_line_and_kind(content, expected):
    parsed = cfg.parse_cfg(content)
    assert [(n, k) for n, k, t in parsed.errors] == expected
    with pytest.raises(cfg.MalformedConfigError) as info:
        cfg.effective_verify(content)
    assert 'line %d' % expected[0][0] in str(info.value)
    with pytest.raises(cfg.MalformedConfigError):
        cfg.render_cfg(content, 'enable')


def test_duplicates_are_counted():
    parsed = cfg.parse_cfg(b"[https]\nverify=disable\n[https]\nverify=enable\nverify=enable\n")
    info = parsed.as_dict()
    assert (info['https_sections'], info['verify_keys'], info['duplicates']) == (2, 3, True)
    assert not cfg.parse_cfg(SHIPPED).as_dict()['duplicates']


@pytest.mark.parametrize('verify', cfg.VALUES)
def test_shipped_file_changes_only_the_verify_line(verify):
    new = cfg.render_cfg(SHIPPED, verify)
    assert cfg.effective_verify(new) == verify
    expected = SHIPPED.replace(b'verify=platform_default', b'verify=' + verify.encode())
    assert new == expected


def test_unchanged_when_already_in_effect_even_if_spelled_differently():
    content = b"[https]\nVERIFY = enable ; set by hand\n"
    assert cfg.render_cfg(content, 'enable') is content


def test_duplicates_collapse_to_one_verify_in_the_last_place():
    content = b"# top\n[https]\nverify=disable\nother=1\n[x]\ny=2\n[https]\nverify=platform_default\n# end\n"
    new = cfg.render_cfg(content, 'enable')
    assert new == b"# top\n[https]\nother=1\n[x]\ny=2\n[https]\nverify=enable\n# end\n"
    assert cfg.parse_cfg(new).verify_keys == 1


def test_continuation_lines_of_verify_go_with_it():
    content = b"[https]\nverify=disable\n  extra\n# keep\n\tmore\nkey=v\n"
    new = cfg.render_cfg(content, 'enable')
    assert new == b"[https]\nverify=enable\n# keep\nkey=v\n"


def test_continuation_of_another_option_is_kept():
    content = b"[https]\nkey=a\n  b\nverify=disable\n"
    assert cfg.render_cfg(content, 'enable') == b"[https]\nkey=a\n  b\nverify=enable\n"


def test_section_without_verify_gets_one_after_its_last_header():
    content = b"[https]\nkey=v\n[other]\na=b\n[https]\n# c\n"
    new = cfg.render_cfg(content, 'disable')
    assert new == b"[https]\nkey=v\n[other]\na=b\n[https]\nverify=disable\n# c\n"


def test_no_section_appends_one_with_the_files_line_endings():
    content = b"# c\r\n[other]\r\na=b"
    new = cfg.render_cfg(content, 'enable')
    assert new == b"# c\r\n[other]\r\na=b\r\n\r\n[https]\r\nverify=enable\r\n"
    assert cfg.effective_verify(new) == 'enable'


def test_crlf_line_keeps_its_ending():
    content = b"[https]\r\nverify=disable\r\n"
    assert cfg.render_cfg(content, 'enable') == b"[https]\r\nverify=enable\r\n"


def test_no_trailing_newline_is_preserved_on_the_replaced_line():
    assert cfg.render_cfg(b"[https]\nverify=disable", 'enable') == b"[https]\nverify=enable"
    assert cfg.render_cfg(b"[https]", 'enable') == b"[https]\nverify=enable\n"


def test_non_utf8_bytes_survive():
    content = b"# \xff\xfe caf\xe9\n[https]\nverify=disable\nname=\xe9t\xe9\n"
    new = cfg.render_cfg(content, 'enable')
    assert new == content.replace(b'verify=disable', b'verify=enable')


def test_empty_file():
    assert cfg.render_cfg(b"", 'enable') == b"[https]\nverify=enable\n"


def test_absent_removes_every_verify_in_effect_and_nothing_else():
    content = b"[DEFAULT]\nverify=disable\nx=1\n[https]\nverify=enable\n  cont\nkey=v\n[https]\nVerify: disable\n"
    new = cfg.render_cfg(content, None)
    assert new == b"[DEFAULT]\nx=1\n[https]\nkey=v\n[https]\n"
    parsed = cfg.parse_cfg(new)
    assert parsed.value is None and parsed.verify == 'platform_default'


def test_absent_leaves_default_section_alone_without_https():
    content = b"[DEFAULT]\nverify=disable\n"
    assert cfg.render_cfg(content, None) == content


def test_absent_on_file_without_verify_is_unchanged():
    assert cfg.render_cfg(SHIPPED.replace(b'verify=platform_default\n', b''), None) == \
        SHIPPED.replace(b'verify=platform_default\n', b'')


def test_new_file_has_header_and_reads_back():
    for verify in cfg.VALUES:
        content = cfg.new_cfg(verify)
        assert content.startswith(b'#')
        assert b'PEP 493' in content
        for value in cfg.VALUES:
            assert value.encode() in content
        assert content.endswith(b'[https]\nverify=' + verify.encode() + b'\n')
        assert cfg.effective_verify(content) == verify


def test_repair_comments_offending_lines_out():
    content = b"junk before\n[https]\nverify=enable\nnot an option\n"
    repaired = cfg.repair_cfg(content)
    assert repaired == b"#junk before\n[https]\nverify=enable\n#not an option\n"
    assert cfg.parse_cfg(repaired).valid
    assert cfg.effective_verify(repaired) == 'enable'


def test_render_rejects_unknown_value():
    with pytest.raises(ValueError):
        cfg.render_cfg(SHIPPED, 'Enable')


def test_errors_are_text_even_for_odd_bytes():
    parsed = cfg.parse_cfg(b"\xff\xfe junk\n")
    assert parsed.errors[0][2] == u'\ufffd\ufffd junk'
    assert 'line 1' in cfg.format_errors(parsed.errors, '/x.cfg')
