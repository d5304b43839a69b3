#!/usr/bin/env python3
"""Probe the machine and write build.ninja and <builddir>/CTestTestfile.cmake.

    ./configure.py [--debug] [--sanitize[=address,undefined]] [--without-cuda]
                   [--mpi-prefix=DIR] [--hwloc-prefix=DIR] [--prefix=DIR] ...
    ninja              library, shoal-topo, examples, bench, tests
    ninja test         ctest --test-dir build --output-on-failure
    ninja install      headers, libraries, shoal-topo, shoal.pc under --prefix
    ninja run          examples/run.sh <builddir>

Shaped like ninja's own configure.py: probes, options, recorded arguments,
small helpers, rules with gcc depfiles, a regeneration rule and a default
target. Sources are found by glob, so build.ninja also depends on the source
folders and on tests/TESTS: adding or removing a file re-runs this script with
the same arguments (reusing the probe results, which a run by hand redoes).
Python 3 standard library only.
"""

import argparse
import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import types

SRCDIR = os.path.dirname(os.path.abspath(__file__))
CWD = os.getcwd()
# Environment variables that change the build; recorded like the arguments.
RECORDED_ENV = ('CC', 'CFLAGS', 'LDFLAGS', 'CUDA_HOME')
SYSTEM_LIBDIRS = ('/lib', '/lib64', '/usr/lib', '/usr/lib64', '/lib/x86_64-linux-gnu',
                  '/usr/lib/x86_64-linux-gnu')


# ---------------------------------------------------------------- helpers
def error(msg):
    """One line naming what is missing and how to get it, then exit 1."""
    print('configure.py: error: ' + msg, file=sys.stderr)
    sys.exit(1)


def warn(msg):
    print('configure.py: warning: ' + msg, file=sys.stderr)


def sh(args):
    """Quote an argument list for the shell."""
    return ' '.join(shlex.quote(a) for a in args)


def nflags(args):
    """An argument list as a ninja variable value: shell-quoted, $ escaped."""
    return sh(args).replace('$', '$$')


def npath(path):
    """Escape a path for a ninja build line."""
    return path.replace('$', '$$').replace(' ', '$ ').replace(':', '$:')


