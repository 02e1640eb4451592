# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The endpoints a service talks to: declared ones (``host:port``) and observed ones.

Observed endpoints are the outgoing TCP connections of a service's processes: the socket
inodes among each process's open files (``/proc/<pid>/fd``), matched with the connections of
its network namespace (``/proc/<pid>/net/tcp`` and ``tcp6``). A connection whose local port
is one the namespace listens on was accepted, not made, and is left out.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import binascii
import os
import re
import socket
import sys
import time

PROC = '/proc'
DEFAULT_PORT = 443
ESTABLISHED = '01'
SYN_SENT = '02'
LISTEN = '0A'
_NAME = re.compile(r'^[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_])?\Z')  # \Z: $ would take a trailing newline


class EndpointError(ValueError):
    pass


def is_ip(host):
    for family in (socket.AF_INET, socket.AF_INET6):
        try:
            socket.inet_pton(family, host)
            return True
        except (socket.error, ValueError):
            continue
    return False


def is_name(host):
    """Whether ``host`` is a DNS host name (not an IP address)."""
    return isinstance(host, (str, type(u''))) and len(host) <= 253 and bool(_NAME.match(host)) and not is_ip(host)


def parse_endpoint(text):
    """(host, port) of ``host:port``, ``[v6 address]:port``, or a host alone (port 443).

    Raises EndpointError naming what is wrong."""
    if not isinstance(text, (str, type(u''))) or not text.strip():
        raise EndpointError('%r is not an endpoint; write host:port, for example ldap.example.com:636' % (text,))
    text = text.strip()
    port_text = None
    if text.startswith('['):
        host, sep, rest = text[1:].partition(']')
        if not sep or (rest and not rest.startswith(':')):
            raise EndpointError('%r: an IPv6 address goes in brackets, then :port, for example [2001:db8::1]:443' % text)
        port_text = rest[1:] if rest else None
        if not is_ip(host) or ':' not in host:
            raise EndpointError('%r: %r in brackets is not an IPv6 address' % (text, host))
    elif text.count(':') > 1:
        if not is_ip(text):
            raise EndpointError('%r: write an IPv6 address in brackets, for example [2001:db8::1]:443' % text)
        host = text
    else:
        host, sep, port_text = text.partition(':')
        port_text = port_text if sep else None
        if not (is_ip(host) or is_name(host)):
            raise EndpointError('%r: %r is not a host name or an IP address' % (text, host))
    if port_text is None:
        return host, DEFAULT_PORT
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise EndpointError('%r: the port must be a number from 1 to 65535' % text)
    return host, int(port_text)


def show(host, port):
    """``host:port`` (an IPv6 address in brackets)."""
    return '[%s]:%d' % (host, port) if ':' in host else '%s:%d' % (host, port)


def _address(text):
    """(ip, port) of a /proc/net/tcp{,6} address: hex words in the host's byte order."""
    address, _sep, port = text.partition(':')
    raw = binascii.unhexlify(address)
    if sys.byteorder == 'little':
        raw = b''.join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
    if len(raw) == 4:
        ip = socket.inet_ntop(socket.AF_INET, raw)
    else:
        ip = socket.inet_ntop(socket.AF_INET6, raw)
        if ip.startswith('::ffff:') and '.' in ip:
            ip = ip[len('::ffff:'):]
    return ip, int(port, 16)


def parse_tcp_table(text):
    """[(local (ip, port), remote (ip, port), state, inode)] of /proc/net/tcp or tcp6."""
    rows = []
    for line in text.splitlines()[1:]:
        fields = line.split()
        if len(fields) < 10:
            continue
        try:
            rows.append((_address(fields[1]), _address(fields[2]), fields[3].upper(), int(fields[9])))
        except (ValueError, TypeError, binascii.Error):
            continue
    return rows


def outgoing(rows, inodes):
    """Remote (ip, port) of the connections among ``rows`` made by the sockets ``inodes``."""
    listening = set(local[1] for local, _remote, state, _inode in rows if state == LISTEN)
    found = set()
    for local, remote, state, inode in rows:
        if inode in inodes and state in (ESTABLISHED, SYN_SENT) and local[1] not in listening:
            found.add(remote)
    return found


def _read(path):
    try:
        with open(path, 'rb') as handle:
            return handle.read().decode('ascii', 'replace')
    except (IOError, OSError):
        return None


def socket_inodes(pid, proc=PROC):
    """The socket inodes among the open files of ``pid`` (empty when it cannot be read)."""
    folder = '%s/%d/fd' % (proc, pid)
    inodes = set()
    try:
        names = os.listdir(folder)
    except OSError:
        return inodes
    for name in names:
        try:
            target = os.readlink(os.path.join(folder, name))
        except OSError:
            continue
        if target.startswith('socket:[') and target.endswith(']'):
            inodes.add(int(target[8:-1]))
    return inodes


def sample(pids, proc=PROC):
    """{pid: set of remote (ip, port)}: one look at the outgoing connections of ``pids``."""
    tables = {}
    found = {}
    for pid in pids:
        inodes = socket_inodes(pid, proc)
        if not inodes:
            continue
        try:
            namespace = os.readlink('%s/%d/ns/net' % (proc, pid))
        except OSError:
            namespace = pid
        if namespace not in tables:
            rows = []
            for name in ('tcp', 'tcp6'):
                rows.extend(parse_tcp_table(_read('%s/%d/net/%s' % (proc, pid, name)) or ''))
            tables[namespace] = rows
        found[pid] = outgoing(tables[namespace], inodes)
    return found


def observe(pids_by_service, seconds=0.0, interval=0.05, proc=PROC, clock=time.time):
    """{service: sorted [(ip, port)]} of every outgoing connection seen over ``seconds`` (one
    look when 0), looking every ``interval`` seconds."""
    end = clock() + max(seconds, 0)
    seen = dict((service, set()) for service in pids_by_service)
    while True:
        for service, pids in pids_by_service.items():
            for remotes in sample(pids, proc).values():
                seen[service].update(remotes)
        if clock() + interval > end:
            break
        time.sleep(interval)
    return dict((service, sorted(remotes)) for service, remotes in seen.items())
