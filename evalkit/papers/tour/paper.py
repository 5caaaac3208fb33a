"""The figures the tour sets beside the kit's: TREC-8's qrels size (its data README) and Voorhees (2014)'s
reading of shallow pools, each with the collection it comes from."""

#: judgments in TREC-8's official qrels (the data README): the depth-100 pool of the runs that contributed
TREC8_JUDGMENTS = 86830
#: the collection those figures come from
PAPER_DATASET = "TREC-8"
