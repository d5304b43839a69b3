/* The profiling interface of OpenSHMEM 1.5 ("Profiling Interface"):
 * shmem_pcontrol, which does nothing in the library. The name-shifted
 * entries are made by the build, not written here: api/shmem/pshmem.py
 * renames each OpenSHMEM function of the layer's objects to
 * pshmem_<name> (and the calls between them, so that the library's own
 * calls bypass a profiler) and adds <name> as a weak symbol at the same
 * address, which a profiler's definition replaces in a static or a
 * dynamic link; it writes pshmem.h from shmem.h's declarations. */
#include "shmem_internal.h"

void shmem_pcontrol(const int level, ...) { (void)level; }