def capture(cmd):
    """Run cmd; return (exit status, stdout + stderr). A missing program is 127."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
    except OSError as e:
        return 127, str(e)
    return p.returncode, p.stdout


def first_file(candidates):
    return next((c for c in candidates if c and os.path.isfile(c)), None)


def under(root, subdirs, name):
    """The first root/subdir/name that exists, or None."""
    return first_file(os.path.join(root, s, name) for s in subdirs)


def stem(path):
    return os.path.splitext(os.path.basename(path))[0]


def sources(*patterns, exclude=()):
    """Files matching the globs, sorted; a missing folder is an empty list."""
    found = []
    for pattern in patterns:
        found += sorted(f for f in glob.glob(pattern) if os.path.isfile(f))
    return [f for f in found if f not in exclude]


class Writer(object):
    """The few pieces of misc/ninja_syntax.py that this file needs."""

    def __init__(self, path):
        self.out = open(path, 'w')

    def line(self, text=''):
        self.out.write(text + '\n')

    def comment(self, text):
        self.line('# ' + text)

    def variable(self, key, value, indent=0):
        self.line('  ' * indent + '%s = %s' % (key, value))

    def rule(self, name, command, generator=False, **keys):
        self.line('rule ' + name)
        self.variable('command', command, 1)
        for key in ('description', 'depfile', 'deps', 'pool'):
            if keys.get(key):
                self.variable(key, keys[key], 1)
        if generator:
            self.variable('generator', '1', 1)
        self.line()

    def build(self, outputs, rule, inputs=(), implicit=(), implicit_outputs=(), variables=(), order_only=()):
        def paths(items):
            return ' '.join(npath(i) for i in ([items] if isinstance(items, str) else items))
        text = 'build ' + paths(outputs)
        if implicit_outputs:
            text += ' | ' + paths(implicit_outputs)
        text += ': ' + rule + (' ' + paths(inputs) if inputs else '')
        text += ' | ' + paths(implicit) if implicit else ''
        self.line(text + (' || ' + paths(order_only) if order_only else ''))
        for key, value in variables:
            self.variable(key, value, 1)
        return [outputs] if isinstance(outputs, str) else list(outputs)


# ---------------------------------------------------------------- options
parser = argparse.ArgumentParser(
    description='Write build.ninja and <builddir>/CTestTestfile.cmake for shoal.')
parser.add_argument('--prefix', default='/usr/local', help='install prefix (default /usr/local)')
parser.add_argument('--debug', action='store_true', help='-O0 -g instead of -O2 -g')
parser.add_argument('--sanitize', nargs='?', const='address,undefined', metavar='LIST',
                    help='build with -fsanitize=LIST (bare: address,undefined)')
parser.add_argument('--mpi', choices=('mpich', 'openmpi'),
                    help='build with this MPI (default: the one the mpicc on PATH is)')
parser.add_argument('--mpicc', metavar='PATH', help='MPI compiler wrapper whose MPI to build with')
parser.add_argument('--mpi-prefix', metavar='DIR',
                    help='MPICH or Open MPI under DIR (Debian packages unpacked there) instead of mpicc')
parser.add_argument('--mpiexec', metavar='PATH', help="launcher for MPI tests (default: the MPI's own)")
parser.add_argument('--hwloc-prefix', metavar='DIR',
                    help='hwloc under DIR (include/, lib/[x86_64-linux-gnu]) instead of pkg-config')
parser.add_argument('--without-cuda', action='store_true', help='host-only build, even if nvcc exists')
parser.add_argument('--cuda-arch', default='sm_90',
                    help='GPU architectures, comma-separated (default sm_90, the H200)')
parser.add_argument('--test-wrapper', metavar='CMD', default='',
                    help='command put before every test program (after mpiexec -n N), e.g. '
                    '"compute-sanitizer --tool memcheck --error-exitcode 86"')
parser.add_argument('--builddir', default='build', help='output folder (default build)')
parser.add_argument('--ninja-file', default='build.ninja', metavar='PATH',
                    help='where to write the ninja file (default build.ninja; another one, e.g. '
                    'build-asan/build.ninja, leaves the main build alone: ninja -f PATH)')
parser.add_argument('--regenerate', action='store_true', help=argparse.SUPPRESS)  # from ninja
options = parser.parse_args()
ARGV = [a for a in sys.argv[1:] if a != '--regenerate']

# Paths given on the command line are relative to where it was typed.
os.chdir(SRCDIR)
builddir = os.path.normpath(os.path.join(CWD, options.builddir))
builddir = os.path.relpath(builddir) if builddir.startswith(SRCDIR + os.sep) else builddir
ABS_BUILDDIR = os.path.abspath(builddir)
prefix = os.path.normpath(os.path.join(CWD, options.prefix))
ninja_file = os.path.relpath(os.path.normpath(os.path.join(CWD, options.ninja_file)))
mpi_prefix = options.mpi_prefix and os.path.normpath(os.path.join(CWD, options.mpi_prefix))
hwloc_prefix = options.hwloc_prefix and os.path.normpath(os.path.join(CWD, options.hwloc_prefix))


def built(*parts):
    return os.path.join(builddir, *parts)


def obj(src):
    return built('obj', src + '.o')


# ---------------------------------------------------------------- probes
SCRATCH = tempfile.TemporaryDirectory(prefix='shoal-configure-')
MAIN = 'int main(void) { return 0; }\n'
MPI_CODE = ('#include <mpi.h>\nint main(int argc, char **argv)\n'
            '{ MPI_Init(&argc, &argv); return MPI_Finalize(); }\n')
HWLOC_CODE = ('#include <hwloc.h>\n#if HWLOC_API_VERSION < 0x00020000\n#error hwloc 2 needed\n'
              '#endif\nint main(void) { hwloc_topology_t t; hwloc_topology_init(&t);\n'
              '  hwloc_topology_destroy(t); return 0; }\n')
CUDA_CODE = ('#include <cuda_runtime.h>\n__global__ void k(int *p) { *p = 1; }\n'
             'extern "C" int probe(void) { int n = 0; if (cudaGetDeviceCount(&n) == '
             'cudaSuccess && n > 0) k<<<1, 1>>>(0); return n; }\n')


def scratch(code, ext):
    path = os.path.join(SCRATCH.name, 'probe%d%s' % (len(os.listdir(SCRATCH.name)), ext))
    with open(path, 'w') as f:
        f.write(code)
    return path


def links(cc, code, cflags=(), libs=()):
    """Whether cc compiles and links code with those flags."""
    src = scratch(code, '.c')
    return capture([cc] + list(cflags) + [src, '-o', src + '.exe'] + list(libs))[0] == 0


def macro(cc, cflags, header, name):
    """What a macro of a header expands to (quotes stripped), or None."""
    src = scratch('#include <%s>\nshoal_probe_value %s\n' % (header, name), '.c')
    rc, out = capture([cc, '-E', '-P'] + list(cflags) + [src])
    for line in out.splitlines() if rc == 0 else ():
        if line.startswith('shoal_probe_value '):
            value = line.split(None, 1)[1].strip().strip('"')
            return None if value == name else value
    return None


def cuda_arch_flags(spec):
    """-arch for one architecture (SASS + PTX); -gencode each, PTX of the last, for a list."""
    archs = [a.strip() for a in spec.split(',') if a.strip()]
    nums = [re.match(r'^(?:sm_|compute_)?(\d+[a-z]?)$', a) for a in archs]
    if len(archs) == 1:
        return ['-arch=' + ('sm_' + nums[0].group(1) if nums[0] else archs[0])]
    if not all(nums):
        error('--cuda-arch=%s: a list must hold only sm_NN entries' % spec)
    nums = [m.group(1) for m in nums]
    return ['-gencode=arch=compute_%s,code=sm_%s' % (v, v) for v in nums] + [
        '-gencode=arch=compute_%s,code=compute_%s' % (nums[-1], nums[-1])]


def probe_cc(c):
    c.cc = os.environ.get('CC') or shutil.which('cc') or shutil.which('gcc') or 'cc'
    if not links(c.cc, MAIN):
        error('C compiler not found (%s); install Debian package build-essential, or set CC' % c.cc)
    c.cc_version = capture([c.cc, '--version'])[1].splitlines()[0]
    # Undefined behaviour is made fatal so that a test that hits it fails.
    c.sanitize = []
    if options.sanitize:
        c.sanitize = ['-fsanitize=' + options.sanitize, '-fno-omit-frame-pointer']
        if 'undefined' in options.sanitize.split(','):
            c.sanitize.append('-fno-sanitize-recover=undefined')
        if not links(c.cc, MAIN, c.sanitize, c.sanitize):
            error('%s cannot build with %s: unknown sanitizer, or install Debian package '
                  'libasan8 libubsan1' % (c.cc, c.sanitize[0]))


# The two MPIs shoal builds with, and everything that differs between them:
# where a Debian install or an unpacked one keeps them, their launcher, and
# the launcher's settings for shoal's own test and example runs. Nothing else
# in this file, the tests or the scripts knows which MPI it has.
MPIS = {
    'mpich': {
        'title': 'MPICH', 'macro': 'MPICH_VERSION', 'mpicc': 'mpicc.mpich',
        'incs': ('include/x86_64-linux-gnu/mpich', 'include/mpich', 'include'),
        'lib': 'libmpich.so', 'link': ['-lmpich'], 'cxx_libs': [], 'pc': 'mpich',
        'debs': 'libmpich-dev libmpich12 mpich',
        'launchers': ('mpiexec.hydra', 'mpiexec.mpich', 'mpiexec'), 'launcher_says': ('HYDRA',),
        # LAUNCH=keep-going (tests/TESTS): a rank that ends early (the fault
        # tests) does not take the others down
        'keep_going': ['-disable-auto-cleanup'],
        'run_env': [],
    },
    'openmpi': {
        'title': 'Open MPI', 'macro': 'OMPI_MAJOR_VERSION', 'mpicc': 'mpicc.openmpi',
        'incs': ('lib/x86_64-linux-gnu/openmpi/include', 'include/openmpi', 'include'),
        'lib': 'libmpi.so', 'link': ['-lmpi'],
        # its mpi.h declares the C++ bindings for C++ code (Open MPI 4)
        # shoal.pc gives its flags itself (not Requires: ompi-c), putting its
        # include folder, which holds Open MPI's own shmem.h, after shoal's
        'cxx_libs': ['-lmpi_cxx'], 'pc': None,
        'debs': 'libopenmpi-dev libopenmpi3 openmpi-bin openmpi-common',
        'launchers': ('mpirun.openmpi', 'mpiexec.openmpi', 'mpirun', 'mpiexec'),
        'launcher_says': ('Open MPI', 'OpenRTE', 'PRRTE'),
        'keep_going': ['--enable-recovery'],
        # shoal's runs: as root too (CI machines), more ranks than cores (the
        # tests' 4 ranks on 2 cores), and no binding (ranks that spin while
        # waiting would share one core with binding)
        'run_env': ['OMPI_ALLOW_RUN_AS_ROOT=1', 'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1',
                    'OMPI_MCA_rmaps_base_oversubscribe=1', 'OMPI_MCA_hwloc_base_binding_policy=none'],
    },
}


def lib_file(flag, dirs):
    """-lname as the file the linker would take from dirs (lib<name>.so), else as given."""
    if not flag.startswith('-l') or flag.startswith('-l:'):
        return flag
    return first_file(os.path.join(d, 'lib%s.so' % flag[2:]) for d in dirs) or flag


def mpi_kind(c, cflags):
    """Which row of MPIS an mpi.h is, with its version, or (None, description)."""
    if macro(c.cc, cflags, 'mpi.h', 'MPICH_VERSION'):
        return 'mpich', 'MPICH ' + macro(c.cc, cflags, 'mpi.h', 'MPICH_VERSION')
    if macro(c.cc, cflags, 'mpi.h', 'OMPI_MAJOR_VERSION'):
        return 'openmpi', 'Open MPI ' + '.'.join(macro(c.cc, cflags, 'mpi.h', 'OMPI_%s_VERSION' % p)
                                                 for p in ('MAJOR', 'MINOR', 'RELEASE'))
    return None, 'MPI %s.%s' % tuple(macro(c.cc, cflags, 'mpi.h', m) for m in ('MPI_VERSION', 'MPI_SUBVERSION'))


def probe_mpi(c):
    """MPICH or Open MPI: from --mpi-prefix (the GPU machine's unpacked
    packages), from --mpicc, from --mpi (its Debian wrapper), or the mpicc
    on PATH; then that MPI's own launcher, by its explicit name, so that
    nothing builds with one MPI and runs with another."""
    c.mpi_libdirs, c.mpi_pc, c.mpi_prefix_env = [], False, []
    wanted = options.mpi
    if mpi_prefix and options.mpicc:
        error('--mpi-prefix and --mpicc both name an MPI: pass one')
    if mpi_prefix:
        kinds = [wanted] if wanted else list(MPIS)
        for kind in kinds:
            row = MPIS[kind]
            inc = under(mpi_prefix, row['incs'], 'mpi.h')
            lib = under(mpi_prefix, ('lib/x86_64-linux-gnu', 'lib/x86_64-linux-gnu/openmpi/lib', 'lib', 'lib64'),
                        row['lib'])
            if inc and lib:
                break
        else:
            error('MPI not found under %s (%s); unpack the Debian packages of %s there, or pass --mpi'
                  % (mpi_prefix, '; '.join('%s: mpi.h, %s' % (MPIS[k]['title'], MPIS[k]['lib']) for k in kinds),
                     ' or '.join('%s (%s)' % (MPIS[k]['title'], MPIS[k]['debs']) for k in kinds)))
        c.mpi_cflags = ['-I' + os.path.dirname(inc)]
        if kind == 'openmpi' and os.path.isdir(os.path.join(os.path.dirname(inc), 'openmpi')):
            c.mpi_cflags.append('-I' + os.path.join(os.path.dirname(inc), 'openmpi'))
        # the folder of the file the linker takes, and the one the loader
        # finds it in (Open MPI's openmpi/lib holds links to ../../)
        c.mpi_libdirs = list(dict.fromkeys([os.path.dirname(lib), os.path.dirname(os.path.realpath(lib))]))
        c.mpi_libs = ['-L' + c.mpi_libdirs[0]] + row['link']
        c.mpi_origin = '--mpi-prefix=' + mpi_prefix
        bins = [os.path.join(mpi_prefix, 'bin')]
        if kind == 'openmpi':
            # an unpacked Open MPI finds its components and help files from here
            # and its libopen-rte and libopen-pal, which Debian's libmpi
            # (DT_RUNPATH /usr/lib/...) finds only there or on this path
            c.mpi_prefix_env = ['OPAL_PREFIX=' + mpi_prefix,
                                'LD_LIBRARY_PATH=' + os.path.dirname(os.path.realpath(lib))]
            # Debian's packages keep their MCA defaults (osc = ^ucx,pt2pt,
            # pml = ^ucx...) in /etc/openmpi, which an unpacked tree has at
            # <prefix>/../etc/openmpi: Open MPI would look under
            # OPAL_PREFIX/etc instead, find nothing and choose components
            # the packaged library never uses (osc/ucx: every MPI_Win_create
            # fails on a machine without a network)
            params = os.path.join(os.path.dirname(os.path.abspath(mpi_prefix)), 'etc', 'openmpi',
                                  'openmpi-mca-params.conf')
            if os.path.isfile(params):
                c.mpi_prefix_env.append('OMPI_MCA_mca_base_param_files=' + params)
    else:
        if options.mpicc:
            mpicc = os.path.join(CWD, options.mpicc) if os.sep in options.mpicc else shutil.which(options.mpicc)
        else:
            mpicc = shutil.which(MPIS[wanted]['mpicc'] if wanted else 'mpicc')
        given = options.mpicc or (MPIS[wanted]['mpicc'] if wanted else 'mpicc')
        rc, show = capture([mpicc, '-show']) if mpicc else (127, '')
        if rc != 0:
            error('MPI not found (%s); install Debian package %s, or pass --mpi-prefix=DIR'
                  % (given, 'libopenmpi-dev' if wanted == 'openmpi' else 'libmpich-dev'))
        words = shlex.split(show)[1:]
        c.mpi_cflags = [w for w in words if w[:2] in ('-I', '-D')]
        c.mpi_libs = [w for w in words if w not in c.mpi_cflags]
        c.mpi_origin = mpicc
        # the launcher beside the wrapper first (a plain mpicc is Debian's
        # alternatives link: look beside what it stands for as well)
        bins = list(dict.fromkeys([os.path.dirname(mpicc), os.path.dirname(os.path.realpath(mpicc))]))
    if not links(c.cc, MPI_CODE, c.mpi_cflags, c.mpi_libs):
        error('MPI from %s does not compile and link a test program; install Debian package '
              'libmpich-dev (or libopenmpi-dev), or pass --mpi-prefix=DIR' % c.mpi_origin)
    kind, c.mpi_version = mpi_kind(c, c.mpi_cflags)
    if kind is None:
        error('%s is %s, neither MPICH nor Open MPI, the two MPIs shoal builds with' % (c.mpi_origin, c.mpi_version))
    if wanted and kind != wanted:
        error('--mpi=%s, but %s is %s' % (wanted, c.mpi_origin, c.mpi_version))
    row = MPIS[kind]
    c.mpi_kind, c.mpi_row = kind, row
    c.mpi_env = c.mpi_prefix_env + row['run_env']
    # -lmpi by its file: with both MPIs installed, Debian's libmpi.so in the
    # system folder is whichever the alternatives name, and a program's
    # build (Python's, say) may put that folder first.
    dirs = [w[2:] for w in c.mpi_libs if w.startswith('-L')] + list(SYSTEM_LIBDIRS)
    c.mpi_libs = [lib_file(w, dirs) for w in c.mpi_libs]
    c.mpi_cxx_libs = [lib_file(w, dirs) for w in row['cxx_libs']]
    if not links(c.cc, MPI_CODE, c.mpi_cflags, c.mpi_libs):
        error('MPI from %s does not link by its library files (%s)' % (c.mpi_origin, ' '.join(c.mpi_libs)))
    # shoal.pc names the MPI's own .pc only where it describes this very MPI
    if row['pc'] and not mpi_prefix and capture(['pkg-config', '--exists', row['pc']])[0] == 0:
        pc_flags = shlex.split(capture(['pkg-config', '--cflags-only-I', row['pc']])[1])
        c.mpi_pc = row['pc'] if set(pc_flags) <= set(c.mpi_cflags) else False
    names = row['launchers']
    if options.mpiexec:
        mpiexec = os.path.join(CWD, options.mpiexec) if os.sep in options.mpiexec else shutil.which(options.mpiexec)
    else:
        named = mpi_prefix or options.mpicc  # that MPI's own folder only
        mpiexec = first_file([os.path.join(b, n) for b in bins for n in names] +
                             ([] if named else [shutil.which(n) for n in names if '.' in n]))
    if not mpiexec or not os.access(mpiexec, os.X_OK):
        error('%s\'s launcher not found (%s); install Debian package %s, or pass --mpiexec=PATH'
              % (row['title'], options.mpiexec or 'looked for ' + ', '.join(names),
                 row['debs'].split()[-1] if kind == 'mpich' else 'openmpi-bin'))
    c.mpiexec = os.path.abspath(mpiexec)
    # A launcher of the other MPI starts N one-rank jobs: refuse it here.
    says = capture(['env'] + c.mpi_env + [c.mpiexec, '--version'])[1]
    other = [MPIS[k]['title'] for k in MPIS if k != kind and any(m in says for m in MPIS[k]['launcher_says'])]
    if not other and not any(m in says for m in row['launcher_says']):
        warn('%s --version names neither MPI (%r): make sure it is %s\'s launcher'
             % (c.mpiexec, says.strip()[:80], row['title']))
    if other:
        error('%s is %s\'s launcher, but shoal builds with %s (%s): pass --mpiexec=%s\'s launcher (%s)'
              % (c.mpiexec, other[0], c.mpi_version, c.mpi_origin, row['title'], ' or '.join(names)))


def probe_hwloc(c):
    """hwloc 2.x: explicit folders, pkg-config, or the compiler's default paths."""
    c.hwloc_libdirs, c.hwloc_pc = [], False
    if hwloc_prefix:
        lib = under(hwloc_prefix, ('lib/x86_64-linux-gnu', 'lib', 'lib64'), 'libhwloc.so')
        if not os.path.isfile(os.path.join(hwloc_prefix, 'include', 'hwloc.h')) or not lib:
            error('hwloc not found under %s (include/hwloc.h, libhwloc.so); unpack Debian '
                  'packages libhwloc-dev libhwloc15 there' % hwloc_prefix)
        c.hwloc_libdirs = [os.path.dirname(lib)]
        # Debian keeps hwloc/autogen/config.h (HWLOC_VERSION) in the multiarch folder.
        c.hwloc_cflags = ['-I' + d for d in (hwloc_prefix + '/include', hwloc_prefix +
                                             '/include/x86_64-linux-gnu') if os.path.isdir(d)]
        c.hwloc_libs = ['-L' + c.hwloc_libdirs[0], '-lhwloc']
        c.hwloc_origin = '--hwloc-prefix=' + hwloc_prefix
    else:
        rc, flags = capture(['pkg-config', '--cflags', '--libs', 'hwloc'])
        c.hwloc_pc = rc == 0
        words = shlex.split(flags) if c.hwloc_pc else ['-lhwloc']
        c.hwloc_cflags = [w for w in words if w[:2] in ('-I', '-D')]
        c.hwloc_libs = [w for w in words if w not in c.hwloc_cflags]
        c.hwloc_origin = 'pkg-config hwloc' if c.hwloc_pc else 'default paths, no hwloc.pc'
    if not links(c.cc, HWLOC_CODE, c.hwloc_cflags, c.hwloc_libs):
        error('hwloc 2.x not found (%s); install Debian package libhwloc-dev, or pass '
              '--hwloc-prefix=DIR' % c.hwloc_origin)
    c.hwloc_version = macro(c.cc, c.hwloc_cflags, 'hwloc.h', 'HWLOC_VERSION') or '2.x'


