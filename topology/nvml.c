/*
 * NVLink discovery through NVML, for live machines whose hwloc has no NVML
 * backend (Debian's); and the GPUs themselves, with the PCIe class of each
 * pair, where hwloc found no PCI device at all (its PCI discovery missing).
 * NVML is loaded with dlopen (SHOAL_NVML_LIBRARY, else libnvidia-ml.so.1):
 * no header and no library is needed to build, and a machine without the
 * driver simply has no NVLinks. The few types and entry points used are
 * declared here, following NVML's documented ABI (nvml.h of the R5xx
 * drivers).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_error.h"
#include "topo_model.h"
#include "topo_nvlink.h"
#include "topo_nvml.h"
#include "topo_pci.h"

/* ---------------------------------------------------------------- NVML ABI */

typedef int shoal__nvmlReturn_t; /* nvmlReturn_t: 0 is NVML_SUCCESS */
#define SHOAL__NVML_SUCCESS 0
typedef struct shoal__nvmlDevice_st *shoal__nvmlDevice_t; /* opaque handle */
typedef int shoal__nvmlEnableState_t;                     /* NVML_FEATURE_DISABLED 0 / ENABLED 1 */
#define SHOAL__NVML_FEATURE_ENABLED 1
typedef int shoal__nvmlIntNvLinkDeviceType_t; /* GPU 0, IBMNPU 1, SWITCH 2, UNKNOWN 0xFF */
#define SHOAL__NVML_NVLINK_DEVICE_TYPE_GPU 0
#define SHOAL__NVML_NVLINK_DEVICE_TYPE_SWITCH 2
#define SHOAL__NVML_NVLINK_MAX_LINKS 18 /* Hopper has 18 */
#define SHOAL__NVML_NAME_LEN 96         /* NVML_DEVICE_NAME_V2_BUFFER_SIZE */
/* nvmlGpuTopologyLevel_t: the nearest common ancestor of two GPUs. */
#define SHOAL__NVML_TOPOLOGY_INTERNAL 0    /* one board (a dual-GPU card) */
#define SHOAL__NVML_TOPOLOGY_SINGLE 10     /* one PCIe switch */
#define SHOAL__NVML_TOPOLOGY_MULTIPLE 20   /* several PCIe switches, no host bridge */
#define SHOAL__NVML_TOPOLOGY_HOSTBRIDGE 30 /* one host bridge */
#define SHOAL__NVML_TOPOLOGY_NODE 40       /* host bridges of one NUMA node */
#define SHOAL__NVML_TOPOLOGY_SYSTEM 50     /* across NUMA nodes */

/* nvmlPciInfo_t as filled by the _v3 / _v2 entry points used below. */
typedef struct shoal__nvmlPciInfo {
    char busIdLegacy[16];        /* "dddd:bb:dd.f" */
    unsigned int domain;         /* PCI domain */
    unsigned int bus;            /* bus number, 0..0xff */
    unsigned int device;         /* device number, 0..31 */
    unsigned int pciDeviceId;    /* device id << 16 | vendor id */
    unsigned int pciSubSystemId; /* subsystem id */
    char busId[32];              /* "dddddddd:bb:dd.f" */
} shoal__nvmlPciInfo_t;

/* The entry points, resolved by name. */
typedef struct shoal__nvml {
    void *lib;
    shoal__nvmlReturn_t (*init)(void);
    shoal__nvmlReturn_t (*shutdown)(void);
    shoal__nvmlReturn_t (*count)(unsigned int *);
    shoal__nvmlReturn_t (*by_busid)(const char *, shoal__nvmlDevice_t *);
    shoal__nvmlReturn_t (*pci_info)(shoal__nvmlDevice_t, shoal__nvmlPciInfo_t *);
    shoal__nvmlReturn_t (*link_state)(shoal__nvmlDevice_t, unsigned int, shoal__nvmlEnableState_t *);
    shoal__nvmlReturn_t (*remote_pci)(shoal__nvmlDevice_t, unsigned int, shoal__nvmlPciInfo_t *);
    /* optional: older drivers lack it */
    shoal__nvmlReturn_t (*remote_type)(shoal__nvmlDevice_t, unsigned int, shoal__nvmlIntNvLinkDeviceType_t *);
    /* for GPUs hwloc did not find (optional: without them, no such GPUs) */
    shoal__nvmlReturn_t (*by_index)(unsigned int, shoal__nvmlDevice_t *);
    shoal__nvmlReturn_t (*name)(shoal__nvmlDevice_t, char *, unsigned int);
    shoal__nvmlReturn_t (*common_ancestor)(shoal__nvmlDevice_t, shoal__nvmlDevice_t, int *);
} shoal__nvml_t;

