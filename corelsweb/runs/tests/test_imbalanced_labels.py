# Check issue 29 item 1: on an imbalanced label the run form starts from objectives that value the minority class,
# and a result that predicts the majority class for every row says so, even when it is proved optimal.
from django.urls import reverse

from tests.factories import make_dataset, make_finished_run


def imbalanced_csv(rows=200, positives=8, informative=False):
    # Without ``informative``, x and z do not tell the classes apart; with it, x < 7 marks the positives.
    def x(i):
        return (0 if i < positives else 7 + i % 5) if informative else i % 7

    lines = ["x,z,label"] + [f"{x(i)},{i % 3},{'yes' if i < positives else 'no'}" for i in range(rows)]
    return ("\n".join(lines) + "\n").encode()


def form_page(client, dataset, algorithm, query=""):
    return client.get(reverse("run-new", args=[dataset.pk, algorithm]) + query).content.decode()


def test_the_run_form_follows_the_label_balance(alice_client, alice):
    skewed = make_dataset(alice, imbalanced_csv(), name="skewed")
    gosdt = form_page(alice_client, skewed, "gosdt")
    assert '<option value="balanced_accuracy" selected>' in gosdt and 'id="balance-note"' in gosdt
    assert "4.0% of the rows are &#x27;yes&#x27;" in gosdt
    assert '<option value="f1" selected>' in form_page(alice_client, skewed, "streed")
    corels = form_page(alice_client, skewed, "corels")
    assert 'id="balance-note"' in corels and "GOSDT (balanced accuracy, F1)" in corels
    balanced = make_dataset(alice, name="balanced")
    page = form_page(alice_client, balanced, "gosdt")
    assert '<option value="accuracy" selected>' in page and 'id="balance-note"' not in page
    # A link that offers an objective opens the form on it.
    assert '<option value="f1" selected>' in form_page(alice_client, balanced, "gosdt", "?objective=f1")


def test_a_majority_class_model_says_so_under_its_optimal_badge(alice_client, alice):
    dataset = make_dataset(alice, imbalanced_csv(), name="skewed")
    run = make_finished_run(alice, dataset, "osdt", {"regularization": 0.05})
    assert run.result["status"] == "optimal"
    page = alice_client.get(run.get_absolute_url()).content.decode().replace("&#x27;", "'")
    assert "This model predicts 'no' for every row: the majority class (96.0% of the training rows)" in page
    assert "It is the proved optimum of this objective" in page
    gosdt = reverse("run-new", args=[dataset.pk, "gosdt"]) + "?objective=balanced_accuracy"
    assert f'href="{gosdt}"' in page and "STreeD with F1" in page


def test_a_model_that_splits_gets_no_such_note(alice_client, alice):
    dataset = make_dataset(alice, imbalanced_csv(informative=True), name="separable")
    run = make_finished_run(alice, dataset, "osdt", {"regularization": 0.001})
    assert run.result["model"]["feature"][0] >= 0
    assert 'id="constant-model"' not in alice_client.get(run.get_absolute_url()).content.decode()
