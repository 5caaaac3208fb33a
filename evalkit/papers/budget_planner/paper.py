"""The published figures the planner's notebook sets beside its own, each with the collection it comes from.

The planner is not one paper's replication: it joins topic set size design (Sakai 2016) to the judging designs of
the kit's five papers. Its anchors, and what each says that the notebook checks:

* Tetsuya Sakai, "Topic set size design", Information Retrieval Journal 19(3) 256-283, 2016: the t-test-based,
  ANOVA-based and CI-based designs (Nagata's), from the within-system variance of past score matrices; the
  within-system variance gives smaller topic set sizes than the total variance an earlier paper used; measures
  with larger within-system variances need substantially more topics; analysing the trade-off between topic
  set size and pool depth in advance builds reliable and economical collections. Its collections are TREC and
  NTCIR ones, not loaded by the kit; its topic set size tables are not in the kit's paper folder, so **no value
  of Sakai's is compared here** (the statements are compared in direction only).
* Tetsuya Sakai, "Topic set size design for paired and unpaired data", ICTIR 2018: the unpaired (two-sample)
  t-test and CI designs; one-way ANOVA with two groups is the two-sample t-test.
* William Webber, Alistair Moffat and Justin Zobel, "Statistical power in retrieval experimentation", CIKM 2008:
  power analysis of retrieval experiments; at a fixed assessment budget, more topics judged less deeply buy more
  power than the customary 50 topics judged deeply.
* Ellen M. Voorhees, "Topic set size redux", SIGIR 2009 (poster): splitting 100 TREC topics into halves of 50,
  "fifty-topic sets are clearly too small to have confidence in a conclusion when using a measure as unstable as
  P(10)".
"""

from __future__ import annotations

__all__ = ["REFERENCES", "PAPER_STATEMENTS", "NO_VALUES"]

#: short name -> full reference
REFERENCES = {
    "Sakai 2016": "Tetsuya Sakai. Topic set size design. Information Retrieval Journal 19(3):256-283, 2016.",
    "Sakai 2018": "Tetsuya Sakai. Topic set size design for paired and unpaired data. ICTIR 2018.",
    "Webber, Moffat & Zobel 2008": "William Webber, Alistair Moffat, Justin Zobel. Statistical power in retrieval "
                                   "experimentation. CIKM 2008.",
    "Voorhees 2009": "Ellen M. Voorhees. Topic set size redux. SIGIR 2009 (poster).",
}

NO_VALUES = ("the papers' topic set size tables are not in the kit's paper folder: the statements are compared "
             "in direction, on the loaded collection")

#: the statements the notebook checks: key -> (paper, statement, the collection(s) the paper's figures come from)
PAPER_STATEMENTS = {
    "within_smaller": ("Sakai 2016", "the within-system variance gives smaller topic set sizes than the total "
                                     "variance", "TREC and NTCIR collections of Sakai 2016"),
    "measures_differ": ("Sakai 2016", "measures with larger within-system variances need substantially more topics "
                                      "under the same requirement", "TREC and NTCIR collections of Sakai 2016"),
    "depth_tradeoff": ("Sakai 2016", "analysing the trade-off between topic set size and pool depth builds a "
                                     "reliable collection far more cheaply", "TREC and NTCIR collections of Sakai "
                                                                               "2016"),
    "anova_two_is_t": ("Sakai 2018", "one-way ANOVA over two systems is the two-sample t-test (the same topic set "
                                     "size)", "any"),
    "shallow_wide": ("Webber, Moffat & Zobel 2008", "at a fixed assessment budget, more topics judged less deeply "
                                                    "give more power than 50 topics judged deeply",
                     "TREC ad hoc collections of Webber et al. 2008"),
    "fifty_p10": ("Voorhees 2009", "fifty topics are too few for a measure as unstable as P(10)",
                  "100 TREC topics split in halves (Voorhees 2009)"),
}
