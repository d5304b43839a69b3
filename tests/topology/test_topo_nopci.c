/*
 * A live machine where hwloc finds no PCI device (it cannot see the PCI
 * bus: neither the linux component's sysfs walk nor the hwloc_pci plugin
 * runs) while NVML sees GPUs. NVML is the stand-in of tests/topology/fake_nvml.c (four
 * GPUs, described there), loaded through SHOAL_NVML_LIBRARY; both ways of
 * hwloc's PCI discovery are switched off with HWLOC_COMPONENTS. The model must take its GPUs and their PCIe classes from NVML,
 * say so in its warning (naming the package), report no PCIe path NVML did
 * not give, and shoal-topo must print the warning.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "common/check.h"
#include "shoal_topo.h"

static char builddir[4096];

static void expect_pair(shoal_topo_t t, int a, int b, shoal_path_t path, int links, int nvswitch)
{
    shoal_path_t p = SHOAL_PATH_COUNT;
    int l = -1;

    CHECK_EQ_INT(shoal_topo_gpu_path(t, a, b, &p, &l), SHOAL_SUCCESS);
    CHECK_MSG(p == path && l == links, "GPUs %d-%d: path %s with %d NVLinks, want %s with %d", a, b, shoal_path_name(p),
              l, shoal_path_name(path), links);
    CHECK_EQ_INT(shoal_topo_gpu_path(t, b, a, &p, &l), SHOAL_SUCCESS);
    CHECK_MSG(p == path && l == links, "GPUs %d-%d: not symmetric", b, a);
    CHECK_EQ_INT(shoal_topo_gpu_nvswitch(t, a, b), nvswitch);
}

/* What hwloc alone finds here: PCI devices, with the environment as it is. */
static int hwloc_pci_devices(void)
{
    hwloc_topology_t hw;
    int n;

    CHECK(hwloc_topology_init(&hw) == 0);
    CHECK(hwloc_topology_set_io_types_filter(hw, HWLOC_TYPE_FILTER_KEEP_ALL) == 0);
    CHECK(hwloc_topology_load(hw) == 0);
    n = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_PCI_DEVICE);
    hwloc_topology_destroy(hw);
    return n;
}

static void test_model(void)
{
    static const char *const buses[4] = {"0000:07:00.0", "0000:0a:00.0", "0000:41:00.0", "0000:c1:00.0"};
    static const char *const names[4] = {"Fake GPU A", "Fake GPU B", "Fake GPU C", "Fake GPU D"};
    shoal_topo_t t = NULL;
    const char *w;

    CHECK_EQ_INT(hwloc_pci_devices(), 0);
    CHECK_MSG(shoal_topo_load(NULL, &t) == SHOAL_SUCCESS, "%s", shoal_topo_last_error());
    CHECK_EQ_INT(shoal_topo_n_gpus(t), 4);
    for (int g = 0; g < 4; g++) {
        shoal_topo_gpu_t gpu;
        CHECK_EQ_INT(shoal_topo_gpu(t, g, &gpu), SHOAL_SUCCESS);
        CHECK_EQ_STR(gpu.pci_bus_id, buses[g]);
        CHECK_EQ_STR(gpu.name, names[g]);
        CHECK_EQ_INT(gpu.numa_node, -1);
        CHECK_EQ_STR(gpu.cpuset, "");
        CHECK_EQ_INT(gpu.nic, -1);
        CHECK_EQ_INT(shoal_topo_gpu_find(t, buses[g]), g);
        /* No locality known: near any binding. */
        CHECK_EQ_INT(shoal_topo_gpu_near_binding(t, g), 1);
    }
    /* NVLink from NVML's link state; the rest NVML's PCIe classes; the pair
     * NVML gave none for is the worst class. */
    CHECK_EQ_STR(shoal_topo_nvlink_source(t), "nvml");
    expect_pair(t, 0, 1, SHOAL_PATH_NVL, 4, 0);
    expect_pair(t, 0, 2, SHOAL_PATH_NODE, 0, 0);
    expect_pair(t, 0, 3, SHOAL_PATH_SYS, 0, 0);
    expect_pair(t, 1, 2, SHOAL_PATH_PHB, 0, 0);
    expect_pair(t, 1, 3, SHOAL_PATH_SYS, 0, 0);
    expect_pair(t, 2, 3, SHOAL_PATH_NVL, 2, 1);

    w = shoal_topo_warning(t);
    CHECK_CONTAINS(w, "hwloc found no PCI device on this machine while NVML sees 4 GPUs");
    CHECK_CONTAINS(w, "hwloc cannot see the PCI bus here");
    CHECK_CONTAINS(w, "install libhwloc-plugins");
    CHECK_CONTAINS(w, "HWLOC_PLUGINS_PATH");
    CHECK_CONTAINS(w, "keep pci out of HWLOC_COMPONENTS");
    CHECK_CONTAINS(w, "NVML gave no class for 1 pair, taken as SYS");

    /* An hwloc XML cannot hold GPUs hwloc does not have. */
    CHECK_EQ_INT(shoal_topo_export_xml(t, "/tmp/shoal-never-written.xml"), SHOAL_ERR_TOPOLOGY);
    CHECK_CONTAINS(shoal_topo_last_error(), "the GPUs of this model come from NVML");
    shoal_topo_destroy(t);
}

