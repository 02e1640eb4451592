# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The start of the runner's payload on the target (Python 2.7.5 - 3.14, standard library only).

The payload carries the sources of the collection's module_utils a module needs and the request
(the checked parameters and how to run). ``main`` installs an importer that serves those sources
from memory - nothing is written to disk - and hands the request to the runner's entry point.
The controller runs this file's text after a line that takes the working folder and the script's
own folder out of ``sys.path``, so that nothing there can stand in for a standard module.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import sys

# Where a traceback says a payload module comes from; no such file: linecache asks get_source().
ORIGIN = '<pep493.https runner payload>'


class PayloadImporter(object):
    """Imports the modules of ``sources`` ({name: source}; ``packages`` likewise, for the
    packages' ``__init__``): Python 2 asks find_module/load_module, Python 3.4+ find_spec."""

    def __init__(self, sources, packages):
        self.sources = dict(sources)
        self.packages = set(packages)
        for name in list(self.sources):
            parts = name.split('.')
            for end in range(1, len(parts)):
                self.packages.add('.'.join(parts[:end]))
        for name in self.packages:
            self.sources.setdefault(name, packages.get(name, ''))

    def _filename(self, fullname):
        tail = '__init__.py' if fullname in self.packages else ''
        path = fullname.replace('.', '/')
        return '%s/%s' % (ORIGIN, path + '/' + tail if tail else path + '.py')

    # Python 3.4+
    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.sources:
            return None
        from importlib.util import spec_from_loader
        spec = spec_from_loader(fullname, self, origin=self._filename(fullname), is_package=fullname in self.packages)
        spec.has_location = True
        return spec

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        self._run(module, module.__name__)

    # Python 2
    def find_module(self, fullname, path=None):
        return self if fullname in self.sources else None

    def load_module(self, fullname):
        if fullname in sys.modules:
            return sys.modules[fullname]
        import imp
        module = imp.new_module(fullname)
        module.__file__ = self._filename(fullname)
        module.__loader__ = self
        if fullname in self.packages:
            module.__path__ = []
            module.__package__ = fullname
        else:
            module.__package__ = fullname.rpartition('.')[0]
        sys.modules[fullname] = module
        try:
            self._run(module, fullname)
        except BaseException:
            del sys.modules[fullname]
            raise
        return module

    # both
    def is_package(self, fullname):
        return fullname in self.packages

    def get_source(self, fullname):
        return self.sources[fullname]

    def _run(self, module, fullname):
        source = self.sources[fullname]
        if sys.version_info[0] == 2:
            source = source.encode('utf-8')  # a coding line in a unicode source is an error on 2
        code = compile(source, self._filename(fullname), 'exec', 0, True)
        exec(code, module.__dict__)


def main(sources_blob, request_blob):
    """Run the request's module: ``sources_blob`` and ``request_blob`` are base64 of zlib of JSON."""
    import base64
    import json
    import zlib
    sources = json.loads(zlib.decompress(base64.b64decode(sources_blob)).decode('utf-8'))
    request = json.loads(zlib.decompress(base64.b64decode(request_blob)).decode('utf-8'))
    sys.meta_path.insert(0, PayloadImporter(sources['modules'], sources['packages']))
    from ansible_collections.pep493.https.plugins.module_utils._runner import entry
    entry.main(request)
