"""`python -m pbem`, and (with pyproject's script pointing here) the `pbem` command.

A plain `pbem state` or text `pbem report` runs without click (pbem.cli_fast: the
same options, the same bytes); every other command line goes to pbem.cli.

The commands that only read and print (those two, and the help) are short-lived:
they run with the garbage collector off and freeze what they made before Python
exits, so neither collection passes while they import nor the full collection at
interpreter exit (about a tenth of a `pbem state`) is spent on objects the exit
frees anyway.  Commands that write (an order, the host) keep the collector on (a host's
poll tunes it while it handles mail: pbem.host.heap).
"""
import gc
import sys

FAST = ("state", "report")      # pbem.cli_fast.FAST's commands (not imported for the others)
PRINT_ONLY = ([], ["--help"], ["-h"], ["--version"])


def run() -> None:
    args = sys.argv[1:]
    if args[:1] and args[0] in FAST:
        gc.disable()
        from pbem.cli_fast import fast
        code = fast(args)
        if code is not None:
            gc.freeze()
            sys.exit(code)
        gc.enable()                 # click runs it (help, an error, a file to write): as usual
    from pbem.cli import main
    if args not in PRINT_ONLY:
        main()
        return
    gc.disable()
    try:
        main()
    finally:
        gc.freeze()


if __name__ == "__main__":
    run()
