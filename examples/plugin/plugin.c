/*
 * plugin: a shared library with its own shoal instance (see plugin.h).
 *
 * Everything shoal-related stays inside: the host program only passes a
 * communicator. The instance duplicates it, so the plugin's traffic never
 * mixes with the host's, even on the same ranks at the same time.
 */
#include <stdio.h>
#include <stdlib.h>

#include "plugin.h"
#include "shoal.h"

static shoal_t sh; /* the plugin's own instance */
static int *slots; /* symmetric: one int per PE, gathered on PE 0 */
static int *total; /* symmetric: the sum, written to every PE by PE 0 */

/* Report a failed shoal call once and pass its status on. */
static int failed(int status, const char *what)
{
    fprintf(stderr, "plugin: %s: %s\n", what, shoal_last_error(sh));
    return status;
}

int plugin_init(MPI_Comm comm)
{
    shoal_config_t cfg;
    int status, npes;

    /* Its own name: SHOAL_PLUGIN_* variables tune this instance apart from
     * the application's (SHOAL_PLUGIN_HEAP_SIZE, SHOAL_PLUGIN_TIMEOUT...). */
    shoal_config_init_named(&cfg, "plugin");
    if (getenv("SHOAL_PLUGIN_HEAP_SIZE") == NULL) cfg.heap_size = 1 << 20; /* a plugin needs little */
    status = shoal_init(comm, &cfg, &sh);
    if (status != SHOAL_SUCCESS) {
        fprintf(stderr, "plugin: shoal_init: %s\n", shoal_last_error(NULL));
        return status;
    }
    npes = shoal_n_pes(sh);
    slots = shoal_calloc(sh, (size_t)npes, sizeof(int));
    total = shoal_calloc(sh, 1, sizeof(int));
    if (!slots || !total) return failed(SHOAL_ERR_NO_MEMORY, "shoal_calloc");
    return SHOAL_SUCCESS;
}

int plugin_run(int *result)
{
    int me = shoal_my_pe(sh), npes = shoal_n_pes(sh), status;

    /* every PE writes its contribution into its slot on PE 0 */
    status = shoal_int_p(sh, &slots[me], (me + 1) * (me + 1), 0);
    if (status == SHOAL_SUCCESS) status = shoal_barrier_all(sh);
    if (status != SHOAL_SUCCESS) return failed(status, "gather");

    /* PE 0 adds them up and writes the sum to everyone */
    if (me == 0) {
        int *mine = malloc(sizeof(int) * (size_t)npes), sum = 0;
        if (!mine) return SHOAL_ERR_NO_MEMORY;
        /* a get from itself reads its own heap, wherever the heap lives */
        status = shoal_int_get(sh, mine, slots, (size_t)npes, me);
        for (int pe = 0; pe < npes && status == SHOAL_SUCCESS; pe++) sum += mine[pe];
        for (int pe = 0; pe < npes && status == SHOAL_SUCCESS; pe++) status = shoal_int_p(sh, total, sum, pe);
        free(mine);
    }
    if (status == SHOAL_SUCCESS) status = shoal_barrier_all(sh);
    if (status == SHOAL_SUCCESS) status = shoal_int_g(sh, result, total, me);
    if (status != SHOAL_SUCCESS) return failed(status, "sum");
    return SHOAL_SUCCESS;
}

int plugin_finalize(void)
{
    int status;
    shoal_free(sh, total);
    shoal_free(sh, slots);
    status = shoal_finalize(sh);
    sh = NULL;
    return status;
}
