"""Many hands: run specs and sweeps, chunk execution on a process pool or Dask, precision targets, the duplicate arena, player populations, ev fitting and rule balancing."""
