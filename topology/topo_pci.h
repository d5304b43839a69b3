/*
 * PCI devices as the topology files see them (topology/pci.c): the
 * identifiers looked for, GPU and NVSwitch tests, bus ids.
 */
#ifndef SHOAL_TOPO_PCI_H
#define SHOAL_TOPO_PCI_H

#include "topo_model.h"

/* PCI identifiers the model looks for. */
#define SHOAL__PCI_VENDOR_NVIDIA 0x10de
#define SHOAL__PCI_BASECLASS_NETWORK 0x02    /* Ethernet, InfiniBand, ... */
#define SHOAL__PCI_BASECLASS_DISPLAY 0x03    /* VGA and 3D controllers: GPUs */
#define SHOAL__PCI_CLASS_BRIDGE_OTHER 0x0680 /* what an NVSwitch reports */

/* PCI class of a PCI device object (hwloc's class_id: base << 8 | sub). */
SHOAL__TOPO_HIDDEN int shoal__topo_is_gpu(hwloc_obj_t obj);
SHOAL__TOPO_HIDDEN int shoal__topo_is_nvswitch(hwloc_obj_t obj);
/* "dddd:bb:dd.f" of a PCI device object into buf[16]. */
SHOAL__TOPO_HIDDEN void shoal__topo_busid(hwloc_obj_t pci, char buf[16]);
/* Parse "dddd:bb:dd.f" or "bb:dd.f" (any case); 0 or SHOAL_ERR_INVALID_ARG. */
SHOAL__TOPO_HIDDEN int shoal__topo_busid_parse(const char *s, unsigned *domain_p, unsigned *bus_p, unsigned *dev_p,
                                               unsigned *func_p);

#endif /* SHOAL_TOPO_PCI_H */
