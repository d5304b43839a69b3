/*
 * Path and transport names, PCI bus id lookups, and the transport policy:
 * self, different nodes, host heaps, mixed heaps, GPU pairs against
 * SHOAL_P2P_LEVEL, disabled transports (each fallback, and none left), the
 * reasons given, and argument errors. GPU pairs come from the recorded
 * 8-GPU PCIe box (tests/fixtures/topology/pcie-8gpu.xml) and the H200 pair.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "shoal_topo.h"

#define BIT(tp) (1u << (tp))

static shoal_topo_t load(const char *name)
{
    const char *src = getenv("SHOAL_TEST_SRCDIR");
    char path[4096];
    shoal_topo_t topo = NULL;

    CHECK_MSG(src && *src, "SHOAL_TEST_SRCDIR must name the source tree (ctest sets it)");
    snprintf(path, sizeof(path), "%s/tests/fixtures/topology/%s", src, name);
    CHECK_MSG(shoal_topo_load(path, &topo) == SHOAL_SUCCESS, "%s: %s", path, shoal_topo_last_error());
    return topo;
}

static void test_names(void)
{
    static const char *const paths[] = {"LOC", "NVL", "PIX", "PXB", "PHB", "NODE", "SYS", "NET"};
    static const char *const tps[] = {"self", "cuda_ipc", "shm", "staged", "mpi_rma"};
    shoal_path_t p;
    shoal_transport_id_t t;

    CHECK_EQ_INT(SHOAL_PATH_COUNT, 8);
    for (int i = 0; i < SHOAL_PATH_COUNT; i++) {
        char lower[8];
        CHECK_EQ_STR(shoal_path_name((shoal_path_t)i), paths[i]);
        CHECK_EQ_INT(shoal_path_parse(paths[i], &p), SHOAL_SUCCESS);
        CHECK_EQ_INT(p, i);
        for (size_t k = 0; k <= strlen(paths[i]); k++) lower[k] = (char)(paths[i][k] | (paths[i][k] ? 0x20 : 0));
        CHECK_EQ_INT(shoal_path_parse(lower, &p), SHOAL_SUCCESS); /* case-insensitive */
        CHECK_EQ_INT(p, i);
    }
    /* best first: the policy compares with <= */
    CHECK(SHOAL_PATH_NVL < SHOAL_PATH_PIX && SHOAL_PATH_PIX < SHOAL_PATH_PXB && SHOAL_PATH_PXB < SHOAL_PATH_PHB &&
          SHOAL_PATH_PHB < SHOAL_PATH_NODE && SHOAL_PATH_NODE < SHOAL_PATH_SYS);
    CHECK_EQ_STR(shoal_path_name(SHOAL_PATH_COUNT), "?");
    CHECK_EQ_STR(shoal_path_name((shoal_path_t)-1), "?");
    p = SHOAL_PATH_PIX;
    CHECK_EQ_INT(shoal_path_parse("NV18", &p), SHOAL_ERR_INVALID_ARG);
    CHECK_EQ_INT(p, SHOAL_PATH_PIX); /* untouched on error */
    CHECK_CONTAINS(shoal_topo_last_error(), "unknown path type 'NV18'");
    CHECK_EQ_INT(shoal_path_parse("", &p), SHOAL_ERR_INVALID_ARG);
    CHECK_EQ_INT(shoal_path_parse(NULL, &p), SHOAL_ERR_INVALID_ARG);

    CHECK_EQ_INT(SHOAL_TRANSPORT_COUNT, 5);
    for (int i = 0; i < SHOAL_TRANSPORT_COUNT; i++) {
        CHECK_EQ_STR(shoal_transport_name((shoal_transport_id_t)i), tps[i]);
        CHECK_EQ_INT(shoal_transport_parse(tps[i], &t), SHOAL_SUCCESS);
        CHECK_EQ_INT(t, i);
    }
    CHECK_EQ_INT(shoal_transport_parse("CUDA_IPC", &t), SHOAL_SUCCESS);
    CHECK_EQ_INT(t, SHOAL_TRANSPORT_CUDA_IPC);
    CHECK_EQ_INT(shoal_transport_parse("nvlink", &t), SHOAL_ERR_INVALID_ARG);
    CHECK_CONTAINS(shoal_topo_last_error(), "unknown transport 'nvlink'");
    CHECK_EQ_STR(shoal_transport_name(SHOAL_TRANSPORT_COUNT), "?");
}

