"""One module a paper: pure functions returning DataFrames, called by the notebooks."""
