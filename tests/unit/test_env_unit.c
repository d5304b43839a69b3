/* Unit test of the environment parsers, shoal_config_init and the status strings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/shoal_env.h"

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
        int fkind = 99, fpe = 99, fcount = 99;
        EXPECT(shoal__parse_fault("", &fkind, &fpe, &fcount) == 0 && fpe == -1 && fcount == 0);
        EXPECT(shoal__parse_fault(" quiet:3 ", &fkind, &fpe, &fcount) == 0 && fpe == 3 && fcount == 1 &&
               fkind == SHOAL__FAULT_QUIET);
        EXPECT(shoal__parse_fault("quiet:0:5", &fkind, &fpe, &fcount) == 0 && fpe == 0 && fcount == 5);
        EXPECT(shoal__parse_fault("grow:2", &fkind, &fpe, &fcount) == 0 && fpe == 2 && fcount == 1 &&
               fkind == SHOAL__FAULT_GROW);
        EXPECT(shoal__parse_fault("grow:", &fkind, &fpe, &fcount) == SHOAL_ERR_ENV);
        EXPECT(shoal__parse_fault("quiet:", &fkind, &fpe, &fcount) == SHOAL_ERR_ENV);
        EXPECT(shoal__parse_fault("quiet:-1", &fkind, &fpe, &fcount) == SHOAL_ERR_ENV);
        EXPECT(shoal__parse_fault("quiet:1:0", &fkind, &fpe, &fcount) == SHOAL_ERR_ENV);
        EXPECT(shoal__parse_fault("quiet:1:", &fkind, &fpe, &fcount) == SHOAL_ERR_ENV);
        EXPECT(shoal__parse_fault("quiet:1:2:3", &fkind, &fpe, &fcount) == SHOAL_ERR_ENV);
        EXPECT(shoal__parse_fault("quiet:99999999999", &fkind, &fpe, &fcount) == SHOAL_ERR_ENV);
        EXPECT(shoal__parse_fault("barrier:1", &fkind, &fpe, &fcount) == SHOAL_ERR_ENV);
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
    EXPECT(cfg.env_error[0] == '\0' && cfg.heap_size == 65536 && cfg.heap_kind == SHOAL_HEAP_HOST &&
           cfg.timeout == 2.5);
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

    /* The table: each default is valid, and the settings beyond the config
     * are parsed with the rest. */
    {
        shoal__settings_t s;
        struct shoal_instance inst;

        unsetenv("SHOAL_WARN_UNKNOWN_ENV"); /* the harness sets n */
        EXPECT(shoal__env_load(&s) == SHOAL_SUCCESS && s.cfg.env_error[0] == '\0' && s.error[0] == '\0');
        EXPECT(s.transport_disable == 0 && s.p2p_level == SHOAL_PATH_SYS && s.fault.pe == -1 && s.fault.count == 0 &&
               s.debug == SHOAL__LOG_NONE && s.debug_subsys == SHOAL__SUB_ALL && s.warn_unknown &&
               s.topo_file[0] == '\0' && s.cfg.wait == SHOAL_WAIT_AUTO && s.cfg.node_size == 0);
        EXPECT(strcmp(shoal__env_value(SHOAL__ENV_HEAP_SIZE), "256m") == 0 && !shoal__env_is_set(SHOAL__ENV_HEAP_SIZE));
        setenv("SHOAL_TRANSPORT_DISABLE", "shm,staged", 1);
        setenv("SHOAL_P2P_LEVEL", " pxb ", 1);
        setenv("SHOAL_FAULT", "quiet:2:3", 1);
        setenv("SHOAL_DEBUG", "info", 1);
        setenv("SHOAL_DEBUG_SUBSYS", "RMA, coll", 1);
        setenv("SHOAL_WARN_UNKNOWN_ENV", "off", 1);
        setenv("SHOAL_NODE_SIZE", "4", 1);
        EXPECT(shoal__env_load(&s) == SHOAL_SUCCESS);
        EXPECT(s.transport_disable == ((1u << SHOAL_TRANSPORT_SHM) | (1u << SHOAL_TRANSPORT_STAGED)) &&
               s.p2p_level == SHOAL_PATH_PXB && s.fault.pe == 2 && s.fault.count == 3 && s.debug == SHOAL__LOG_INFO &&
               s.debug_subsys == (SHOAL__SUB_RMA | SHOAL__SUB_COLL) && !s.warn_unknown && s.cfg.node_size == 4);
        EXPECT(strcmp(shoal__env_value(SHOAL__ENV_P2P_LEVEL), "pxb") == 0 && shoal__env_is_set(SHOAL__ENV_P2P_LEVEL));
        /* An invalid value leaves the default; one outside the config is
         * also in s.error (shoal_init refuses it whatever its config). */
        setenv("SHOAL_P2P_LEVEL", "LOC", 1);
        setenv("SHOAL_HEAP_SIZE", "0", 1);
        EXPECT(shoal__env_load(&s) == SHOAL_ERR_ENV && s.p2p_level == SHOAL_PATH_SYS && s.cfg.heap_size == 256u << 20);
        EXPECT(strcmp(s.cfg.env_error,
                      "SHOAL_HEAP_SIZE=0 is invalid: expected a positive size such as 512m or 2g, at most 256t") == 0);
        EXPECT(strcmp(s.error, "SHOAL_P2P_LEVEL=LOC is invalid: expected NVL, PIX, PXB, PHB, NODE or SYS") == 0);
        unsetenv("SHOAL_HEAP_SIZE");
        unsetenv("SHOAL_P2P_LEVEL");
        setenv("SHOAL_DEBUG", "verbose", 1);
        EXPECT(shoal__env_load(&s) == SHOAL_ERR_ENV && s.debug == SHOAL__LOG_NONE &&
               strcmp(s.error, "SHOAL_DEBUG=verbose is invalid: expected WARN, INFO or TRACE (or unset)") == 0);
        unsetenv("SHOAL_DEBUG");
        setenv("SHOAL_DEBUG_SUBSYS", "INIT,bogus", 1);
        EXPECT(shoal__env_load(&s) == SHOAL_ERR_ENV && s.debug_subsys == SHOAL__SUB_ALL &&
               strcmp(s.error, "SHOAL_DEBUG_SUBSYS=INIT,bogus is invalid: expected ALL or a list of "
                               "INIT,TOPO,HEAP,RMA,COLL,CUDA,ENV") == 0);
        setenv("SHOAL_DEBUG_SUBSYS", ", ,", 1);
        EXPECT(shoal__env_load(&s) == SHOAL_ERR_ENV);
        setenv("SHOAL_FAULT", "quiet:x", 1);
        setenv("SHOAL_DEBUG_SUBSYS", "all", 1);
        EXPECT(shoal__env_load(&s) == SHOAL_ERR_ENV && s.fault.pe == -1 && s.debug_subsys == SHOAL__SUB_ALL &&
               strcmp(s.error, "SHOAL_FAULT=quiet:x is invalid: expected quiet:PE, quiet:PE:N, grow:PE or "
                               "grow:PE:N (a testing aid), or unset") == 0);
        setenv("SHOAL_TRANSPORT_DISABLE", "mpi_rma", 1);
        unsetenv("SHOAL_FAULT");
        EXPECT(shoal__env_load(&s) == SHOAL_ERR_ENV && s.transport_disable == 0 &&
               strstr(s.error, "SHOAL_TRANSPORT_DISABLE=mpi_rma is invalid: expected transport 'mpi_rma' cannot be "
                               "disabled") == s.error);
        unsetenv("SHOAL_TRANSPORT_DISABLE");
        unsetenv("SHOAL_DEBUG_SUBSYS");
        unsetenv("SHOAL_WARN_UNKNOWN_ENV");
        unsetenv("SHOAL_NODE_SIZE");

        /* Where the heap size came from: the program, over the variable. */
        memset(&inst, 0, sizeof(inst));
        setenv("SHOAL_HEAP_SIZE", "64k", 1);
        shoal_config_init(&cfg);
        shoal__env_for_init(&inst, &cfg, &s);
        EXPECT(!inst.heap_size_from_code && inst.heap_size_var_set && s.cfg.heap_size == 65536);
        cfg.heap_size = 1 << 20;
        shoal__env_for_init(&inst, &cfg, &s);
        EXPECT(inst.heap_size_from_code && inst.heap_size_var_set);
        unsetenv("SHOAL_HEAP_SIZE");
        shoal__env_for_init(&inst, &cfg, &s);
        EXPECT(inst.heap_size_from_code && !inst.heap_size_var_set);
    }

    /* Status strings: each names its enum, and unknown values say so. */
#define CHECK_STATUS(name, value, desc)                                                                                \
    EXPECT(strncmp(shoal_strerror(value), "SHOAL_" #name ":", strlen("SHOAL_" #name ":")) == 0);
    SHOAL_STATUS_MAP(CHECK_STATUS)
#undef CHECK_STATUS
    EXPECT(strstr(shoal_strerror(-999), "UNKNOWN") != NULL);
    EXPECT(shoal_version() == SHOAL_VERSION);

    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    else
        printf("environment: all checks passed\n");
    return failures ? 1 : 0;
}
