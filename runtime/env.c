/* The environment table: parsing, defaults, shoal_config_init, print-all. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "shoal_internal.h"

typedef struct shoal__env_var {
    const char *name; /* without the SHOAL_ prefix */
    int type;
    const char *def;
    const char *doc;
} shoal__env_var_t;

static const shoal__env_var_t shoal__env_vars[] = {
#define SHOAL__ENV_ROW(name, type, def, doc) {#name, SHOAL__ENV_##type, def, doc},
    SHOAL_ENV_TABLE(SHOAL__ENV_ROW)
#undef SHOAL__ENV_ROW
};
#define SHOAL__N_ENV (sizeof(shoal__env_vars) / sizeof(shoal__env_vars[0]))

static const shoal__env_var_t *shoal__env_find(const char *name)
{
    for (size_t i = 0; i < SHOAL__N_ENV; i++)
        if (strcmp(shoal__env_vars[i].name, name) == 0) return &shoal__env_vars[i];
    return NULL;
}

/* Skip leading and trailing blanks (isspace): " 64k " is as good as "64k". NULL
 * when the rest does not fit in buf: a value cut short could parse as
 * something it is not ("64k" followed by many blanks and garbage). */
static const char *shoal__trim(const char *s, char *buf, size_t len)
{
    size_t n;
    while (isspace((unsigned char)*s)) s++;
    if (strlen(s) >= len) return NULL;
    snprintf(buf, len, "%s", s);
    n = strlen(buf);
    while (n > 0 && isspace((unsigned char)buf[n - 1])) buf[--n] = '\0';
    return buf;
}

/* The variable's value without surrounding blanks; its default when unset
 * or empty. A value too long to trim comes back as it is, for the parser
 * to refuse. */
const char *shoal__env_str(const char *name)
{
    static _Thread_local char bufs[4][256];
    static _Thread_local unsigned next;
    char full[64];
    const char *v;
    const shoal__env_var_t *var = shoal__env_find(name);

    snprintf(full, sizeof(full), "SHOAL_%s", name);
    v = getenv(full);
    if (v != NULL) {
        const char *t = shoal__trim(v, bufs[next++ % 4], sizeof(bufs[0]));
        if (t == NULL) return v;
        if (*t != '\0') return t;
    }
    return var ? var->def : "";
}

int shoal__parse_size(const char *s, size_t *value_p)
{
    char buf[64], *end = NULL;
    unsigned long long v, mult = 1;

    if (s == NULL || (s = shoal__trim(s, buf, sizeof(buf))) == NULL) return SHOAL_ERR_ENV;
    if (*s < '0' || *s > '9') return SHOAL_ERR_ENV; /* no sign, no blank */
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0 || end == s) return SHOAL_ERR_ENV;
    switch (*end) {
    case '\0': break;
    case 'b': case 'B': break; /* "4096B": the B below */
    case 'k': case 'K': mult = 1ull << 10; end++; break;
    case 'm': case 'M': mult = 1ull << 20; end++; break;
    case 'g': case 'G': mult = 1ull << 30; end++; break;
    case 't': case 'T': mult = 1ull << 40; end++; break;
    default: return SHOAL_ERR_ENV;
    }
    if (*end == 'b' || *end == 'B') end++; /* "64kB", "2GB" */
    if (*end != '\0') return SHOAL_ERR_ENV;
    if (v > SIZE_MAX / mult) return SHOAL_ERR_ENV;
    *value_p = (size_t)(v * mult);
    return SHOAL_SUCCESS;
}

int shoal__parse_fault(const char *s, int *pe_p, int *count_p)
{
    char buf[64], *end = NULL;
    long pe, count = 1;

    *pe_p = -1;
    *count_p = 0;
    if (s == NULL || (s = shoal__trim(s, buf, sizeof(buf))) == NULL) return SHOAL_ERR_ENV;
    if (*s == '\0') return SHOAL_SUCCESS;
    if (strncmp(s, "quiet:", 6) != 0 || s[6] < '0' || s[6] > '9') return SHOAL_ERR_ENV;
    errno = 0;
    pe = strtol(s + 6, &end, 10);
    if (errno != 0 || pe > INT_MAX) return SHOAL_ERR_ENV;
    if (*end == ':') {
        const char *c = end + 1;
        if (*c < '0' || *c > '9') return SHOAL_ERR_ENV;
        count = strtol(c, &end, 10);
        if (errno != 0 || count < 1 || count > INT_MAX) return SHOAL_ERR_ENV;
    }
    if (*end != '\0') return SHOAL_ERR_ENV;
    *pe_p = (int)pe;
    *count_p = (int)count;
    return SHOAL_SUCCESS;
}

