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
folders: adding or removing a file re-runs this script with the same
arguments. Python 3 standard library only.
"""

import argparse
import atexit
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

SRCDIR = os.path.dirname(os.path.abspath(__file__))
os.chdir(SRCDIR)
ARGV = sys.argv[1:]
# Environment variables that change the build; recorded like the arguments.
RECORDED_ENV = ('CC', 'CFLAGS', 'LDFLAGS', 'NVCC', 'NVCCFLAGS', 'CUDA_HOME')


# ---------------------------------------------------------------- helpers
def error(msg):
    """One line naming what is missing and how to get it, then exit 1."""
    print('configure.py: error: ' + msg, file=sys.stderr)
    sys.exit(1)


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
    """Run cmd; return (exit status, stdout + stderr). Missing program -> 127."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
    except OSError as e:
        return 127, str(e)
    return p.returncode, p.stdout


def first_file(candidates):
    return next((c for c in candidates if os.path.isfile(c)), None)


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

    def rule(self, name, command, description=None, depfile=None, deps=None,
             pool=None, generator=False):
        self.line('rule ' + name)
        self.variable('command', command, 1)
        for key, value in (('description', description), ('depfile', depfile),
                           ('deps', deps), ('pool', pool)):
            if value:
                self.variable(key, value, 1)
        if generator:
            self.variable('generator', '1', 1)
        self.line()

    def build(self, outputs, rule, inputs=(), implicit=(), order_only=(),
              implicit_outputs=(), variables=()):
        def paths(items):
            return ' '.join(npath(i) for i in ([items] if isinstance(items, str) else items))
        text = 'build ' + paths(outputs)
        if implicit_outputs:
            text += ' | ' + paths(implicit_outputs)
        text += ': ' + rule
        if inputs:
            text += ' ' + paths(inputs)
        if implicit:
            text += ' | ' + paths(implicit)
        if order_only:
            text += ' || ' + paths(order_only)
        self.line(text)
        for key, value in variables:
            self.variable(key, value, 1)
        return [outputs] if isinstance(outputs, str) else list(outputs)

    def default(self, targets):
        self.line('default ' + ' '.join(npath(t) for t in targets))

    def close(self):
        self.out.close()


# ---------------------------------------------------------------- options
parser = argparse.ArgumentParser(
    description='Write build.ninja and <builddir>/CTestTestfile.cmake for shoal.')
parser.add_argument('--prefix', default='/usr/local', help='install prefix (default /usr/local)')
parser.add_argument('--debug', action='store_true', help='-O0 -g instead of -O2 -g')
parser.add_argument('--sanitize', nargs='?', const='address,undefined', metavar='LIST',
                    help='build with -fsanitize=LIST (bare: address,undefined)')
parser.add_argument('--mpi-prefix', metavar='DIR',
                    help='MPICH under DIR (include/, lib/[x86_64-linux-gnu]) instead of mpicc')
parser.add_argument('--mpiexec', metavar='PATH', help='launcher for MPI tests (default: probed)')
parser.add_argument('--hwloc-prefix', metavar='DIR',
                    help='hwloc under DIR (include/, lib/[x86_64-linux-gnu]) instead of pkg-config')
parser.add_argument('--without-cuda', action='store_true', help='host-only build, even if nvcc exists')
parser.add_argument('--cuda-arch', default='sm_90',
                    help='GPU architectures, comma-separated (default sm_90, the H200)')
parser.add_argument('--builddir', default='build', help='output folder (default build)')
options = parser.parse_args()

builddir = os.path.normpath(options.builddir)
if os.path.isabs(builddir) and builddir.startswith(SRCDIR + os.sep):
    builddir = os.path.relpath(builddir, SRCDIR)
ABS_BUILDDIR = os.path.abspath(builddir)
prefix = os.path.abspath(options.prefix)


def built(*parts):
    return os.path.join(builddir, *parts)


def obj(src):
    return built('obj', src + '.o')


SYSTEM_LIBDIRS = ('/usr/lib', '/usr/lib/x86_64-linux-gnu', '/lib', '/lib/x86_64-linux-gnu', '/usr/lib64')


