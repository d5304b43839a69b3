#!/usr/bin/env python3
"""Which topology source files call which, from the built objects.

For each object of topology/*.c (given, or found under a build folder's
obj/topology/), nm lists the functions it defines (T) and the ones it calls
from elsewhere (U); a call from one topology file to a function another one
defines is an edge. Prints each file's edges, then the call cycles between
files, and exits 1 if there is one:

    topology/call_graph.py build/obj/topology
"""
import glob
import os
import subprocess
import sys


def symbols(obj):
    out = subprocess.run(['nm', obj], check=True, capture_output=True, text=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == 'T':
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == 'U':
            used.add(parts[1])
    return defined, used


def main(args):
    objs = []
    for a in args or ['build/obj/topology']:
        objs += sorted(glob.glob(os.path.join(a, '*.c.o'))) if os.path.isdir(a) else [a]
    if not objs:
        sys.exit('call_graph.py: no objects (build first; give the obj/topology folder)')
    name = {o: os.path.basename(o)[:-2] for o in objs}  # "topo.c.o" -> "topo.c"
    syms = {name[o]: symbols(o) for o in objs}
    owner = {s: f for f, (d, _) in syms.items() for s in d}
    edges = {f: {} for f in syms}
    for f, (_, used) in syms.items():
        for s in sorted(used):
            if s in owner and owner[s] != f:
                edges[f].setdefault(owner[s], []).append(s)
    for f in sorted(edges):
        print('%s ->%s' % (f, ''.join(' %s(%s)' % (g, ','.join(edges[f][g])) for g in sorted(edges[f])) or ' (none)'))
    # A cycle: a file that reaches itself again.
    cycles = set()
    def walk(path):
        for g in sorted(edges[path[-1]]):
            if g == path[0]:
                cycles.add(' -> '.join(path + [g]))
            elif g not in path and g > path[0]:  # each cycle once, from its first file
                walk(path + [g])
    for f in sorted(edges):
        walk([f])
    print('cycles: %s' % ('none' if not cycles else ''))
    for c in sorted(cycles):
        print('  ' + c)
    return 1 if cycles else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