int shoal__parse_int(const char *s, long *value_p)
{
    char buf[64], *end = NULL;
    long v;

    if (s == NULL || (s = shoal__trim(s, buf, sizeof(buf))) == NULL) return SHOAL_ERR_ENV;
    if (*s == '\0') return SHOAL_ERR_ENV;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0') return SHOAL_ERR_ENV;
    *value_p = v;
    return SHOAL_SUCCESS;
}

int shoal__parse_double(const char *s, double *value_p)
{
    char buf[64], *end = NULL;
    double v;

    if (s == NULL || (s = shoal__trim(s, buf, sizeof(buf))) == NULL) return SHOAL_ERR_ENV;
    if (*s == '\0') return SHOAL_ERR_ENV;
    errno = 0;
    v = strtod(s, &end);
    /* Underflow (1e-320) is a tiny number, not an error. */
    if ((errno != 0 && !(errno == ERANGE && fabs(v) <= DBL_MIN)) || end == s || *end != '\0' || !isfinite(v))
        return SHOAL_ERR_ENV;
    *value_p = v;
    return SHOAL_SUCCESS;
}

/* Which variables the last shoal_config_init of this thread found invalid,
 * and what each expects: shoal_env_print marks them. */
static _Thread_local char shoal__env_expect[SHOAL__N_ENV][96];

/* Record the first invalid variable in cfg->env_error, and every one in
 * shoal__env_expect. */
static void shoal__env_bad(shoal_config_t *cfg, const char *name, const char *value, const char *expect)
{
    const shoal__env_var_t *var = shoal__env_find(name);
    if (var != NULL) snprintf(shoal__env_expect[var - shoal__env_vars], sizeof(shoal__env_expect[0]), "%s", expect);
    if (cfg->env_error[0] != '\0') return;
    /* A long value is cut, so that the name and what is expected show. */
    snprintf(cfg->env_error, sizeof(cfg->env_error), "SHOAL_%s=%.64s%s is invalid: expected %s", name, value,
             strlen(value) > 64 ? "..." : "", expect);
}

/* SHOAL_DEBUG_SUBSYS: ALL, or a comma list of subsystem names. */
static bool shoal__subsys_valid(const char *s)
{
    char buf[256], *save = NULL, *tok;
    int n = 0;

    if (s[0] == '\0' || strcasecmp(s, "ALL") == 0) return true;
    if (strlen(s) >= sizeof(buf)) return false;
    snprintf(buf, sizeof(buf), "%s", s);
    for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save), n++) {
        bool known = false;
#define SHOAL__SUB_KNOWN(name, bit) known = known || strcasecmp(tok, #name) == 0;
        SHOAL__SUBSYS_MAP(SHOAL__SUB_KNOWN)
#undef SHOAL__SUB_KNOWN
        if (!known) return false;
    }
    return n > 0;
}

/* y/yes/1/on -> 1, n/no/0/off -> 0, else -1. */
static int shoal__parse_bool(const char *s)
{
    static const char *const yes[] = {"y", "yes", "1", "on", "true"}, *const no[] = {"n", "no", "0", "off", "false"};
    for (size_t i = 0; i < 5; i++) {
        if (strcasecmp(s, yes[i]) == 0) return 1;
        if (strcasecmp(s, no[i]) == 0) return 0;
    }
    return -1;
}

/* Edits (insert, delete, replace one character, case ignored) from a to b;
 * both shorter than 64 characters. */
static size_t shoal__edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), row[64], prev, i, j;

    for (j = 0; j <= lb; j++) row[j] = j;
    for (i = 1; i <= la; i++) {
        prev = row[0];
        row[0] = i;
        for (j = 1; j <= lb; j++) {
            size_t diag = prev + (toupper((unsigned char)a[i - 1]) != toupper((unsigned char)b[j - 1]));
            prev = row[j];
            row[j] = diag;
            if (row[j - 1] + 1 < row[j]) row[j] = row[j - 1] + 1;
            if (prev + 1 < row[j]) row[j] = prev + 1;
        }
    }
    return row[lb];
}

extern char **environ;
static pthread_once_t shoal__env_unknown_once = PTHREAD_ONCE_INIT;

/* SHOAL_* variables that are not in the table (a misspelt SHOAL_HEAPSIZE
 * would otherwise be ignored without a word): one line each on stderr,
 * with the nearest real name, once per process, unless
 * SHOAL_WARN_UNKNOWN_ENV says n. */