# ---------------------------------------------------------------- probes
class Probe(object):
    """Compile and link tiny programs in a scratch folder."""

    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix='shoal-configure-')
        atexit.register(shutil.rmtree, self.tmp, True)
        self.count = 0

    def write(self, code, ext):
        self.count += 1
        path = os.path.join(self.tmp, 'probe%d%s' % (self.count, ext))
        with open(path, 'w') as f:
            f.write(code)
        return path

    def link(self, cc, code, cflags=(), libs=()):
        src = self.write(code, '.c')
        rc, log = capture([cc] + list(cflags) + [src, '-o', src + '.exe'] + list(libs))
        return rc == 0

    def macro(self, cc, cflags, header, name):
        """The value a macro from a header expands to, or None."""
        src = self.write('#include <%s>\nshoal_probe_value %s\n' % (header, name), '.c')
        rc, out = capture([cc, '-E', '-P'] + list(cflags) + [src])
        for line in out.splitlines() if rc == 0 else ():
            if line.startswith('shoal_probe_value '):
                value = line.split(None, 1)[1].strip().strip('"')
                return None if value == name else value
        return None


probe = Probe()
MAIN = 'int main(void) { return 0; }\n'

# C compiler.
cc = os.environ.get('CC') or shutil.which('cc') or shutil.which('gcc') or 'cc'
if not probe.link(cc, MAIN):
    error('C compiler not found (%s); install Debian package build-essential, or set CC' % cc)
cc_version = capture([cc, '--version'])[1].splitlines()[0]
user_cflags = shlex.split(os.environ.get('CFLAGS', ''))
user_ldflags = shlex.split(os.environ.get('LDFLAGS', ''))

# Sanitizers: -fsanitize for compile and link; undefined behaviour is made fatal
# so that a test that hits it fails instead of printing and passing.
sanitize = []
if options.sanitize:
    kinds = [k for k in options.sanitize.split(',') if k]
    sanitize = ['-fsanitize=' + ','.join(kinds), '-fno-omit-frame-pointer']
    if 'undefined' in kinds:
        sanitize.append('-fno-sanitize-recover=undefined')
    if not probe.link(cc, MAIN, sanitize, sanitize):
        error('%s cannot build with %s; install Debian package libasan8 libubsan1 (gcc)'
              % (cc, sanitize[0]))

# MPI: mpicc's flags, or explicit folders (the GPU machine's mpicc has /usr baked in).
MPI_CODE = ('#include <mpi.h>\nint main(int argc, char **argv)\n'
            '{ MPI_Init(&argc, &argv); return MPI_Finalize(); }\n')
mpi_libdirs = []
if options.mpi_prefix:
    d = os.path.abspath(options.mpi_prefix)
    inc = first_file(os.path.join(d, sub, 'mpi.h') for sub in
                     ('include/x86_64-linux-gnu/mpich', 'include/mpich', 'include'))
    lib = first_file(os.path.join(d, sub, 'libmpich.so') for sub in
                     ('lib/x86_64-linux-gnu', 'lib', 'lib64'))
    if not inc or not lib:
        error('MPI not found under %s (mpi.h, libmpich.so); unpack Debian packages '
              'libmpich-dev libmpich12 mpich there' % d)
    mpi_cflags = ['-I' + os.path.dirname(inc)]
    mpi_libdirs = [os.path.dirname(lib)]
    mpi_libs = ['-L' + mpi_libdirs[0], '-lmpich']
    mpi_origin = '--mpi-prefix=' + d
    mpiexec_candidates = [os.path.join(d, 'bin', n) for n in ('mpiexec', 'mpiexec.hydra', 'mpiexec.mpich')]
else:
    mpicc = shutil.which('mpicc')
    rc, show = capture([mpicc, '-show']) if mpicc else (127, '')
    if rc != 0 and mpicc:
        rc, comp = capture([mpicc, '--showme:compile'])
        rc2, link = capture([mpicc, '--showme:link'])
        show, rc = 'cc ' + comp + ' ' + link, rc | rc2
    if rc != 0:
        error('MPI not found (mpicc); install Debian package libmpich-dev, or pass --mpi-prefix=DIR')
    words = shlex.split(show)[1:]
    mpi_cflags = [w for w in words if w[:2] in ('-I', '-D')]
    mpi_libs = [w for w in words if w not in mpi_cflags and not w.endswith(('.c', '.o'))]
    mpi_origin = mpicc
    bindir = os.path.dirname(mpicc)
    mpiexec_candidates = [os.path.join(bindir, n) for n in ('mpiexec.hydra', 'mpiexec.mpich', 'mpiexec')]
    mpiexec_candidates += [shutil.which(n) or '' for n in ('mpiexec.hydra', 'mpiexec.mpich', 'mpiexec')]