def probe_cuda(c):
    """Optional: without nvcc the build is host-only; an nvcc that fails is an error."""
    home = os.environ.get('CUDA_HOME')
    c.nvcc = None if options.without_cuda else first_file(
        [home and os.path.join(home, 'bin', 'nvcc'), shutil.which('nvcc'), '/usr/local/cuda/bin/nvcc'])
    if not c.nvcc:
        return
    root = os.path.dirname(os.path.dirname(os.path.realpath(c.nvcc)))
    inc = under(root, ('include', 'targets/x86_64-linux/include'), 'cuda_runtime.h')
    lib = under(root, ('lib64', 'targets/x86_64-linux/lib', 'lib/x86_64-linux-gnu'),
                'libcudart_static.a')
    if not inc or not lib:
        error('%s has no cuda_runtime.h or libcudart_static.a beside it; pass --without-cuda' % c.nvcc)
    c.cuda_inc = os.path.dirname(inc)
    c.cuda_libs = ['-L' + os.path.dirname(lib), '-lcudart_static', '-ldl', '-lrt', '-lpthread',
                   '-lstdc++']
    version = re.search(r'release ([\d.]+)', capture([c.nvcc, '--version'])[1])
    c.cuda_version = version.group(1) if version else '?'
    c.arch_flags = cuda_arch_flags(options.cuda_arch)
    c.nvcc_flags = ['-std=c++17', '-O0' if options.debug else '-O2', '-g', '-lineinfo',
                    '-rdc=false', '-DSHOAL_HAVE_CUDA=1', '-Xcompiler', '-fPIC'] + c.arch_flags
    for flag in c.sanitize:  # nvcc splits -Xcompiler values at commas: one flag each
        opt, _, kinds = flag.partition('=')
        c.nvcc_flags += sum((['-Xcompiler', opt + '=' + k] for k in kinds.split(',')), []) \
            if kinds else ['-Xcompiler', flag]
    if os.environ.get('CC'):
        c.nvcc_flags += ['-ccbin', c.cc]
    cu = scratch(CUDA_CODE, '.cu')
    rc, log = capture([c.nvcc] + c.nvcc_flags + ['-c', cu, '-o', cu + '.o'])
    if rc != 0:
        error('%s fails on a test kernel with %s (%s); pass --without-cuda or another --cuda-arch'
              % (c.nvcc, ' '.join(c.arch_flags), (log.strip().splitlines() or ['?'])[-1].strip()))
    if not links(c.cc, 'int probe(void);\nint main(void) { return probe() < 0; }\n',
                 c.sanitize, [cu + '.o'] + c.sanitize + c.cuda_libs):
        error('%s cannot link libcudart_static.a from %s; pass --without-cuda'
              % (c.cc, os.path.dirname(lib)))


