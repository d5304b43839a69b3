/*
 * Path classes from hwloc's PCI tree (topology/path.c).
 */
#ifndef SHOAL_TOPO_PATH_H
#define SHOAL_TOPO_PATH_H

#include "topo_model.h"

/* PCIe path class between any two objects of the topology (I/O or not),
 * from LOC (the same object) to SYS. Needs no NVLink information. */
SHOAL__TOPO_HIDDEN shoal_path_t shoal__topo_pci_path(hwloc_obj_t a, hwloc_obj_t b);
/* Fill topo->paths from the PCI tree and topo->nvlinks. */
SHOAL__TOPO_HIDDEN void shoal__topo_paths_fill(shoal_topo_t topo);

#endif /* SHOAL_TOPO_PATH_H */
