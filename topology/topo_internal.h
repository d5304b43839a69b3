/*
 * shoal topology internals, all of them: for white-box tests
 * (tests/topology/test_topo_model.c), which reach into the model and the
 * NVLink matrix. The topology files include only the headers of what they
 * use:
 *
 *   topo_model.h     the model (struct shoal_topo), the base of the others
 *   topo_error.h     error.c:     shoal__topo_error
 *   topo_pci.h       pci.c:       PCI identifiers, GPU and NVSwitch tests, bus ids
 *   topo_path.h      path.c:      path classes from the PCI tree
 *   topo_nvlink.h    nvlink.c:    the NVLinkBandwidth matrix, the probe it is written from
 *   topo_nvml.h      nvml.c:      NVML's NVLinks, and GPUs without PCI discovery
 *   topo_xml.h       xml.c:       an XML file in the canonical form hwloc is given
 *   topo_xml_check.h xml_check.c: objects of that form hwloc must not see
 *
 * Calls between these files go one way (topology/README.md; checked by
 * topology/call_graph.py): error.c, pci.c, path.c, xml_check.c call none of
 * them; xml.c, nvlink.c, nvml.c call only those; topo.c calls any of them.
 */
#ifndef SHOAL_TOPO_INTERNAL_H
#define SHOAL_TOPO_INTERNAL_H

#include "topo_error.h"
#include "topo_model.h"
#include "topo_nvlink.h"
#include "topo_nvml.h"
#include "topo_path.h"
#include "topo_pci.h"
#include "topo_xml.h"
#include "topo_xml_check.h"

#endif /* SHOAL_TOPO_INTERNAL_H */