# A run by hand probes; ninja's regeneration reuses the results of the last
# probe made with the same arguments, environment and configure.py.
recorded_env = ['%s=%s' % (k, os.environ[k]) for k in RECORDED_ENV if os.environ.get(k)]
with open(os.path.join(SRCDIR, 'configure.py'), 'rb') as f:
    probe_key = [ARGV, recorded_env, CWD, hashlib.sha1(f.read()).hexdigest()]
probe_cache = built('probes.json')
cfg = None
if options.regenerate and os.path.isfile(probe_cache):
    cached = json.load(open(probe_cache))
    cfg = types.SimpleNamespace(**cached['result']) if cached['key'] == probe_key else None
if cfg is None:
    cfg = types.SimpleNamespace()
    for probe in (probe_cc, probe_mpi, probe_hwloc, probe_cuda):
        probe(cfg)
    os.makedirs(builddir, exist_ok=True)
    json.dump({'key': probe_key, 'result': vars(cfg)}, open(probe_cache, 'w'), indent=1)
cc, nvcc, sanitize = cfg.cc, cfg.nvcc, cfg.sanitize

# ---------------------------------------------------------------- flags
WARN = ['-Wall', '-Wextra', '-Wshadow', '-Wstrict-prototypes',
        '-Werror=implicit-function-declaration']
OPT = ['-O0', '-g'] if options.debug else ['-O2', '-g']
cuda_cflags = ['-DSHOAL_HAVE_CUDA=1', '-I' + cfg.cuda_inc] if nvcc else ['-DSHOAL_HAVE_CUDA=0']
base_cflags = ['-std=c11', '-D_GNU_SOURCE'] + OPT + WARN + ['-fPIC'] + sanitize + cuda_cflags
user_cflags = shlex.split(os.environ.get('CFLAGS', ''))
INTERNAL = ['-Iapi', '-Iapi/shmem', '-Iapi/nvshmem', '-Iruntime', '-Itopology']
deps_cflags = cfg.mpi_cflags + cfg.hwloc_cflags
test_inc = ['-Itests'] + (['-Itests/common'] if os.path.isdir('tests/common') else [])
test_inc += ['-I' + built('api', 'shmem')]  # pshmem.h, written by the build
# The library and the tests see the internal headers and hide symbols by
# default (the library exports through SHOAL_EXPORT). The tool, examples and
# bench are users of the public library: public headers, default visibility.
# -fno-semantic-interposition: the library binds its own calls (-Bsymbolic-functions
# below), so the compiler may inline one exported function into another
# (shmem_long_atomic_add into shmem_ctx_long_atomic_add's body, say).
# MPI's and hwloc's folders come last: Open MPI's include folder holds its own
# OpenSHMEM headers (shmem.h, pshmem.h), which must not hide shoal's.
lib_pre = base_cflags + ['-fvisibility=hidden', '-fno-semantic-interposition'] + INTERNAL
lib_cflags = lib_pre + deps_cflags
prog_cflags = base_cflags + ['-Iapi', '-Iapi/shmem'] + cfg.mpi_cflags
# Libraries from --mpi-prefix/--hwloc-prefix are found at run time through rpath.
extra_libdirs = [d for d in cfg.mpi_libdirs + cfg.hwloc_libdirs if d not in SYSTEM_LIBDIRS]
ldflags = sanitize + ['-Wl,-rpath,' + d for d in dict.fromkeys(extra_libdirs)] + \
    shlex.split(os.environ.get('LDFLAGS', ''))
# -lrt: shm_open and shm_unlink (the host heap) live in librt before glibc 2.34.
sys_libs = ['-ldl', '-lrt', '-lpthread', '-lm']
cuda_libs = cfg.cuda_libs if nvcc else []
lib_libs = cfg.mpi_libs + cfg.hwloc_libs + cuda_libs + sys_libs
BUILD_RPATH = '-Wl,-rpath,$ORIGIN/../lib'

# ---------------------------------------------------------------- sources
TOOL = 'topology/shoal-topo.c'
# The library's folders: api/ and each API layer beside it, the runtime's
# subsystems, topology/ (README.md, Layout; .ci/call-graph checks that calls
# between them go one way).
LIB_DIRS = ['api', 'api/shmem', 'api/nvshmem', 'runtime/core', 'runtime/proxy', 'runtime/team', 'runtime/ops', 'runtime/transport',
            'runtime/heap', 'runtime/base', 'topology']
lib_srcs = sources(*(d + '/*.c' for d in LIB_DIRS), exclude=(TOOL,))
if nvcc:
    lib_srcs += sources(*(d + '/*.cu' for d in LIB_DIRS))
examples = sources('examples/*.c', *(['examples/gpu/*.cu'] if nvcc else []))
bench = sources('bench/*.c', *(['bench/*.cu'] if nvcc else []))
# Every public header; the CUDA ones include shoal_device_types.h.
# Internal headers (*_internal.h: what api/'s files share) are not installed.
headers = sorted(h for h in glob.glob('api/*.h') + glob.glob('api/*.cuh') + glob.glob('api/shmem/*.h') + glob.glob('api/nvshmem/*.h') + glob.glob('api/nvshmem/*.cuh')
                 if not h.endswith('_internal.h'))
header_text = open('api/shoal.h').read() if os.path.isfile('api/shoal.h') else ''
version = [(re.search(r'#define SHOAL_VERSION_%s (\d+)' % part, header_text) or [0, '0'])[1]
           for part in ('MAJOR', 'MINOR', 'PATCH')]
# Before 1.0 a minor release may change the ABI (0.2: shoal_device_t grew),
# so the soname carries the minor version too.
soname = 'libshoal.so.' + (version[0] if version[0] != '0' else version[0] + '.' + version[1])

# tests/TESTS: name source np labels timeout [VAR=VALUE ...] [-- args ...]
TESTS_FILE = 'tests/TESTS'
tests, names, exes = [], set(), {}
for lineno, raw in enumerate(open(TESTS_FILE) if os.path.isfile(TESTS_FILE) else (), 1):
    where = '%s:%d: ' % (TESTS_FILE, lineno)
    try:
        words = shlex.split(raw, comments=True)
    except ValueError as e:
        error(where + str(e))
    if not words:
        continue
    if len(words) < 5:
        error(where + 'want "name source np labels timeout [VAR=VALUE ...] [-- args ...]"')
    name, source, np, labels, timeout = words[:5]
    rest = words[5:]
    cut = rest.index('--') if '--' in rest else len(rest)
    env, args = rest[:cut], rest[cut + 1:]
    if name in names or not re.match(r'^[A-Za-z0-9_.+-]+$', name):
        error(where + 'test name %r is %s' % (name, 'already used' if name in names
                                              else 'not [A-Za-z0-9_.+-]+'))
    if not source.endswith(('.c', '.cu')) or not os.path.isfile(source):
        error(where + 'source %s is not an existing .c or .cu file' % source)
    if not np.isdigit() or not timeout.isdigit() or int(timeout) == 0:
        error(where + 'np must be an integer >= 0 and timeout an integer > 0 (seconds)')
    bad = [e for e in env if not re.match(r'^[A-Za-z_][A-Za-z0-9_]*=[^;]*$', e)]
    if bad:
        error(where + '%r is not VAR=VALUE (no ";"); program arguments go after --' % bad[0])
    # LAUNCH=keep-going: the launcher's own option for it (the MPIS table).
    launch = [e.split('=', 1)[1] for e in env if e.startswith('LAUNCH=')]
    env = [e for e in env if not e.startswith('LAUNCH=')]
    if [w for w in launch if w != 'keep-going']:
        error(where + 'LAUNCH=%s: the one launch setting is keep-going' % ','.join(launch))
    if launch and int(np) == 0:
        error(where + 'LAUNCH needs np >= 1 (the test runs without mpiexec)')
    launch = cfg.mpi_row['keep_going'] if launch else []
    # SKIP_MPI=kind:why: with that MPI the test is registered as a skip
    # that prints why (a defect of that MPI's own, README "MPI libraries").
    skip = [e.split('=', 1)[1] for e in env if e.startswith('SKIP_MPI=')]
    env = [e for e in env if not e.startswith('SKIP_MPI=')]
    if [k for k in skip if k.split(':', 1)[0] not in MPIS or ':' not in k]:
        error(where + 'SKIP_MPI=%s: want kind:reason, kind one of %s' % (','.join(skip), ', '.join(MPIS)))
    skip_why = [k.split(':', 1)[1] for k in skip if k.split(':', 1)[0] == cfg.mpi_kind]
    # LAUNCHER=script runs the whole command (mpiexec ... program args) and
    # decides the test's exit status, e.g. tests/verdicts.sh.
    launcher = [e.split('=', 1)[1] for e in env if e.startswith('LAUNCHER=')]
    env = [e for e in env if not e.startswith('LAUNCHER=')]
    if len(launcher) > 1 or (launcher and not (os.path.isfile(launcher[0])
                                               and os.access(launcher[0], os.X_OK))):
        error(where + 'LAUNCHER=%s: want one executable file of the source tree'
              % ','.join(launcher))
    if launcher and int(np) == 0:
        error(where + 'LAUNCHER needs np >= 1 (it judges an mpiexec run)')
    names.add(name)
    if source.endswith('.cu') and not nvcc:
        continue  # a GPU-only test in a host-only build
    if source.startswith('examples/'):
        # an example run as a test: the example program itself, built by its own rule
        exe = built('examples', 'plugin_host' if source == 'examples/plugin/host.c' else stem(source))
    else:
        exe = built('tests', stem(source))
    if exes.setdefault(exe, source) != source:
        error(where + '%s and %s would both build %s' % (exes[exe], source, exe))
    tests.append(types.SimpleNamespace(name=name, source=source, exe=exe, np=int(np), launch=launch,
                                       launcher=[os.path.join(SRCDIR, f) for f in launcher],
                                       timeout=int(timeout), env=env, args=args, skip_why=skip_why,
                                       labels=[label for label in labels.split(',') if label]))