if not probe.link(cc, MPI_CODE, mpi_cflags, mpi_libs):
    error('MPI from %s does not compile and link a test program; install Debian package '
          'libmpich-dev, or pass --mpi-prefix=DIR' % mpi_origin)
mpiexec = options.mpiexec or first_file(mpiexec_candidates)
if not mpiexec or not os.access(mpiexec, os.X_OK):
    error('mpiexec not found (%s); install Debian package mpich, or pass --mpiexec=PATH'
          % (options.mpiexec or ' '.join(c for c in mpiexec_candidates[:3])))
mpiexec = os.path.abspath(mpiexec)
mpich_version = probe.macro(cc, mpi_cflags, 'mpi.h', 'MPICH_VERSION')
mpi_version = ('MPICH ' + mpich_version) if mpich_version else (
    'MPI %s.%s (not MPICH)' % (probe.macro(cc, mpi_cflags, 'mpi.h', 'MPI_VERSION'),
                               probe.macro(cc, mpi_cflags, 'mpi.h', 'MPI_SUBVERSION')))
# shoal.pc can name mpich.pc only when it describes the MPI we build with.
mpi_pc = not options.mpi_prefix and capture(['pkg-config', '--exists', 'mpich'])[0] == 0

# hwloc 2.x: pkg-config, explicit folders, or the compiler's default paths.
HWLOC_CODE = ('#include <hwloc.h>\n#if HWLOC_API_VERSION < 0x00020000\n#error hwloc 2 needed\n#endif\n'
              'int main(void) { hwloc_topology_t t; hwloc_topology_init(&t);\n'
              '  hwloc_topology_destroy(t); return 0; }\n')
hwloc_libdirs = []
hwloc_pc = False
if options.hwloc_prefix:
    d = os.path.abspath(options.hwloc_prefix)
    lib = first_file(os.path.join(d, sub, 'libhwloc.so') for sub in
                     ('lib/x86_64-linux-gnu', 'lib', 'lib64'))
    if not os.path.isfile(os.path.join(d, 'include', 'hwloc.h')) or not lib:
        error('hwloc not found under %s (include/hwloc.h, libhwloc.so); unpack Debian '
              'packages libhwloc-dev libhwloc15 there' % d)
    hwloc_libdirs = [os.path.dirname(lib)]
    hwloc_cflags = ['-I' + os.path.join(d, 'include')]
    hwloc_libs = ['-L' + hwloc_libdirs[0], '-lhwloc']
    hwloc_origin = '--hwloc-prefix=' + d
else:
    rc, flags = capture(['pkg-config', '--cflags', '--libs', 'hwloc'])
    hwloc_pc = rc == 0
    hwloc_cflags = [w for w in shlex.split(flags) if w[:2] in ('-I', '-D')] if hwloc_pc else []
    hwloc_libs = [w for w in shlex.split(flags) if w not in hwloc_cflags] if hwloc_pc else ['-lhwloc']
    hwloc_origin = 'pkg-config hwloc'
if not probe.link(cc, HWLOC_CODE, hwloc_cflags, hwloc_libs):
    error('hwloc 2.x not found (%s); install Debian package libhwloc-dev, or pass '
          '--hwloc-prefix=DIR' % hwloc_origin)
hwloc_version = probe.macro(cc, hwloc_cflags, 'hwloc.h', 'HWLOC_VERSION') or '2.x'

# CUDA: optional. A found nvcc must work; pass --without-cuda to build host-only.
ARCH_RE = re.compile(r'^(?:sm_|compute_)?(\d+[a-z]?)$')


def cuda_arch_flags(spec):
    archs = [a.strip() for a in spec.split(',') if a.strip()]
    nums = [ARCH_RE.match(a).group(1) if ARCH_RE.match(a) else None for a in archs]
    if len(archs) == 1:
        return ['-arch=' + ('sm_' + nums[0] if nums[0] else archs[0])]  # SASS + PTX
    if None in nums:
        error('--cuda-arch=%s: a list must hold only sm_NN entries' % spec)
    flags = ['-gencode=arch=compute_%s,code=sm_%s' % (n, n) for n in nums]
    return flags + ['-gencode=arch=compute_%s,code=compute_%s' % (nums[-1], nums[-1])]


