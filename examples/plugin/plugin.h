/*
 * A library that uses shoal internally, loaded into an MPI application that
 * knows nothing about shoal. The plugin gets a communicator from its host,
 * creates its own shoal instance on it, and leaves the host's MPI alone.
 */
#ifndef SHOAL_EXAMPLE_PLUGIN_H
#define SHOAL_EXAMPLE_PLUGIN_H

#include <mpi.h>

#define PLUGIN_EXPORT __attribute__((visibility("default")))

/* Collective over comm: starts the plugin's shoal instance on it. 0 on success. */
PLUGIN_EXPORT int plugin_init(MPI_Comm comm);
/* Collective: every rank contributes (rank + 1)^2 through the symmetric heap;
 * *result is the sum over the plugin's communicator on every rank. 0 on success. */
PLUGIN_EXPORT int plugin_run(int *result);
/* Collective: ends the instance. */
PLUGIN_EXPORT int plugin_finalize(void);

/* The types of the three, for dlsym. */
typedef int (*plugin_init_fn)(MPI_Comm comm);
typedef int (*plugin_run_fn)(int *result);
typedef int (*plugin_finalize_fn)(void);

#endif /* SHOAL_EXAMPLE_PLUGIN_H */
