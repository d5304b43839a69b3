/* What the OpenSHMEM layer's files share (api/shmem/shmem_api.c, api/shmem/shmem_ops.c):
 * the default instance, contexts, and the checks of every routine. */
#ifndef SHMEM_INTERNAL_H
#define SHMEM_INTERNAL_H

#include "shmem.h"

#define SHMEM__HIDDEN __attribute__((visibility("hidden")))
#define SHMEM__CTX_MAGIC 0x63747821u /* "ctx!" */

/* A context: the instance, the team whose PE numbers it takes, options. */
struct shmem__ctx {
    uint32_t magic;
    shoal_t sh;
    shoal_team_t team;
    long options;
};

/* The instance shmem_init made (NULL before it and after shmem_finalize). */
extern SHMEM__HIDDEN shoal_t shmem__sh;

/* Print shoal's message for a failed call and abort the job. */
SHMEM__HIDDEN void shmem__die(const char *call, int status) __attribute__((noreturn));
/* The same for a routine called outside shmem_init .. shmem_finalize. */
SHMEM__HIDDEN void shmem__uninit(const char *call) __attribute__((noreturn));

#define SHMEM__NEED(call)                                                                                              \
    do {                                                                                                               \
        if (__builtin_expect(shmem__sh == NULL, 0)) shmem__uninit(call);                                               \
    } while (0)
#define SHMEM__OK(call, expr)                                                                                          \
    do {                                                                                                               \
        int shmem_rc__ = (expr);                                                                                       \
        if (__builtin_expect(shmem_rc__ != SHOAL_SUCCESS, 0)) shmem__die((call), shmem_rc__);                          \
    } while (0)

#endif /* SHMEM_INTERNAL_H */