nvcc = None
if not options.without_cuda:
    home = os.environ.get('CUDA_HOME')
    candidates = [os.environ.get('NVCC', ''), home and os.path.join(home, 'bin', 'nvcc'),
                  shutil.which('nvcc'), '/usr/local/cuda/bin/nvcc']
    nvcc = first_file(c for c in candidates if c)
if nvcc:
    root = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
    cuda_inc = os.path.dirname(first_file(os.path.join(d, 'cuda_runtime.h') for d in (
        os.path.join(root, 'include'), os.path.join(root, 'targets/x86_64-linux/include'),
        '/usr/include')) or '/')
    cuda_libdir = os.path.dirname(first_file(os.path.join(d, 'libcudart_static.a') for d in (
        os.path.join(root, 'lib64'), os.path.join(root, 'targets/x86_64-linux/lib'),
        '/usr/lib/x86_64-linux-gnu')) or '/')
    cuda_version = re.search(r'release ([\d.]+)', capture([nvcc, '--version'])[1])
    cuda_version = cuda_version.group(1) if cuda_version else '?'
    cuda_libs = ['-L' + cuda_libdir, '-lcudart_static', '-ldl', '-lrt', '-lpthread', '-lstdc++']
    arch_flags = cuda_arch_flags(options.cuda_arch)
    nvcc_base = ['-std=c++17', '-g', '-lineinfo', '-Xcompiler', '-fPIC'] + arch_flags + [
        '-rdc=false', '-DSHOAL_HAVE_CUDA=1'] + (['-O0'] if options.debug else ['-O2'])
    for flag in sanitize:  # nvcc splits -Xcompiler values at commas: one flag each
        nvcc_base += sum((['-Xcompiler', flag.split('=')[0] + '=' + k] for k in
                          flag.split('=', 1)[1].split(',')), []) if '=' in flag else ['-Xcompiler', flag]
    if os.environ.get('CC'):
        nvcc_base += ['-ccbin', cc]
    nvcc_base += shlex.split(os.environ.get('NVCCFLAGS', ''))
    cu = probe.write('#include <cuda_runtime.h>\n__global__ void k(int *p) { *p = 1; }\n'
                     'extern "C" int probe(void) { int n = 0; if (cudaGetDeviceCount(&n) == '
                     'cudaSuccess && n > 0) k<<<1, 1>>>(0); return n; }\n', '.cu')
    rc, log = capture([nvcc] + nvcc_base + ['-c', cu, '-o', cu + '.o'])
    if rc != 0:
        error('%s fails on a test kernel with %s: %s; pass --without-cuda or another --cuda-arch'
              % (nvcc, ' '.join(arch_flags), (log.strip().splitlines() or ['?'])[-1]))
    if not probe.link(cc, 'int probe(void);\nint main(void) { return probe() < 0; }\n',
                      sanitize, [cu + '.o'] + sanitize + cuda_libs):
        error('cannot link libcudart_static.a from %s with %s; pass --without-cuda'
              % (cuda_libdir, cc))

# ---------------------------------------------------------------- flags
WARN = ['-Wall', '-Wextra', '-Wshadow', '-Wstrict-prototypes',
        '-Werror=implicit-function-declaration']
OPT = ['-O0', '-g'] if options.debug else ['-O2', '-g']
cuda_cflags = ['-DSHOAL_HAVE_CUDA=1', '-I' + cuda_inc] if nvcc else ['-DSHOAL_HAVE_CUDA=0']
base_cflags = ['-std=c11', '-D_GNU_SOURCE'] + OPT + WARN + ['-fPIC'] + sanitize + cuda_cflags
INTERNAL = ['-Iapi', '-Iruntime', '-Itopology']
test_inc = ['-Itests'] + (['-Itests/common'] if os.path.isdir('tests/common') else [])
# Library and tests see the internal headers and hide symbols by default (the
# library exports through SHOAL_EXPORT); the tool, examples and bench are
# users of the public library: public headers only, default visibility.
lib_cflags = base_cflags + ['-fvisibility=hidden'] + INTERNAL + mpi_cflags + hwloc_cflags
test_cflags = lib_cflags + test_inc
prog_cflags = base_cflags + ['-Iapi'] + mpi_cflags
extra_libdirs = [d for d in mpi_libdirs + hwloc_libdirs if d not in SYSTEM_LIBDIRS]
rpaths = ['-Wl,-rpath,' + d for d in dict.fromkeys(extra_libdirs)]
ldflags = sanitize + rpaths + user_ldflags
sys_libs = ['-ldl', '-lpthread', '-lm']
lib_libs = mpi_libs + hwloc_libs + (cuda_libs if nvcc else []) + sys_libs
prog_libs = mpi_libs + sys_libs
BUILD_RPATH = '-Wl,-rpath,$ORIGIN/../lib'

