"""evalkit.data.ordering: the tie orderings both readers use, against Python's sort and numpy's lexsort."""

from __future__ import annotations

import numpy as np
import pytest

from evalkit.data.ordering import segment_then_descending, word_ranks


@pytest.mark.parametrize("width", [1, 2, 3])
def test_word_ranks_order_rows_lexicographically(width):
    rng = np.random.default_rng(width)
    words = rng.integers(0, 4, (500, width)).astype(np.uint64) * np.uint64(2**62)  # many equal rows, top bits used
    ranks = word_ranks(words)
    rows = [tuple(int(x) for x in row) for row in words]
    for i, j in rng.integers(0, len(rows), (2000, 2)):
        assert (ranks[i] < ranks[j]) == (rows[i] < rows[j]) and (ranks[i] == ranks[j]) == (rows[i] == rows[j])
    assert ranks.max() < len(words)


@pytest.mark.parametrize("high", [5000, 2**60])  # the second: the combined key would overflow, lexsort is used
def test_segment_then_descending_equals_lexsort(high):
    rng = np.random.default_rng(3)
    segment = np.sort(rng.integers(0, 300, 5000))
    ranks = rng.permutation(5000) if high == 5000 else rng.integers(0, high, 5000)
    assert len(np.unique(ranks)) == 5000
    expected = np.lexsort((-ranks, segment))
    assert np.array_equal(segment_then_descending(segment, ranks), expected)
    assert len(segment_then_descending(segment[:0], ranks[:0])) == 0
