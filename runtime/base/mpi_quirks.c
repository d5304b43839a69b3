/* The MPI library's quirks (runtime/base/shoal_mpi_quirks.h). */
#include <stdio.h>
#include <string.h>

#include "base/shoal_log.h"
#include "base/shoal_mpi_quirks.h"

static pthread_once_t quirks_once = PTHREAD_ONCE_INIT;
static unsigned quirks;

/* Whether osc/rdma is the one component this Open MPI can give a window of
 * MPI_Win_create: its "osc" setting (MCA parameter, read through the tool
 * interface) excludes ucx and pt2pt (Debian's "^ucx,pt2pt"), or lists rdma
 * without them. Where ucx or pt2pt may run the window (Open MPI's own
 * default, an empty setting), their atomics need not be the CPU's: no. */
static bool osc_rdma_only(void)
{
    int provided, index, count;
    bool only = false;
    MPI_T_cvar_handle h;

    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return false;
    if (MPI_T_cvar_get_index("osc", &index) == MPI_SUCCESS &&
        MPI_T_cvar_handle_alloc(index, NULL, &h, &count) == MPI_SUCCESS) {
        char value[4096] = "";
        if (count > 0 && count < (int)sizeof(value) && MPI_T_cvar_read(h, value) == MPI_SUCCESS) {
            value[sizeof(value) - 1] = '\0';
            bool rdma = strstr(value, "rdma") != NULL, others = strstr(value, "ucx") || strstr(value, "pt2pt");
            if (value[0] == '^')
                only = !rdma && strstr(value, "ucx") && strstr(value, "pt2pt");
            else
                only = value[0] != '\0' && rdma && !others;
        }
        MPI_T_cvar_handle_free(&h);
    }
    MPI_T_finalize();
    return only;
}

static void quirks_find(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0, major, minor;
    const char *o;

    if (MPI_Get_library_version(v, &len) != MPI_SUCCESS) return;
    v[strcspn(v, "\n,")] = '\0';
    o = strstr(v, "Open MPI v");
    if (o != NULL && osc_rdma_only()) quirks |= SHOAL__MPI_OSC_RDMA_ONLY;
    if (o != NULL && sscanf(o, "Open MPI v%d.%d", &major, &minor) == 2 && major == 4 && minor <= 1 &&
        (quirks & SHOAL__MPI_OSC_RDMA_ONLY)) {
        quirks |= SHOAL__MPI_SELF_CAS64;
        SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_RMA,
                   "%s: an 8-byte compare-and-swap on this PE's own word of a window is the CPU's (osc/rdma "
                   "crashes on MPI_Compare_and_swap aimed at its caller)",
                   v);
    }
}

unsigned shoal__mpi_quirks(void)
{
    pthread_once(&quirks_once, quirks_find);
    return quirks;
}
