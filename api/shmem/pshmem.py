#!/usr/bin/env python3
"""The profiling interface of shoal's OpenSHMEM layer, made from its built objects.

OpenSHMEM 1.5 ("Profiling Interface") asks for a name-shifted entry
pshmem_<name> of every OpenSHMEM function, through which a profiler that
defines the function's own name reaches the library, with no clash between
the two definitions; and for a header pshmem.h that declares them. The names
that do not start with shmem_ (start_pes, _my_pe, _num_pes, shmalloc, shfree,
shrealloc, shmemalign) get a p in front: pstart_pes, p_my_pe, pshmalloc ...

For each object of api/shmem/ given, this writes a copy (IN.o -> IN<suffix>)
in which

  - every OpenSHMEM function that the objects define (objdump -t: global
    functions named shmem_*, not shmem__*, and the names above) is renamed
    to its p name, and so is every call to one of them: the library's own
    calls (shmem_put64 calls shmem_ctx_putmem) stay inside the library, so
    a profiler counts each of the program's calls once, in a static link as
    through libshoal.so;
  - the function's own name is added back as a weak symbol at the same
    address: the program's calls reach the library, unless a profiler
    defines that name, whose definition then wins, in a static link (a weak
    definition yields to a strong one) as in a dynamic one (the program's
    definitions come first);

and writes pshmem.h: shmem.h run through the C preprocessor, each
declaration of one of those functions under its p name. A function that the
objects define and shmem.h does not declare is an error: a program could not
call it either.

    pshmem.py --header OUT/pshmem.h --suffix .pshmem.o OBJ.o... -- CC CFLAGS...

CC CFLAGS preprocess api/shmem/shmem.h (run from the source tree). OBJCOPY
and OBJDUMP name the tools (default objcopy, objdump).
"""
import os
import re
import subprocess
import sys
import tempfile

# The 1.2 names, which do not start with shmem_.
OLD_NAMES = {'start_pes', '_my_pe', '_num_pes', 'shmalloc', 'shfree', 'shrealloc', 'shmemalign'}
HEADER_IN = 'api/shmem/shmem.h'
OBJCOPY = os.environ.get('OBJCOPY', 'objcopy')
OBJDUMP = os.environ.get('OBJDUMP', 'objdump')


def fail(msg):
    sys.exit('pshmem.py: ' + msg)


def is_openshmem(name):
    return name in OLD_NAMES or re.match(r'shmem_[A-Za-z0-9]', name) is not None


def pname(name):
    return 'p' + name


def defined_functions(obj):
    """{name: (section, value)} of the OpenSHMEM functions obj defines."""
    out = subprocess.run([OBJDUMP, '-t', obj], check=True, capture_output=True, text=True).stdout
    found = {}
    # "0000000000000010 g     F .text\t0000000000000010 shmem_c": value, 7 flag
    # characters (global, weak, ..., function), section, size, name.
    for line in out.splitlines():
        m = re.match(r'^([0-9a-fA-F]+) (.{7}) (\S+)\t[0-9a-fA-F]+\s+(\S+)$', line)
        if not m:
            continue
        value, flags, section, name = m.groups()
        if flags[0] == 'g' and flags[6] == 'F' and section != '*UND*' and is_openshmem(name):
            found[name] = (section, value)
    return found


def shift_objects(objs, suffix):
    defs = {o: defined_functions(o) for o in objs}
    names = set()
    for o, d in defs.items():
        clash = names & set(d)
        if clash:
            fail('%s defined twice (%s and another object)' % (', '.join(sorted(clash)), o))
        names |= set(d)
    with tempfile.TemporaryDirectory(prefix='pshmem-') as tmp:
        renames = os.path.join(tmp, 'renames')
        with open(renames, 'w') as f:
            f.write(''.join('%s %s\n' % (n, pname(n)) for n in sorted(names)))
        for o in objs:
            step = os.path.join(tmp, os.path.basename(o))
            # Definitions and calls alike take the p name ...
            subprocess.run([OBJCOPY, '--redefine-syms=' + renames, o, step], check=True)
            # ... and the own name comes back, weak, where each is defined.
            adds = []
            for n, (section, value) in sorted(defs[o].items()):
                adds += ['--add-symbol', '%s=%s:0x%s,function,weak' % (n, section, value)]
            subprocess.run([OBJCOPY] + adds + [step, o[:-len('.o')] + suffix], check=True)
    return names


