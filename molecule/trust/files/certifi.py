"""certifi as Debian and Fedora ship it (python-certifi patched): the system bundle, not a copy
of Mozilla's. requests reads its default bundle from certifi.where()."""
import os

BUNDLES = ("/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt")


def where():
    for path in BUNDLES:
        if os.path.exists(path):
            return path
    return BUNDLES[0]


def contents():
    with open(where()) as handle:
        return handle.read()