static void test_find(void)
{
    shoal_topo_t t = load("pcie-8gpu.xml");

    CHECK_EQ_INT(shoal_topo_gpu_find(t, "0000:03:00.0"), 0);
    CHECK_EQ_INT(shoal_topo_gpu_find(t, "0000:8a:00.0"), 7);
    CHECK_EQ_INT(shoal_topo_gpu_find(t, "0000:8A:00.0"), 7);                   /* any case */
    CHECK_EQ_INT(shoal_topo_gpu_find(t, "00000000:89:00.0"), 6);               /* NVML's 8-digit domain */
    CHECK_EQ_INT(shoal_topo_gpu_find(t, "24:00.0"), 3);                        /* no domain */
    CHECK_EQ_INT(shoal_topo_gpu_find(t, "0000:05:00.0"), SHOAL_ERR_NO_DEVICE); /* the NIC */
    CHECK_CONTAINS(shoal_topo_last_error(), "no GPU at PCI 0000:05:00.0");
    CHECK_EQ_INT(shoal_topo_gpu_find(t, "0000:03:00.1"), SHOAL_ERR_NO_DEVICE);
    CHECK_EQ_INT(shoal_topo_gpu_find(t, "GPU-7986c307"), SHOAL_ERR_INVALID_ARG);
    CHECK_CONTAINS(shoal_topo_last_error(), "not a PCI bus id");
    CHECK_EQ_INT(shoal_topo_gpu_find(t, "0000:03:00"), SHOAL_ERR_INVALID_ARG);
    CHECK_EQ_INT(shoal_topo_gpu_find(t, "0000:03:00.0x"), SHOAL_ERR_INVALID_ARG);
    CHECK_EQ_INT(shoal_topo_gpu_find(t, "0000:300:00.0"), SHOAL_ERR_INVALID_ARG);
    CHECK_EQ_INT(shoal_topo_gpu_find(t, ""), SHOAL_ERR_INVALID_ARG);
    CHECK_EQ_INT(shoal_topo_gpu_find(t, NULL), SHOAL_ERR_INVALID_ARG);
    CHECK_EQ_INT(shoal_topo_gpu_find(NULL, "0000:03:00.0"), SHOAL_ERR_INVALID_ARG);
    shoal_topo_destroy(t);
}

/* choose() must give tp and a reason containing each needle. */
static void expect(shoal_topo_t t, const shoal_topo_policy_t *pol, int pe_a, int node_a, int gpu_a, int pe_b,
                   int node_b, int gpu_b, shoal_transport_id_t want, const char *n1, const char *n2)
{
    shoal_topo_place_t a = {.pe = pe_a, .node = node_a, .gpu = gpu_a}, b = {.pe = pe_b, .node = node_b, .gpu = gpu_b};
    shoal_transport_id_t tp = SHOAL_TRANSPORT_COUNT;
    char why[256];
    int rc = shoal_topo_choose(t, pol, &a, &b, &tp, why, sizeof(why));

    CHECK_MSG(rc == SHOAL_SUCCESS, "PE %d -> PE %d: status %d: %s", pe_a, pe_b, rc, shoal_topo_last_error());
    CHECK_MSG(tp == want, "PE %d (node %d GPU %d) -> PE %d (node %d GPU %d): %s, want %s (%s)", pe_a, node_a, gpu_a,
              pe_b, node_b, gpu_b, shoal_transport_name(tp), shoal_transport_name(want), why);
    if (n1) CHECK_CONTAINS(why, n1);
    if (n2) CHECK_CONTAINS(why, n2);
}

