"""`mjsim cache`: the per-machine table cache."""
from __future__ import annotations

import contextlib
from pathlib import Path

import typer

from mjsim.cli.common import app, console


@app.command()
def cache(
    clear: bool = typer.Option(False, "--clear", help="Delete every table-cache file (each build rebuilds its own on first use)."),
):
    """List the table-cache files (one per build of the native core, about 79 MB each), or delete them."""
    import datetime

    from mjsim.core import _tables, table_cache

    folder = Path(table_cache.cache_dir())
    mine = _tables.cache_path()
    files = sorted(folder.glob("tables-*.bin")) + sorted(folder.glob(".tables-*")) if folder.is_dir() else []
    if clear:
        freed = 0
        for f in files:
            with contextlib.suppress(FileNotFoundError):
                size = f.stat().st_size
                f.unlink()
                freed += size
        # every mjsim process maps this build's tables on start, so the next command saves them again
        console.print(f"deleted {len(files)} file{'' if len(files) == 1 else 's'} ({freed / 1e6:,.1f} MB) "
                      f"from {folder}; the next mjsim command rebuilds and saves this build's tables "
                      f"(about half a second)", highlight=False, markup=False)
        return
    state = "off (MJSIM_TABLE_CACHE=0)" if mine is None else "on"
    console.print(f"table cache: {folder} ({state})", highlight=False, markup=False)
    for f in files:
        st = f.stat()
        when = datetime.datetime.fromtimestamp(st.st_mtime).strftime("%Y-%m-%d %H:%M")
        note = "  this build" if mine is not None and str(f) == mine else ""
        note = note or ("  unfinished save" if f.name.startswith(".") else "")
        console.print(f"{f.name}  {st.st_size / 1e6:,.1f} MB  last used {when}{note}", highlight=False, markup=False)
    total = sum(f.stat().st_size for f in files)
    console.print(f"{len(files)} file{'' if len(files) == 1 else 's'}, {total / 1e6:,.1f} MB; `mjsim cache --clear` "
                  f"deletes them (a save keeps this build's file and the one most recently used besides it)",
                  highlight=False, markup=False)
