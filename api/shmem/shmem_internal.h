/* What the OpenSHMEM layer's files share (api/shmem/shmem_api.c, api/shmem/shmem_ops.c,
 * shmem_deprecated.c, shmem_env.c, shmem_profiling.c):
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
/* Instances shmem_init made so far: what the layer keeps of one (the
 * active sets' teams, api/shmem/shmem_activeset.c) is stale once it moved on. */
extern SHMEM__HIDDEN unsigned long shmem__epoch;

/* Print shoal's message for a failed call and abort the job. */
SHMEM__HIDDEN void shmem__die(const char *call, int status) __attribute__((noreturn));
/* The same for a routine called outside shmem_init .. shmem_finalize. */
SHMEM__HIDDEN void shmem__uninit(const char *call) __attribute__((noreturn));

/* The value of OpenSHMEM variable name ("SHMEM_SYMMETRIC_SIZE"), or of its
 * deprecated spelling (SMA_SYMMETRIC_SIZE) where only that one is set; NULL
 * where neither is. *var_p (may be NULL): the variable the value came from
 * (name where neither is set). */
SHMEM__HIDDEN const char *shmem__env(const char *name, const char **var_p);
/* On world rank 0, what SHMEM_VERSION (the library's version) and
 * SHMEM_INFO (the variables, what they do, their values) ask for, on
 * stdout. (api/shmem/shmem_env.c) */
SHMEM__HIDDEN void shmem__env_report(int rank);

#define SHMEM__NEED(call)                                                                                              \
    do {                                                                                                               \
        if (__builtin_expect(shmem__sh == NULL, 0)) shmem__uninit(call);                                               \
    } while (0)
/* Print shoal's message for a failed call whose routine returns a status
 * (the team collectives, shmem_team_sync); returns the status (nonzero). */
SHMEM__HIDDEN int shmem__fail(const char *call, int status);
static inline int SHMEM__RET(const char *call, int status)
{
    return __builtin_expect(status == SHOAL_SUCCESS, 1) ? 0 : shmem__fail(call, status);
}
#define SHMEM__OK(call, expr)                                                                                          \
    do {                                                                                                               \
        int shmem_rc__ = (expr);                                                                                       \
        if (__builtin_expect(shmem_rc__ != SHOAL_SUCCESS, 0)) shmem__die((call), shmem_rc__);                          \
    } while (0)

#endif /* SHMEM_INTERNAL_H */
