/* Errors (runtime/base/error.c): every failure records one message, "PE <pe>:
 * <call>: <what>", on the instance (or this thread's global slot), logs it
 * at WARN once, and returns its status. */
#ifndef SHOAL_ERROR_H
#define SHOAL_ERROR_H

#include <mpi.h>

#include "base/shoal_log.h"

/* Record an error on sh (or, for NULL, in this thread's global slot):
 * "PE <pe>: <call>: <message>". Logs it at WARN and returns status. */
SHOAL__HIDDEN int shoal__error(shoal_t sh, int status, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Turn an MPI return code into a status, recording MPI's own message. */
SHOAL__HIDDEN int shoal__mpi_error(shoal_t sh, const char *call, const char *what, int mpi_rc);
/* The check macros: evaluate expr; on failure set the status variable
 * st_ and jump to the cleanup label lbl_, both named by the caller. */
/* expr returns a status (0 or negative SHOAL_ERR_*). At INFO level each hop
 * is logged, so a failure prints a short backtrace. */
#define SHOAL__TRY(st_, lbl_, expr)                                                                                    \
    do {                                                                                                               \
        (st_) = (expr);                                                                                                \
        if (SHOAL__UNLIKELY((st_) < 0)) {                                                                              \
            SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_ALL, "%s:%d: %s -> %d", __FILE__, __LINE__, #expr, (st_));          \
            goto lbl_;                                                                                                 \
        }                                                                                                              \
    } while (0)
/* expr returns an MPI error code: MPI's own message is recorded on sh,
 * naming the API call call. */
#define SHOAL__MPI_TRY(sh, call, st_, lbl_, expr)                                                                      \
    do {                                                                                                               \
        int mpi_rc__ = (expr);                                                                                         \
        if (SHOAL__UNLIKELY(mpi_rc__ != MPI_SUCCESS)) {                                                                \
            (st_) = shoal__mpi_error((sh), (call), #expr, mpi_rc__);                                                   \
            goto lbl_;                                                                                                 \
        }                                                                                                              \
    } while (0)
/* Forget this thread's last error on sh (sh is about to be freed). */
SHOAL__HIDDEN void shoal__error_forget(shoal_t sh);
/* The error for a dead or NULL handle, naming the call. */
SHOAL__HIDDEN int shoal__bad_instance(shoal_t sh, const char *call);
/* name ("shoal_malloc") as sh's API layer calls it ("shmem_malloc"), for
 * messages; name itself where the layer has no other name or sh is NULL.
 * buf (len bytes) holds a renamed prefix's result. */
SHOAL__HIDDEN const char *shoal__say(shoal_t sh, const char *name, char *buf, size_t len);

#endif /* SHOAL_ERROR_H */
