/*
 * What the MPI library under shoal gets wrong (runtime/base/mpi_quirks.c),
 * found once per process from MPI_Get_library_version and MPI's tool
 * interface. Each quirk has its smallest pure-MPI reproduction in
 * tests/mpi/test_mpi_defects.c and its workaround where the call is made
 * (base/mpi_win.c);
 * README ("MPI libraries") says what shoal does about each.
 */
#ifndef SHOAL_MPI_QUIRKS_H
#define SHOAL_MPI_QUIRKS_H

#include <mpi.h>

#include "base/shoal_base.h"

enum {
    /* An 8-byte MPI_Compare_and_swap aimed at the caller's own rank
     * crashes (Open MPI 4.1's osc/rdma: vader has no endpoint to itself).
     * Where osc/rdma is the only component for such windows (Debian's
     * setting), and over btl/vader, it makes every accumulate at the target
     * with the CPU's atomics (directly, or on an active message), so shoal
     * makes this one with the CPU's compare-and-swap on its own word. */
    SHOAL__MPI_SELF_CAS64 = 1u << 0,
    /* Open MPI whose osc setting leaves osc/rdma alone for MPI_Win_create
     * (Debian's): it makes no window where the shared-memory BTL has no
     * single-copy mechanism (CMA turned off, or forbidden: process_vm_readv
     * needs ptrace permission). A failed MPI_Win_create says so
     * (base/error.c). */
    SHOAL__MPI_OSC_RDMA_ONLY = 1u << 1,
};

/* The quirks of the MPI this process runs on (after MPI_Init; thread-safe). */
SHOAL__HIDDEN unsigned shoal__mpi_quirks(void);

#endif /* SHOAL_MPI_QUIRKS_H */
