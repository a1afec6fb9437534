"""Where chunks run: a local process pool or a Dask cluster."""
