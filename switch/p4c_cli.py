"""`checkmate-p4c`: compile a P4-16 v1model program for the embedded target.

    checkmate-p4c PROGRAM.p4 -o OUTDIR [--p4runtime-files FILE.p4info.txtpb]
                  [-I DIR ...] [-D NAME[=VALUE] ...]

Writes ``OUTDIR/<name>.json`` (the device config / IR loaded by
``switch.runtime.Pipeline`` and ``checkmate-switch``) and the P4Info in protobuf text
format (``--p4runtime-files``; default ``OUTDIR/<name>.p4info.txtpb``).  A file whose
name ends in ``.json`` or ``.bin`` gets JSON / binary P4Info instead, as with p4c.
Errors are printed as ``file:line:col: error: message`` and exit with status 1.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from google.protobuf import json_format, text_format

from switch.compiler import P4CompileError, compile_file


def _defines(items) -> dict:
    out = {}
    for d in items or ():
        name, _, val = d.partition("=")
        out[name] = val if val else None
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="checkmate-p4c", description=__doc__.split("\n\n")[0])
    ap.add_argument("program", help="P4-16 source file (v1model)")
    ap.add_argument("-o", "--output-dir", default=".", help="output directory (default: .)")
    ap.add_argument("--p4runtime-files", default=None,
                    help="P4Info output file(s), comma separated (.txt/.txtpb: text, .json, .bin)")
    ap.add_argument("-I", dest="include", action="append", default=[], help="include directory")
    ap.add_argument("-D", dest="define", action="append", default=[], help="preprocessor define")
    ap.add_argument("--target", default="bmv2", help="accepted for p4c compatibility (bmv2)")
    ap.add_argument("--arch", default="v1model", help="accepted for p4c compatibility (v1model)")
    args = ap.parse_args(argv)
    if args.arch != "v1model":
        print(f"checkmate-p4c: error: only --arch v1model is supported, not {args.arch}", file=sys.stderr)
        return 2
    try:
        prog = compile_file(args.program, include_dirs=args.include, defines=_defines(args.define))
    except P4CompileError as e:
        print(f"{e.loc}: error: {e.message}", file=sys.stderr)
        return 1
    except OSError as e:
        where = e.filename or args.program
        print(f"{where}:1:1: error: cannot read: {e.strerror or e}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 -- a compiler bug: still no traceback
        print(f"{args.program}:1:1: error: internal compiler error ({type(e).__name__}: {e}); "
              "please report this with the program", file=sys.stderr)
        return 1
    for w in prog.warnings:
        print(w, file=sys.stderr)
    load_error = prog.device_config.get("load_error") if isinstance(prog.device_config, dict) else None
    if load_error:  # p4c compiles it too, silently; BMv2 (and checkmate-switch) will refuse to load it
        print(f"{args.program}: warning: compiled, but simple_switch refuses to load this program: {load_error}",
              file=sys.stderr)
    os.makedirs(args.output_dir, exist_ok=True)
    cfg_path = os.path.join(args.output_dir, f"{prog.name}.json")
    with open(cfg_path, "w", encoding="utf-8") as f:
        json.dump(prog.device_config, f, separators=(",", ":"))
    targets = (args.p4runtime_files.split(",") if args.p4runtime_files
               else [os.path.join(args.output_dir, f"{prog.name}.p4info.txtpb")])
    for path in targets:
        d = os.path.dirname(path)
        if d:
            os.makedirs(d, exist_ok=True)
        if path.endswith(".json"):
            data = json_format.MessageToJson(prog.p4info).encode()
        elif path.endswith(".bin"):
            data = prog.p4info.SerializeToString()
        else:
            data = text_format.MessageToString(prog.p4info).encode()
        with open(path, "wb") as f:
            f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