# ---------------------------------------------------------------- build.ninja
os.makedirs(builddir, exist_ok=True)
configure_cmd = nflags((['env'] + recorded_env if recorded_env else []) + [
    sys.executable, os.path.join(SRCDIR, 'configure.py')] + ARGV + ['--regenerate'])
if CWD != SRCDIR:  # relative paths in ARGV are relative to CWD
    configure_cmd = 'cd %s && %s' % (nflags([CWD]), configure_cmd)

os.makedirs(os.path.dirname(ninja_file) or '.', exist_ok=True)
n = Writer(ninja_file)
n.comment('shoal build file, generated by configure.py; edit configure.py instead.')
n.comment('configure arguments: ' + (sh(recorded_env + ARGV) or '(none)'))
n.line()
n.variable('ninja_required_version', '1.7')
n.variable('builddir', npath(builddir))  # .ninja_log and .ninja_deps go there
n.variable('cc', nflags([cc]))
n.variable('lib_cflags', nflags(lib_cflags + user_cflags))
n.variable('test_cflags', nflags(lib_pre + test_inc + deps_cflags + user_cflags))
n.variable('prog_cflags', nflags(prog_cflags + user_cflags))
if nvcc:
    n.variable('nvcc', nflags([nvcc]))
    n.variable('lib_nvccflags', nflags(cfg.nvcc_flags + ['-Xcompiler', '-fvisibility=hidden'] +
                                       INTERNAL + deps_cflags))
    n.variable('test_nvccflags', nflags(cfg.nvcc_flags + INTERNAL + test_inc + deps_cflags))
    n.variable('prog_nvccflags', nflags(cfg.nvcc_flags + ['-Iapi', '-Iapi/shmem'] + cfg.mpi_cflags))
n.variable('ldflags', nflags(ldflags))
n.variable('lib_libs', nflags(lib_libs))
n.variable('prog_libs', nflags(cfg.mpi_libs + sys_libs))
n.variable('cuda_libs', nflags(cuda_libs))
n.line()

n.rule('cc', '$cc -MMD -MT $out -MF $out.d $cflags -c $in -o $out',
       description='CC $out', depfile='$out.d', deps='gcc')
if nvcc:
    n.rule('nvcc', '$nvcc -MD -MT $out -MF $out.d $nvccflags -c $in -o $out',
           description='NVCC $out', depfile='$out.d', deps='gcc')
n.rule('ar', 'rm -f $out && ar crs $out $in', description='AR $out')
n.rule('solink', '$cc -shared -o $out $in $ldflags $linkflags $libs', description='SOLINK $out')
n.rule('link', '$cc -o $out $in $ldflags $linkflags $libs', description='LINK $out')
n.rule('symlink', 'ln -sf $target $out', description='SYMLINK $out')
n.rule('configure', configure_cmd,
       description='CONFIGURE', generator=True, pool='console')
n.rule('script', '$script', description='$desc', pool='console')
n.line()


def compile_all(srcs, kind, order_only=()):
    """Objects of srcs: .c with $<kind>_cflags, .cu with $<kind>_nvccflags."""
    objs = []
    for src in srcs:
        cu = src.endswith('.cu')
        objs += n.build(obj(src), 'nvcc' if cu else 'cc', src, order_only=order_only, variables=[
            ('nvccflags' if cu else 'cflags', '$%s_%s' % (kind, 'nvccflags' if cu else 'cflags'))])
    return objs


n.comment('libshoal: %s (the file), libshoal.so (a link to it), libshoal.a' % soname)
lib_objs = compile_all(lib_srcs, 'lib')
# The OpenSHMEM profiling interface (api/shmem/pshmem.py): the layer's objects
# as linked, each OpenSHMEM function also under its pshmem_ name, and pshmem.h.
shmem_objs = [o for o, src in zip(lib_objs, lib_srcs) if os.path.dirname(src) == 'api/shmem']
pshmem_h = built('api', 'shmem', 'pshmem.h')
pshmem_dep = [pshmem_h] if shmem_objs else []
if shmem_objs:
    shifted = {o: o[:-len('.o')] + '.pshmem.o' for o in shmem_objs}
    n.rule('pshmem', '%s api/shmem/pshmem.py --header $header --suffix .pshmem.o $in -- $cc $lib_cflags'
           % nflags([sys.executable]), description='PSHMEM $header')
    n.build(list(shifted.values()), 'pshmem', shmem_objs, implicit_outputs=[pshmem_h],
            implicit=['api/shmem/pshmem.py'] + sources('api/shmem/*.h', 'api/shoal.h'),
            variables=[('header', npath(pshmem_h))])
    lib_objs = [shifted.get(o, o) for o in lib_objs]
lib_real, lib_so, lib_a = built('lib', soname), built('lib', 'libshoal.so'), built('lib', 'libshoal.a')
# -Bsymbolic-functions: the library's calls to its own exported functions
# (the OpenSHMEM layer calling shoal's API) bind inside it, without a PLT hop.
solink = ['-Wl,-soname,' + soname, '-Wl,-Bsymbolic-functions'] + ([] if sanitize else ['-Wl,--no-undefined'])
if nvcc:
    solink.append('-Wl,--exclude-libs,libcudart_static.a')  # cudart's symbols stay private
n.build(lib_real, 'solink', lib_objs, variables=[('libs', '$lib_libs'), ('linkflags', nflags(solink))])
n.build(lib_so, 'symlink', lib_real, variables=[('target', soname)])
n.build(lib_a, 'ar', lib_objs)
n.build('lib', 'phony', [lib_real, lib_so, lib_a])
n.line()


def program(out, srcs, rule='link', rpath=BUILD_RPATH, objs=None):
    """A user of the public library: links libshoal.so and finds it through rpath."""
    objs = compile_all(srcs, 'prog') if objs is None else objs
    libs = '$prog_libs' + (' $cuda_libs' if any(s.endswith('.cu') for s in srcs) else '')
    return n.build(out, rule, objs + [lib_so], implicit=[lib_real],
                   variables=[('libs', libs), ('linkflags', nflags([rpath]))])


n.comment('tool, examples, bench')
tool = program(built('bin', 'shoal-topo'), [TOOL]) if os.path.isfile(TOOL) else []
example_outs = sum((program(built('examples', stem(src)), [src]) for src in examples), [])
if os.path.isfile('examples/plugin/plugin.c'):
    example_outs += program(built('examples', 'libshoal_plugin.so'), ['examples/plugin/plugin.c'],
                            rule='solink')
if os.path.isfile('examples/plugin/host.c'):
    plugin_dir = '-DSHOAL_PLUGIN_DIR="%s"' % os.path.join(ABS_BUILDDIR, 'examples')
    host_obj = n.build(obj('examples/plugin/host.c'), 'cc', 'examples/plugin/host.c',
                       variables=[('cflags', '$prog_cflags ' + nflags([plugin_dir]))])
    example_outs += n.build(built('examples', 'plugin_host'), 'link', host_obj,
                            variables=[('libs', '$prog_libs')])
n.build('examples', 'phony', example_outs)
n.build('bench', 'phony', sum((program(built('bench', stem(src)), [src]) for src in bench), []))
n.line()

n.comment('tests, from tests/TESTS: static libshoal.a, so that they may call internal functions')
common_objs = compile_all(sources('tests/common/*.c'), 'test')
test_outs = []
for exe, source in sorted(set((t.exe, t.source) for t in tests)):
    if source.startswith('examples/'):
        continue  # built above, with the examples
    test_objs = compile_all([source], 'test', order_only=pshmem_dep)  # a test may include pshmem.h
    test_outs += n.build(exe, 'link', test_objs + common_objs + [lib_a],
                         variables=[('libs', '$lib_libs')])
# Stand-ins for libraries shoal loads with dlopen, which the tests name
# (tests/topology/fake_nvml.c: SHOAL_NVML_LIBRARY=<builddir>/tests/libfake_nvml.so).
for src in sources('tests/*/fake_*.c'):
    test_outs += n.build(built('tests', 'lib%s.so' % stem(src)), 'solink', compile_all([src], 'test'),
                         variables=[('libs', ''), ('linkflags', '')])
n.build('tests', 'phony', test_outs)
n.line()

n.comment('test, install (the tool finds the library through $ORIGIN/../lib, built or installed), run')
n.build('test', 'script', implicit=['all'], variables=[('desc', 'CTEST'), ('script', nflags(
    ['ctest', '--test-dir', builddir, '--output-on-failure']))])