static void test_policy_basic(void)
{
    shoal_topo_t t = load("pcie-8gpu.xml");
    shoal_topo_policy_t pol = {.p2p_level = SHOAL_PATH_SYS, .disabled = 0};

    expect(t, &pol, 3, 0, 2, 3, 0, 2, SHOAL_TRANSPORT_SELF, "same PE", NULL);
    expect(t, &pol, 3, 0, -1, 3, 0, -1, SHOAL_TRANSPORT_SELF, "same PE", NULL);
    expect(t, &pol, 0, 0, 0, 1, 1, 1, SHOAL_TRANSPORT_MPI_RMA, "different nodes (0 and 1)", NULL);
    expect(t, &pol, 0, 0, -1, 1, 1, -1, SHOAL_TRANSPORT_MPI_RMA, "different nodes", NULL);
    expect(t, &pol, 0, 0, -1, 1, 0, -1, SHOAL_TRANSPORT_SHM, "same node, host heaps", NULL);
    {
        /* Heaps of two kinds: shoal_init refuses them, and so does the policy. */
        shoal_topo_place_t g = {.pe = 0, .node = 0, .gpu = 2}, h = {.pe = 1, .node = 0, .gpu = -1};
        shoal_transport_id_t tp = SHOAL_TRANSPORT_COUNT;
        char why[256];
        CHECK_EQ_INT(shoal_topo_choose(t, &pol, &g, &h, &tp, why, sizeof(why)), SHOAL_ERR_UNSUPPORTED);
        CHECK_EQ_INT(tp, SHOAL_TRANSPORT_COUNT);
        CHECK_CONTAINS(why, "PE 0 has a GPU heap and PE 1 a host heap: every PE's heap must be of one kind");
        h.node = 1; /* on another node as well */
        CHECK_EQ_INT(shoal_topo_choose(t, &pol, &g, &h, &tp, why, sizeof(why)), SHOAL_ERR_UNSUPPORTED);
        CHECK_CONTAINS(why, "every PE's heap must be of one kind");
    }
    /* Every GPU pair of the box, within the default level. */
    expect(t, &pol, 0, 0, 0, 1, 0, 1, SHOAL_TRANSPORT_CUDA_IPC, "GPUs 0-1 behind one PCIe switch (PIX)",
           "within SHOAL_P2P_LEVEL=SYS");
    expect(t, &pol, 0, 0, 4, 1, 0, 6, SHOAL_TRANSPORT_CUDA_IPC, "GPUs 4-6 across several PCIe switches (PXB)", NULL);
    expect(t, &pol, 0, 0, 0, 1, 0, 2, SHOAL_TRANSPORT_CUDA_IPC,
           "GPUs 0-2 across PCIe host bridges of one NUMA node (NODE)", NULL);
    expect(t, &pol, 0, 0, 0, 1, 0, 7, SHOAL_TRANSPORT_CUDA_IPC, "GPUs 0-7 across NUMA nodes (SYS)", NULL);
    /* Two PEs on one GPU: LOC, always within the level. */
    pol.p2p_level = SHOAL_PATH_NVL;
    expect(t, &pol, 0, 0, 5, 1, 0, 5, SHOAL_TRANSPORT_CUDA_IPC, "both on GPU 5 (LOC)", "within SHOAL_P2P_LEVEL=NVL");
    /* The default policy is SYS with nothing disabled. */
    expect(t, NULL, 0, 0, 0, 1, 0, 7, SHOAL_TRANSPORT_CUDA_IPC, "within SHOAL_P2P_LEVEL=SYS", NULL);
    shoal_topo_destroy(t);
}

/* The level cuts exactly where the path passes it. */
static void test_policy_levels(void)
{
    static const shoal_path_t levels[] = {SHOAL_PATH_NVL, SHOAL_PATH_PIX,  SHOAL_PATH_PXB,
                                          SHOAL_PATH_PHB, SHOAL_PATH_NODE, SHOAL_PATH_SYS};
    shoal_topo_t t = load("pcie-8gpu.xml");

    for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
        shoal_topo_policy_t pol = {.p2p_level = levels[l], .disabled = 0};
        for (int a = 0; a < 8; a++)
            for (int b = a + 1; b < 8; b++) {
                shoal_path_t path;
                char want_level[64];
                CHECK_EQ_INT(shoal_topo_gpu_path(t, a, b, &path, NULL), SHOAL_SUCCESS);
                snprintf(want_level, sizeof(want_level), "%s SHOAL_P2P_LEVEL=%s",
                         path <= levels[l] ? "within" : "beyond", shoal_path_name(levels[l]));
                expect(t, &pol, a, 0, a, b, 0, b, path <= levels[l] ? SHOAL_TRANSPORT_CUDA_IPC : SHOAL_TRANSPORT_STAGED,
                       want_level, shoal_path_name(path));
            }
    }
    shoal_topo_destroy(t);
}

