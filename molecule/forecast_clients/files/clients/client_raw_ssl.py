# -*- coding: utf-8 -*-
"""Test fixture (molecule/forecast_clients): a Python 2 service that speaks HTTP/1.0 over
ssl.wrap_socket without cert_reqs (see pep493_client); it reads the response by its
Content-Length."""
import socket
import ssl

import pep493_client as client


def attempt():
    connection = ssl.wrap_socket(socket.create_connection((client.HOST, client.PORT), client.TIMEOUT))
    try:
        connection.sendall('GET / HTTP/1.0\r\nHost: %s\r\n\r\n' % client.HOST)
        answer = ''
        while '\r\n\r\n' not in answer:
            chunk = connection.recv(4096)
            if not chunk:
                break
            answer += chunk
        head, _sep, body = answer.partition('\r\n\r\n')
        length = [int(line.split(':', 1)[1]) for line in head.split('\r\n') if line.lower().startswith('content-length:')]
        while length and len(body) < length[0]:
            chunk = connection.recv(4096)
            if not chunk:
                break
            body += chunk
    finally:
        connection.close()
    if not head.startswith('HTTP/1.0 200') or not length or len(body) < length[0]:
        raise IOError('http_error: %r' % answer[:40])
    return 'HTTP 200'


client.run(attempt)
