/* Statuses, their strings and the last-error messages. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "shoal_internal.h"

/* Last error of calls made without a live instance (shoal_init, NULL handles). */
static _Thread_local char shoal__global_err[768];

const char *shoal_strerror(int status)
{
    switch (status) {
#define SHOAL__STATUS_STR(name, value, desc)                                             \
    case (value):                                                                        \
        return "SHOAL_" #name ": " desc;
        SHOAL_STATUS_MAP(SHOAL__STATUS_STR)
#undef SHOAL__STATUS_STR
    default:
        return "SHOAL_ERR_UNKNOWN: not a shoal status";
    }
}

const char *shoal_last_error(shoal_t sh)
{
    if (sh == NULL || sh->magic != SHOAL__MAGIC_LIVE) return shoal__global_err;
    return sh->err;
}

int shoal__error(shoal_t sh, int status, const char *call, const char *fmt, ...)
{
    bool live = sh != NULL && sh->magic == SHOAL__MAGIC_LIVE;
    char *buf = live ? sh->err : shoal__global_err;
    size_t len = live ? sizeof(sh->err) : sizeof(shoal__global_err);
    int n;
    va_list ap;

    if (call == NULL)
        n = 0; /* the message is complete already */
    else if (live)
        n = snprintf(buf, len, "PE %d: %s: ", sh->my_pe, call);
    else
        n = snprintf(buf, len, "%s: ", call);
    if (n < 0 || (size_t)n >= len) n = 0;
    va_start(ap, fmt);
    vsnprintf(buf + n, len - (size_t)n, fmt, ap);
    va_end(ap);
    SHOAL__LOG(SHOAL__LOG_WARN, SHOAL__SUB_ALL, "%s (%s)", buf, shoal_strerror(status));
    return status;
}

int shoal__mpi_error(shoal_t sh, const char *call, const char *what, int mpi_rc)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;

    if (MPI_Error_string(mpi_rc, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof(msg), "MPI error %d", mpi_rc);
    return shoal__error(sh, SHOAL_ERR_MPI, call, "%s failed: %s", what, msg);
}

int shoal__bad_instance(shoal_t sh, const char *call)
{
    if (sh == NULL) return shoal__error(NULL, SHOAL_ERR_INVALID_INSTANCE, call, "instance is NULL");
    if (sh->magic == SHOAL__MAGIC_DEAD)
        return shoal__error(NULL, SHOAL_ERR_INVALID_INSTANCE, call, "instance was finalized");
    return shoal__error(NULL, SHOAL_ERR_INVALID_INSTANCE, call,
                        "not a shoal instance (corrupt or uninitialized handle)");
}

int shoal_version(void) { return SHOAL_VERSION; }
