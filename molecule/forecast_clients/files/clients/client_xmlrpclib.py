# -*- coding: utf-8 -*-
"""Test fixture (molecule/forecast_clients): a Python 2 service calling XML-RPC over https with
xmlrpclib (see pep493_client)."""
import xmlrpclib

import pep493_client as client


def attempt():
    return 'XML-RPC %s' % xmlrpclib.ServerProxy(client.URL).ping()


client.run(attempt)
