/* PEs sharing one GPU: which, and whether MPS is active (shoal_gpu_share.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "heap/shoal_gpu_share.h"

static bool shoal__uuid_known(const unsigned char *uuid)
{
    for (int i = 0; i < 16; i++)
        if (uuid[i] != 0) return true;
    return false;
}

bool shoal__gpu_same(const shoal__gpu_id_t *a, const shoal__gpu_id_t *b)
{
    if (shoal__uuid_known(a->uuid) && shoal__uuid_known(b->uuid)) return memcmp(a->uuid, b->uuid, 16) == 0;
    if (a->bus_id[0] == '\0' || b->bus_id[0] == '\0') return false; /* nothing to tell them by */
    return strncasecmp(a->bus_id, b->bus_id, sizeof(a->bus_id)) == 0;
}

int shoal__gpu_share_kind(const shoal__gpu_id_t *ids, int a, int b)
{
    if (a == b || !shoal__gpu_same(&ids[a], &ids[b])) return SHOAL_GPU_SEPARATE;
    return ids[a].mps == 1 && ids[b].mps == 1 ? SHOAL_GPU_SHARED_MPS : SHOAL_GPU_SHARED;
}

/* Appends to buf like snprintf, keeping the whole length in *total. */
static void shoal__cat(char *buf, size_t len, size_t *total, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void shoal__cat(char *buf, size_t len, size_t *total, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(*total < len ? buf + *total : NULL, *total < len ? len - *total : 0, fmt, ap);
    va_end(ap);
    if (n > 0) *total += (size_t)n;
}

/* "0, 1, 3": the PEs of the entries on r's GPU, all of them or (without_mps)
 * those for which MPS is not active. */
static void shoal__cat_pes(char *buf, size_t len, size_t *total, const shoal__gpu_id_t *ids, const int *pes, int n,
                           int r, bool without_mps)
{
    int k = 0;
    for (int i = r; i < n; i++) {
        if (!shoal__gpu_same(&ids[r], &ids[i]) || (without_mps && ids[i].mps == 1)) continue;
        shoal__cat(buf, len, total, "%s%d", k++ ? ", " : "", pes[i]);
    }
}

size_t shoal__gpu_share_warning(const shoal__gpu_id_t *ids, const int *pes, int n, int r, char *buf, size_t len)
{
    int sharers = 0, without = 0;
    size_t total = 0;

    if (len > 0) buf[0] = '\0';
    if (r < 0 || r >= n) return 0;
    for (int i = 0; i < n; i++) {
        if (!shoal__gpu_same(&ids[r], &ids[i])) continue;
        if (i < r) return 0; /* the first entry on this GPU warns */
        sharers++;
        without += ids[i].mps != 1;
    }
    if (sharers < 2 || without == 0) return 0;
    shoal__cat(buf, len, &total, "PEs ");
    shoal__cat_pes(buf, len, &total, ids, pes, n, r, false);
    shoal__cat(buf, len, &total, " share GPU %.*s", (int)sizeof(ids[r].bus_id), ids[r].bus_id);
    if (without == sharers) {
        shoal__cat(buf, len, &total, " without MPS (CUDA Multi-Process Service)");
    } else {
        shoal__cat(buf, len, &total, ", but MPS (CUDA Multi-Process Service) is not active for PE%s ",
                   without > 1 ? "s" : "");
        shoal__cat_pes(buf, len, &total, ids, pes, n, r, true);
    }
    shoal__cat(buf, len, &total,
               ": host and stream-ordered calls between them work, but their kernels take turns by time slices, so "
               "a kernel that waits for another of these PEs' kernels (device barriers, signal and value waits) "
               "advances only every few milliseconds; start MPS (nvidia-cuda-mps-control -d, see shoal's README) or "
               "give "
               "each PE a GPU of its own");
    return total;
}
