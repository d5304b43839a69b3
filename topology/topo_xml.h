/*
 * Reading an XML topology for hwloc (topology/xml.c).
 */
#ifndef SHOAL_TOPO_XML_H
#define SHOAL_TOPO_XML_H

#include <stddef.h>

#include "topo_model.h"

/* Read the hwloc XML file at path into *xml_p (malloc'd, NUL-terminated,
 * *len_p bytes without the NUL) in a canonical form that hwloc's libxml2
 * reader and its minimal parser read the same way (topology/xml.c); refuses,
 * with SHOAL_ERR_TOPOLOGY and the byte, what hwloc would crash or stall on
 * and what only one of the parsers could read. */
SHOAL__TOPO_HIDDEN int shoal__topo_xml_read(const char *path, char **xml_p, size_t *len_p);

#endif /* SHOAL_TOPO_XML_H */