install_deps = [lib_real, lib_a, built('shoal.pc'), built('install.sh'), built('shoalConfig.cmake'),
                built('shoalConfigVersion.cmake')] + ([built('shoal-cuda.pc')] if nvcc else []) + headers + tool
install_deps += pshmem_dep + sources('api/shmem/mpp/*.h')
n.build('install', 'script', implicit=install_deps, variables=[
    ('desc', 'INSTALL ' + prefix), ('script', nflags(['sh', built('install.sh')]))])
n.build('run', 'script', implicit=example_outs + tool + sources('examples/run.sh'), variables=[
    ('desc', 'RUN examples'),
    ('script', nflags(['env', 'MPIEXEC=' + cfg.mpiexec] + cfg.mpi_env + ['bash', 'examples/run.sh', builddir]))])
n.line()

n.comment('regeneration: configure.py, tests/TESTS, or a file added to or removed from a folder')
folders = LIB_DIRS + ['runtime', 'examples', 'examples/plugin', 'examples/gpu',
           'bench', 'tests', 'tests/common'] + [os.path.dirname(t.source) for t in tests]
# Folders by absolute path: 'tests', 'examples', 'bench' are also phony targets.
folders = [os.path.join(SRCDIR, d) for d in dict.fromkeys(folders) if os.path.isdir(d)]
n.build(ninja_file, 'configure', implicit=['configure.py'] + sources(TESTS_FILE) + folders,
        implicit_outputs=[built('CTestTestfile.cmake'), built('install.sh'), built('shoal.pc'), built('mpi.env'),
                          built('shoalConfig.cmake'), built('shoalConfigVersion.cmake')]
        + ([built('shoal-cuda.pc')] if nvcc else []))
n.build('all', 'phony', ['lib'] + tool + ['examples', 'bench', 'tests'])
n.line('default all')
n.out.close()

# ---------------------------------------------------------------- CTestTestfile.cmake
SANITIZER_ENV = []
if 'address' in (options.sanitize or ''):
    # Leaks are reported, except those of MPICH, UCX, hwloc and the CUDA
    # driver (tests/lsan.supp): the full unwinder finds those libraries in
    # stacks that leave frame-pointer-less code (UCX's dlopen'ed modules are
    # unloaded by exit, so the fast one reports "<unknown module>" alone).
    # CUDA maps memory where ASan's shadow gap is.
    SANITIZER_ENV.append('ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0:protect_shadow_gap=0')
    SANITIZER_ENV.append('LSAN_OPTIONS=suppressions=%s:print_suppressions=0'
                         % os.path.join(SRCDIR, 'tests', 'lsan.supp'))
if 'undefined' in (options.sanitize or ''):
    SANITIZER_ENV.append('UBSAN_OPTIONS=print_stacktrace=1')


def cmake_quote(arg, special=r'\\"$;'):
    return '"%s"' % re.sub('([%s])' % special, r'\\\1', arg)


with open(built('CTestTestfile.cmake'), 'w') as f:
    f.write('# shoal tests, generated by configure.py from %s: ctest --test-dir %s\n'
            % (TESTS_FILE, builddir))
    for t in tests:
        cmd = (t.launcher + ([cfg.mpiexec] + t.launch + ['-n', str(t.np)] if t.np else [])
               + shlex.split(options.test_wrapper) + [os.path.abspath(t.exe)] + t.args)
        if t.skip_why:
            cmd = ['sh', '-c', 'echo "skipped with %s: %s" && exit 77' % (cfg.mpi_version, t.skip_why[0].replace('"', ''))]
        # The harness's own SHOAL_TEST_* variables are not shoal's: no report
        # of them (a test that wants the report sets SHOAL_WARN_UNKNOWN_ENV).
        # SHOAL_TEST_MPIEXEC: for a test that launches a program itself
        # (test_topo_tool runs shoal-topo under mpiexec).
        env = ['SHOAL_TEST_SRCDIR=' + SRCDIR, 'SHOAL_TEST_BUILDDIR=' + ABS_BUILDDIR,
               'SHOAL_TEST_MPIEXEC=' + cfg.mpiexec, 'SHOAL_WARN_UNKNOWN_ENV=n'] + SANITIZER_ENV + cfg.mpi_env
        env += ['MPIEXEC_TIMEOUT=%d' % t.timeout, 'SHOAL_TEST_NP=%d' % t.np] if t.np else []
        own = set(e.split('=', 1)[0] for e in t.env)
        env = [e for e in env if e.split('=', 1)[0] not in own] + t.env
        props = ['LABELS', cmake_quote(';'.join(t.labels), special=r'\\"$'),
                 # mpiexec's own timeout fires first and takes all its ranks down
                 'TIMEOUT', str(t.timeout + (10 if t.np else 0)), 'SKIP_RETURN_CODE', '77']
        props += ['PROCESSORS', str(t.np)] if t.np else []
        # A kernel that traps on purpose takes down every process sharing its
        # GPU under MPS: nothing runs beside it (ctest -j).
        props += ['RUN_SERIAL', 'TRUE'] if 'serial' in t.labels else []
        props += ['ENVIRONMENT', cmake_quote(';'.join(env), special=r'\\"$')]
        f.write('add_test(%s %s)\n' % (t.name, ' '.join(cmake_quote(a) for a in cmd)))
        f.write('set_tests_properties(%s PROPERTIES %s)\n' % (t.name, ' '.join(props)))

# ---------------------------------------------------------------- mpi.env
# For scripts that run programs themselves (.ci/gpu-check): the launcher
# and the environment the tests run with (the MPIS table).
with open(built('mpi.env'), 'w') as f:
    f.write('# Written by configure.py: %s\'s launcher and run environment; . this file\n' % cfg.mpi_version)
    f.write('SHOAL_MPIEXEC=%s\n' % shlex.quote(cfg.mpiexec))
    f.write(''.join('export %s=%s\n' % (k, shlex.quote(v)) for k, v in (e.split('=', 1) for e in cfg.mpi_env)))

# ---------------------------------------------------------------- install.sh, shoal.pc
q = shlex.quote
install = ['#!/bin/sh', '# Written by configure.py: installs shoal under $DESTDIR%s.' % prefix,
           'set -eu', 'cd ' + q(SRCDIR), 'dest="${DESTDIR:-}"' + q(prefix),
           'install -d "$dest/include" "$dest/lib/pkgconfig" "$dest/bin"',
           'install -m 644 %s "$dest/include/"' % sh(headers) if headers else '',
           'install -m 755 %s "$dest/lib/"' % q(lib_real),
           'ln -sf %s "$dest/lib/libshoal.so"' % soname,
           'install -m 644 %s "$dest/lib/"' % q(lib_a),
           'install -m 644 %s "$dest/lib/pkgconfig/"' % q(built('shoal.pc')),
           'install -m 644 %s "$dest/lib/pkgconfig/"' % q(built('shoal-cuda.pc')) if nvcc else '',
           'install -d "$dest/lib/cmake/shoal"',
           'install -m 644 %s %s "$dest/lib/cmake/shoal/"' % (q(built('shoalConfig.cmake')),
                                                              q(built('shoalConfigVersion.cmake'))),
           'install -m 755 %s "$dest/bin/"' % q(tool[0]) if tool else '',
           'echo "shoal installed in $dest"']
# OpenSHMEM wrappers (api/shmem/shmem.h): oshcc (C11 with GNU extensions), oshc++
# and oshrun (MPI's launcher). They find shoal from their own place
# (<prefix>/bin), so a DESTDIR or moved install works; MPI's flags are the
# ones shoal was built with. OSHCC_CC / OSHCXX_CXX choose the compiler.
OSH_WRAPPER = """#!/bin/sh
# %(name)s: %(what)s (written by configure.py).
# shoal was built with %(mpi)s (%(mpi_origin)s).
prefix=$(cd "$(dirname "$0")/.." && pwd)
link=1
for a in "$@"; do
    case $a in -c|-E|-S|-M|-MM) link= ;; esac
done
if [ -n "$link" ]; then
    exec ${%(var)s:-%(cc)s} %(std)s"$@" -I"$prefix/include" %(mpi_cflags)s -L"$prefix/lib" -Wl,-rpath,"$prefix/lib" -lshoal %(mpi_libs)s%(san)s
fi
exec ${%(var)s:-%(cc)s} %(std)s"$@" -I"$prefix/include" %(mpi_cflags)s
"""
os.makedirs(built('bin'), exist_ok=True)
# MPI's include folders go after the system's (-idirafter): Open MPI's holds
# its own shmem.h, which would otherwise hide shoal's where shoal's folder is
# a system one (/usr/local/include, where gcc ignores -I).
mpi_after = sum((['-idirafter', f[2:]] if f.startswith('-I') else [f] for f in cfg.mpi_cflags), [])
osh_common = {'mpi_cflags': sh(mpi_after), 'mpi': cfg.mpi_version, 'mpi_origin': cfg.mpi_origin,
              'san': ' ' + sh(sanitize[:1]) if sanitize else ''}
