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

from .collection import Collection, JudgedSet
from .datasets import load_dataset
from .evaluation import evaluate, score_matrix
from .io import Qrels, Run, TrecFormatError, read_qrels, read_run, write_qrels, write_run
from .measures import describe_measures, parse_measure

__version__ = "0.1.0"

__all__ = [
    "Collection",
    "JudgedSet",
    "Qrels",
    "Run",
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