# ---------------------------------------------------------------- sources
topo_tool = 'topology/shoal-topo.c'
cu_globs = ('api/*.cu', 'runtime/*.cu', 'runtime/transport/*.cu', 'topology/*.cu')
lib_c = sources('api/*.c', 'runtime/*.c', 'runtime/transport/*.c', 'topology/*.c',
                exclude=(topo_tool,))
lib_cu = sources(*cu_globs) if nvcc else []
examples = sources('examples/*.c')
bench_c = sources('bench/*.c')
bench_cu = sources('bench/*.cu') if nvcc else []
test_common = sources('tests/common/*.c')
headers = [h for h in ('api/shoal.h', 'api/shoal_topo.h', 'api/shoal_cuda.h',
                       'api/shoal_device.cuh') if os.path.isfile(h)]
version = [None, None, None]
if os.path.isfile('api/shoal.h'):
    text = open('api/shoal.h').read()
    version = [(re.search(r'#define SHOAL_VERSION_%s (\d+)' % p, text) or [0, None])[1]
               for p in ('MAJOR', 'MINOR', 'PATCH')]
version = [v or '0' for v in version]
soname = 'libshoal.so.' + version[0]

# tests/TESTS: name source np labels timeout [VAR=VALUE ...] [-- args ...]
tests = []
TESTS_FILE = 'tests/TESTS'
NAME_RE = re.compile(r'^[A-Za-z0-9_.+-]+$')
ENV_RE = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*=')
if os.path.isfile(TESTS_FILE):
    names, exes = set(), {}
    for lineno, raw in enumerate(open(TESTS_FILE), 1):
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
        args = rest[rest.index('--') + 1:] if '--' in rest else []
        env = rest[:rest.index('--')] if '--' in rest else rest
        if not NAME_RE.match(name) or name in names:
            error(where + 'test name %r is not [A-Za-z0-9_.+-]+ or is already used' % name)
        if not source.endswith(('.c', '.cu')) or not os.path.isfile(source):
            error(where + 'source %s is not an existing .c or .cu file' % source)
        if not np.isdigit() or not timeout.isdigit() or int(timeout) == 0:
            error(where + 'np must be an integer >= 0 and timeout an integer > 0 (seconds)')
        bad = [e for e in env if not ENV_RE.match(e) or ';' in e]
        if bad:
            error(where + '%r is not VAR=VALUE (no ";"); program arguments go after --' % bad[0])
        names.add(name)
        if source.endswith('.cu') and not nvcc:
            continue  # GPU-only test in a host-only build
        exe = built('tests', stem(source))
        if exes.setdefault(exe, source) != source:
            error(where + '%s and %s both build %s' % (exes[exe], source, exe))
        tests.append(dict(name=name, source=source, exe=exe, np=int(np), timeout=int(timeout),
                          labels=[l for l in labels.split(',') if l], env=env, args=args))

# ---------------------------------------------------------------- build.ninja
os.makedirs(builddir, exist_ok=True)
recorded_env = ['%s=%s' % (k, os.environ[k]) for k in RECORDED_ENV if os.environ.get(k)]
configure_cmd = (['env'] + recorded_env if recorded_env else []) + [
    sys.executable, os.path.join(SRCDIR, 'configure.py')] + ARGV

n = Writer('build.ninja')
n.comment('shoal build file, generated by configure.py; edit configure.py instead.')
n.comment('configure arguments: ' + (sh(recorded_env + ARGV) or '(none)'))
n.line()
n.variable('ninja_required_version', '1.7')
n.variable('builddir', npath(builddir))  # .ninja_log and .ninja_deps go there
n.variable('cc', nflags([cc]))
if nvcc:
    n.variable('nvcc', nflags([nvcc]))
