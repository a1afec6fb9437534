"""`python -m mjsim`: the `mjsim` command."""
from mjsim.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
