# Check the dataset page: roles, ownership (404 for strangers) and deletion.
from django.urls import reverse

from corelsweb.datasets.models import Dataset
from tests.factories import make_dataset


def test_it_saves_roles(alice_client, alice):
    dataset = make_dataset(alice)
    r = alice_client.post(dataset.get_absolute_url(), {"label": "label", "positive_class": "no",
                                                       "ignore": ["c"], "binarization": "quantile:4"})
    assert r.status_code == 302
    dataset.refresh_from_db()
    assert dataset.roles == {"label": "label", "positive_class": "no", "ignore": ["c"]}
    assert dataset.binarization == "quantile:4"


def test_a_positive_class_must_be_a_label_value(alice_client, alice):
    dataset = make_dataset(alice)
    r = alice_client.post(dataset.get_absolute_url(), {"label": "label", "positive_class": "maybe",
                                                       "binarization": "exact"})
    assert r.status_code == 400 and "is not a value of the label" in r.content.decode()


def test_one_column_cannot_play_two_roles(alice_client, alice):
    dataset = make_dataset(alice)
    r = alice_client.post(dataset.get_absolute_url(), {"label": "label", "weight": "label", "binarization": "exact"})
    assert r.status_code == 400 and "two roles" in r.content.decode()


def test_it_checks_ownership(charlie_client, alice):
    dataset = make_dataset(alice)
    assert charlie_client.get(dataset.get_absolute_url()).status_code == 404
    assert charlie_client.post(dataset.get_absolute_url(), {"label": "a"}).status_code == 404
    assert charlie_client.post(reverse("dataset-delete", args=[dataset.pk])).status_code == 404
    assert Dataset.objects.filter(pk=dataset.pk).exists()


def test_it_deletes_the_dataset_and_its_file(alice_client, alice, django_capture_on_commit_callbacks):
    dataset = make_dataset(alice)
    storage, name = dataset.file.storage, dataset.file.name
    with django_capture_on_commit_callbacks(execute=True):
        r = alice_client.post(reverse("dataset-delete", args=[dataset.pk]))
    assert r.status_code == 302
    assert not Dataset.objects.exists()
    assert not storage.exists(name)
