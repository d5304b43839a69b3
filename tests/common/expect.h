/* Checks for unit tests that run without MPI: a failed EXPECT prints where
 * and counts, and the test goes on; main returns failures ? 1 : 0. (MPI
 * tests use check.h, whose checks end the run on every PE.) */
#ifndef SHOAL_TEST_EXPECT_H
#define SHOAL_TEST_EXPECT_H

#include <stdio.h>
#include <string.h>

static int failures;

#define EXPECT(cond)                                                                                                   \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);                                        \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

#define EXPECT_HAS(text, part)                                                                                         \
    do {                                                                                                               \
        if (strstr((text), (part)) == NULL) {                                                                          \
            fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__, (text), (part));            \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

#endif /* SHOAL_TEST_EXPECT_H */
