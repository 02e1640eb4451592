#!/usr/bin/env python
"""Make ansible-test's pip bootstrap work with PyPI alone.

ansible-test bootstraps pip in every virtual environment it creates by running
$PEP493_TEST_HOME/.ansible/test/cache/get_pip_<version>.py, which it otherwise downloads from a host that
is not reachable here. This writes such a script for each pip version ansible-test asks
for: it installs the requested packages with pip <version> itself, taken from the
``pip==<version>`` wheel on PyPI, unpacked once (running pip from the zip would leave a
CA-bundle copy in the temp folder on every bootstrap).

Usage: tools/get-pip-cache.py [VERSION ...]   (default: every version listed below)
"""
import os
import subprocess
import sys
import tempfile
import zipfile

# pip versions ansible-test bootstraps: 25.2 for ansible-core 2.20 and 2.21; 24.2 for 2.19;
# 23.1.2 (Python 3.7+), 21.3.1 (3.6) and 20.3.4 (2.7) for ansible-core 2.16.
VERSIONS = ['25.2', '24.2', '23.1.2', '21.3.1', '20.3.4']
# oldest Python each of those pip versions is fetched for (it must run there)
OLDEST_PYTHON = {'20.3.4': '2.7', '21.3.1': '3.6', '23.1.2': '3.7', '24.2': '3.8'}
MARK = '# pep493-https get-pip replacement'

# ansible-test runs with HOME=$PEP493_TEST_HOME (tools/units, tools/sanity), so its cache is there.
_CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(os.environ.get('PEP493_TEST_HOME') or os.path.join(_CHECKOUT, '.cache', 'test-home'),
                     '.ansible', 'test', 'cache')

TEMPLATE = '''#!/usr/bin/env python
%(mark)s for pip %(version)s (written by tools/get-pip-cache.py; delete to rebuild).
# Runs pip %(version)s from its unpacked wheel to install the packages ansible-test asks for.
import os
import sys

PIP_DIR = %(pip_dir)r
WHEEL = %(wheel)r

if not os.path.isdir(os.path.join(PIP_DIR, 'pip')):
    sys.stderr.write('pip %(version)s is missing from %%s: run tools/get-pip-cache.py\\n' %% PIP_DIR)
    sys.exit(1)

args = [a for a in sys.argv[1:] if a not in ('--no-setuptools', '--no-wheel', '--no-pip')]
# pip itself comes from the local wheel; everything else from the configured index.
args = ['install', '--upgrade', '--force-reinstall', '--quiet', '--disable-pip-version-check', '--find-links', os.path.dirname(WHEEL)] + args

sys.path.insert(0, PIP_DIR)
try:
    from pip._internal.cli.main import main
except ImportError:  # pip < 19.3
    from pip._internal import main
sys.exit(main(args))
'''


def find_wheel(folder, version):
    if not os.path.isdir(folder):
        return None
    for name in sorted(os.listdir(folder)):
        if name.startswith('pip-%s-' % version) and name.endswith('.whl'):
            return os.path.join(folder, name)
    return None


def ensure(version):
    base = os.path.join(CACHE, 'pep493-https-pip', version)
    pip_dir = os.path.join(base, 'unpacked')
    wheel_dir = os.path.join(base, 'wheel')
    wheel = find_wheel(wheel_dir, version)
    if not wheel:
        os.makedirs(wheel_dir, exist_ok=True)
        subprocess.check_call([
            sys.executable, '-m', 'pip', 'download', '-q', '--disable-pip-version-check',
            '--no-deps', '--only-binary=:all:', '--python-version', OLDEST_PYTHON.get(version, '3.9'),
            '-d', wheel_dir, 'pip==%s' % version,
        ])
        wheel = find_wheel(wheel_dir, version)
        if not wheel:
            sys.exit('get-pip-cache: pip download did not produce a pip %s wheel in %s' % (version, wheel_dir))
    if not os.path.isdir(os.path.join(pip_dir, 'pip')):
        tmp = tempfile.mkdtemp(dir=base)
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(tmp)
        if os.path.isdir(pip_dir):
            os.rename(pip_dir, pip_dir + '.old-%d' % os.getpid())
        os.chmod(tmp, 0o755)
        os.rename(tmp, pip_dir)

    script = os.path.join(CACHE, 'get_pip_%s.py' % version.replace('.', '_'))
    text = TEMPLATE % dict(mark=MARK, version=version, pip_dir=pip_dir, wheel=wheel)
    current = None
    if os.path.exists(script):
        with open(script) as fh:
            current = fh.read()
        if MARK not in current:
            return 'kept (not ours)'
    if current != text:
        tmp = script + '.tmp'
        with open(tmp, 'w') as fh:
            fh.write(text)
        os.rename(tmp, script)
        return 'written'
    return 'up to date'


def main():
    versions = sys.argv[1:] or VERSIONS
    os.makedirs(CACHE, exist_ok=True)
    for version in versions:
        state = ensure(version)
        if state != 'up to date':
            print('get-pip-cache: pip %s bootstrap script %s' % (version, state))


if __name__ == '__main__':
    main()
