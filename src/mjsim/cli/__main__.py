"""`python -m mjsim.cli`: the `mjsim` command (as `python -m mjsim`)."""
from mjsim.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
