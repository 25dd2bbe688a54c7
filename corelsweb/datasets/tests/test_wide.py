# Check a 2,001-column dataset: its page lists every column once, shows the first 100 in the first rows, and
# keeps the columns' histograms out of the rows every page reads.
import numpy as np

from corelsweb.datasets.models import Dataset
from tests.factories import make_dataset


def wide_csv(cols=2001, rows=60):
    rng = np.random.default_rng(0)
    head = ",".join([f"c{j}" for j in range(cols - 1)] + ["label"])
    body = "\n".join(
        ",".join([f"{v:.3f}" for v in rng.normal(size=cols - 1)] + ["yes" if i % 2 else "no"]) for i in range(rows)
    )
    return (head + "\n" + body + "\n").encode()


def test_it_shows_a_wide_dataset(alice_client, alice, settings):
    settings.CORELSWEB_PREVIEW_MAX_CELLS = 1000  # previewed from the stored histograms, not the file
    dataset = make_dataset(alice, data=wide_csv(), roles={"label": "label"})
    page = alice_client.get(dataset.get_absolute_url()).content.decode()
    assert "The first 100 of 2,001 columns" in page
    assert page.count('name="cost_') == 2001
    assert "c1999 ≤" in page or "c0 ≤" in page  # features previewed from the column histograms


def test_it_keeps_histograms_apart_from_the_column_profile(alice):
    dataset = make_dataset(alice, data=wide_csv(cols=5, rows=300), roles={"label": "label"})
    stored = Dataset.objects.get(pk=dataset.pk)
    assert "column_stats" in stored.get_deferred_fields()
    assert all("hist" not in c and "quantile_cuts" not in c for c in stored.columns)
    assert set(stored.column_stats) == {"c0", "c1", "c2", "c3"}
    assert all("hist" in c for c in stored.profile_columns()[:4])
