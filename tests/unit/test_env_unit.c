/* Unit test of the environment parsers, shoal_config_init and the status strings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shoal_internal.h"

#include "common/expect.h"

int main(void)
{
    size_t sz = 0;
    long l = 0;
    double d = 0;
    unsigned mask = 0;
    shoal_config_t cfg;

    EXPECT(shoal__parse_size("4096", &sz) == 0 && sz == 4096);
    EXPECT(shoal__parse_size("64k", &sz) == 0 && sz == 65536);
    EXPECT(shoal__parse_size(" 2G ", &sz) == 0 && sz == 2ull << 30);
    EXPECT(shoal__parse_size("512MB", &sz) == 0 && sz == 512ull << 20);
    EXPECT(shoal__parse_size("4096B", &sz) == 0 && sz == 4096);
    EXPECT(shoal__parse_size("4096b", &sz) == 0 && sz == 4096);
    EXPECT(shoal__parse_size("4096BB", &sz) == SHOAL_ERR_ENV);
    EXPECT(shoal__parse_size("\n64k\t", &sz) == 0 && sz == 65536);
    EXPECT(shoal__parse_size("abc", &sz) == SHOAL_ERR_ENV);
    EXPECT(shoal__parse_size("-1", &sz) == SHOAL_ERR_ENV);
    EXPECT(shoal__parse_size("12q", &sz) == SHOAL_ERR_ENV);
    EXPECT(shoal__parse_size("", &sz) == SHOAL_ERR_ENV);
    EXPECT(shoal__parse_size("99999999999999999999", &sz) == SHOAL_ERR_ENV);
    EXPECT(shoal__parse_size("17179869184g", &sz) == SHOAL_ERR_ENV); /* overflows */
    EXPECT(shoal__parse_int("-3", &l) == 0 && l == -3);
    EXPECT(shoal__parse_int("3x", &l) == SHOAL_ERR_ENV);
    EXPECT(shoal__parse_double("2.5", &d) == 0 && d == 2.5);
    EXPECT(shoal__parse_double("nan", &d) == SHOAL_ERR_ENV);
    EXPECT(shoal__parse_double("1e-320", &d) == 0 && d > 0 && d < 1e-300); /* underflow: tiny, not an error */
    EXPECT(shoal__parse_double("1e999", &d) == SHOAL_ERR_ENV);
    {
        /* SHOAL_FAULT: quiet:PE[:N] */
        int fpe = 99, fcount = 99;
        EXPECT(shoal__parse_fault("", &fpe, &fcount) == 0 && fpe == -1 && fcount == 0);
        EXPECT(shoal__parse_fault(" quiet:3 ", &fpe, &fcount) == 0 && fpe == 3 && fcount == 1);
        EXPECT(shoal__parse_fault("quiet:0:5", &fpe, &fcount) == 0 && fpe == 0 && fcount == 5);
        EXPECT(shoal__parse_fault("quiet:", &fpe, &fcount) == SHOAL_ERR_ENV);
        EXPECT(shoal__parse_fault("quiet:-1", &fpe, &fcount) == SHOAL_ERR_ENV);
        EXPECT(shoal__parse_fault("quiet:1:0", &fpe, &fcount) == SHOAL_ERR_ENV);
        EXPECT(shoal__parse_fault("quiet:1:", &fpe, &fcount) == SHOAL_ERR_ENV);
        EXPECT(shoal__parse_fault("quiet:1:2:3", &fpe, &fcount) == SHOAL_ERR_ENV);
        EXPECT(shoal__parse_fault("quiet:99999999999", &fpe, &fcount) == SHOAL_ERR_ENV);
        EXPECT(shoal__parse_fault("barrier:1", &fpe, &fcount) == SHOAL_ERR_ENV);
    }
    EXPECT(shoal_topo_parse_disable("cuda_ipc,shm", &mask) == 0 &&
           mask == ((1u << SHOAL_TRANSPORT_CUDA_IPC) | (1u << SHOAL_TRANSPORT_SHM)));
    EXPECT(shoal_topo_parse_disable(" staged\tSHM ", &mask) == 0 &&
           mask == ((1u << SHOAL_TRANSPORT_STAGED) | (1u << SHOAL_TRANSPORT_SHM)));
    EXPECT(shoal_topo_parse_disable("", &mask) == 0 && mask == 0);
    mask = 7;
    EXPECT(shoal_topo_parse_disable("nvlink", &mask) == SHOAL_ERR_INVALID_ARG && mask == 7 &&
           strcmp(shoal_topo_last_error(), "unknown transport 'nvlink' (expected cuda_ipc, shm or staged)") == 0);
    EXPECT(shoal_topo_parse_disable("shm,mpi_rma", &mask) == SHOAL_ERR_INVALID_ARG &&
           strstr(shoal_topo_last_error(), "'mpi_rma' cannot be disabled") != NULL);
    EXPECT(shoal_topo_parse_disable("self", &mask) == SHOAL_ERR_INVALID_ARG);
    {
        shoal_path_t level = SHOAL_PATH_LOC;
        EXPECT(shoal_topo_parse_p2p_level("pxb", &level) == 0 && level == SHOAL_PATH_PXB);
        EXPECT(shoal_topo_parse_p2p_level("SYS", &level) == 0 && level == SHOAL_PATH_SYS);
        EXPECT(shoal_topo_parse_p2p_level("LOC", &level) == SHOAL_ERR_INVALID_ARG && level == SHOAL_PATH_SYS);
        EXPECT(shoal_topo_parse_p2p_level("NET", &level) == SHOAL_ERR_INVALID_ARG &&
               strstr(shoal_topo_last_error(), "'NET' is not one of NVL, PIX, PXB, PHB, NODE, SYS") != NULL);
    }

    /* Defaults, then the environment; a bad value is named in env_error. */
    unsetenv("SHOAL_HEAP_SIZE");
    shoal_config_init(&cfg);
    EXPECT(cfg.env_error[0] == '\0' && cfg.heap_size == 256ull << 20 && cfg.timeout == 300 &&
           cfg.heap_kind == SHOAL_HEAP_AUTO && cfg.check == SHOAL_CHECK_BASIC && cfg.cuda_device == -1);
    setenv("SHOAL_HEAP_SIZE", "64k", 1);
    setenv("SHOAL_HEAP_KIND", "host", 1);
    setenv("SHOAL_TIMEOUT", "2.5", 1);
    shoal_config_init(&cfg);
    EXPECT(cfg.env_error[0] == '\0' && cfg.heap_size == 65536 && cfg.heap_kind == SHOAL_HEAP_HOST && cfg.timeout == 2.5);
    setenv("SHOAL_HEAP_SIZE", "abc", 1);
    shoal_config_init(&cfg);
    EXPECT(strstr(cfg.env_error, "SHOAL_HEAP_SIZE=abc") != NULL);
    unsetenv("SHOAL_HEAP_SIZE");
    setenv("SHOAL_TIMEOUT", "-4", 1);
    shoal_config_init(&cfg);
    EXPECT(strstr(cfg.env_error, "SHOAL_TIMEOUT=-4") != NULL);
    unsetenv("SHOAL_TIMEOUT");
    setenv("SHOAL_P2P_LEVEL", "LOC", 1);
    shoal_config_init(&cfg);
    EXPECT(strstr(cfg.env_error, "SHOAL_P2P_LEVEL") != NULL);
    unsetenv("SHOAL_P2P_LEVEL");

    /* Blanks around any value are dropped; an empty value is unset. */
    setenv("SHOAL_CHECK", " FULL\t", 1);
    setenv("SHOAL_HEAP_KIND", " host ", 1);
    setenv("SHOAL_P2P_LEVEL", "", 1);
    setenv("SHOAL_HEAP_SIZE", "  ", 1);
    shoal_config_init(&cfg);
    EXPECT(cfg.env_error[0] == '\0' && cfg.check == SHOAL_CHECK_FULL && cfg.heap_kind == SHOAL_HEAP_HOST &&
           cfg.heap_size == 256ull << 20);
    /* shoal_env_print: one line per variable, whatever the value holds. */
    setenv("SHOAL_TOPO_FILE", "a\nb", 1);
    {
        FILE *f = tmpfile();
        char text[8192];
        size_t n;
        EXPECT(f != NULL);
        shoal_env_print(f);
        rewind(f);
        n = fread(text, 1, sizeof(text) - 1, f);
        text[n] = '\0';
        fclose(f);
        /* "a\nb" is no readable file: marked as shoal_init would refuse it. */
        EXPECT(strstr(text, "SHOAL_TOPO_FILE            a?b        (set, INVALID: expected a readable hwloc XML "
                            "file; shoal_init fails; default unset)") != NULL);
        EXPECT(strstr(text, "SHOAL_CHECK                 FULL") != NULL);
        EXPECT(strstr(text, "SHOAL_DEBUG                (unset)    (default)") != NULL);
    }
    unsetenv("SHOAL_TOPO_FILE");
    unsetenv("SHOAL_CHECK");
    unsetenv("SHOAL_HEAP_KIND");
    unsetenv("SHOAL_P2P_LEVEL");
    unsetenv("SHOAL_HEAP_SIZE");

    /* Status strings: each names its enum, and unknown values say so. */
#define CHECK_STATUS(name, value, desc)                                                  \
    EXPECT(strncmp(shoal_strerror(value), "SHOAL_" #name ":", strlen("SHOAL_" #name ":")) == 0);
    SHOAL_STATUS_MAP(CHECK_STATUS)
#undef CHECK_STATUS
    EXPECT(strstr(shoal_strerror(-999), "UNKNOWN") != NULL);
    EXPECT(shoal_version() == SHOAL_VERSION);

    if (failures) fprintf(stderr, "%d failures\n", failures);
    else printf("environment: all checks passed\n");
    return failures ? 1 : 0;
}
