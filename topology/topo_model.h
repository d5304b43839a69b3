/*
 * shoal topology internals: the model behind shoal_topo_t, and the base
 * every other topology header includes (hwloc, the public headers, the
 * visibility of internal functions). The loader (topo.c) builds the model;
 * the NVLink matrix (nvlink.c), the NVML probe (nvml.c) and the path classes
 * (path.c) fill parts of it; the policy (policy.c) reads it.
 *
 * The model is built once at load time and read-only afterwards, so every
 * accessor is safe to call from several threads at once.
 */
#ifndef SHOAL_TOPO_MODEL_H
#define SHOAL_TOPO_MODEL_H

#include <hwloc.h>

#include "shoal.h"
#include "shoal_topo.h"

#define SHOAL__TOPO_HIDDEN __attribute__((visibility("hidden")))

/* Where the NVLink matrix of a topology came from. */
typedef enum shoal__nvlink_source {
    SHOAL__NVLINK_NONE = 0, /* no matrix: no NVLink known */
    SHOAL__NVLINK_HWLOC,    /* an "NVLinkBandwidth" matrix was already in the topology */
    SHOAL__NVLINK_NVML      /* shoal asked NVML and added the matrix itself */
} shoal__nvlink_source_t;

/* One GPU of the model. */
typedef struct shoal__topo_gpu {
    hwloc_obj_t pci;  /* its PCI device object */
    char bus_id[16];  /* "0000:19:00.0" */
    char *name;       /* malloc'd; "" when hwloc knows no name */
    char *cpuset;     /* malloc'd; near CPUs in list syntax */
    hwloc_obj_t near; /* first non-I/O ancestor: the CPU-side locality */
    int numa;         /* logical index of its NUMA node, -1 if not exactly one */
    int nic;          /* index of the nearest NIC, -1 if none */
} shoal__topo_gpu_t;

/* One NIC of the model: a network PCI device, or a network/OpenFabrics OS
 * device that has no PCI device above it. */
typedef struct shoal__topo_nic {
    hwloc_obj_t obj; /* the PCI device, else the OS device */
    char bus_id[16]; /* "" without a PCI device */
    char *name;      /* malloc'd; OS device names, comma separated, or "" */
    int numa;        /* logical index of its NUMA node, -1 if not exactly one */
} shoal__topo_nic_t;

struct shoal_topo {
    hwloc_topology_t hw;     /* the loaded hwloc topology, owned */
    int live;                /* 1: this machine; 0: loaded from XML */
    int n_packages;          /* Package objects */
    int n_numa;              /* NUMANode objects */
    int n_cores;             /* Core objects */
    int n_gpus;              /* entries of gpus */
    shoal__topo_gpu_t *gpus; /* in PCI bus id order */
    int n_nics;              /* entries of nics */
    shoal__topo_nic_t *nics; /* in PCI bus id order, PCI-less ones last */
    int *nvlinks;            /* n_gpus x n_gpus NVLink counts, 0 on the diagonal */
    unsigned char *nvswitch; /* n_gpus x n_gpus: 1 when the NVLinks go through NVSwitches */
    unsigned char *paths;    /* n_gpus x n_gpus shoal_path_t */
    shoal__nvlink_source_t nvlink_source;
    /* Live machine where hwloc found no PCI device (its PCI discovery is
     * missing): the GPUs come from NVML, without PCI objects (pci NULL),
     * and so do the PCIe classes of their pairs. */
    int pci_missing;
    unsigned char *pcie; /* n_gpus x n_gpus shoal_path_t NVML gave, when pci_missing */
    int pcie_unknown;    /* pairs NVML gave no class for (taken as SYS) */
    char *warning;       /* malloc'd; what the user should know about this model, or NULL */
};

#endif /* SHOAL_TOPO_MODEL_H */
