/*
 * Topology errors: the topology functions report a failure by returning a
 * negative SHOAL_ERR_* status and leaving a message for this thread, which
 * shoal_topo_last_error() returns. shoal__topo_error() writes the message;
 * every other topology file calls it, and it calls none of them. The
 * message buffer is the topology code's only mutable state.
 */
#include <stdarg.h>
#include <stdio.h>

#include "topo_error.h"

/* The only mutable global of the topology code: one message per thread. */
static _Thread_local char shoal__topo_errbuf[512];

int shoal__topo_error(int status, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(shoal__topo_errbuf, sizeof(shoal__topo_errbuf), fmt, ap);
    va_end(ap);
    return status;
}

const char *shoal_topo_last_error(void) { return shoal__topo_errbuf; }
