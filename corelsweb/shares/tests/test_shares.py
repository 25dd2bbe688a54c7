# Check share links: unguessable, read-only, signed-out access to one run, revocable, owner-only management.
from django.urls import reverse

from corelsweb.shares.models import ShareLink
from tests.factories import make_finished_run


def make_link(client, run):
    client.post(reverse("share-create", args=[run.pk]))
    return ShareLink.objects.get(run=run)


def test_a_share_link_opens_signed_out_and_read_only(alice_client, alice, client):
    run = make_finished_run(alice)
    link = make_link(alice_client, run)
    assert len(link.token) >= 43  # 32 random bytes
    alice_client.logout()
    r = client.get(link.get_absolute_url())
    assert r.status_code == 200
    page = r.content.decode()
    assert "read-only snapshot" in page and 'data-figure="fig-model"' in page
    assert reverse("run-cancel", args=[run.pk]) not in page and reverse("run-retry", args=[run.pk]) not in page
    assert "csrfmiddlewaretoken" not in page.split("<main>")[1]


def test_a_revoked_link_stops_working(alice_client, alice, client):
    run = make_finished_run(alice)
    link = make_link(alice_client, run)
    alice_client.post(reverse("share-revoke", args=[link.pk]))
    alice_client.logout()
    assert client.get(link.get_absolute_url()).status_code == 404


def test_unknown_and_malformed_tokens_are_404(client, db):
    assert client.get(reverse("share-view", args=["x" * 43])).status_code == 404
    assert client.get(reverse("share-view", args=["y" * 300])).status_code == 404


def test_a_link_shows_only_its_own_run(alice_client, alice, client):
    shared, private = make_finished_run(alice), make_finished_run(alice)
    link = make_link(alice_client, shared)
    alice_client.logout()
    page = client.get(link.get_absolute_url()).content.decode()
    assert f"run #{shared.pk}" in page and f"run #{private.pk}" not in page
    assert client.get(private.get_absolute_url()).status_code == 302  # to sign-in, not the run


def test_only_the_owner_can_make_or_revoke_links(alice_client, alice, charlie):
    run = make_finished_run(alice)
    link = make_link(alice_client, run)
    alice_client.force_login(charlie)
    assert alice_client.post(reverse("share-create", args=[run.pk])).status_code == 404
    assert alice_client.post(reverse("share-revoke", args=[link.pk])).status_code == 404
    link.refresh_from_db()
    assert link.is_active and ShareLink.objects.count() == 1


def test_tokens_are_unique(alice_client, alice):
    run = make_finished_run(alice)
    tokens = {make_link(alice_client, run).token}
    for _ in range(5):
        alice_client.post(reverse("share-create", args=[run.pk]))
    tokens = set(ShareLink.objects.values_list("token", flat=True))
    assert len(tokens) == 6


def test_the_snapshot_is_frozen_and_holds_no_raw_rows_unless_asked(alice_client, alice, client):
    from corelsweb.runs.models import Run

    run = make_finished_run(alice)
    link = make_link(alice_client, run)
    objective = run.result["objective"]
    Run.objects.filter(pk=run.pk).update(result={**run.result, "objective": 0.123456789})
    page = client.get(link.get_absolute_url()).content.decode()
    assert f"{objective:.6f}" in page and "0.123457" not in page
    assert "First rows" not in page and "2.5" not in page  # a raw cell of the small dataset
    alice_client.post(reverse("share-create", args=[run.pk]), {"include_data": "1"})
    with_data = ShareLink.objects.filter(run=run, include_data=True).get()
    assert "First rows" in client.get(with_data.get_absolute_url()).content.decode()


def test_a_running_run_cannot_be_shared(alice_client, alice):
    from corelsweb.runs.models import Run
    from tests.factories import make_run

    run = make_run(alice, status=Run.Status.RUNNING)
    alice_client.post(reverse("share-create", args=[run.pk]))
    assert not ShareLink.objects.exists()
