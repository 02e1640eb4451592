# -*- coding: utf-8 -*-
"""Test fixture (molecule/forecast_clients): a Python 2 service on httplib.HTTPSConnection without a
context (see pep493_client)."""
import httplib

import pep493_client as client


def attempt():
    connection = httplib.HTTPSConnection(client.HOST, client.PORT, timeout=client.TIMEOUT)
    try:
        connection.request('GET', '/')
        response = connection.getresponse()
        response.read()
    finally:
        connection.close()
    if response.status != 200:
        raise IOError('http_error: HTTP %d' % response.status)
    return 'HTTP %d' % response.status


client.run(attempt)