/* dlsym into a function pointer without the object/function cast warning. */
#define SHOAL__NVML_SYM(nv, field, name)                                                                               \
    do {                                                                                                               \
        void *sym__ = dlsym((nv)->lib, (name));                                                                        \
        memcpy(&(nv)->field, &sym__, sizeof(sym__));                                                                   \
    } while (0)

/* 1 when NVML is loaded and initialized; 0 when it is absent or unusable. */
static int shoal__nvml_open(shoal__nvml_t *nv)
{
    const char *path = getenv("SHOAL_NVML_LIBRARY");

    memset(nv, 0, sizeof(*nv));
    nv->lib = dlopen(path && *path ? path : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!nv->lib) return 0;
    SHOAL__NVML_SYM(nv, init, "nvmlInit_v2");
    SHOAL__NVML_SYM(nv, shutdown, "nvmlShutdown");
    SHOAL__NVML_SYM(nv, count, "nvmlDeviceGetCount_v2");
    SHOAL__NVML_SYM(nv, by_busid, "nvmlDeviceGetHandleByPciBusId_v2");
    SHOAL__NVML_SYM(nv, pci_info, "nvmlDeviceGetPciInfo_v3");
    SHOAL__NVML_SYM(nv, link_state, "nvmlDeviceGetNvLinkState");
    SHOAL__NVML_SYM(nv, remote_pci, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    SHOAL__NVML_SYM(nv, remote_type, "nvmlDeviceGetNvLinkRemoteDeviceType");
    SHOAL__NVML_SYM(nv, by_index, "nvmlDeviceGetHandleByIndex_v2");
    SHOAL__NVML_SYM(nv, name, "nvmlDeviceGetName");
    SHOAL__NVML_SYM(nv, common_ancestor, "nvmlDeviceGetTopologyCommonAncestor");
    if (!nv->init || !nv->shutdown || !nv->count || !nv->by_busid || !nv->pci_info || !nv->link_state ||
        !nv->remote_pci || nv->init() != SHOAL__NVML_SUCCESS) {
        dlclose(nv->lib);
        nv->lib = NULL;
        return 0;
    }
    return 1;
}

static void shoal__nvml_close(shoal__nvml_t *nv)
{
    if (!nv->lib) return;
    nv->shutdown();
    dlclose(nv->lib);
    nv->lib = NULL;
}

/* The model's GPU at that PCI address (by its bus id: hwloc's GPUs and
 * NVML's alike), or -1. */
static int shoal__gpu_by_pci(shoal_topo_t topo, const shoal__nvmlPciInfo_t *pci)
{
    for (int i = 0; i < topo->n_gpus; i++) {
        unsigned domain, bus, dev, func;
        if (shoal__topo_busid_parse(topo->gpus[i].bus_id, &domain, &bus, &dev, &func) == SHOAL_SUCCESS &&
            domain == pci->domain && bus == pci->bus && dev == pci->device)
            return i;
    }
    return -1;
}

/* Index of sw in the probe's switch list, appending it if new. */
static int shoal__probe_switch(shoal__nvlink_probe_t *probe, hwloc_obj_t sw)
{
    for (int s = 0; s < probe->n_switches; s++)
        if (probe->switches[s] == sw) return s;
    if (probe->n_switches == probe->max_switches) return -1;
    probe->switches[probe->n_switches] = sw;
    return probe->n_switches++;
}

/* Record where link `link` of GPU i lands. */
static void shoal__nvml_link(shoal_topo_t topo, shoal__nvml_t *nv, shoal__nvlink_probe_t *probe, int i,
                             shoal__nvmlDevice_t dev, unsigned link)
{
    shoal__nvmlPciInfo_t remote;
    shoal__nvmlIntNvLinkDeviceType_t type = -1;
    hwloc_obj_t obj;
    int j, s;

    memset(&remote, 0, sizeof(remote));
    if (nv->remote_pci(dev, link, &remote) != SHOAL__NVML_SUCCESS) return;
    if (nv->remote_type && nv->remote_type(dev, link, &type) != SHOAL__NVML_SUCCESS) type = -1;

    j = shoal__gpu_by_pci(topo, &remote);
    if (j >= 0 && j != i) {
        probe->direct[i * probe->n_gpus + j]++;
        return;
    }
    if (type == SHOAL__NVML_NVLINK_DEVICE_TYPE_GPU) return; /* a GPU hidden from us (cgroup): no pair to count */

    obj = hwloc_get_pcidev_by_busid(topo->hw, remote.domain, remote.bus, remote.device, 0);
    if (obj && shoal__topo_is_nvswitch(obj)) {
        if ((s = shoal__probe_switch(probe, obj)) >= 0) probe->to_switch[i * probe->max_switches + s]++;
        return;
    }
    /* A switch hwloc does not show (typical of VMs given some GPUs of an
     * HGX board): NVML says so, or an NVIDIA device we cannot see at all. */
    if (type == SHOAL__NVML_NVLINK_DEVICE_TYPE_SWITCH ||
        (!obj && type == -1 && (remote.pciDeviceId & 0xffffu) == SHOAL__PCI_VENDOR_NVIDIA))
        probe->hidden_switch[i]++;
    /* Anything else (a POWER CPU's NPU) is no GPU-to-GPU path. */
}

int shoal__nvml_probe(shoal_topo_t topo, shoal__nvlink_probe_t *probe, int *found_p)
{
    shoal__nvml_t nv;
    int links = 0;

    unsigned count = 0;

    *found_p = 0;
    if (!shoal__nvml_open(&nv)) return SHOAL_SUCCESS;
    if (nv.count(&count) != SHOAL__NVML_SUCCESS || count == 0) goto out_close;
    for (int i = 0; i < topo->n_gpus; i++) {
        shoal__nvmlDevice_t dev;
        shoal__nvmlPciInfo_t self;
        /* GPUs NVML cannot see (another container's) have no links to count;
         * a handle for another device than asked would count wrong ones. */
        if (nv.by_busid(topo->gpus[i].bus_id, &dev) != SHOAL__NVML_SUCCESS) continue;
        if (nv.pci_info(dev, &self) != SHOAL__NVML_SUCCESS || shoal__gpu_by_pci(topo, &self) != i) continue;
        for (unsigned l = 0; l < SHOAL__NVML_NVLINK_MAX_LINKS; l++) {
            shoal__nvmlEnableState_t active = 0;
            /* Links past a GPU's last one, or GPUs without NVLink, answer an
             * error: not an error for us. */
            if (nv.link_state(dev, l, &active) != SHOAL__NVML_SUCCESS || active != SHOAL__NVML_FEATURE_ENABLED)
                continue;
            links++;
            shoal__nvml_link(topo, &nv, probe, i, dev, l);
        }
    }
out_close:
    shoal__nvml_close(&nv);
    *found_p = links > 0;
    return SHOAL_SUCCESS;
}

/* ------------------------------------------------- GPUs without PCI discovery */

static shoal_path_t shoal__nvml_level_path(int level)
{
    switch (level) {
    case SHOAL__NVML_TOPOLOGY_INTERNAL:
    case SHOAL__NVML_TOPOLOGY_SINGLE: return SHOAL_PATH_PIX;
    case SHOAL__NVML_TOPOLOGY_MULTIPLE: return SHOAL_PATH_PXB;
    case SHOAL__NVML_TOPOLOGY_HOSTBRIDGE: return SHOAL_PATH_PHB;
    case SHOAL__NVML_TOPOLOGY_NODE: return SHOAL_PATH_NODE;
    default: return SHOAL_PATH_SYS;
    }
}

static int shoal__nvml_gpu_cmp(const void *a, const void *b)
{
    return strcmp(((const shoal__topo_gpu_t *)a)->bus_id, ((const shoal__topo_gpu_t *)b)->bus_id);
}

int shoal__nvml_gpus(shoal_topo_t topo, int *found_p)
{
    shoal__nvml_t nv;
    shoal__nvmlDevice_t *devs = NULL, *sorted = NULL;
    unsigned count = 0;
    int n = 0, rc = SHOAL_SUCCESS;

    *found_p = 0;
    if (!shoal__nvml_open(&nv)) return SHOAL_SUCCESS;
    if (!nv.by_index || !nv.name || nv.count(&count) != SHOAL__NVML_SUCCESS || count == 0) goto out_close;
    if (count > 4096) count = 4096;
    topo->gpus = calloc(count, sizeof(*topo->gpus));
    devs = calloc(count, sizeof(*devs));
    sorted = calloc(count, sizeof(*sorted));
    if (!topo->gpus || !devs || !sorted) {
        rc = shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_load: out of memory for %u GPUs", count);
        goto out_close;
    }
    for (unsigned i = 0; i < count; i++) {
        shoal__nvmlPciInfo_t pci;
        char name[SHOAL__NVML_NAME_LEN];
        shoal__topo_gpu_t *g = &topo->gpus[n];
        /* A device NVML cannot open (no permission, fallen off the bus) is
         * one CUDA cannot use either. */
        if (nv.by_index(i, &devs[n]) != SHOAL__NVML_SUCCESS || nv.pci_info(devs[n], &pci) != SHOAL__NVML_SUCCESS)
            continue;
        snprintf(g->bus_id, sizeof(g->bus_id), "%04x:%02x:%02x.0", pci.domain & 0xffffu, pci.bus & 0xffu,
                 pci.device & 0x1fu);
        if (nv.name(devs[n], name, sizeof(name)) != SHOAL__NVML_SUCCESS) name[0] = '\0';
        name[sizeof(name) - 1] = '\0';
        g->pci = NULL; /* no PCI device in hwloc: locality unknown */
        g->near = NULL;
        g->numa = -1;
        g->nic = -1;
        topo->n_gpus = ++n; /* counted first: shoal_topo_destroy frees what was set */
        g->name = strdup(name);
        g->cpuset = strdup("");
        if (!g->name || !g->cpuset) {
            rc = shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_load: out of memory");
            goto out_close;
        }
    }
    if (n == 0) goto out_close;
    /* Bus id order, as hwloc's GPUs; the handles follow their GPUs. */
    {
        shoal__topo_gpu_t *unsorted = malloc((size_t)n * sizeof(*unsorted));
        if (!unsorted) {
            rc = shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_load: out of memory");
            goto out_close;
        }
        memcpy(unsorted, topo->gpus, (size_t)n * sizeof(*unsorted));
        qsort(topo->gpus, (size_t)n, sizeof(*topo->gpus), shoal__nvml_gpu_cmp);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (strcmp(topo->gpus[i].bus_id, unsorted[j].bus_id) == 0) sorted[i] = devs[j];
        free(unsorted);
    }
    topo->pcie = calloc((size_t)n * (size_t)n, sizeof(*topo->pcie));
    if (!topo->pcie) {
        rc = shoal__topo_error(SHOAL_ERR_NO_MEMORY, "shoal_topo_load: out of memory");
        goto out_close;
    }
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            int level = -1;
            shoal_path_t p = SHOAL_PATH_SYS;
            if (nv.common_ancestor && nv.common_ancestor(sorted[a], sorted[b], &level) == SHOAL__NVML_SUCCESS)
                p = shoal__nvml_level_path(level);
            else
                topo->pcie_unknown++; /* not known: the worst class, and the warning says so */
            topo->pcie[a * n + b] = topo->pcie[b * n + a] = (unsigned char)p;
        }
    *found_p = 1;
out_close:
    free(devs);
    free(sorted);
    shoal__nvml_close(&nv);
    return rc;
}
