"""The tour's tables: :func:`evalkit.papers.tour.pool_depth_study` returns its table already (one row a pool
depth), and the run means come from :func:`evalkit.evaluate`; nothing is reshaped here."""

__all__: list[str] = []
