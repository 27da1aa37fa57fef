"""Placeholder entry point for `checkmate-switch` until issue #4 (embedded switch process and P4Runtime server) lands."""
import sys

from checkmate.notimpl import not_implemented


def main(argv=None) -> int:
    return not_implemented("checkmate-switch", "issue #4 (embedded switch process and P4Runtime server)", argv)


if __name__ == "__main__":
    sys.exit(main())
