/*
 * NVML, dlopen'ed (topology/nvml.c): the NVLinks of the model's GPUs, and
 * the GPUs themselves where hwloc found no PCI device.
 */
#ifndef SHOAL_TOPO_NVML_H
#define SHOAL_TOPO_NVML_H

#include "topo_model.h"
#include "topo_nvlink.h"

/* Ask NVML (dlopen'ed) for the NVLinks of the model's GPUs. *found_p is 0
 * when NVML is missing, fails, or sees no active link: none of that is an
 * error, a machine without NVLink is still a machine. */
SHOAL__TOPO_HIDDEN int shoal__nvml_probe(shoal_topo_t topo, shoal__nvlink_probe_t *probe, int *found_p);
/* Where hwloc found no PCI device: the GPUs NVML sees into topo->gpus (bus
 * id order; no PCI object, locality unknown) and the PCIe class of each pair
 * (NVML's nearest common ancestor) into topo->pcie. *found_p is 0 when NVML
 * is missing or sees no GPU. */
SHOAL__TOPO_HIDDEN int shoal__nvml_gpus(shoal_topo_t topo, int *found_p);

#endif /* SHOAL_TOPO_NVML_H */