static void test_policy_disabled(void)
{
    shoal_topo_t t = load("h200x2-nv18.xml");
    shoal_topo_policy_t pol = {.p2p_level = SHOAL_PATH_SYS, .disabled = BIT(SHOAL_TRANSPORT_CUDA_IPC)};
    shoal_topo_place_t a = {.pe = 0, .node = 0, .gpu = 0}, b = {.pe = 1, .node = 1, .gpu = 1};
    shoal_transport_id_t tp = SHOAL_TRANSPORT_SELF;
    char why[256];

    expect(t, &pol, 0, 0, 0, 1, 0, 1, SHOAL_TRANSPORT_STAGED, "GPUs 0-1 joined by 18 NVLinks (NVL)",
           "cuda_ipc is disabled");
    pol.disabled |= BIT(SHOAL_TRANSPORT_STAGED);
    {
        /* GPU heaps of one node: no mpi_rma (the runtime's rings carry it
         * between nodes only). */
        shoal_topo_place_t g0 = {.pe = 0, .node = 0, .gpu = 0}, g1 = {.pe = 1, .node = 0, .gpu = 1};
        CHECK_EQ_INT(shoal_topo_choose(t, &pol, &g0, &g1, &tp, why, sizeof(why)), SHOAL_ERR_UNSUPPORTED);
        CHECK_EQ_INT(tp, SHOAL_TRANSPORT_SELF);
        CHECK_CONTAINS(why, "cuda_ipc is disabled; staged is disabled");
        CHECK(strstr(why, "mpi_rma") == NULL);
        expect(t, &pol, 0, 0, 0, 1, 1, 1, SHOAL_TRANSPORT_MPI_RMA, "different nodes", NULL);
    }
    pol.disabled = BIT(SHOAL_TRANSPORT_SHM);
    expect(t, &pol, 0, 0, -1, 1, 0, -1, SHOAL_TRANSPORT_MPI_RMA, "host heaps", "shm is disabled");
    /* Self disabled: a PE talks to itself like to a peer on its node. */
    pol.disabled = BIT(SHOAL_TRANSPORT_SELF);
    expect(t, &pol, 2, 0, 1, 2, 0, 1, SHOAL_TRANSPORT_CUDA_IPC, "both on GPU 1 (LOC)", NULL);
    expect(t, &pol, 2, 0, -1, 2, 0, -1, SHOAL_TRANSPORT_SHM, "host heaps", NULL);

    /* Nothing left: an error that says why, and tp untouched. */
    pol.disabled = BIT(SHOAL_TRANSPORT_MPI_RMA);
    CHECK_EQ_INT(shoal_topo_choose(t, &pol, &a, &b, &tp, why, sizeof(why)), SHOAL_ERR_UNSUPPORTED);
    CHECK_EQ_INT(tp, SHOAL_TRANSPORT_SELF);
    CHECK_CONTAINS(why, "mpi_rma is disabled");
    CHECK_CONTAINS(shoal_topo_last_error(), "no transport left from PE 0 to PE 1");
    CHECK_CONTAINS(shoal_topo_last_error(), "different nodes (0 and 1)");
    pol.disabled = ~0u;
    b.node = 0;
    CHECK_EQ_INT(shoal_topo_choose(t, &pol, &a, &b, &tp, why, sizeof(why)), SHOAL_ERR_UNSUPPORTED);
    CHECK_CONTAINS(why, "cuda_ipc is disabled; staged is disabled");
    shoal_topo_destroy(t);
}

static void test_policy_args(void)
{
    shoal_topo_t t = load("h200x2-nv18.xml");
    shoal_topo_place_t a = {.pe = 0, .node = 0, .gpu = 0}, b = {.pe = 1, .node = 0, .gpu = 1};
    shoal_transport_id_t tp;
    char tiny[8];

    /* why may be absent or short: the choice stands, the text is cut. */
    CHECK_EQ_INT(shoal_topo_choose(t, NULL, &a, &b, &tp, NULL, 0), SHOAL_SUCCESS);
    CHECK_EQ_INT(tp, SHOAL_TRANSPORT_CUDA_IPC);
    CHECK_EQ_INT(shoal_topo_choose(t, NULL, &a, &b, &tp, tiny, sizeof(tiny)), SHOAL_SUCCESS);
    CHECK_EQ_STR(tiny, "same no");

    CHECK_EQ_INT(shoal_topo_choose(t, NULL, NULL, &b, &tp, NULL, 0), SHOAL_ERR_INVALID_ARG);
    CHECK_EQ_INT(shoal_topo_choose(t, NULL, &a, &b, NULL, NULL, 0), SHOAL_ERR_INVALID_ARG);
    b.gpu = 2;
    CHECK_EQ_INT(shoal_topo_choose(t, NULL, &a, &b, &tp, NULL, 0), SHOAL_ERR_INVALID_ARG);
    CHECK_CONTAINS(shoal_topo_last_error(), "GPU 2 out of range (2 GPUs)");
    b.gpu = -2;
    CHECK_EQ_INT(shoal_topo_choose(t, NULL, &a, &b, &tp, NULL, 0), SHOAL_ERR_INVALID_ARG);
    b.gpu = 1;
    b.pe = -1;
    CHECK_EQ_INT(shoal_topo_choose(t, NULL, &a, &b, &tp, NULL, 0), SHOAL_ERR_INVALID_ARG);
    b.pe = 1;
    /* Without a model, GPU pairs of one node cannot be judged; others can. */
    CHECK_EQ_INT(shoal_topo_choose(NULL, NULL, &a, &b, &tp, NULL, 0), SHOAL_ERR_INVALID_ARG);
    CHECK_CONTAINS(shoal_topo_last_error(), "need a topology");
    b.node = 1;
    CHECK_EQ_INT(shoal_topo_choose(NULL, NULL, &a, &b, &tp, NULL, 0), SHOAL_SUCCESS);
    CHECK_EQ_INT(tp, SHOAL_TRANSPORT_MPI_RMA);
    shoal_topo_destroy(t);
}

int main(void)
{
    test_names();
    test_find();
    test_policy_basic();
    test_policy_levels();
    test_policy_disabled();
    test_policy_args();
    check_note("topology policy: all checks passed");
    return 0;
}
