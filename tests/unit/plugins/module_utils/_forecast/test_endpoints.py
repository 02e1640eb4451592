# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Declared endpoints, /proc/net/tcp{,6} and the connections a process makes."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import socket
import sys
import time

import pytest

from ansible_collections.pep493.https.plugins.module_utils._forecast import endpoints as eps
from ansible_collections.pep493.https.tests.unit import tls_servers


@pytest.mark.parametrize('text, expected', [
    ('ldap.example.com:636', ('ldap.example.com', 636)),
    ('repo.example.com', ('repo.example.com', 443)),
    ('10.0.4.7:8443', ('10.0.4.7', 8443)),
    ('[2001:db8::1]:443', ('2001:db8::1', 443)),
    ('[::1]', ('::1', 443)),
    ('2001:db8::2', ('2001:db8::2', 443)),
    (' host_1.example:1 ', ('host_1.example', 1)),
])
def test_endpoints_parse(text, expected):
    assert eps.parse_endpoint(text) == expected


@pytest.mark.parametrize('text, words', [
    ('', 'not an endpoint'),
    (None, 'not an endpoint'),
    ('host:0', 'port must be a number'),
    ('host:65536', 'port must be a number'),
    ('host:https', 'port must be a number'),
    ('2001:db8::1:443x', 'IPv6 address in brackets'),
    ('[host]:443', 'is not an IPv6 address'),
    ('[::1]443', 'goes in brackets'),
    ('bad host:443', 'is not a host name'),
    (':443', 'is not a host name'),
    ('-lead.example:443', 'is not a host name'),
])
def test_bad_endpoints_are_refused_with_what_is_wrong(text, words):
    with pytest.raises(eps.EndpointError) as info:
        eps.parse_endpoint(text)
    assert words in str(info.value)


def test_show_puts_ipv6_in_brackets():
    assert eps.show('::1', 443) == '[::1]:443'
    assert eps.show('10.0.0.1', 636) == '10.0.0.1:636'


def _hex4(ip, port):
    raw = socket.inet_pton(socket.AF_INET, ip)
    if sys.byteorder == 'little':
        raw = raw[::-1]
    return '%s:%04X' % (''.join('%02X' % c for c in bytearray(raw)), port)


def _hex6(ip, port):
    raw = bytearray(socket.inet_pton(socket.AF_INET6, ip))
    words = [raw[i:i + 4] for i in range(0, 16, 4)]
    if sys.byteorder == 'little':
        words = [w[::-1] for w in words]
    return '%s:%04X' % (''.join('%02X' % c for w in words for c in w), port)


HEADER = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n'


def _row(local, remote, state, inode):
    return '   0: %s %s %s 00000000:00000000 00:00000000 00000000     0        0 %d 1 0 20 4 1 13 -1\n' % (
        local, remote, state, inode)


def test_tcp_tables_are_read_in_the_hosts_byte_order():
    table = HEADER + _row(_hex4('10.1.2.3', 40000), _hex4('192.0.2.9', 443), '01', 77)
    table6 = HEADER + _row(_hex6('2001:db8::5', 40001), _hex6('2001:db8::9', 8443), '01', 78) + _row(
        _hex6('::ffff:10.1.2.3', 40002), _hex6('::ffff:192.0.2.10', 636), '01', 79)
    rows = eps.parse_tcp_table(table) + eps.parse_tcp_table(table6)
    assert [(r[1], r[3]) for r in rows] == [(('192.0.2.9', 443), 77), (('2001:db8::9', 8443), 78),
                                            (('192.0.2.10', 636), 79)]


def test_only_outgoing_connections_of_the_processes_sockets_count():
    table = HEADER + ''.join([
        _row(_hex4('0.0.0.0', 8080), _hex4('0.0.0.0', 0), '0A', 10),            # it listens on 8080
        _row(_hex4('10.0.0.1', 8080), _hex4('10.0.0.2', 51000), '01', 11),       # a client of it
        _row(_hex4('10.0.0.1', 40000), _hex4('192.0.2.1', 443), '01', 12),       # its own connection
        _row(_hex4('10.0.0.1', 40001), _hex4('192.0.2.2', 443), '02', 13),       # connecting
        _row(_hex4('10.0.0.1', 40002), _hex4('192.0.2.3', 443), '06', 14),       # TIME_WAIT
        _row(_hex4('10.0.0.1', 40003), _hex4('192.0.2.4', 443), '01', 99),       # another process's
    ])
    rows = eps.parse_tcp_table(table)
    assert eps.outgoing(rows, set([10, 11, 12, 13, 14])) == set([('192.0.2.1', 443), ('192.0.2.2', 443)])


def test_junk_lines_are_skipped():
    assert eps.parse_tcp_table(HEADER + 'junk\n' + '   0: zz:zz 00:00 01 0 0 0 0 0 0 5\n') == []


def test_a_process_connection_is_observed_and_its_accepted_one_is_not():
    server = tls_servers.Server('black_hole')
    client = socket.create_connection(('127.0.0.1', server.port))
    ephemeral = client.getsockname()[1]
    try:
        for _attempt in range(500):
            if server.connections:
                break
            time.sleep(0.01)
        assert server.connections == 1
        seen = eps.observe({'me.service': [os.getpid()]}, 0)
    finally:
        client.close()
        server.close()
    assert ('127.0.0.1', server.port) in seen['me.service']
    # this process also holds the server side (accepted on a listening port): not an endpoint
    assert ('127.0.0.1', ephemeral) not in seen['me.service']


def test_a_process_that_is_gone_has_no_endpoints():
    assert eps.sample([2 ** 22 + 1]) == {}
