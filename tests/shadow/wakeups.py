"""Counting a thread's wake-ups from outside it: the kernel's voluntary context switches per thread
(``/proc/self/task/TID/status``) -- a count, not a timing, so a test built on it does not depend on
how loaded the machine is."""


def voluntary_switches(tids) -> dict[int, int]:
    """Voluntary context switches so far of each thread ``tid`` of this process (its wake-ups after
    blocking)."""
    out = {}
    for tid in tids:
        with open(f"/proc/self/task/{tid}/status") as f:
            for line in f:
                if line.startswith("voluntary_ctxt_switches:"):
                    out[tid] = int(line.split()[1])
    return out
