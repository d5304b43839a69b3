/*
 * Helpers for tests that build programs which are not part of shoal (the
 * OpenSHMEM community's unit tests, PRK, OSU, shmem4py) the way their users
 * would: shoal installed into a scratch prefix, the programs built with the
 * installed oshcc and run with the installed oshrun, each program's output
 * kept in a log, and a tally that names every program that failed with the
 * end of its log, so that one run shows all the failures at once.
 *
 * Used by tests/shmem/test_sos.c and tests/shmem/test_shmem_programs.c.
 */
#ifndef SHOAL_TEST_PROGRAMS_H
#define SHOAL_TEST_PROGRAMS_H

#include <stdbool.h>
#include <stddef.h>

/* Run cmd through sh with its stdout and stderr into log (overwritten); its
 * exit status, 128 + the signal when a signal ended it. */
int prog_sh(const char *cmd, const char *log);

/* The last len - 1 bytes of log into out ("" where it cannot be read). */
void prog_tail(const char *log, char *out, size_t len);

/* The whole of log, NUL-terminated, in memory the caller frees; NULL where
 * it cannot be read. */
char *prog_read(const char *log);

/* Where the programs are: the folder the environment variable var names
 * when it is set and not empty, else SHOAL_TEST_SRCDIR/rel; written to
 * where. True when where/inside is a folder (inside "" or NULL: where
 * itself); false, with a message naming the folder and var, where it is
 * not, and the test should then skip. */
bool prog_folder(const char *var, const char *rel, const char *inside, const char *what, char *where, size_t len);

/* Install shoal with SHOAL_TEST_BUILDDIR/install.sh under DESTDIR=tmp/root
 * and write the folder of the installed oshcc and oshrun to bin. A failure
 * ends the test, naming the log. */
void prog_install(const char *tmp, char *bin, size_t len);

/* The programs a test tried: how many, how many passed, and the names of
 * those that failed. */
typedef struct prog_tally {
    int count;          /* programs tried */
    int passed;         /* of them, passed */
    size_t len;         /* bytes used in failed */
    char failed[16384]; /* " name, name" of the failures */
} prog_tally_t;

/* Record that name passed (a note on stdout, with how long the last
 * prog_sh took: call it right after the program's run). */
void prog_pass(prog_tally_t *t, const char *name);

/* Record that name failed because of why, printing why and the end of log
 * (where log is not NULL) so that the test's output shows the cause. */
void prog_fail(prog_tally_t *t, const char *name, const char *why, const char *log);

/* Print the tally; true when every program passed. A test that passed
 * removes its scratch folder tmp (where one failed, its logs stay, and the
 * note says where). */
bool prog_done(const prog_tally_t *t, const char *what, const char *tmp);

/* True where nvidia-smi lists a GPU (programs that need one skip otherwise). */
bool prog_gpu_present(void);

#endif /* SHOAL_TEST_PROGRAMS_H */