def statements(text):
    """Top-level declarations of preprocessed C: split at ';' outside braces,
    and after a function's body."""
    out, start, depth, i, body = [], 0, 0, 0, False
    while i < len(text):
        c = text[i]
        if c in '"\'':
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            i = j
        elif c == '{':
            if depth == 0:
                body = text[start:i].rstrip().endswith(')')
            depth += 1
        elif c == '}':
            depth -= 1
            if depth == 0 and body:
                out.append(text[start:i + 1])
                start = i + 1
        elif c == ';' and depth == 0:
            out.append(text[start:i + 1])
            start = i + 1
        i += 1
    return [' '.join(s.split()) for s in out]


VISIBILITY = re.compile(r'__attribute__\s*\(\(\s*visibility\s*\(\s*"default"\s*\)\s*\)\)\s*')
DECLARATOR = re.compile(r'(?:\(\s*)?\b([A-Za-z_]\w*)\b(?:\s*\))?\s*\(')


def write_header(path, cpp, names):
    text = subprocess.run(cpp + ['-E', '-P', '-x', 'c', HEADER_IN], check=True, capture_output=True,
                          text=True).stdout
    decls, seen = [], set()
    for s in statements(text):
        if '{' in s:
            continue
        m = next((m for m in DECLARATOR.finditer(s) if m.group(1) in names), None)
        if m is None or m.group(1) in seen:
            continue
        seen.add(m.group(1))
        d = s[:m.start(1)] + pname(m.group(1)) + s[m.end(1):]
        d = VISIBILITY.sub('', d).replace('_Noreturn', 'SHMEM__P_NORETURN')
        decls.append(('SHMEM_FUNCTION_ATTRIBUTES ' + d, '_Complex' in d))
    missing = sorted(names - seen)
    if missing:
        fail('%d OpenSHMEM function(s) defined in api/shmem/ have no declaration in %s (or a header it '
             'includes): %s' % (len(missing), HEADER_IN, ', '.join(missing)))
    lines = [
        '/*',
        ' * The profiling interface of shoal\'s OpenSHMEM layer (OpenSHMEM 1.5,',
        ' * "Profiling Interface"): pshmem_<name> for every OpenSHMEM function',
        ' * shmem_<name> of the library, and p<name> for start_pes, _my_pe, _num_pes,',
        ' * shmalloc, shfree, shrealloc and shmemalign. Each is the library\'s routine,',
        ' * which a profiler that defines the routine\'s own name calls; the',
        ' * library\'s own names are weak, and its calls between its routines go to',
        ' * the pshmem_ entries, so a profiler sees each of the program\'s calls once.',
        ' * The C11 generic interfaces are macros over the typed routines, and have',
        ' * no name-shifted form: a profiler intercepts the typed routine they pick.',
        ' * The types and constants are shmem.h\'s.',
        ' *',
        ' * Written by api/shmem/pshmem.py from shmem.h\'s declarations when libshoal',
        ' * is built: edit shmem.h, not this file.',
        ' */',
        '#ifndef PSHMEM_H',
        '#define PSHMEM_H',
        '',
        '#include "shmem.h"',
        '',
        '#ifdef __cplusplus',
        '#define SHMEM__P_NORETURN [[noreturn]]',
        'extern "C" {',
        '#else',
        '#define SHMEM__P_NORETURN _Noreturn',
        '#endif',
        '',
    ]
    lines += [d for d, cplx in decls if not cplx]
    lines += ['', '/* C only: C++ has no _Complex. */', '#ifndef __cplusplus']
    lines += [d for d, cplx in decls if cplx]
    lines += ['#endif', '', '#ifdef __cplusplus', '}', '#endif', '#endif /* PSHMEM_H */', '']
    text = '\n'.join(lines)
    os.makedirs(os.path.dirname(path) or '.', exist_ok=True)
    if not os.path.isfile(path) or open(path).read() != text:
        with open(path + '.tmp', 'w') as f:
            f.write(text)
        os.replace(path + '.tmp', path)
    else:
        os.utime(path)  # newer than the objects it was read from: ninja sees it done
    return len(decls)


def main(argv):
    if '--' not in argv:
        fail('usage: pshmem.py --header OUT.h --suffix SUFFIX OBJ.o... -- CC CFLAGS...')
    cut = argv.index('--')
    args, cpp = argv[:cut], argv[cut + 1:]
    header = suffix = None
    objs = []
    while args:
        a = args.pop(0)
        if a == '--header' and args:
            header = args.pop(0)
        elif a == '--suffix' and args:
            suffix = args.pop(0)
        elif a.endswith('.o'):
            objs.append(a)
        else:
            fail('unexpected argument %r' % a)
    if not header or not suffix or not objs or not cpp:
        fail('usage: pshmem.py --header OUT.h --suffix SUFFIX OBJ.o... -- CC CFLAGS...')
    names = shift_objects(objs, suffix)
    write_header(header, cpp, names)


if __name__ == '__main__':
    main(sys.argv[1:])