with open(built('bin', 'oshcc'), 'w') as f:
    f.write(OSH_WRAPPER % dict(osh_common, name='oshcc', what='compile and link OpenSHMEM C programs with shoal',
                               var='OSHCC_CC', cc=q(cc), std='-std=gnu11 ', mpi_libs=sh(cfg.mpi_libs)))
with open(built('bin', 'oshc++'), 'w') as f:
    f.write(OSH_WRAPPER % dict(osh_common, name='oshc++', what='compile and link OpenSHMEM C++ programs with shoal',
                               var='OSHCXX_CXX', cc='c++', std='',
                               mpi_libs=sh(cfg.mpi_libs + cfg.mpi_cxx_libs)))
with open(built('bin', 'oshrun'), 'w') as f:
    f.write('#!/bin/sh\n# oshrun: start an OpenSHMEM program on shoal: MPI\'s launcher (written by configure.py).\n'
            '# shoal was built with %s (%s).\n%s'
            'exec ${OSHRUN_MPIEXEC:-%s} "$@"\n'
            % (cfg.mpi_version, cfg.mpi_origin, ''.join('export %s="%s${%s:+:$%s}"\n' % (k, v, k, k) if k == 'LD_LIBRARY_PATH' else
                                                        'export %s="${%s:-%s}"\n' % (k, k, v) for k, v in
                                                        (e.split('=', 1) for e in cfg.mpi_prefix_env)),
               q(cfg.mpiexec)))
# shoal-nvcc (with CUDA): nvcc with shoal's and MPI's flags, for CUDA
# programs, NVSHMEM's among them (nvshmem.h beside shoal.h). gcc-style
# linker and compiler flags of MPI's become nvcc's -Xlinker / -Xcompiler.
wrappers = ['oshcc', 'oshc++', 'oshrun']
if nvcc:
    def nvcc_flag(f):
        if f.startswith(('-I', '-L', '-l', '-D')) or f.endswith(('.so', '.a')) or '.so.' in f:
            return [f]
        return ['-Xlinker', f[4:]] if f.startswith('-Wl,') else ['-Xcompiler', f]
    nv_cflags = sum((nvcc_flag(f) for f in cfg.mpi_cflags), [])
    nv_libs = sum((nvcc_flag(f) for f in cfg.mpi_libs + cfg.mpi_cxx_libs), [])
    with open(built('bin', 'shoal-nvcc'), 'w') as f:
        f.write('#!/bin/sh\n# shoal-nvcc: compile and link CUDA programs (NVSHMEM programs among them) with shoal\n'
                '# (written by configure.py). shoal was built with %s (%s). SHOAL_NVCC chooses nvcc.\n'
                'prefix=$(cd "$(dirname "$0")/.." && pwd)\nlink=1\nfor a in "$@"; do\n'
                '    case $a in -c|-E|-M|-MM|--compile|--preprocess|-dc|--device-c|-ptx|-cubin|-fatbin) link= ;; esac\n'
                'done\nif [ -n "$link" ]; then\n'
                '    exec ${SHOAL_NVCC:-%s} "$@" -I"$prefix/include" %s -L"$prefix/lib" -Xlinker -rpath -Xlinker "$prefix/lib" -lshoal %s\n'
                'fi\nexec ${SHOAL_NVCC:-%s} "$@" -I"$prefix/include" %s\n'
                % (cfg.mpi_version, cfg.mpi_origin, q(nvcc), sh(nv_cflags), sh(nv_libs), q(nvcc), sh(nv_cflags)))
    wrappers.append('shoal-nvcc')
for w in wrappers:
    os.chmod(built('bin', w), 0o755)
with open(built('shoal-shmem.pc'), 'w') as f:
    f.write('prefix=%s\n\n' % prefix)
    f.write('Name: shoal-shmem\nDescription: OpenSHMEM 1.5 on shoal (shmem.h)\n')
    f.write('Version: %s\nRequires: shoal = %s\n' % ('.'.join(version), '.'.join(version)))
    f.write('Cflags:\nLibs:\n')
install.insert(-1, 'install -m 755 %s "$dest/bin/"' % ' '.join(q(built('bin', w)) for w in wrappers))
install.insert(-1, 'install -m 644 %s "$dest/lib/pkgconfig/"' % q(built('shoal-shmem.pc')))
# shoal-nvshmem.pc: NVSHMEM's API on shoal (nvshmem.h, nvshmemx.h beside shoal.h);
# with CUDA, its stream forms need CUDA's runtime headers (shoal-cuda).
with open(built('shoal-nvshmem.pc'), 'w') as f:
    f.write('prefix=%s\n\n' % prefix)
    f.write('Name: shoal-nvshmem\nDescription: NVSHMEM\'s host, stream and device API on shoal (nvshmem.h, nvshmemx.h)\n')
    f.write('Version: %s\nRequires: %s = %s\n' % ('.'.join(version), 'shoal-cuda' if nvcc else 'shoal',
                                                  '.'.join(version)))
    f.write('Cflags:\nLibs:\n')
install.insert(-1, 'install -m 644 %s "$dest/lib/pkgconfig/"' % q(built('shoal-nvshmem.pc')))
# pshmem.h (the build writes it) beside shmem.h, and the forwarding headers of
# the folder OpenSHMEM 1.1 named (#include <mpp/shmem.h>).
if pshmem_dep:
    install.insert(-1, 'install -m 644 %s "$dest/include/"' % q(pshmem_h))
if sources('api/shmem/mpp/*.h'):
    install.insert(-1, 'install -d "$dest/include/mpp"')
    install.insert(-1, 'install -m 644 %s "$dest/include/mpp/"' % sh(sources('api/shmem/mpp/*.h')))
with open(built('install.sh'), 'w') as f:
    f.write('\n'.join(line for line in install if line) + '\n')

# Public headers include mpi.h (so MPI is in Cflags/Libs), not hwloc.h.
private = ([] if cfg.hwloc_pc else cfg.hwloc_libs) + cuda_libs + sys_libs
with open(built('shoal.pc'), 'w') as f:
    f.write('prefix=%s\nexec_prefix=${prefix}\nlibdir=${exec_prefix}/lib\n'
            'includedir=${prefix}/include\n' % prefix)
    # pkg-config --variable=mpi shoal: the MPI shoal was built with
    f.write('mpi=%s\nmpi_kind=%s\n\n' % (cfg.mpi_version, cfg.mpi_kind))
    f.write('Name: shoal\nDescription: topology-aware one-sided communication for MPI programs\n')
    f.write('Version: %s\n' % '.'.join(version))
    f.write('Requires: %s\n' % cfg.mpi_pc if cfg.mpi_pc else '')
    f.write('Requires.private: hwloc\n' if cfg.hwloc_pc else '')
    f.write('Cflags: -I${includedir}%s\n' % ('' if cfg.mpi_pc else ' ' + sh(mpi_after)))
    # A sanitized library needs its sanitizer's runtime in the program too.
    # (Open MPI's C++ bindings too: its mpi.h declares them in C++ code)
    f.write('Libs: -L${libdir} -lshoal%s%s\n' % ('' if cfg.mpi_pc else ' ' + sh(cfg.mpi_libs + cfg.mpi_cxx_libs),
                                                 ' ' + sh(sanitize[:1]) if sanitize else ''))
    f.write('Libs.private: %s\n' % sh(dict.fromkeys(private)))

# shoal-cuda.pc: what shoal_cuda.h needs beyond shoal (the CUDA runtime's
# headers and library this shoal was built with). libshoal carries its own
# copy of the CUDA runtime, hidden; the application links the shared one.
cuda_libdir = cuda_libs[0][2:] if nvcc else ''
if nvcc:
    with open(built('shoal-cuda.pc'), 'w') as f:
        f.write('prefix=%s\n\n' % prefix)
        f.write('Name: shoal-cuda\nDescription: shoal\'s stream-ordered and device APIs (shoal_cuda.h, '
                'shoal_device.cuh)\n')
        f.write('Version: %s\nRequires: shoal = %s\n' % ('.'.join(version), '.'.join(version)))
        f.write('Cflags: -I%s\n' % cfg.cuda_inc)
        f.write('Libs: -L%s -Wl,-rpath,%s -lcudart\n' % (cuda_libdir, cuda_libdir))

# lib/cmake/shoal: find_package(shoal) gives shoal::shoal (the shared
# library, MPI included), shoal::shoal_static, and with CUDA shoal::cuda.
# Paths are found from the file's own place, so a DESTDIR or moved install
# works too.
def cmake_list(items):
    return ';'.join(items).replace('"', '\\"')


# Open MPI's include folders (its own shmem.h inside) after the system's:
# as compile options, not include directories, which CMake passes as
# -isystem ahead of an implicit /usr/local/include.
mpi_incs = [f[2:] for f in cfg.mpi_cflags if f.startswith('-I')]
mpi_after_opts = ''
if cfg.mpi_kind == 'openmpi':
    mpi_after_opts = ';'.join('$<$<COMPILE_LANGUAGE:C,CXX>:SHELL:-idirafter %s>;$<$<COMPILE_LANGUAGE:CUDA>:SHELL:-isystem %s>'
                              % (d, d) for d in mpi_incs)
    mpi_incs = []
