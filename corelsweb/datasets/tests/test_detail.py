# Check the dataset page: roles, ownership (404 for strangers) and deletion.
from django.urls import reverse

from corelsweb.datasets.models import Dataset
from tests.factories import make_dataset


def test_it_saves_roles(alice_client, alice):
    dataset = make_dataset(alice)
    r = alice_client.post(
        dataset.get_absolute_url(),
        {"label": "label", "positive_class": "no", "ignore": ["c"], "binarization": "quantile:4"},
    )
    assert r.status_code == 302
    dataset.refresh_from_db()
    assert dataset.roles == {"label": "label", "positive_class": "no", "ignore": ["c"]}
    assert dataset.binarization == "quantile:4"


def test_a_positive_class_must_be_a_label_value(alice_client, alice):
    dataset = make_dataset(alice)
    r = alice_client.post(
        dataset.get_absolute_url(), {"label": "label", "positive_class": "maybe", "binarization": "exact"}
    )
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


MIXED = b"id,age,city,size,smoker,label\n" + b"".join(
    b"%d,%d,%s,%s,%s,%s\n"
    % (
        i,
        20 + i % 37,
        b"c%d" % (i % 9),
        [b"small", b"medium", b"large"][i % 3],
        [b"yes", b"no", b"?"][i % 3],
        [b"yes", b"no"][(i // 3) % 2],
    )
    for i in range(120)
)


def post_roles(client, dataset, **fields):
    data = {"label": "label", "binarization": "exact", "ignore": ["id"], **fields}
    return client.post(dataset.get_absolute_url(), data)


def test_the_page_lists_the_binary_features_with_their_support(alice_client, alice):
    dataset = make_dataset(alice, MIXED)
    page = alice_client.get(dataset.get_absolute_url()).content.decode()
    assert "looks like a row identifier" in page and dataset.roles["ignore"] == ["id"]
    assert "age ≤ 20.5" in page and "smoker is missing" in page and "city = c3" in page
    assert "<strong>50</strong> binary features" in page  # 36 age cuts + 9 cities + 3 sizes + yes + missing
    assert 'id="slow-warning"' not in page and 'id="approximate-warning"' not in page


def test_many_features_warn_that_an_exact_search_is_slow(alice_client, alice):
    rows = b"".join(b"%d.5,%d\n" % (i, i % 2) for i in range(150))
    dataset = make_dataset(alice, b"x,label\n" + rows)
    page = alice_client.get(dataset.get_absolute_url()).content.decode()
    assert 'id="slow-warning"' in page and "149 binary features" in page
    assert "Features per column" in page and "x 149" in page
    # Found by trying the app: the warning contradicted the run form's "easy" estimate for the ordered search.
    assert "149 of them are thresholds of numeric columns" in page and "search in order per column" in page


def test_an_approximate_binarization_says_what_it_gives_up(alice_client, alice):
    rows = b"".join(b"%d,%d\n" % (i, int(i % 4 == 0)) for i in range(40))
    dataset = make_dataset(alice, b"x,label\n" + rows)
    r = post_roles(alice_client, dataset, binarization="quantile:4", ignore=[])
    assert r.status_code == 302
    page = alice_client.get(dataset.get_absolute_url()).content.decode()
    assert 'id="approximate-warning"' in page and "gives up the guarantee relative to the raw data" in page
    assert "75.00 %" in page and "100.00 %" in page


def test_it_saves_missing_policies_costs_orders_and_the_category_cap(alice_client, alice):
    dataset = make_dataset(alice, MIXED)
    names = dataset.column_names
    fields = {
        f"missing_{names.index('smoker')}": "drop",
        f"cost_{names.index('age')}": "2.5",
        f"order_{names.index('size')}": "small < medium < large",
        "max_categories": "4",
    }
    r = post_roles(alice_client, dataset, **fields)
    assert r.status_code == 302
    dataset.refresh_from_db()
    assert dataset.roles == {
        "label": "label",
        "ignore": ["id"],
        "missing": {"smoker": "drop"},
        "feature_cost": {"age": 2.5},
        "ordered": {"size": ["small", "medium", "large"]},
        "max_categories": 4,
    }
    page = alice_client.get(dataset.get_absolute_url()).content.decode()
    assert "size ≤ small" in page and "city = other" in page  # the large ones were the rows dropped
    assert "40 rows without a value in &#x27;smoker&#x27; are left out (missing-value policy: drop rows)" in page
    from corelsweb.datasets.services import load_problem

    problem = load_problem(dataset)
    costs = {f["column"]: c for f, c in zip(problem.features, problem.feature_cost)}
    assert costs["age"] == 2.5 and costs["city"] == 1.0


def test_a_bad_order_or_cost_is_a_form_error(alice_client, alice):
    dataset = make_dataset(alice, MIXED)
    names = dataset.column_names
    r = post_roles(alice_client, dataset, **{f"order_{names.index('size')}": "small < large"})
    assert r.status_code == 400 and "&#x27;medium&#x27;, which is not in its declared order" in r.content.decode()
    r = post_roles(alice_client, dataset, **{f"cost_{names.index('age')}": "-1"})
    assert r.status_code == 400
    dataset.refresh_from_db()
    assert "ordered" not in dataset.roles and "feature_cost" not in dataset.roles


def test_roles_that_cannot_work_are_refused_from_the_profile(alice_client, alice):
    dataset = make_dataset(alice, b"x,t,e,g,label\n1,2.5,1,a,y\n2,3,0,b,n\n3,4,2,c,y\n")
    for fields, message in [
        ({"weight": "g"}, "weight column &#x27;g&#x27; must hold numbers"),
        ({"time": "t", "event": "e", "label": ""}, "must be 0 (censored) or 1 (event)"),
        ({"group": "g"}, "must have exactly two values"),
    ]:
        r = alice_client.post(dataset.get_absolute_url(), {"label": "label", "binarization": "exact", **fields})
        assert r.status_code == 400 and message in r.content.decode(), message


def test_what_an_algorithm_needs_is_checked_before_a_run(alice, settings):
    from corelsweb.datasets.services import algorithm_problems
    from solver.registry import Algorithm

    dataset = make_dataset(alice, b"x,label\n1,a\n2,b\n3,c\n")
    two_classes = Algorithm("t", "Two-class trees", "", "x", (), multiclass=False)
    assert (
        "handles two classes; the label &#x27;label&#x27; has 3".replace("&#x27;", "'")
        in algorithm_problems(dataset, two_classes, {})[0]
    )
    costly = Algorithm("c", "Cost trees", "", "x", (), requires=("label", "feature_cost"), multiclass=True)
    assert "needs feature costs" in algorithm_problems(dataset, costly, {})[0]
    dataset.roles = {"label": "label", "feature_cost": {"x": 3.0}}
    assert algorithm_problems(dataset, costly, {}) == []


def test_the_dataset_page_escapes_names_and_values(alice_client, alice):
    dataset = make_dataset(alice, b"<img src=x onerror=alert(1)>,label\n<script>x</script>,a\nb,b\nc,a\n")
    page = alice_client.get(dataset.get_absolute_url()).content.decode()
    assert "<img src=x" not in page and "<script>x" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page and "&lt;script&gt;x&lt;/script&gt;" in page


def test_plot_labels_escape_names_from_the_file(alice, settings):
    from corelsweb.figures import model_figure
    from tests.factories import make_finished_run

    dataset = make_dataset(alice, b"<b>x</b>,label\n0,<i>a</i>\n1,b\n0,<i>a</i>\n1,b\n")
    run = make_finished_run(alice, dataset)
    text = str(model_figure(run.result))
    assert "<b>x</b>" not in text and "&lt;b&gt;x&lt;/b&gt;" in text and "&lt;i&gt;a&lt;/i&gt;" in text


def test_an_r_coded_event_column_is_read_through_the_event_value(alice_client, alice):
    # Check issue 29 item 2: a 1/2 event column is refused with the remedy, and the event value maps it.
    data = b"x,time,event\n" + b"".join(b"%d,%d,%d\n" % (i % 3, 10 + i, 1 + (i % 4 == 0)) for i in range(40))
    dataset = make_dataset(alice, data)
    page = alice_client.get(dataset.get_absolute_url()).content.decode()
    assert "must be 0 (censored) or 1 (event), or say which value means an event" in page.replace("&#x27;", "'")
    r = alice_client.post(dataset.get_absolute_url(), {"time": "time", "event": "event", "event_value": "3"})
    assert r.status_code == 400 and "is not a value of the event column" in r.content.decode()
    r = alice_client.post(dataset.get_absolute_url(), {"time": "time", "event": "event", "event_value": "2"})
    assert r.status_code == 302
    dataset.refresh_from_db()
    assert dataset.roles == {"time": "time", "event": "event", "event_value": ["2"]}
    page = alice_client.get(dataset.get_absolute_url()).content.decode()
    assert "10 events of 40 rows" in page and 'value="2"' in page
