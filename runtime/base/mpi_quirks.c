/* The MPI library's quirks (runtime/base/shoal_mpi_quirks.h). */
#include <stdio.h>
#include <string.h>

#include "base/shoal_log.h"
#include "base/shoal_mpi_quirks.h"

static pthread_once_t quirks_once = PTHREAD_ONCE_INIT;
static unsigned quirks;
static char library[128] = "MPI";

/* Whether this Open MPI may pick osc/rdma for a window: its "osc" setting
 * (MCA parameter, through the tool interface) is empty, an exclusion list
 * (^a,b) without rdma, or a list naming rdma. Unknown: yes. */
static bool osc_rdma_possible(void)
{
    int provided, index, count;
    bool possible = true;
    MPI_T_cvar_handle h;

    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return true;
    if (MPI_T_cvar_get_index("osc", &index) == MPI_SUCCESS &&
        MPI_T_cvar_handle_alloc(index, NULL, &h, &count) == MPI_SUCCESS) {
        char value[4096] = "";
        if (count > 0 && count < (int)sizeof(value) && MPI_T_cvar_read(h, value) == MPI_SUCCESS) {
            value[sizeof(value) - 1] = '\0';
            bool rdma = strstr(value, "rdma") != NULL;
            possible = value[0] == '\0' || (value[0] == '^' ? !rdma : rdma);
        }
        MPI_T_cvar_handle_free(&h);
    }
    MPI_T_finalize();
    return possible;
}

static void quirks_find(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0, major, minor;
    const char *o;

    if (MPI_Get_library_version(v, &len) != MPI_SUCCESS) return;
    v[strcspn(v, "\n,")] = '\0';
    snprintf(library, sizeof(library), "%s", v);
    o = strstr(v, "Open MPI v");
    if (o != NULL && sscanf(o, "Open MPI v%d.%d", &major, &minor) == 2 && major == 4 && minor <= 1 &&
        osc_rdma_possible()) {
        quirks |= SHOAL__MPI_SELF_CAS64;
        SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_RMA,
                   "%s: an 8-byte compare-and-swap on this PE's own word of a window is the CPU's (osc/rdma "
                   "crashes on MPI_Compare_and_swap aimed at its caller)",
                   library);
    }
}

unsigned shoal__mpi_quirks(void)
{
    pthread_once(&quirks_once, quirks_find);
    return quirks;
}

const char *shoal__mpi_library(void)
{
    pthread_once(&quirks_once, quirks_find);
    return library;
}

int shoal__mpi_self_cas64(MPI_Win win, uint64_t *word, uint64_t compare, uint64_t value, uint64_t *result)
{
    int rc = MPI_Win_sync(win);
    if (rc != MPI_SUCCESS) return rc;
    __atomic_compare_exchange_n(word, &compare, value, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    *result = compare; /* the word's old value, whether or not it was swapped */
    return MPI_Win_sync(win);
}