static void shoal__env_report_unknown(void)
{
    if (shoal__parse_bool(shoal__env_str("WARN_UNKNOWN_ENV")) == 0) return;
    for (char **e = environ; e != NULL && *e != NULL; e++) {
        const char *eq = strchr(*e, '='), *best = NULL;
        size_t len = eq ? (size_t)(eq - *e) : strlen(*e), best_d = SIZE_MAX;
        char name[64];
        if (len <= 6 || strncmp(*e, "SHOAL_", 6) != 0) continue;
        if (len - 6 >= sizeof(name)) {
            char shown[49];
            for (size_t i = 0; i < 48; i++) shown[i] = (unsigned char)(*e)[i] < 0x20 || (*e)[i] == 0x7f ? '?' : (*e)[i];
            shown[48] = '\0';
            fprintf(stderr, "shoal: %s... is not a shoal variable and is ignored (SHOAL_WARN_UNKNOWN_ENV=n silences "
                    "this)\n", shown);
            continue;
        }
        memcpy(name, *e + 6, len - 6);
        name[len - 6] = '\0';
        if (shoal__env_find(name) != NULL) continue;
        for (char *c = name; *c; c++) /* one line, whatever the name holds */
            if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
        for (size_t i = 0; i < SHOAL__N_ENV; i++) {
            size_t d = shoal__edit_distance(name, shoal__env_vars[i].name);
            if (d < best_d) best_d = d, best = shoal__env_vars[i].name;
        }
        /* Close enough to be a slip: a third of the name, at least 2. */
        if (best != NULL && best_d <= (strlen(best) / 3 > 2 ? strlen(best) / 3 : 2))
            fprintf(stderr, "shoal: SHOAL_%s is not a shoal variable and is ignored; did you mean SHOAL_%s? "
                    "(SHOAL_WARN_UNKNOWN_ENV=n silences this)\n", name, best);
        else
            fprintf(stderr, "shoal: SHOAL_%s is not a shoal variable and is ignored (shoal_env_print lists them; "
                    "SHOAL_WARN_UNKNOWN_ENV=n silences this)\n", name);
    }
}

