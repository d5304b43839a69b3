/*
 * shoal topology: the machine as shoal sees it (hwloc), the path between
 * every GPU pair, and the transport policy built on that model alone.
 *
 * Plain C11; needs no MPI and no CUDA. Errors are negative shoal statuses
 * (see shoal.h); shoal_topo_last_error() names the cause.
 */
#ifndef SHOAL_TOPO_H
#define SHOAL_TOPO_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef SHOAL_EXPORT
#define SHOAL_EXPORT __attribute__((visibility("default")))
#endif

typedef struct shoal_topo *shoal_topo_t;

/* Path between two GPUs, best first (compare with <). */
typedef enum shoal_path {
    SHOAL_PATH_LOC = 0,  /* same GPU */
    SHOAL_PATH_NVL = 1,  /* NVLink, direct or through NVSwitch */
    SHOAL_PATH_PIX = 2,  /* at most one PCIe switch */
    SHOAL_PATH_PXB = 3,  /* several PCIe switches, no host bridge */
    SHOAL_PATH_PHB = 4,  /* through one PCIe host bridge */
    SHOAL_PATH_NODE = 5, /* across host bridges of one NUMA node */
    SHOAL_PATH_SYS = 6,  /* across NUMA nodes or sockets */
    SHOAL_PATH_NET = 7,  /* different nodes */
    SHOAL_PATH_COUNT
} shoal_path_t;

/* Transports, in the order the policy tries them. */
typedef enum shoal_transport_id {
    SHOAL_TRANSPORT_SELF = 0,
    SHOAL_TRANSPORT_CUDA_IPC = 1,
    SHOAL_TRANSPORT_SHM = 2,
    SHOAL_TRANSPORT_STAGED = 3,
    SHOAL_TRANSPORT_MPI_RMA = 4,
    SHOAL_TRANSPORT_COUNT
} shoal_transport_id_t;

/* One GPU of the topology. Strings live as long as the topology. */
typedef struct shoal_topo_gpu {
    int index;              /* 0.. in PCI order */
    const char *pci_bus_id; /* "0000:19:00.0", as hwloc prints it */
    const char *name;       /* hwloc's PCI device name, or "" */
    int numa_node;          /* logical index of the nearest NUMA node, -1 if unknown */
    const char *cpuset;     /* CPUs near the GPU, hwloc list syntax ("0-31") */
    int nic;                /* index of the nearest NIC, -1 if none */
} shoal_topo_gpu_t;

/* Load the live machine (path NULL: or SHOAL_TOPO_FILE when set) or an hwloc XML. */
SHOAL_EXPORT int shoal_topo_load(const char *xml_path, shoal_topo_t *topo_p);
SHOAL_EXPORT void shoal_topo_destroy(shoal_topo_t topo);
/* Message of the last failed shoal_topo_* call in this thread. */
SHOAL_EXPORT const char *shoal_topo_last_error(void);

SHOAL_EXPORT int shoal_topo_n_packages(shoal_topo_t topo);
SHOAL_EXPORT int shoal_topo_n_numa(shoal_topo_t topo);
SHOAL_EXPORT int shoal_topo_n_cores(shoal_topo_t topo);
SHOAL_EXPORT int shoal_topo_n_gpus(shoal_topo_t topo);
SHOAL_EXPORT int shoal_topo_n_nics(shoal_topo_t topo);
SHOAL_EXPORT int shoal_topo_gpu(shoal_topo_t topo, int index, shoal_topo_gpu_t *gpu_p);
/* Index of the GPU with that PCI bus id ("0000:19:00.0", case-insensitive), or a negative status. */
SHOAL_EXPORT int shoal_topo_gpu_find(shoal_topo_t topo, const char *pci_bus_id);
/* Path between GPUs a and b, and the NVLink count between them (0 if none). */
SHOAL_EXPORT int shoal_topo_gpu_path(shoal_topo_t topo, int a, int b, shoal_path_t *path_p, int *nvlinks_p);
/* 1 when the NVLinks between GPUs a and b go through NVSwitches, 0 when
 * direct or none, or a negative status. */
SHOAL_EXPORT int shoal_topo_gpu_nvswitch(shoal_topo_t topo, int a, int b);
/* Where the NVLink counts came from: "hwloc" (an NVLinkBandwidth matrix in
 * the topology or XML), "nvml" (shoal asked NVML), or "none". */
SHOAL_EXPORT const char *shoal_topo_nvlink_source(shoal_topo_t topo);

/* What the user should know about how this model was made, or "" (never
 * NULL): today, that hwloc found no PCI device on the live machine while
 * NVML sees GPUs (hwloc cannot see the PCI bus: the text says what to
 * check), so the GPUs and their PCIe classes come from NVML and their
 * locality is unknown. shoal-topo prints it; shoal_init logs it at WARN. */
