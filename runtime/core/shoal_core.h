/* The instance's life and its collective calls on memory: shoal_init
 * (runtime/core/init.c), shoal_finalize (finalize.c), the registry of a
 * process's instances (registry.c), collective allocation (malloc.c) and
 * registration (register.c). The API calls them; nothing below core/ does. */
#ifndef SHOAL_CORE_H
#define SHOAL_CORE_H

#include "base/shoal_instance.h"

SHOAL__HIDDEN int shoal__init(MPI_Comm comm, const shoal_config_t *cfg, shoal_t *sh_p);
/* Remember where the application created sh (the return address of its
 * shoal_init call), for messages about the instance's life. */
SHOAL__HIDDEN void shoal__note_creator(shoal_t sh, const void *caller);
SHOAL__HIDDEN int shoal__finalize(shoal_t sh);

/* The registry (runtime/core/registry.c): an entry made before anything can
 * fail late; the MPI_COMM_SELF attribute that finalizes a forgotten
 * instance at MPI_Finalize (sets sh->keyval, sh->attr_set); adding sh. */
SHOAL__HIDDEN void *shoal__registry_entry_new(void);
SHOAL__HIDDEN int shoal__registry_hook(shoal_t sh);
SHOAL__HIDDEN void shoal__registry_add(shoal_t sh, void *entry);

/* Collective allocation on the heap (runtime/core/malloc.c). */
SHOAL__HIDDEN void *shoal__malloc(shoal_t sh, const char *call, size_t size, size_t align, bool zero);
SHOAL__HIDDEN int shoal__free(shoal_t sh, void *ptr);

/* Collective over the instance: every PE registers [base, base + size) of
 * its own memory, the same size everywhere (else SHOAL_ERR_NOT_SYMMETRIC on
 * every PE, naming them and their sizes). size 0 registers nothing (the PEs
 * still meet). A NULL base with size > 0, a range that wraps, overlaps the
 * heap (or the heaps of node peers mapped here) or another registered range
 * is SHOAL_ERR_INVALID_ARG on that PE (SHOAL_ERR_NOT_SYMMETRIC, naming it,
 * on the others). GPU memory (cudaMalloc, inside one allocation) needs a
 * GPU heap (SHOAL_ERR_UNSUPPORTED on a host heap); managed memory is
 * SHOAL_ERR_UNSUPPORTED. shared (shoal_register_shared, host memory): the
 * range's whole private writable pages move into shared memory that node
 * peers map (where they can; the PEs meet as another call, so that one
 * calling shoal_register meanwhile is named). */
SHOAL__HIDDEN int shoal__register(shoal_t sh, const char *call, void *base, size_t size, bool shared);
/* Collective: every PE deregisters its base of one registration (the same
 * one on every PE, else SHOAL_ERR_NOT_SYMMETRIC). A base that is not one
 * this PE registered is SHOAL_ERR_INVALID_ARG there. This PE's operations on
 * the range are complete when it returns. */
SHOAL__HIDDEN int shoal__deregister(shoal_t sh, const char *call, void *base);
/* In shoal_finalize: every range goes, its window freed (collective,
 * oldest first on every PE) unless sh->broken. */
SHOAL__HIDDEN void shoal__registers_free(shoal_t sh);

#endif /* SHOAL_CORE_H */
