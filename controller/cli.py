"""Placeholder entry point for `checkmate-ctl` until issue #6 (controller and inspection CLI) lands."""
import sys

from checkmate.notimpl import not_implemented


def main(argv=None) -> int:
    return not_implemented("checkmate-ctl", "issue #6 (controller and inspection CLI)", argv)


if __name__ == "__main__":
    sys.exit(main())