SHOAL_EXPORT const char *shoal_topo_warning(shoal_topo_t topo);

/* Whether hwloc finds any PCI device on this machine: 1, 0 (it cannot see
 * the PCI bus: no /sys, no hwloc_pci plugin, or HWLOC_COMPONENTS), or a
 * negative status.
 * Loads hwloc's I/O discovery only, quick enough for shoal_init, which
 * logs a WARN on a GPU node where this is 0. */
SHOAL_EXPORT int shoal_topo_live_pci(void);

/* One NIC: a network PCI device, or a network OS device without one. */
typedef struct shoal_topo_nic {
    int index;              /* 0.. in PCI order, PCI-less NICs last */
    const char *pci_bus_id; /* "0000:03:00.0", or "" without a PCI device */
    const char *name;       /* OS device names, comma separated ("eth0", "ib0,mlx5_0"), or "" */
} shoal_topo_nic_t;

SHOAL_EXPORT int shoal_topo_nic(shoal_topo_t topo, int index, shoal_topo_nic_t *nic_p);
/* The NIC's NUMA node in *numa_p: the logical index of the one NUMA node its
 * first non-I/O ancestor covers (the PCI device's, or an OS device's without
 * one), -1 if that is not exactly one node. A call of its own, not a field of shoal_topo_nic_t,
 * so that callers built against the older struct keep working. */
SHOAL_EXPORT int shoal_topo_nic_numa(shoal_topo_t topo, int index, int *numa_p);

/* The CPUs this process is bound to, in hwloc list syntax ("0-15").
 * SHOAL_ERR_UNSUPPORTED when the topology was loaded from a file. */
SHOAL_EXPORT int shoal_topo_cpubind(shoal_topo_t topo, char *buf, size_t len);
/* 1 when some CPU near GPU gpu is in this process's binding, 0 when none
 * is (memory copies for that GPU would cross sockets), or a negative status
 * (SHOAL_ERR_UNSUPPORTED for a topology loaded from a file). */
SHOAL_EXPORT int shoal_topo_gpu_near_binding(shoal_topo_t topo, int gpu);

SHOAL_EXPORT const char *shoal_path_name(shoal_path_t path);               /* "NVL", "PIX", ... */
SHOAL_EXPORT int shoal_path_parse(const char *name, shoal_path_t *path_p); /* inverse, case-insensitive */
SHOAL_EXPORT const char *shoal_transport_name(shoal_transport_id_t tp);    /* "cuda_ipc", ... */
SHOAL_EXPORT int shoal_transport_parse(const char *name, shoal_transport_id_t *tp_p);

/* SHOAL_P2P_LEVEL and shoal-topo --p2p-level: the worst path cuda_ipc may
 * use, one of NVL, PIX, PXB, PHB, NODE, SYS (any case). */
SHOAL_EXPORT int shoal_topo_parse_p2p_level(const char *s, shoal_path_t *level_p);
/* SHOAL_TRANSPORT_DISABLE and shoal-topo --disable: cuda_ipc, shm, staged,
 * separated by commas or blanks ("" disables none), as a mask of bits
 * (1u << shoal_transport_id_t). self and mpi_rma cannot be disabled.
 * On error SHOAL_ERR_INVALID_ARG, and shoal_topo_last_error says why (no
 * function name in front: callers put the variable or option there). */
SHOAL_EXPORT int shoal_topo_parse_disable(const char *list, unsigned *mask_p);

/* Where a PE sits, for the policy. */
typedef struct shoal_topo_place {
    int pe;   /* rank in the instance */
    int node; /* node index: PEs of one node share memory */
    int gpu;  /* GPU index in this node's topology, or -1 for a host heap */
} shoal_topo_place_t;

/* Transport policy settings. */
typedef struct shoal_topo_policy {
    shoal_path_t p2p_level; /* worst path cuda_ipc may use (default SYS) */
    unsigned disabled;      /* bit (1u << shoal_transport_id_t) for each disabled transport */
} shoal_topo_policy_t;

/* Choose the transport from a to b (the first of self, cuda_ipc, shm,
 * staged, mpi_rma that applies and is not disabled), and say why in
 * why[0..why_len). Reads the model only; CUDA is not consulted. */
SHOAL_EXPORT int shoal_topo_choose(shoal_topo_t topo, const shoal_topo_policy_t *policy, const shoal_topo_place_t *a,
                                   const shoal_topo_place_t *b, shoal_transport_id_t *tp_p, char *why, size_t why_len);

/* Write the topology (NVLink matrix included) as hwloc XML that lstopo -i loads. */
SHOAL_EXPORT int shoal_topo_export_xml(shoal_topo_t topo, const char *path);

#ifdef __cplusplus
}
#endif
#endif /* SHOAL_TOPO_H */