n.variable('lib_cflags', nflags(lib_cflags + user_cflags))
n.variable('test_cflags', nflags(test_cflags + user_cflags))
n.variable('prog_cflags', nflags(prog_cflags + user_cflags))
if nvcc:
    n.variable('lib_nvccflags', nflags(nvcc_base + ['-Xcompiler', '-fvisibility=hidden'] +
                                       INTERNAL + mpi_cflags + hwloc_cflags))
    n.variable('test_nvccflags', nflags(nvcc_base + INTERNAL + mpi_cflags + hwloc_cflags + test_inc))
    n.variable('prog_nvccflags', nflags(nvcc_base + ['-Iapi'] + mpi_cflags))
n.variable('ldflags', nflags(ldflags))
n.variable('lib_libs', nflags(lib_libs))
n.variable('prog_libs', nflags(prog_libs))
n.variable('cuda_libs', nflags(cuda_libs if nvcc else []))
n.line()

n.rule('cc', '$cc -MMD -MT $out -MF $out.d $cflags -c $in -o $out',
       description='CC $out', depfile='$out.d', deps='gcc')
if nvcc:
    n.rule('nvcc', '$nvcc -MD -MT $out -MF $out.d $nvccflags -c $in -o $out',
           description='NVCC $out', depfile='$out.d', deps='gcc')
n.rule('ar', 'rm -f $out && ar crs $out $in', description='AR $out')
n.rule('solink', '$cc -shared -o $out $in $ldflags $solinkflags $libs', description='SOLINK $out')
n.rule('link', '$cc -o $out $in $ldflags $linkflags $libs', description='LINK $out')
n.rule('symlink', 'ln -sf $target $out', description='SYMLINK $out')
n.rule('configure', nflags(configure_cmd), description='CONFIGURE', generator=True, pool='console')
n.rule('ctest', nflags(['ctest', '--test-dir', builddir, '--output-on-failure']),
       description='CTEST', pool='console')
n.rule('script', '$script', description='$desc', pool='console')
n.line()


def compile_all(srcs, kind):
    """Object files for srcs: .c with $<kind>_cflags, .cu with $<kind>_nvccflags."""
    objs = []
    for src in srcs:
        if src.endswith('.cu'):
            objs += n.build(obj(src), 'nvcc', src, variables=[('nvccflags', '$%s_nvccflags' % kind)])
        else:
            objs += n.build(obj(src), 'cc', src, variables=[('cflags', '$%s_cflags' % kind)])
    return objs


n.comment('libshoal: %s (real file), libshoal.so (link), libshoal.a' % soname)
lib_objs = compile_all(lib_c + lib_cu, 'lib')
lib_real = built('lib', soname)
lib_so = built('lib', 'libshoal.so')
lib_a = built('lib', 'libshoal.a')
solink = ['-Wl,-soname,' + soname]
if nvcc:
    solink.append('-Wl,--exclude-libs,libcudart_static.a')  # keep cudart's symbols private
if not sanitize:
    solink.append('-Wl,--no-undefined')
n.build(lib_real, 'solink', lib_objs,
        variables=[('libs', '$lib_libs'), ('solinkflags', nflags(solink))])
n.build(lib_so, 'symlink', lib_real, variables=[('target', soname)])
n.build(lib_a, 'ar', lib_objs)
n.build('lib', 'phony', [lib_real, lib_so, lib_a])
n.line()


def program(out, srcs, kind='prog', libs='$prog_libs', shared=True, extra_link=(), rpath=BUILD_RPATH):
    """A program of the public library: links libshoal.so, finds it through rpath."""
    objs = compile_all(srcs, kind)
    uses_cuda = any(s.endswith('.cu') for s in srcs)
    libs = libs + (' $cuda_libs' if uses_cuda else '')
    flags = ([rpath] if shared else []) + list(extra_link)
    return n.build(out, 'link', objs + ([lib_so] if shared else []),
                   implicit=[lib_real] if shared else [],
                   variables=[('libs', libs), ('linkflags', nflags(flags))])


tool = []
if os.path.isfile(topo_tool):
    n.comment('tool')
    tool = program(built('bin', 'shoal-topo'), [topo_tool])
    n.line()

n.comment('examples')
example_outs = []
for src in examples:
    example_outs += program(built('examples', stem(src)), [src])