/* shoal-topo prints the warning among its warnings and on stderr. */
static void test_tool(void)
{
    char cmd[8192], out[1 << 16];
    FILE *p;
    size_t n;
    int status;

    snprintf(cmd, sizeof(cmd), "'%s/bin/shoal-topo' --no-mpi 2>&1", builddir);
    CHECK((p = popen(cmd, "r")) != NULL);
    n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    status = pclose(p);
    CHECK_MSG(status == 0, "%s: exit status %d:\n%s", cmd, status, out);
    CHECK_CONTAINS(out, "shoal-topo: warning: hwloc found no PCI device");
    CHECK_CONTAINS(out, "Warnings:\n  hwloc found no PCI device on this machine while NVML sees 4 GPUs");
    CHECK_CONTAINS(out, "GPU1");
    CHECK_CONTAINS(out, "0000:c1:00.0");

    snprintf(cmd, sizeof(cmd), "'%s/bin/shoal-topo' --no-mpi --json 2>/dev/null", builddir);
    CHECK((p = popen(cmd, "r")) != NULL);
    n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    CHECK_EQ_INT(pclose(p), 0);
    CHECK_CONTAINS(out, "\"warning\": \"hwloc found no PCI device");
    CHECK_CONTAINS(out, "\"pci_bus_id\": \"0000:41:00.0\", \"name\": \"Fake GPU C\", \"numa_node\": -1");
}

int main(void)
{
    const char *b = getenv("SHOAL_TEST_BUILDDIR");
    char lib[4096 + 32];
    shoal_topo_t t = NULL;

    CHECK_MSG(b && *b, "SHOAL_TEST_BUILDDIR must name the build folder (ctest sets it)");
    snprintf(builddir, sizeof(builddir), "%s", b);
    snprintf(lib, sizeof(lib), "%s/tests/libfake_nvml.so", builddir);
    unsetenv("SHOAL_TOPO_FILE");
    CHECK(setenv("SHOAL_NVML_LIBRARY", lib, 1) == 0);

    /* With hwloc's PCI discovery as installed, where it finds PCI devices:
     * NVML's GPUs that hwloc does not show are not made up, no warning. */
    if (hwloc_pci_devices() > 0) {
        CHECK_MSG(shoal_topo_load(NULL, &t) == SHOAL_SUCCESS, "%s", shoal_topo_last_error());
        CHECK_EQ_INT(shoal_topo_n_gpus(t), 0);
        CHECK_EQ_STR(shoal_topo_warning(t), "");
        shoal_topo_destroy(t);
        CHECK_EQ_INT(shoal_topo_live_pci(), 1);
    } else {
        check_note("hwloc finds no PCI device here even with its PCI discovery: the first case is skipped");
    }
    /* The PCI phase of hwloc's linux component, and its pci component. */
    CHECK(setenv("HWLOC_COMPONENTS", "-linux:pci,-pci", 1) == 0);
    CHECK_EQ_INT(shoal_topo_live_pci(), 0);
    test_model();
    test_tool();
    /* Without NVML either: a machine without GPUs, no warning. */
    CHECK(setenv("SHOAL_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1) == 0);
    CHECK_MSG(shoal_topo_load(NULL, &t) == SHOAL_SUCCESS, "%s", shoal_topo_last_error());
    CHECK_EQ_INT(shoal_topo_n_gpus(t), 0);
    CHECK_EQ_STR(shoal_topo_warning(t), "");
    shoal_topo_destroy(t);
    check_note("no PCI discovery: GPUs, paths and the warning from NVML");
    return 0;
}
