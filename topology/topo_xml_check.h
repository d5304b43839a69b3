/*
 * The pre-check of an XML topology (topology/xml_check.c): objects of the
 * canonical form that hwloc would crash, abort or stall on.
 */
#ifndef SHOAL_TOPO_XML_CHECK_H
#define SHOAL_TOPO_XML_CHECK_H

#include <stddef.h>

#include "topo_model.h"

/* XML white space; the XML reader (xml.c) and the pre-check share it. */
static inline int shoal__xml_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Whether the object start tag of the canonical form from tag ("<object")
 * to end (past its last attribute) must not reach hwloc: 1 with the reason
 * in why[why_len], else 0. */
SHOAL__TOPO_HIDDEN int shoal__xml_bad_object(const char *tag, const char *end, char *why, size_t why_len);

#endif /* SHOAL_TOPO_XML_CHECK_H */
