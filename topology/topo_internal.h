/*
 * shoal topology internals: the model behind shoal_topo_t, shared by the
 * loader (topo.c), the XML reader (xml.c), the PCI path walk (path.c), the NVLink matrix (nvlink.c),
 * the NVML probe (nvml.c) and the policy (policy.c).
 *
 * The model is built once at load time and read-only afterwards, so every
 * accessor is safe to call from several threads at once.
 */
#ifndef SHOAL_TOPO_INTERNAL_H
#define SHOAL_TOPO_INTERNAL_H

#include <hwloc.h>

#include "shoal.h"
#include "shoal_topo.h"

#define SHOAL__TOPO_HIDDEN __attribute__((visibility("hidden")))

/* PCI identifiers the model looks for. */
#define SHOAL__PCI_VENDOR_NVIDIA 0x10de
#define SHOAL__PCI_BASECLASS_NETWORK 0x02 /* Ethernet, InfiniBand, ... */
#define SHOAL__PCI_BASECLASS_DISPLAY 0x03 /* VGA and 3D controllers: GPUs */
#define SHOAL__PCI_CLASS_BRIDGE_OTHER 0x0680 /* what an NVSwitch reports */

/* Bandwidth of one NVLink in one direction, in MB/s, as hwloc's NVML backend
 * writes it into "NVLinkBandwidth" for NVLink 2, 3 and 4 (V100, A100,
 * H100/H200). A matrix value divided by this, rounded, is a link count. */
#define SHOAL__NVLINK_MBPS 25000ull

/* Name of the hwloc distances matrix that carries NVLink bandwidths. */
#define SHOAL__NVLINK_MATRIX "NVLinkBandwidth"

/* An info (name=value) an NVSwitch PCI device (or its OS device) may carry
 * in an XML: the name of its NVLink fabric. The NVSwitches of one machine
 * are one fabric, since hwloc's matrix never shows the links that join
 * them; switches given different names here are separate fabrics (what a
 * machine whose fabric manager keeps two partitions apart looks like).
 * Switches without it share the empty name. hwloc and shoal's NVML probe
 * never write it. */
#define SHOAL__NVLINK_FABRIC_INFO "ShoalNVLinkFabric"

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

/* Record "fmt..." as this thread's topology error and return status. */
SHOAL__TOPO_HIDDEN int shoal__topo_error(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Read the hwloc XML file at path into *xml_p (malloc'd, NUL-terminated,
 * *len_p bytes without the NUL) in a canonical form that hwloc's libxml2
 * reader and its minimal parser read the same way (topology/xml.c); refuses,
 * with SHOAL_ERR_TOPOLOGY and the byte, what hwloc would crash or stall on
 * and what only one of the parsers could read. */
SHOAL__TOPO_HIDDEN int shoal__topo_xml_read(const char *path, char **xml_p, size_t *len_p);

/* PCI class of a PCI device object (hwloc's class_id: base << 8 | sub). */
SHOAL__TOPO_HIDDEN int shoal__topo_is_gpu(hwloc_obj_t obj);
SHOAL__TOPO_HIDDEN int shoal__topo_is_nvswitch(hwloc_obj_t obj);
/* "dddd:bb:dd.f" of a PCI device object into buf[16]. */
SHOAL__TOPO_HIDDEN void shoal__topo_busid(hwloc_obj_t pci, char buf[16]);
/* Parse "dddd:bb:dd.f" or "bb:dd.f" (any case); 0 or SHOAL_ERR_INVALID_ARG. */
SHOAL__TOPO_HIDDEN int shoal__topo_busid_parse(const char *s, unsigned *domain_p, unsigned *bus_p,
                                               unsigned *dev_p, unsigned *func_p);

/* PCIe path class between any two objects of the topology (I/O or not),
 * from LOC (the same object) to SYS. Needs no NVLink information. */
SHOAL__TOPO_HIDDEN shoal_path_t shoal__topo_pci_path(hwloc_obj_t a, hwloc_obj_t b);
/* Fill topo->paths from the PCI tree and topo->nvlinks. */
SHOAL__TOPO_HIDDEN void shoal__topo_paths_fill(shoal_topo_t topo);

/* NVLink links found by a probe, before they go into the hwloc matrix. */
typedef struct shoal__nvlink_probe {
    int n_gpus;            /* GPUs of the model, same order */
    int *direct;           /* n_gpus x n_gpus: links from GPU i that end on GPU j */
    int *hidden_switch;    /* n_gpus: links from GPU i to NVSwitches hwloc does not show */
    int n_switches;        /* NVSwitch PCI devices hwloc shows, used by some link */
    hwloc_obj_t *switches; /* n_gpus * max links entries available */
    int *to_switch;        /* n_gpus x (n_gpus * max links): links from GPU i to switch s */
    int max_switches;      /* capacity of switches and of each to_switch row */
} shoal__nvlink_probe_t;

SHOAL__TOPO_HIDDEN int shoal__nvlink_probe_init(shoal__nvlink_probe_t *probe, int n_gpus, int max_switches);
SHOAL__TOPO_HIDDEN void shoal__nvlink_probe_fini(shoal__nvlink_probe_t *probe);
/* Add a probe's links to the topology as an "NVLinkBandwidth" matrix. */
SHOAL__TOPO_HIDDEN int shoal__nvlink_store(shoal_topo_t topo, const shoal__nvlink_probe_t *probe);
/* The NVLink counts of a probe straight into topo->nvlinks and
 * topo->nvswitch, for GPUs without PCI objects (no matrix can name them). */
SHOAL__TOPO_HIDDEN void shoal__nvlink_from_probe(shoal_topo_t topo, const shoal__nvlink_probe_t *probe);
/* Read an "NVLinkBandwidth" matrix, if any, into topo->nvlinks and
 * topo->nvswitch; *found_p says whether there was one. */
SHOAL__TOPO_HIDDEN int shoal__nvlink_read(shoal_topo_t topo, int *found_p);

/* Ask NVML (dlopen'ed) for the NVLinks of the model's GPUs. *found_p is 0
 * when NVML is missing, fails, or sees no active link: none of that is an
 * error, a machine without NVLink is still a machine. */
SHOAL__TOPO_HIDDEN int shoal__nvml_probe(shoal_topo_t topo, shoal__nvlink_probe_t *probe, int *found_p);
/* Where hwloc found no PCI device: the GPUs NVML sees into topo->gpus (bus
 * id order; no PCI object, locality unknown) and the PCIe class of each pair
 * (NVML's nearest common ancestor) into topo->pcie. *found_p is 0 when NVML
 * is missing or sees no GPU. */
SHOAL__TOPO_HIDDEN int shoal__nvml_gpus(shoal_topo_t topo, int *found_p);

#endif /* SHOAL_TOPO_INTERNAL_H */
