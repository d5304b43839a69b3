/*
 * The NVLink matrix (topology/nvlink.c): the "NVLinkBandwidth" distances
 * of the topology read into the model, and what a probe found written into
 * it.
 */
#ifndef SHOAL_TOPO_NVLINK_H
#define SHOAL_TOPO_NVLINK_H

#include "topo_model.h"

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

#endif /* SHOAL_TOPO_NVLINK_H */
