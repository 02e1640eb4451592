"""rollout: with pep493_https_root the policy is applied to, audited on and rolled back from an
image tree; the host itself is left alone - no file, no daemon-reload, no restart."""

import pytest

import rollout_lib as r

TREE = "/var/tmp/image-root"
SERVER = "/etc/systemd/system/pep493-https-server.service"


def host_view():
    """The canary's own files, whether systemd has reloaded, and whether units restarted."""
    out = r.sh(r.CANARY, "systemctl show -p NeedDaemonReload pep493-https-server.service; "
                         "systemctl show -p InvocationID pep493-https-server.service pep493-client-py2.service")
    return dict(r.host_state(r.CANARY), systemd=out.split())


def tree_files():
    return sorted(r.sh(r.CANARY, "cd %s && find . -type f" % TREE).split())


@pytest.fixture(scope="module")
def runs():
    # a tree with the unit the policy names; a unit file newer than systemd's view of it: a
    # daemon-reload on the host would clear its NeedDaemonReload
    r.sh(r.CANARY, "mkdir -p %s/etc/systemd/system && cp /etc/systemd/system/pep493-client-py2.service "
                   "%s/etc/systemd/system/ && touch %s" % (TREE, TREE, SERVER))
    before = host_view()
    root = "pep493_https_root=" + TREE
    enforce = r.playbook("enforce", "--limit", r.CANARY, "-e", root, "-e", "pep493_https_restart=restart")
    enforced = tree_files()
    rollback = r.playbook("rollback", "--limit", r.CANARY, "-e", root, "-e", "pep493_https_restart=restart")
    yield dict(before=before, enforce=enforce, enforced=enforced, rollback=rollback, rolled_back=tree_files(),
               after=host_view())
    r.sh(r.CANARY, "rm -r %s && systemctl daemon-reload" % TREE)


def test_the_policy_goes_into_the_tree(runs):
    rc, out = runs["enforce"]
    assert rc == 0, out[-3000:]
    assert r.summary(out)[r.CANARY] == (
        "compliant_with_exceptions; cfg missing -> enable; drop-ins added: pep493-client-py2.service; "
        "under root %s: no reload or restart" % TREE)
    assert runs["enforced"] == [
        "./etc/python/cert-verification.cfg", "./etc/python/cert-verification.cfg.pep493-original",
        "./etc/systemd/system/pep493-client-py2.service",
        "./etc/systemd/system/pep493-client-py2.service.d/zz-pep493-https.conf"]


def test_the_rollback_takes_it_out_of_the_tree(runs):
    rc, out = runs["rollback"]
    assert rc == 0, out[-3000:]
    kept = [f for f in runs["rolled_back"] if f.endswith(".before-restore~")]
    assert len(kept) == 1 and kept[0].startswith("./etc/python/cert-verification.cfg."), runs["rolled_back"]
    assert [f for f in runs["rolled_back"] if f not in kept] == [
        "./etc/python/cert-verification.cfg.pep493-original", "./etc/systemd/system/pep493-client-py2.service"]
    assert r.summary(out)[r.CANARY] == (
        "cfg removed: there was no file before its first change (%s/etc/python/cert-verification.cfg.pep493-original);"
        " drop-ins removed: pep493-client-py2.service; under root %s: no reload or restart" % (TREE, TREE))


def test_the_host_itself_is_left_alone(runs):
    assert runs["before"]["systemd"][0] == "NeedDaemonReload=yes"
    assert runs["after"] == runs["before"]
