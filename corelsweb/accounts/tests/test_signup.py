# Check signing up and signing in.
from django.contrib.auth import get_user_model
from django.urls import reverse


def test_it_signs_up_and_signs_in(client, db):
    r = client.post(
        reverse("signup"),
        {"username": "dana", "password1": "a-long-pass-phrase-9", "password2": "a-long-pass-phrase-9"},
    )
    assert r.status_code == 302
    assert get_user_model().objects.filter(username="dana").exists()
    assert "Workbench" in client.get(reverse("home")).content.decode()


def test_weak_passwords_are_refused(client, db):
    r = client.post(reverse("signup"), {"username": "dana", "password1": "123", "password2": "123"})
    assert r.status_code == 400
    assert not get_user_model().objects.exists()


def test_csrf_is_enforced(db):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    r = strict.post(
        reverse("signup"), {"username": "x", "password1": "a-long-pass-phrase-9", "password2": "a-long-pass-phrase-9"}
    )
    assert r.status_code == 403
