/*
 * libFuzzer target: shoal_topo_load on an hwloc XML file of fuzzed bytes,
 * then every query of the model (GPUs, paths between every pair, NICs,
 * the transport policy between places) and an export that must load again.
 * Loading either succeeds or fails with a status and a message; nothing
 * may crash, leak or read out of bounds.
 *
 * Objects with a cpuset but no complete_cpuset (which crash hwloc 2.9's
 * load), and os_index values hwloc would turn into sets of gigabytes
 * (seconds per load, then megabytes of export), must be refused by
 * shoal_topo_load before hwloc sees them: libFuzzer's timeout catches
 * what slips through.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shoal_topo.h"

#define FUZZ_ASSERT(cond)                                                                                              \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "fuzz_topo: %s:%d: %s\n", __FILE__, __LINE__, #cond);                                      \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

static char in_path[64], out_path[64];

static void make_paths(void)
{
    if (in_path[0] != '\0') return;
    snprintf(in_path, sizeof(in_path), "/tmp/shoal-fuzz-topo-%d.xml", (int)getpid());
    snprintf(out_path, sizeof(out_path), "/tmp/shoal-fuzz-topo-%d.out.xml", (int)getpid());
}

static void query(shoal_topo_t topo)
{
    int n_gpus = shoal_topo_n_gpus(topo), n_nics = shoal_topo_n_nics(topo);
    shoal_topo_policy_t policy = {.p2p_level = SHOAL_PATH_SYS, .disabled = 0};

    FUZZ_ASSERT(n_gpus >= 0 && n_nics >= 0);
    FUZZ_ASSERT(shoal_topo_n_packages(topo) >= 0 && shoal_topo_n_numa(topo) >= 0 && shoal_topo_n_cores(topo) >= 0);
    FUZZ_ASSERT(shoal_topo_nvlink_source(topo) != NULL);
    for (int a = 0; a < n_gpus && a < 16; a++) {
        shoal_topo_gpu_t g;
        FUZZ_ASSERT(shoal_topo_gpu(topo, a, &g) == 0);
        FUZZ_ASSERT(g.pci_bus_id != NULL && shoal_topo_gpu_find(topo, g.pci_bus_id) >= 0);
        for (int b = 0; b < n_gpus && b < 16; b++) {
            shoal_path_t path;
            int links = -1;
            shoal_topo_place_t pa = {.pe = 0, .node = 0, .gpu = a}, pb = {.pe = 1, .node = 0, .gpu = b};
            shoal_transport_id_t tp;
            char why[256];
            FUZZ_ASSERT(shoal_topo_gpu_path(topo, a, b, &path, &links) == 0);
            FUZZ_ASSERT(path >= SHOAL_PATH_LOC && path < SHOAL_PATH_COUNT && links >= 0);
            FUZZ_ASSERT(shoal_path_name(path) != NULL);
            shoal_topo_gpu_nvswitch(topo, a, b);
            if (shoal_topo_choose(topo, &policy, &pa, &pb, &tp, why, sizeof(why)) == 0)
                FUZZ_ASSERT(tp < SHOAL_TRANSPORT_COUNT && memchr(why, '\0', sizeof(why)) != NULL);
        }
    }
    shoal_topo_gpu_path(topo, -1, n_gpus, NULL, NULL);
    shoal_topo_gpu_find(topo, "not a bus id");
    for (int i = 0; i < n_nics && i < 16; i++) {
        shoal_topo_nic_t nic;
        FUZZ_ASSERT(shoal_topo_nic(topo, i, &nic) == 0 && nic.pci_bus_id != NULL && nic.name != NULL);
    }
}

/* hwloc loads libxml2 through a plugin and unloads it with the topology:
 * keep it loaded, so that its own leaks (suppressed in tests/lsan.supp by
 * library name) are not reported from an "<unknown module>". */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    dlopen("libxml2.so.2", RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    shoal_topo_t topo = NULL, again = NULL;
    FILE *f;

    make_paths();
    f = fopen(in_path, "wb");
    if (f == NULL) return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    if (shoal_topo_load(in_path, &topo) != 0) {
        const char *msg = shoal_topo_last_error();
        FUZZ_ASSERT(topo == NULL && msg != NULL && strstr(msg, "shoal_topo_load") != NULL);
        return 0;
    }
    query(topo);
    /* What shoal writes, shoal (and lstopo) must read back. */
    if (shoal_topo_export_xml(topo, out_path) == 0) {
        FUZZ_ASSERT(shoal_topo_load(out_path, &again) == 0);
        FUZZ_ASSERT(shoal_topo_n_gpus(again) == shoal_topo_n_gpus(topo));
        shoal_topo_destroy(again);
    }
    shoal_topo_destroy(topo);
    return 0;
}
