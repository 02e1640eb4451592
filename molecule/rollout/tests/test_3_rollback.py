"""rollout: rollback restores each host's newest cfg backup and removes our drop-ins; a host
without a backup is refused with a clear message unless a value is given."""

import pytest
import testinfra

import pep493_testlib as lib
import rollout_lib as r


@pytest.fixture(scope="module")
def rollback():
    return r.playbook("rollback", "--limit", "%s,%s" % (r.CANARY, r.BOOKWORM))


def test_rollback_passed(rollback):
    rc, out = rollback
    assert rc == 0, out[-3000:]
    assert r.batches(out) == []  # the rollback prints its own batch lines
    assert "host(s) rolled back: %s" % r.CANARY in out


@pytest.mark.parametrize("name, seeded", [
    # the canary's newest backup is the one its repair made: the file as the host arrived
    (r.CANARY, r.SCENARIO + "/files/malformed.cfg"),
    (r.BOOKWORM, r.REPO + "/molecule/shared/rhel7-cert-verification.cfg"),
])
def test_cfg_back_to_its_newest_backup(rollback, name, seeded):
    target = testinfra.get_host("podman://" + name)
    assert target.check_output("sha256sum %s", lib.CFG).split()[0] == r.sha256_of(seeded)
    assert target.file(lib.CFG).mode == 0o644


@pytest.mark.parametrize("name", [r.CANARY, r.BOOKWORM])
def test_dropins_removed(rollback, name):
    target = testinfra.get_host("podman://" + name)
    assert target.run("find %s -name %s", lib.UNIT_DIR, lib.DROPIN_NAME).stdout.split() == []
    env = lib.unit_environment(target, "pep493-client-py2.service" if name == r.CANARY else "pep493-client-py3.service")
    assert not any(x.startswith("PYTHONHTTPSVERIFY=") for x in env)


def test_rollback_without_backup_is_refused_then_done_with_a_value():
    rc, out = r.playbook("rollback", "--limit", r.TRIXIE)
    assert rc != 0
    assert "No backup of /etc/python/cert-verification.cfg was found" in out
    assert r.podman(r.TRIXIE, "grep", "-x", "verify=enable", lib.CFG)[0] == 0
    rc, out = r.playbook("rollback", "--limit", r.TRIXIE, "-e", "pep493_https_rollback_verify=platform_default")
    assert rc == 0, out[-3000:]
    assert r.podman(r.TRIXIE, "grep", "-x", "verify=platform_default", lib.CFG)[0] == 0
