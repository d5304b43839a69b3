/* Statuses, their strings and the last-error messages.
 *
 * Last errors are per thread, so that threads of one PE (MPI_THREAD_MULTIPLE)
 * each read their own: a thread's last error on an instance is kept in a
 * thread-local slot; the instance's own copy (sh->err, under a lock) serves a
 * thread that never failed on it. shoal_last_error hands out thread-local
 * text only, which no other thread overwrites. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/shoal_mpi_quirks.h"
#include "base/shoal_instance.h"

#define SHOAL__ERR_LEN 1024

/* Last error of calls made without a live instance (shoal_init, NULL handles). */
static _Thread_local char shoal__global_err[SHOAL__ERR_LEN];
static _Thread_local int shoal__global_status;
/* This thread's last error on an instance, which one, and its status. */
static _Thread_local struct {
    shoal_t sh;
    char msg[SHOAL__ERR_LEN];
    int status;
} shoal__thread_err;
/* A copy of another instance's sh->err, made for this thread. */
static _Thread_local char shoal__thread_view[SHOAL__ERR_LEN];
/* Guards every instance's sh->err (errors are rare: one lock is enough). */
static pthread_mutex_t shoal__err_lock = PTHREAD_MUTEX_INITIALIZER;

_Static_assert(sizeof(((struct shoal_instance *)0)->err) == SHOAL__ERR_LEN, "sh->err size");

const char *shoal_strerror(int status)
{
    switch (status) {
#define SHOAL__STATUS_STR(name, value, desc)                                                                           \
    case (value): return "SHOAL_" #name ": " desc;
        SHOAL_STATUS_MAP(SHOAL__STATUS_STR)
#undef SHOAL__STATUS_STR
    default: return "SHOAL_ERR_UNKNOWN: not a shoal status";
    }
}

const char *shoal_last_error(shoal_t sh)
{
    if (sh == NULL || sh->magic != SHOAL__MAGIC_LIVE) return shoal__global_err;
    if (shoal__thread_err.sh == sh) return shoal__thread_err.msg;
    pthread_mutex_lock(&shoal__err_lock);
    memcpy(shoal__thread_view, sh->err, sizeof(shoal__thread_view));
    pthread_mutex_unlock(&shoal__err_lock);
    return shoal__thread_view;
}

int shoal_last_status(shoal_t sh)
{
    int status;

    if (sh == NULL || sh->magic != SHOAL__MAGIC_LIVE) return shoal__global_status;
    if (shoal__thread_err.sh == sh) return shoal__thread_err.status;
    pthread_mutex_lock(&shoal__err_lock);
    status = sh->err_status;
    pthread_mutex_unlock(&shoal__err_lock);
    return status;
}

void shoal__error_forget(shoal_t sh)
{
    if (shoal__thread_err.sh == sh) {
        shoal__thread_err.sh = NULL;
        shoal__thread_err.msg[0] = '\0';
        shoal__thread_err.status = SHOAL_SUCCESS;
    }
}

const char *shoal__say(shoal_t sh, const char *name, char *buf, size_t len)
{
    if (sh == NULL || sh->names == NULL || name == NULL) return name;
    for (const shoal__names_t *r = sh->names; r->shoal != NULL; r++) {
        size_t n = strlen(r->shoal);
        if (strcmp(name, r->shoal) == 0) return r->layer;
        if (n > 0 && r->shoal[n - 1] == '_' && strncmp(name, r->shoal, n) == 0) {
            snprintf(buf, len, "%s%s", r->layer, name + n);
            return buf;
        }
    }
    return name;
}

int shoal__error(shoal_t sh, int status, const char *call, const char *fmt, ...)
{
    bool live = sh != NULL && sh->magic == SHOAL__MAGIC_LIVE;
    char *buf = live ? shoal__thread_err.msg : shoal__global_err;
    size_t len = SHOAL__ERR_LEN;
    char said[128];
    int n;
    va_list ap;

    if (live) call = shoal__say(sh, call, said, sizeof(said));
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
    if (live) {
        shoal__thread_err.sh = sh;
        shoal__thread_err.status = status;
        pthread_mutex_lock(&shoal__err_lock);
        memcpy(sh->err, buf, sizeof(sh->err));
        sh->err_status = status;
        pthread_mutex_unlock(&shoal__err_lock);
    } else {
        shoal__global_status = status;
    }
    /* One failure, one WARN: a message completed later (call NULL: the
     * earlier text with what followed, or moved to another slot) is an
     * update, logged at INFO. */
    SHOAL__LOG(call == NULL ? SHOAL__LOG_INFO : SHOAL__LOG_WARN, SHOAL__SUB_ALL, "%s (%s)", buf,
               shoal_strerror(status));
    return status;
}

int shoal__mpi_error(shoal_t sh, const char *call, const char *what, int mpi_rc)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;

    int cls = 0;

    if (MPI_Error_string(mpi_rc, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof(msg), "MPI error %d", mpi_rc);
    if (strstr(what, "MPI_Win_create") != NULL && MPI_Error_class(mpi_rc, &cls) == MPI_SUCCESS && cls == MPI_ERR_WIN &&
        (shoal__mpi_quirks() & SHOAL__MPI_OSC_RDMA_ONLY))
        return shoal__error(sh, SHOAL_ERR_MPI, call,
                            "%s failed: %s (this Open MPI makes windows with osc/rdma only: its osc setting leaves "
                            "no other component; osc/rdma makes none where the shared-memory BTL has no single-copy "
                            "mechanism, as where CMA is turned off or process_vm_readv is not permitted, which "
                            "containers often do: set OMPI_MCA_osc=sm,ucx, or allow CMA)",
                            what, msg);
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
