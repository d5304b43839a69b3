/*
 * NVLink discovery through NVML, for live machines whose hwloc has no NVML
 * backend (Debian's). NVML is loaded with dlopen: no header and no library
 * is needed to build, and a machine without the driver simply has no
 * NVLinks. The few types and entry points used are declared here, following
 * NVML's documented ABI (nvml.h of the R5xx drivers).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "topo_internal.h"

/* ---------------------------------------------------------------- NVML ABI */

typedef int shoal__nvmlReturn_t; /* nvmlReturn_t: 0 is NVML_SUCCESS */
#define SHOAL__NVML_SUCCESS 0
typedef struct shoal__nvmlDevice_st *shoal__nvmlDevice_t; /* opaque handle */
typedef int shoal__nvmlEnableState_t;                    /* NVML_FEATURE_DISABLED 0 / ENABLED 1 */
#define SHOAL__NVML_FEATURE_ENABLED 1
typedef int shoal__nvmlIntNvLinkDeviceType_t; /* GPU 0, IBMNPU 1, SWITCH 2, UNKNOWN 0xFF */
#define SHOAL__NVML_NVLINK_DEVICE_TYPE_GPU 0
#define SHOAL__NVML_NVLINK_DEVICE_TYPE_SWITCH 2
#define SHOAL__NVML_NVLINK_MAX_LINKS 18 /* Hopper has 18 */

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
} shoal__nvml_t;

/* dlsym into a function pointer without the object/function cast warning. */
#define SHOAL__NVML_SYM(nv, field, name)                                                 \
    do {                                                                                 \
        void *sym__ = dlsym((nv)->lib, (name));                                          \
        memcpy(&(nv)->field, &sym__, sizeof(sym__));                                     \
    } while (0)

/* 1 when NVML is loaded and initialized; 0 when it is absent or unusable. */
static int shoal__nvml_open(shoal__nvml_t *nv)
{
    memset(nv, 0, sizeof(*nv));
    nv->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!nv->lib) return 0;
    SHOAL__NVML_SYM(nv, init, "nvmlInit_v2");
    SHOAL__NVML_SYM(nv, shutdown, "nvmlShutdown");
    SHOAL__NVML_SYM(nv, count, "nvmlDeviceGetCount_v2");
    SHOAL__NVML_SYM(nv, by_busid, "nvmlDeviceGetHandleByPciBusId_v2");
    SHOAL__NVML_SYM(nv, pci_info, "nvmlDeviceGetPciInfo_v3");
    SHOAL__NVML_SYM(nv, link_state, "nvmlDeviceGetNvLinkState");
    SHOAL__NVML_SYM(nv, remote_pci, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    SHOAL__NVML_SYM(nv, remote_type, "nvmlDeviceGetNvLinkRemoteDeviceType");
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

static int shoal__gpu_by_pci(shoal_topo_t topo, const shoal__nvmlPciInfo_t *pci)
{
    for (int i = 0; i < topo->n_gpus; i++) {
        const struct hwloc_pcidev_attr_s *a = &topo->gpus[i].pci->attr->pcidev;
        if (a->domain == pci->domain && a->bus == pci->bus && a->dev == pci->device) return i;
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