void shoal_config_init(shoal_config_t *cfg)
{
    const char *v;
    size_t sz;
    long l;
    double d;

    pthread_once(&shoal__env_unknown_once, shoal__env_report_unknown);
    if (cfg == NULL) return;
    memset(cfg, 0, sizeof(*cfg));
    memset(shoal__env_expect, 0, sizeof(shoal__env_expect));
    shoal__parse_size(shoal__env_find("HEAP_SIZE")->def, &cfg->heap_size);
    cfg->heap_kind = SHOAL_HEAP_AUTO;
    cfg->cuda_device = -1;
    cfg->node_size = 0;
    cfg->check = SHOAL_CHECK_BASIC;
    shoal__parse_double(shoal__env_find("TIMEOUT")->def, &cfg->timeout);

    v = shoal__env_str("HEAP_SIZE");
    if (shoal__parse_size(v, &sz) != 0 || sz == 0 || sz > SHOAL__HEAP_MAX)
        shoal__env_bad(cfg, "HEAP_SIZE", v, "a positive size such as 512m or 2g, at most 256t");
    else
        cfg->heap_size = sz;

    v = shoal__env_str("HEAP_KIND");
    if (strcasecmp(v, "auto") == 0) cfg->heap_kind = SHOAL_HEAP_AUTO;
    else if (strcasecmp(v, "host") == 0) cfg->heap_kind = SHOAL_HEAP_HOST;
    else if (strcasecmp(v, "gpu") == 0) cfg->heap_kind = SHOAL_HEAP_GPU;
    else shoal__env_bad(cfg, "HEAP_KIND", v, "auto, host or gpu");

    v = shoal__env_str("CUDA_DEVICE");
    if (shoal__parse_int(v, &l) != 0 || l < -1 || l > 1024) shoal__env_bad(cfg, "CUDA_DEVICE", v, "-1 or a device number");
    else cfg->cuda_device = (int)l;

    v = shoal__env_str("NODE_SIZE");
    if (shoal__parse_int(v, &l) != 0 || l < 0 || l > (1L << 30)) shoal__env_bad(cfg, "NODE_SIZE", v, "0 or a positive number of ranks");
    else cfg->node_size = (int)l;

    v = shoal__env_str("CHECK");
    if (strcasecmp(v, "off") == 0) cfg->check = SHOAL_CHECK_OFF;
    else if (strcasecmp(v, "basic") == 0) cfg->check = SHOAL_CHECK_BASIC;
    else if (strcasecmp(v, "full") == 0) cfg->check = SHOAL_CHECK_FULL;
    else shoal__env_bad(cfg, "CHECK", v, "off, basic or full");

    v = shoal__env_str("WAIT");
    if (strcasecmp(v, "auto") == 0) cfg->wait = SHOAL_WAIT_AUTO;
    else if (strcasecmp(v, "spin") == 0) cfg->wait = SHOAL_WAIT_SPIN;
    else if (strcasecmp(v, "sleep") == 0) cfg->wait = SHOAL_WAIT_SLEEP;
    else shoal__env_bad(cfg, "WAIT", v, "auto, spin or sleep");

    v = shoal__env_str("TIMEOUT");
    if (shoal__parse_double(v, &d) != 0 || d < 0) shoal__env_bad(cfg, "TIMEOUT", v, "a number of seconds >= 0");
    else cfg->timeout = d;

    v = shoal__env_str("DEBUG");
    if (v[0] != '\0' && strcasecmp(v, "WARN") != 0 && strcasecmp(v, "INFO") != 0 && strcasecmp(v, "TRACE") != 0)
        shoal__env_bad(cfg, "DEBUG", v, "WARN, INFO or TRACE (or unset)");
    v = shoal__env_str("DEBUG_SUBSYS");
    if (!shoal__subsys_valid(v)) shoal__env_bad(cfg, "DEBUG_SUBSYS", v, "ALL or a list of INIT,TOPO,HEAP,RMA,COLL,CUDA,ENV");
    {
        int fpe, fcount;
        v = shoal__env_str("FAULT");
        if (shoal__parse_fault(v, &fpe, &fcount) != SHOAL_SUCCESS)
            shoal__env_bad(cfg, "FAULT", v, "quiet:PE or quiet:PE:N (a testing aid), or unset");
    }
    v = shoal__env_str("WARN_UNKNOWN_ENV");
    if (shoal__parse_bool(v) < 0) shoal__env_bad(cfg, "WARN_UNKNOWN_ENV", v, "y or n (yes/no, 1/0, on/off, true/false)");
    v = shoal__env_str("TOPO_FILE");
    if (v[0] != '\0' && access(v, R_OK) != 0) shoal__env_bad(cfg, "TOPO_FILE", v, "a readable hwloc XML file");

    for (size_t i = 0; i < SHOAL__N_ENV; i++) {
        v = shoal__env_str(shoal__env_vars[i].name);
        if (v[0] != '\0' && strcmp(v, shoal__env_vars[i].def) != 0)
            SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_ENV, "SHOAL_%s=%s (default %s)", shoal__env_vars[i].name, v,
                       shoal__env_vars[i].def[0] ? shoal__env_vars[i].def : "unset");
    }

    /* Parsed again at init; checked here so that one place reports every bad value. */
    {
        unsigned mask;
        shoal_path_t level;
        v = shoal__env_str("TRANSPORT_DISABLE");
        if (shoal_topo_parse_disable(v, &mask) != SHOAL_SUCCESS)
            shoal__env_bad(cfg, "TRANSPORT_DISABLE", v, shoal_topo_last_error());
        v = shoal__env_str("P2P_LEVEL");
        if (shoal_topo_parse_p2p_level(v, &level) != SHOAL_SUCCESS)
            shoal__env_bad(cfg, "P2P_LEVEL", v, "NVL, PIX, PXB, PHB, NODE or SYS");
    }
}

void shoal_env_print(FILE *out)
{
    shoal_config_t cfg;

    if (out == NULL) out = stdout;
    shoal_config_init(&cfg); /* marks the invalid values */
    for (size_t i = 0; i < SHOAL__N_ENV; i++) {
        const shoal__env_var_t *var = &shoal__env_vars[i];
        char full[64], shown[96];
        const char *set, *def = var->def[0] ? var->def : "unset";
        size_t n = 0;
        snprintf(full, sizeof(full), "SHOAL_%s", var->name);
        set = getenv(full);
        if (set && *set) {
            /* As set, with control characters shown as '?' and cut short:
             * one line per variable whatever the value. */
            for (; set[n] && n < sizeof(shown) - 4; n++)
                shown[n] = (unsigned char)set[n] < 0x20 || set[n] == 0x7f ? '?' : set[n];
            snprintf(shown + n, sizeof(shown) - n, "%s", set[n] ? "..." : "");
            if (shoal__env_expect[i][0] != '\0')
                fprintf(out, "%-26s %-10s (set, INVALID: expected %s; shoal_init fails; default %s)\n    %s\n", full,
                        shown, shoal__env_expect[i], def, var->doc);
            else
                fprintf(out, "%-26s %-10s (set; default %s)\n    %s\n", full, shown, def, var->doc);
        } else {
            fprintf(out, "%-26s %-10s (default)\n    %s\n", full, var->def[0] ? var->def : "(unset)", var->doc);
        }
    }
}
