"""Placeholder entry point for `checkmate-shadow` until issue #7 (shadow node) lands."""
import sys

from checkmate.notimpl import not_implemented


def main(argv=None) -> int:
    return not_implemented("checkmate-shadow", "issue #7 (shadow node)", argv)


if __name__ == "__main__":
    sys.exit(main())