if os.path.isfile('examples/plugin/plugin.c'):
    plugin_objs = compile_all(['examples/plugin/plugin.c'], 'prog')
    example_outs += n.build(built('examples', 'libshoal_plugin.so'), 'solink', plugin_objs + [lib_so],
                            implicit=[lib_real],
                            variables=[('libs', '$prog_libs'), ('solinkflags', nflags([BUILD_RPATH]))])
if os.path.isfile('examples/plugin/host.c'):
    plugin_dir = '-DSHOAL_PLUGIN_DIR="%s"' % os.path.join(ABS_BUILDDIR, 'examples')
    example_outs += n.build(built('examples', 'plugin_host'), 'link',
                            n.build(obj('examples/plugin/host.c'), 'cc', 'examples/plugin/host.c',
                                    variables=[('cflags', '$prog_cflags ' + nflags([plugin_dir]))]),
                            variables=[('libs', '$prog_libs')])
n.build('examples', 'phony', example_outs)
n.line()

n.comment('bench')
bench_outs = []
for src in bench_c + bench_cu:
    bench_outs += program(built('bench', stem(src)), [src])
n.build('bench', 'phony', bench_outs)
n.line()

n.comment('tests: from tests/TESTS; linked statically so they may call internal functions')
common_objs = compile_all(test_common, 'test')
test_outs = []
for exe, source in sorted(set((t['exe'], t['source']) for t in tests)):
    objs = compile_all([source], 'test')
    test_outs += n.build(exe, 'link', objs + common_objs + [lib_a], variables=[('libs', '$lib_libs')])
n.build('tests', 'phony', test_outs)
n.line()

n.comment('installation: relinked tool with rpath to the installed library')
install_deps = [lib_real, lib_a, built('shoal.pc'), built('install.sh')] + headers
installed_tool = built('install', 'shoal-topo')
if tool:
    install_deps += n.build(installed_tool, 'link', [obj(topo_tool), lib_so], implicit=[lib_real],
                            variables=[('libs', '$prog_libs'), ('linkflags', nflags(
                                ['-Wl,-rpath,' + os.path.join(prefix, 'lib')]))])
n.build('install', 'script', implicit=install_deps,
        variables=[('script', nflags(['sh', built('install.sh')])), ('desc', 'INSTALL ' + prefix)])
n.build('test', 'ctest', implicit=['all'])
n.build('run', 'script', implicit=example_outs + tool + sources('examples/run.sh'),
        variables=[('script', nflags(['bash', 'examples/run.sh', builddir])), ('desc', 'RUN examples')])
n.line()

n.comment('regeneration: configure.py, tests/TESTS, or a file added to a source folder')
watched = ['configure.py'] + sources(TESTS_FILE) + [d for d in (
    'api', 'runtime', 'runtime/transport', 'topology', 'examples', 'examples/plugin', 'bench',
    'tests', 'tests/common') if os.path.isdir(d)]
watched += sorted(set(os.path.dirname(t['source']) for t in tests) - set(watched))
# Folders by absolute path: 'tests', 'examples', 'bench' are also phony targets.
watched = [os.path.join(SRCDIR, w) if os.path.isdir(w) else w for w in watched]
n.build('build.ninja', 'configure', implicit=watched,
        implicit_outputs=[built('CTestTestfile.cmake'), built('install.sh'), built('shoal.pc')])
n.build('all', 'phony', ['lib'] + tool + ['examples', 'bench', 'tests'])
n.default(['all'])
n.close()

# ---------------------------------------------------------------- CTestTestfile.cmake


def cmake_quote(arg):
    return '"%s"' % re.sub(r'([\\"$;])', r'\\\1', arg)


SANITIZER_ENV = []
if options.sanitize and 'address' in options.sanitize:
    # MPICH and UCX leak at exit; CUDA maps memory where ASan's shadow gap is.
    SANITIZER_ENV.append('ASAN_OPTIONS=detect_leaks=0:protect_shadow_gap=0')
if options.sanitize and 'undefined' in options.sanitize:
    SANITIZER_ENV.append('UBSAN_OPTIONS=print_stacktrace=1')

