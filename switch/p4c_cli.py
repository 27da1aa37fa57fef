"""Placeholder entry point for `checkmate-p4c` until issue #3 (embedded P4 compiler) lands."""
import sys

from checkmate.notimpl import not_implemented


def main(argv=None) -> int:
    return not_implemented("checkmate-p4c", "issue #3 (embedded P4 compiler)", argv)


if __name__ == "__main__":
    sys.exit(main())
