"""The range of relevance grades the kit reads and the internal codes below it (numpy only, so the measures and the
trec_eval command line can name them without importing the collection's pandas and pyarrow).

``GRADE_MIN..GRADE_MAX`` (-2147483646..2147483647) is what a qrels file may hold
(:func:`evalkit.data.trec_files.read_qrels` refuses anything else by file, line and value). Grades looked up for a
ranking use three codes besides the judged grades (:mod:`evalkit.data.collection` says where each comes from):

``UNSAMPLED``  -1            in the qrels with a negative grade (any negative grade of the file reads as this)
``UNJUDGED``   -2**31 + 1    not in the qrels at all
``ABSENT``     -2**31        past the end of the run

``UNJUDGED`` and ``ABSENT`` lie below anything a qrels file can hold. Use the names, never the numbers.
"""

from __future__ import annotations

import numpy as np

GRADE_MIN = -(2**31) + 2
"""The smallest relevance grade read (the two values below it are the codes ``UNJUDGED`` and ``ABSENT``)."""
GRADE_MAX = 2**31 - 1
"""The largest relevance grade read (grades are int32; trec_eval's C long could hold more, refused by name)."""
GRADE_DTYPE = np.int32
UNSAMPLED = -1
UNJUDGED = GRADE_MIN - 1
ABSENT = GRADE_MIN - 2
assert ABSENT == np.iinfo(GRADE_DTYPE).min