with open(built('CTestTestfile.cmake'), 'w') as f:
    f.write('# shoal tests, generated by configure.py from tests/TESTS; run: ctest --test-dir %s\n'
            % builddir)
    for t in tests:
        exe = os.path.join(SRCDIR, t['exe'])
        cmd = ([mpiexec, '-n', str(t['np'])] if t['np'] else []) + [exe] + t['args']
        env = ['SHOAL_TEST_SRCDIR=' + SRCDIR, 'SHOAL_TEST_BUILDDIR=' + ABS_BUILDDIR] + SANITIZER_ENV
        if t['np']:
            env.append('MPIEXEC_TIMEOUT=%d' % t['timeout'])
        own = set(e.split('=', 1)[0] for e in t['env'])
        env = [e for e in env if e.split('=', 1)[0] not in own] + t['env']
        props = ['LABELS', '"%s"' % ';'.join(t['labels']),
                 # mpiexec's own timeout fires first and takes its ranks down
                 'TIMEOUT', str(t['timeout'] + (10 if t['np'] else 0)),
                 'SKIP_RETURN_CODE', '77']
        if t['np']:
            props += ['PROCESSORS', str(t['np'])]
        props += ['ENVIRONMENT', '"%s"' % ';'.join(re.sub(r'([\\"$])', r'\\\1', e) for e in env)]
        f.write('add_test(%s %s)\n' % (t['name'], ' '.join(cmake_quote(a) for a in cmd)))
        f.write('set_tests_properties(%s PROPERTIES %s)\n' % (t['name'], ' '.join(props)))

# ---------------------------------------------------------------- install.sh, shoal.pc
with open(built('install.sh'), 'w') as f:
    q = shlex.quote
    lines = ['#!/bin/sh', '# Written by configure.py: installs shoal under $DESTDIR%s.' % prefix,
             'set -eu', 'cd %s' % q(SRCDIR), 'dest="${DESTDIR:-}"%s' % q(prefix),
             'install -d "$dest/include" "$dest/lib/pkgconfig" "$dest/bin"']
    if headers:
        lines.append('install -m 644 %s "$dest/include/"' % sh(headers))
    lines += ['install -m 755 %s "$dest/lib/"' % q(lib_real),
              'ln -sf %s "$dest/lib/libshoal.so"' % soname,
              'install -m 644 %s "$dest/lib/"' % q(lib_a),
              'install -m 644 %s "$dest/lib/pkgconfig/"' % q(built('shoal.pc'))]
    if tool:
        lines.append('install -m 755 %s "$dest/bin/"' % q(installed_tool))
    lines.append('echo "shoal installed in $dest"')
    f.write('\n'.join(lines) + '\n')

with open(built('shoal.pc'), 'w') as f:
    f.write('prefix=%s\nexec_prefix=${prefix}\nlibdir=${exec_prefix}/lib\n'
            'includedir=${prefix}/include\n\n' % prefix)
    f.write('Name: shoal\nDescription: topology-aware one-sided communication for MPI programs\n')
    f.write('Version: %s\n' % '.'.join(version))
    if mpi_pc:
        f.write('Requires: mpich\n')
    if hwloc_pc:
        f.write('Requires.private: hwloc\n')
    f.write('Cflags: -I${includedir}%s\n' % ('' if mpi_pc else ' ' + sh(mpi_cflags)))
    f.write('Libs: -L${libdir} -lshoal%s\n' % ('' if mpi_pc else ' ' + sh(mpi_libs)))
    f.write('Libs.private: %s\n' % sh(([] if hwloc_pc else hwloc_libs) +
                                      (cuda_libs if nvcc else []) + sys_libs))

# ---------------------------------------------------------------- summary
if nvcc:
    cuda_line = 'yes, nvcc %s (%s), %s' % (cuda_version, nvcc, ' '.join(arch_flags))
else:
    cuda_line = 'no (%s)' % ('--without-cuda' if options.without_cuda else 'nvcc not found')
print('shoal %s configured:' % '.'.join(version))
for key, value in (
        ('compiler', '%s (%s)' % (cc, cc_version)),
        ('MPI', '%s (%s), tests run with %s' % (mpi_version, mpi_origin, mpiexec)),
        ('hwloc', '%s (%s)' % (hwloc_version, hwloc_origin)),
        ('CUDA', cuda_line),
        ('build', '%s%s' % (' '.join(OPT), (', ' + ' '.join(sanitize)) if sanitize else '')),
        ('sources', '%d library, %d examples, %d bench, %d tests' % (
            len(lib_c) + len(lib_cu), len(examples), len(bench_c) + len(bench_cu), len(tests))),
        ('prefix', prefix),
        ('output', 'build.ninja, %s' % built('CTestTestfile.cmake'))):
    print('  %-9s %s' % (key, value))
