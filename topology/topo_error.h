/*
 * Topology errors (topology/error.c): a failing topology function returns
 * a negative status and leaves this thread a message, which
 * shoal_topo_last_error() returns.
 */
#ifndef SHOAL_TOPO_ERROR_H
#define SHOAL_TOPO_ERROR_H

#include "topo_model.h"

/* Record "fmt..." as this thread's topology error and return status. */
SHOAL__TOPO_HIDDEN int shoal__topo_error(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* SHOAL_TOPO_ERROR_H */
