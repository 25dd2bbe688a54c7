# Check text columns with many values and code-like integers on the dataset page: said so, and the user chooses.
import numpy as np

from tests.factories import make_dataset


def many_levels_csv():
    # 2,000 rows: 'tail' has 400 values of 5 rows each (0.25 % of the rows), 'dest' 60 values of which 3 cover
    # 90 % of the rows; 'flight_no' 300 whole numbers.
    rng = np.random.default_rng(0)
    rows = [b"tail,dest,flight_no,distance,label"]
    for i in range(2000):
        dest = b"d%d" % (i % 3) if i % 10 else b"rare%d" % (i % 57)
        label = b"yes" if rng.random() < 0.3 else b"no"
        rows.append(b"N%03d,%s,%d,%d,%s" % (i % 400, dest, i % 300, 100 + i % 97, label))
    return b"\n".join(rows) + b"\n"


def test_it_says_a_many_valued_text_column_is_left_out_by_default(alice_client, alice):
    dataset = make_dataset(alice, data=many_levels_csv(), roles={"label": "label"})
    page = alice_client.get(dataset.get_absolute_url()).content.decode()
    assert "Column &#x27;tail&#x27; has 400 distinct values and none is on 1% of its rows, so it is left out" in page
    assert "the 3 on at least 1% of its rows are kept" in page  # dest
    assert 'name="levels_0"' in page and 'name="levels_1"' in page


def test_it_flags_whole_numbers_named_like_a_code(alice_client, alice):
    dataset = make_dataset(alice, data=many_levels_csv(), roles={"label": "label"})
    page = alice_client.get(dataset.get_absolute_url()).content.decode()
    assert "Column &#x27;flight_no&#x27; holds 300 different whole numbers and its name suggests a code" in page
    assert "Column &#x27;distance&#x27; holds" not in page


def test_the_user_keeps_the_most_frequent_values_or_leaves_the_column_out(alice_client, alice):
    dataset = make_dataset(alice, data=many_levels_csv(), roles={"label": "label"})
    r = alice_client.post(
        dataset.get_absolute_url(), {"label": "label", "binarization": "exact", "levels_0": "top", "levels_1": "out"}
    )
    assert r.status_code == 302
    dataset.refresh_from_db()
    assert dataset.roles["levels"] == {"tail": "top"}
    assert dataset.roles["ignore"] == ["dest"]
    page = alice_client.get(dataset.get_absolute_url()).content.decode()
    assert "tail = N000" in page  # its 50 most frequent values are features now
    r = alice_client.post(
        dataset.get_absolute_url(),
        {"label": "label", "binarization": "exact", "ignore": ["dest"], "levels_1": "frequent"},
    )
    dataset.refresh_from_db()
    assert "dest" not in dataset.roles.get("ignore", [])
