/* Unit test of the decision behind shoal_pe_gpu_shared and the init warning
 * (runtime/heap/shoal_gpu_share.h): which PEs of a node share a GPU (by UUID,
 * else by bus id), whether MPS lets their kernels run side by side, and the
 * text that names them. No GPU needed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap/shoal_gpu_share.h"

#include "common/expect.h"

/* A GPU entry: bus id, UUID made of one repeated byte (0: unknown), MPS. */
static shoal__gpu_id_t gpu(const char *bus, unsigned char uuid_byte, int mps)
{
    shoal__gpu_id_t id;
    memset(&id, 0, sizeof(id));
    snprintf(id.bus_id, sizeof(id.bus_id), "%s", bus);
    memset(id.uuid, uuid_byte, sizeof(id.uuid));
    id.mps = mps;
    return id;
}

#define A "0000:1B:00.0"
#define B "0000:43:00.0"

int main(void)
{
    char msg[1024];
    size_t n;

    /* Two PEs on one GPU without MPS: shared, and the first warns, naming
     * both PEs, the GPU, what works and what needs MPS. */
    {
        shoal__gpu_id_t ids[2] = {gpu(A, 0, 0), gpu(A, 0, 0)};
        int pes[2] = {0, 1};
        EXPECT(shoal__gpu_share_kind(ids, 0, 1) == SHOAL_GPU_SHARED);
        EXPECT(shoal__gpu_share_kind(ids, 1, 0) == SHOAL_GPU_SHARED);
        EXPECT(shoal__gpu_share_kind(ids, 0, 0) == SHOAL_GPU_SEPARATE);
        n = shoal__gpu_share_warning(ids, pes, 2, 0, msg, sizeof(msg));
        EXPECT(n > 0 && n == strlen(msg));
        EXPECT_HAS(msg, "PEs 0, 1 share GPU " A " without MPS (CUDA Multi-Process Service)");
        EXPECT_HAS(msg, "host and stream-ordered calls between them work");
        EXPECT_HAS(msg, "take turns by time slices");
        EXPECT_HAS(msg, "device barriers, signal and value waits");
        EXPECT_HAS(msg, "nvidia-cuda-mps-control -d");
        /* the second PE of the GPU stays quiet: one warning per GPU */
        strcpy(msg, "untouched");
        EXPECT(shoal__gpu_share_warning(ids, pes, 2, 1, msg, sizeof(msg)) == 0 && msg[0] == '\0');
    }
    /* The same under MPS: shared side by side, nothing to warn about. */
    {
        shoal__gpu_id_t ids[2] = {gpu(A, 7, 1), gpu(A, 7, 1)};
        int pes[2] = {0, 1};
        EXPECT(shoal__gpu_share_kind(ids, 0, 1) == SHOAL_GPU_SHARED_MPS);
        EXPECT(shoal__gpu_share_warning(ids, pes, 2, 0, msg, sizeof(msg)) == 0 && msg[0] == '\0');
    }
    /* MPS for one of three PEs only: shared without it for the pairs that
     * lack it; the warning names the PEs without MPS. */
    {
        shoal__gpu_id_t ids[3] = {gpu(A, 0, 1), gpu(A, 0, 0), gpu(A, 0, 0)};
        int pes[3] = {4, 5, 6};
        EXPECT(shoal__gpu_share_kind(ids, 0, 1) == SHOAL_GPU_SHARED);
        EXPECT(shoal__gpu_share_kind(ids, 1, 2) == SHOAL_GPU_SHARED);
        EXPECT(shoal__gpu_share_warning(ids, pes, 3, 0, msg, sizeof(msg)) > 0);
        EXPECT_HAS(msg,
                   "PEs 4, 5, 6 share GPU " A ", but MPS (CUDA Multi-Process Service) is not active for PEs 5, 6:");
        ids[2].mps = 1;
        EXPECT(shoal__gpu_share_kind(ids, 0, 2) == SHOAL_GPU_SHARED_MPS);
        EXPECT(shoal__gpu_share_warning(ids, pes, 3, 0, msg, sizeof(msg)) > 0);
        EXPECT_HAS(msg, "is not active for PE 5:");
    }
    /* Different GPUs: separate, no warning. */
    {
        shoal__gpu_id_t ids[2] = {gpu(A, 1, 0), gpu(B, 2, 0)};
        int pes[2] = {0, 1};
        EXPECT(shoal__gpu_share_kind(ids, 0, 1) == SHOAL_GPU_SEPARATE);
        EXPECT(shoal__gpu_share_warning(ids, pes, 2, 0, msg, sizeof(msg)) == 0);
        EXPECT(shoal__gpu_share_warning(ids, pes, 2, 1, msg, sizeof(msg)) == 0);
    }
    /* Two MIG instances of one board: one bus id, their own UUIDs, separate. */
    {
        shoal__gpu_id_t ids[2] = {gpu(A, 1, 0), gpu(A, 2, 0)};
        int pes[2] = {0, 1};
        EXPECT(shoal__gpu_share_kind(ids, 0, 1) == SHOAL_GPU_SEPARATE);
        EXPECT(shoal__gpu_share_warning(ids, pes, 2, 0, msg, sizeof(msg)) == 0);
    }
    /* One UUID, the bus id written in another case: one GPU. A UUID known on
     * one side only: the bus ids decide. */
    {
        shoal__gpu_id_t ids[3] = {gpu("0000:1b:00.0", 9, 0), gpu(A, 9, 0), gpu(B, 0, 0)};
        EXPECT(shoal__gpu_same(&ids[0], &ids[1]));
        EXPECT(!shoal__gpu_same(&ids[1], &ids[2]));
        ids[2] = gpu(A, 0, 0);
        EXPECT(shoal__gpu_same(&ids[1], &ids[2]));
        EXPECT(shoal__gpu_same(&ids[0], &ids[2])); /* case aside */
        /* an entry nobody filled in (no bus id, no UUID) is nobody's GPU */
        shoal__gpu_id_t blank = gpu("", 0, 0);
        EXPECT(!shoal__gpu_same(&blank, &blank));
    }
    /* Four PEs, two GPUs, alternating: two groups, each warned about by its
     * first PE only, naming the PEs of its own GPU. */
    {
        shoal__gpu_id_t ids[4] = {gpu(A, 0, 0), gpu(B, 0, 0), gpu(A, 0, 0), gpu(B, 0, 0)};
        int pes[4] = {8, 9, 10, 11};
        EXPECT(shoal__gpu_share_kind(ids, 0, 2) == SHOAL_GPU_SHARED);
        EXPECT(shoal__gpu_share_kind(ids, 0, 1) == SHOAL_GPU_SEPARATE);
        EXPECT(shoal__gpu_share_kind(ids, 3, 1) == SHOAL_GPU_SHARED);
        EXPECT(shoal__gpu_share_warning(ids, pes, 4, 0, msg, sizeof(msg)) > 0);
        EXPECT_HAS(msg, "PEs 8, 10 share GPU " A " without MPS");
        EXPECT(shoal__gpu_share_warning(ids, pes, 4, 1, msg, sizeof(msg)) > 0);
        EXPECT_HAS(msg, "PEs 9, 11 share GPU " B " without MPS");
        EXPECT(shoal__gpu_share_warning(ids, pes, 4, 2, msg, sizeof(msg)) == 0);
        EXPECT(shoal__gpu_share_warning(ids, pes, 4, 3, msg, sizeof(msg)) == 0);
        EXPECT(shoal__gpu_share_warning(ids, pes, 4, 4, msg, sizeof(msg)) == 0); /* out of range */
        EXPECT(shoal__gpu_share_warning(ids, pes, 4, -1, msg, sizeof(msg)) == 0);
    }
    /* A short buffer: cut and NUL-ended, the whole length returned. */
    {
        shoal__gpu_id_t ids[2] = {gpu(A, 0, 0), gpu(A, 0, 0)};
        int pes[2] = {0, 1};
        char small[16];
        size_t full = shoal__gpu_share_warning(ids, pes, 2, 0, msg, sizeof(msg));
        memset(small, 'x', sizeof(small));
        EXPECT(shoal__gpu_share_warning(ids, pes, 2, 0, small, sizeof(small)) == full);
        EXPECT(strlen(small) == sizeof(small) - 1 && strncmp(small, msg, sizeof(small) - 1) == 0);
        EXPECT(shoal__gpu_share_warning(ids, pes, 2, 0, NULL, 0) == full);
    }

    if (failures) {
        fprintf(stderr, "test_gpu_share_unit: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_gpu_share_unit: passed\n");
    return 0;
}