mpi_links = [f for f in cfg.mpi_libs + cfg.mpi_cxx_libs]
with open(built('shoalConfig.cmake'), 'w') as f:
    f.write('# shoal %s, written by configure.py.\n' % '.'.join(version))
    f.write('#   find_package(shoal REQUIRED)\n'
            '#   target_link_libraries(app PRIVATE shoal::shoal)    # shoal.h, shoal_topo.h, MPI\n'
            '#   target_link_libraries(app PRIVATE shoal::cuda)     # also shoal_cuda.h, shoal_device.cuh\n'
            '#   target_link_libraries(app PRIVATE shoal::nvshmem)  # nvshmem.h, nvshmemx.h (NVSHMEM\'s API)\n'
            '#   shoal::shoal_static: libshoal.a and what it needs\n')
    f.write('get_filename_component(_shoal_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)\n')
    f.write('set(shoal_CUDA_FOUND %s)\n' % ('TRUE' if nvcc else 'FALSE'))
    f.write('set(_shoal_mpi_opts "%s")\n' % mpi_after_opts)
    # the MPI shoal was built with: the application must use the same one
    f.write('set(shoal_MPI "%s")\nset(shoal_MPI_KIND %s)\n' % (cfg.mpi_version, cfg.mpi_kind))
    f.write('if(NOT TARGET shoal::shoal)\n')
    f.write('  add_library(shoal::shoal SHARED IMPORTED)\n')
    f.write('  set_target_properties(shoal::shoal PROPERTIES\n'
            '    IMPORTED_LOCATION "${_shoal_prefix}/lib/%s"\n'
            '    IMPORTED_SONAME "%s"\n'
            '    INTERFACE_INCLUDE_DIRECTORIES "${_shoal_prefix}/include%s"\n'
            '    INTERFACE_LINK_LIBRARIES "%s")\n'
            % (soname, soname, ''.join(';' + d for d in mpi_incs), cmake_list(mpi_links)))
    if sanitize:  # a sanitized library needs its sanitizer's runtime in the program too
        f.write('  set_target_properties(shoal::shoal PROPERTIES INTERFACE_LINK_OPTIONS "%s")\n' % sanitize[0])
    f.write('  if(_shoal_mpi_opts)\n    set_target_properties(shoal::shoal PROPERTIES INTERFACE_COMPILE_OPTIONS '
            '"${_shoal_mpi_opts}")\n  endif()\n')
    f.write('  add_library(shoal::shoal_static STATIC IMPORTED)\n')
    f.write('  set_target_properties(shoal::shoal_static PROPERTIES\n'
            '    IMPORTED_LOCATION "${_shoal_prefix}/lib/libshoal.a"\n'
            '    IMPORTED_LINK_INTERFACE_LANGUAGES "C"\n'
            '    INTERFACE_INCLUDE_DIRECTORIES "${_shoal_prefix}/include%s"\n'
            '    INTERFACE_LINK_LIBRARIES "%s")\n'
            % (''.join(';' + d for d in mpi_incs),
               cmake_list(list(dict.fromkeys(mpi_links + cfg.hwloc_libs + cuda_libs + sys_libs)))))
    if sanitize:
        f.write('  set_target_properties(shoal::shoal_static PROPERTIES INTERFACE_LINK_OPTIONS "%s")\n'
                % sanitize[0])
    f.write('  if(_shoal_mpi_opts)\n    set_target_properties(shoal::shoal_static PROPERTIES INTERFACE_COMPILE_OPTIONS '
            '"${_shoal_mpi_opts}")\n  endif()\n')
    if nvcc:
        f.write('  add_library(shoal::cuda INTERFACE IMPORTED)\n')
        f.write('  set_target_properties(shoal::cuda PROPERTIES\n'
                '    INTERFACE_INCLUDE_DIRECTORIES "%s"\n'
                '    INTERFACE_LINK_LIBRARIES "shoal::shoal;%s/libcudart.so")\n' % (cfg.cuda_inc, cuda_libdir))
    # shoal::nvshmem: nvshmem.h and nvshmemx.h (in the same include folder),
    # with CUDA's runtime for the stream forms where shoal has CUDA
    f.write('  add_library(shoal::nvshmem INTERFACE IMPORTED)\n')
    f.write('  set_target_properties(shoal::nvshmem PROPERTIES INTERFACE_LINK_LIBRARIES "%s")\n'
            % ('shoal::cuda' if nvcc else 'shoal::shoal'))
    f.write('endif()\nunset(_shoal_prefix)\n')
    # Components: cuda (shoal::cuda); anything else is unknown.
    f.write('set(shoal_cuda_FOUND ${shoal_CUDA_FOUND})\n'
            'foreach(_shoal_c IN LISTS shoal_FIND_COMPONENTS)\n'
            '  if(NOT _shoal_c STREQUAL "cuda")\n'
            '    set(shoal_${_shoal_c}_FOUND FALSE)\n'
            '  endif()\n'
            '  if(shoal_FIND_REQUIRED_${_shoal_c} AND NOT shoal_${_shoal_c}_FOUND)\n'
            '    set(shoal_FOUND FALSE)\n'
            '    if(_shoal_c STREQUAL "cuda")\n'
            '      set(shoal_NOT_FOUND_MESSAGE "this shoal was built without CUDA (no nvcc, or --without-cuda)")\n'
            '    else()\n'
            '      set(shoal_NOT_FOUND_MESSAGE "shoal has no component ${_shoal_c} (it has: cuda)")\n'
            '    endif()\n'
            '  endif()\n'
            'endforeach()\nunset(_shoal_c)\n')
with open(built('shoalConfigVersion.cmake'), 'w') as f:
    # Same major version (and, while it is 0, same minor) is compatible.
    f.write('set(PACKAGE_VERSION "%s")\n' % '.'.join(version))
    # A range (find_package(shoal 0.1...0.3)) takes this version when it lies
    # inside; a single version takes it when not newer and of the same major
    # version (and, while that is 0, the same minor: 0.x may change the ABI).
    f.write('if(PACKAGE_FIND_VERSION_RANGE)\n'
            '  if((PACKAGE_FIND_VERSION_RANGE_MIN STREQUAL "INCLUDE" AND PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION_MIN)\n'
            '     OR (PACKAGE_FIND_VERSION_RANGE_MIN STREQUAL "EXCLUDE" AND PACKAGE_VERSION VERSION_LESS_EQUAL PACKAGE_FIND_VERSION_MIN)\n'
            '     OR (PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "INCLUDE" AND PACKAGE_VERSION VERSION_GREATER PACKAGE_FIND_VERSION_MAX)\n'
            '     OR (PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "EXCLUDE" AND PACKAGE_VERSION VERSION_GREATER_EQUAL PACKAGE_FIND_VERSION_MAX))\n'
            '    set(PACKAGE_VERSION_COMPATIBLE FALSE)\n'
            '  else()\n'
            '    set(PACKAGE_VERSION_COMPATIBLE TRUE)\n'
            '  endif()\n'
            'elseif(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)\n'
            '  set(PACKAGE_VERSION_COMPATIBLE FALSE)\n'
            'elseif(NOT PACKAGE_FIND_VERSION_MAJOR STREQUAL "%s"%s)\n'
            '  set(PACKAGE_VERSION_COMPATIBLE FALSE)\n'
            'else()\n'
            '  set(PACKAGE_VERSION_COMPATIBLE TRUE)\n'
            '  if(PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)\n'
            '    set(PACKAGE_VERSION_EXACT TRUE)\n'
            '  endif()\n'
            'endif()\n'
            'if(NOT CMAKE_SIZEOF_VOID_P STREQUAL "8")\n'
            '  set(PACKAGE_VERSION "%s (64-bit)")\n'
            '  set(PACKAGE_VERSION_UNSUITABLE TRUE)\n'
            'endif()\n' % (version[0], ' OR NOT PACKAGE_FIND_VERSION_MINOR STREQUAL "%s"' % version[1]
                            if version[0] == '0' else '', '.'.join(version)))

# ---------------------------------------------------------------- summary
cuda = 'no (%s)' % ('--without-cuda' if options.without_cuda else 'nvcc not found')
if nvcc:
    cuda = 'yes, nvcc %s (%s), %s' % (cfg.cuda_version, nvcc, ' '.join(cfg.arch_flags))
print('shoal %s configured:' % '.'.join(version))
for key, value in (
        ('compiler', '%s (%s)' % (cc, cfg.cc_version)),
        ('MPI', '%s (%s), tests run with %s' % (cfg.mpi_version, cfg.mpi_origin, cfg.mpiexec)),
        ('MPI env', ' '.join(cfg.mpi_env)),
        ('hwloc', '%s (%s)' % (cfg.hwloc_version, cfg.hwloc_origin)),
        ('CUDA', cuda),
        ('flags', ' '.join(OPT + sanitize)),
        ('sources', '%d library, %d examples, %d bench, %d tests' % (
            len(lib_srcs), len(examples), len(bench), len(tests))),
        ('prefix', prefix),
        ('wrote', ninja_file + ', ' + built('CTestTestfile.cmake'))):
    if value:
        print('  %-9s %s' % (key, value))
