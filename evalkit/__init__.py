"""evalkit: a teaching and replication kit for IR test collections built with incomplete judgments.

Five papers, one notebook each (``notebooks/``), all calling this package:
Voorhees 2014 (sampling strategies), Yilmaz, Kanoulas & Aslam 2008 (infAP CIs, xinfAP, infNDCG),
Soboroff 2007 (pooled vs sampled judgments), Lu, Moffat & Culpepper 2017 (deep metrics from shallow pools),
Carterette 2007 (robust test collections, MTC/RTC).

Start here:

>>> import evalkit
>>> collection = evalkit.load_dataset("synthetic")     # or "trec8", or a directory of runs + qrels
>>> evalkit.evaluate(None, collection, ["AP", "P@10", "nDCG@100"])
"""

from evalkit._lazy import lazy_attributes

# Each name is imported from its module on first use: ``import evalkit`` (and the trec_eval command line, which
# lives in evalkit.trec_eval.cli) does not pay for pandas, pyarrow, scipy or matplotlib.
_WHERE = {
    "Collection": "data.collection", "JudgedSet": "data.collection", "load_dataset": "data.datasets",
    "Qrels": "data.trec_files", "Run": "data.trec_files", "read_qrels": "data.trec_files",
    "read_run": "data.trec_files", "write_qrels": "data.trec_files", "write_run": "data.trec_files",
    "TrecFormatError": "errors", "evaluate": "measures.evaluation", "score_matrix": "measures.evaluation",
    "describe_measures": "measures", "parse_measure": "measures", "ScoreTable": "measures.score_table",
}
__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)

__version__ = "0.1.0"

__all__ = [
    "Collection",
    "JudgedSet",
    "Qrels",
    "Run",
    "ScoreTable",
    "TrecFormatError",
    "describe_measures",
    "evaluate",
    "load_dataset",
    "parse_measure",
    "read_qrels",
    "read_run",
    "score_matrix",
    "write_qrels",
    "write_run",
]
