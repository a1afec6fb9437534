"""`python -m mjsim`: the `mjsim` command."""
from mjsim.cli.app import main

if __name__ == "__main__":
    raise SystemExit(main())
