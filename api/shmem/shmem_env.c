/* The OpenSHMEM layer's environment variables (OpenSHMEM 1.5,
 * "Environment Variables"): SHMEM_VERSION, SHMEM_INFO,
 * SHMEM_SYMMETRIC_SIZE and SHMEM_DEBUG, each also under its deprecated
 * SMA_* spelling, and what the first two print at start. shmem_init
 * (api/shmem/shmem_api.c) reads them; this file calls only shoal's API, so
 * that the layer's files keep calling one way. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmem_internal.h"

/* Every variable, its old spelling, and what it does (SHMEM_INFO prints
 * this). */
static const struct shmem__var {
    const char *name, *old, *doc;
} shmem__vars[] = {
    {"SHMEM_VERSION", "SMA_VERSION", "any value: PE 0 prints the library's version at shmem_init"},
    {"SHMEM_INFO", "SMA_INFO", "any value: PE 0 prints this list at shmem_init"},
    {"SHMEM_SYMMETRIC_SIZE", "SMA_SYMMETRIC_SIZE",
     "the symmetric heap of each PE, in bytes with an optional k, m, g or t (times 2^10 ... 2^40): 512m, 1.5g; "
     "wins over SHOAL_HEAP_SIZE (default: SHOAL_HEAP_SIZE's)"},
    {"SHMEM_DEBUG", "SMA_DEBUG",
     "any value: shoal's log at INFO on stderr (SHOAL_DEBUG=INFO) unless SHOAL_DEBUG is set"},
};

const char *shmem__env(const char *name, const char **var_p)
{
    for (size_t i = 0; i < sizeof(shmem__vars) / sizeof(shmem__vars[0]); i++) {
        const struct shmem__var *v = &shmem__vars[i];
        const char *val;
        if (strcmp(v->name, name) != 0) continue;
        /* SHMEM_* wins where both spellings are set (OpenSHMEM 1.5). */
        if ((val = getenv(v->name)) != NULL) {
            if (var_p != NULL) *var_p = v->name;
            return val;
        }
        if ((val = getenv(v->old)) != NULL) {
            if (var_p != NULL) *var_p = v->old;
            return val;
        }
        break;
    }
    if (var_p != NULL) *var_p = name;
    return NULL;
}

void shmem__env_report(int rank)
{
    bool info = shmem__env("SHMEM_INFO", NULL) != NULL;
    int v = shoal_version();

    if (rank != 0) return;
    if (shmem__env("SHMEM_VERSION", NULL) != NULL || info)
        printf("%s: OpenSHMEM %d.%d on shoal %d.%d.%d\n", SHMEM_VENDOR_STRING, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION,
               v / 10000, v / 100 % 100, v % 100);
    if (info) {
        printf("OpenSHMEM environment variables (the SMA_* spelling is deprecated; SHMEM_* wins where both are "
               "set):\n");
        for (size_t i = 0; i < sizeof(shmem__vars) / sizeof(shmem__vars[0]); i++) {
            const char *var, *val = shmem__env(shmem__vars[i].name, &var);
            printf("  %-21s %s\n", shmem__vars[i].name, shmem__vars[i].doc);
            if (val != NULL)
                printf("  %-21s now %s=%s\n", "", var, val);
            else
                printf("  %-21s now unset (nor %s)\n", "", shmem__vars[i].old);
        }
        printf("Every SHOAL_* variable applies as well (shoal's own, with their values):\n");
        shoal_env_print(stdout);
    }
    fflush(stdout);
}
