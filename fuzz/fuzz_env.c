/*
 * libFuzzer target: the environment parsers and shoal_config_init.
 *
 * The input is split at newlines. The first line goes to each parser
 * (size, int, double, transport list) directly; the next lines become the
 * values of SHOAL_HEAP_SIZE, SHOAL_HEAP_KIND, SHOAL_CUDA_DEVICE,
 * SHOAL_NODE_SIZE, SHOAL_CHECK, SHOAL_TIMEOUT, SHOAL_TRANSPORT_DISABLE and
 * SHOAL_P2P_LEVEL (missing lines unset them) before shoal_config_init.
 * Besides the sanitizers, what is checked: a parser either fails with
 * SHOAL_ERR_ENV or gives a value in range; shoal_config_init either names a
 * SHOAL_ variable in env_error or leaves every field valid.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/shoal_env.h"

#define FUZZ_ASSERT(cond)                                                                                              \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "fuzz_env: %s:%d: %s\n", __FILE__, __LINE__, #cond);                                       \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

static const char *const vars[] = {
    "SHOAL_HEAP_SIZE", "SHOAL_HEAP_KIND", "SHOAL_CUDA_DEVICE",       "SHOAL_NODE_SIZE",
    "SHOAL_CHECK",     "SHOAL_TIMEOUT",   "SHOAL_TRANSPORT_DISABLE", "SHOAL_P2P_LEVEL",
};
enum { NVARS = sizeof(vars) / sizeof(vars[0]) };

static void parsers(const char *s)
{
    size_t sz = 12345;
    long l = 12345;
    double d = 12345;
    unsigned mask = 0xdead;
    shoal_path_t level = SHOAL_PATH_LOC;
    int rc;

    rc = shoal__parse_size(s, &sz);
    FUZZ_ASSERT(rc == SHOAL_SUCCESS || (rc == SHOAL_ERR_ENV && sz == 12345));
    rc = shoal__parse_int(s, &l);
    FUZZ_ASSERT(rc == SHOAL_SUCCESS || (rc == SHOAL_ERR_ENV && l == 12345));
    rc = shoal__parse_double(s, &d);
    FUZZ_ASSERT((rc == SHOAL_SUCCESS && isfinite(d)) || (rc == SHOAL_ERR_ENV && d == 12345));
    rc = shoal_topo_parse_disable(s, &mask);
    if (rc == SHOAL_SUCCESS) {
        FUZZ_ASSERT(mask < (1u << SHOAL_TRANSPORT_COUNT));
        FUZZ_ASSERT(!(mask & ((1u << SHOAL_TRANSPORT_SELF) | (1u << SHOAL_TRANSPORT_MPI_RMA))));
    } else {
        FUZZ_ASSERT(rc == SHOAL_ERR_INVALID_ARG && mask == 0xdead && shoal_topo_last_error()[0] != '\0');
    }
    rc = shoal_topo_parse_p2p_level(s, &level);
    FUZZ_ASSERT(rc == SHOAL_SUCCESS ? level >= SHOAL_PATH_NVL && level <= SHOAL_PATH_SYS
                                    : rc == SHOAL_ERR_INVALID_ARG && level == SHOAL_PATH_LOC);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* NUL-terminated lines (an embedded NUL just ends its line early). */
    char *buf = malloc(size + 1), *line[1 + NVARS] = {0}, *p;
    int n = 0;
    shoal_config_t cfg;

    if (buf == NULL) return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    for (p = buf; n < 1 + NVARS && p != NULL; n++) {
        line[n] = p;
        p = strchr(p, '\n');
        if (p) *p++ = '\0';
    }
    parsers(line[0]);
    for (int i = 0; i < NVARS; i++) {
        if (line[1 + i] != NULL)
            setenv(vars[i], line[1 + i], 1);
        else
            unsetenv(vars[i]);
    }
    memset(&cfg, 0x5a, sizeof(cfg));
    shoal_config_init(&cfg);
    FUZZ_ASSERT(memchr(cfg.env_error, '\0', sizeof(cfg.env_error)) != NULL);
    if (cfg.env_error[0] != '\0') {
        FUZZ_ASSERT(strncmp(cfg.env_error, "SHOAL_", 6) == 0);
        FUZZ_ASSERT(strstr(cfg.env_error, "is invalid: expected") != NULL);
    } else {
        FUZZ_ASSERT(cfg.heap_size > 0);
        FUZZ_ASSERT(cfg.heap_kind >= SHOAL_HEAP_AUTO && cfg.heap_kind <= SHOAL_HEAP_GPU);
        FUZZ_ASSERT(cfg.check >= SHOAL_CHECK_OFF && cfg.check <= SHOAL_CHECK_FULL);
        FUZZ_ASSERT(isfinite(cfg.timeout) && cfg.timeout >= 0);
        FUZZ_ASSERT(cfg.node_size >= 0 && cfg.cuda_device >= -1);
    }
    {
        /* The print-all reads the same variables. */
        static FILE *devnull;
        if (devnull == NULL) devnull = fopen("/dev/null", "w");
        if (devnull != NULL) shoal_env_print(devnull);
    }
    free(buf);
    return 0;
}
