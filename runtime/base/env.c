/*
 * The environment, from the table of runtime/base/shoal_env.h: parsing and
 * validation, shoal_config_init, the settings shoal_init keeps, the INFO
 * lines of where each config field came from, shoal_env_print and the
 * Markdown of README.md's table.
 */
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

#include "base/shoal_env.h"

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
    case 'b':
    case 'B': break; /* "4096B": the B below */
    case 'k':
    case 'K':
        mult = 1ull << 10;
        end++;
        break;
    case 'm':
    case 'M':
        mult = 1ull << 20;
        end++;
        break;
    case 'g':
    case 'G':
        mult = 1ull << 30;
        end++;
        break;
    case 't':
    case 'T':
        mult = 1ull << 40;
        end++;
        break;
    default: return SHOAL_ERR_ENV;
    }
    if (*end == 'b' || *end == 'B') end++; /* "64kB", "2GB" */
    if (*end != '\0') return SHOAL_ERR_ENV;
    if (v > SIZE_MAX / mult) return SHOAL_ERR_ENV;
    *value_p = (size_t)(v * mult);
    return SHOAL_SUCCESS;
}

int shoal__parse_fault(const char *s, int *kind_p, int *pe_p, int *count_p)
{
    char buf[64], *end = NULL;
    long pe, count = 1;
    size_t skip;

    *kind_p = SHOAL__FAULT_QUIET;
    *pe_p = -1;
    *count_p = 0;
    if (s == NULL || (s = shoal__trim(s, buf, sizeof(buf))) == NULL) return SHOAL_ERR_ENV;
    if (*s == '\0') return SHOAL_SUCCESS;
    if (strncmp(s, "quiet:", 6) == 0) {
        skip = 6;
    } else if (strncmp(s, "grow:", 5) == 0) {
        skip = 5;
        *kind_p = SHOAL__FAULT_GROW;
    } else {
        return SHOAL_ERR_ENV;
    }
    if (s[skip] < '0' || s[skip] > '9') return SHOAL_ERR_ENV;
    errno = 0;
    pe = strtol(s + skip, &end, 10);
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

/* y/yes/1/on -> 1, n/no/0/off -> 0, else -1. */
int shoal__parse_bool(const char *s)
{
    static const char *const yes[] = {"y", "yes", "1", "on", "true"}, *const no[] = {"n", "no", "0", "off", "false"};
    for (size_t i = 0; i < 5; i++) {
        if (strcasecmp(s, yes[i]) == 0) return 1;
        if (strcasecmp(s, no[i]) == 0) return 0;
    }
    return -1;
}

/* ---------------------------------------------------------------- the table */

/* Parsers of rows with SHOAL__ENV_PARSER: v into dest (size bytes), or
 * SHOAL_ERR_ENV, with what was wrong in why when the row's EXPECT does not
 * say it. v is "" when the variable is unset and has no default. */

/* SHOAL_TRANSPORT_DISABLE: topology's parser says what is wrong. */
static int shoal__env_parse_disable(const char *v, void *dest, size_t size, char *why, size_t why_len)
{
    unsigned mask;
    (void)size;
    if (shoal_topo_parse_disable(v, &mask) != SHOAL_SUCCESS) {
        snprintf(why, why_len, "%s", shoal_topo_last_error());
        return SHOAL_ERR_ENV;
    }
    *(unsigned *)dest = mask;
    return SHOAL_SUCCESS;
}

/* A file that can be read, or unset. */
static int shoal__env_parse_readable(const char *v, void *dest, size_t size, char *why, size_t why_len)
{
    (void)why, (void)why_len;
    if ((v[0] != '\0' && access(v, R_OK) != 0) || strlen(v) >= size) return SHOAL_ERR_ENV;
    memcpy(dest, v, strlen(v) + 1);
    return SHOAL_SUCCESS;
}

static int shoal__env_parse_fault(const char *v, void *dest, size_t size, char *why, size_t why_len)
{
    shoal__env_fault_t f;
    (void)why, (void)why_len;
    if (size != sizeof(f) || shoal__parse_fault(v, &f.kind, &f.pe, &f.count) != SHOAL_SUCCESS) return SHOAL_ERR_ENV;
    memcpy(dest, &f, sizeof(f));
    return SHOAL_SUCCESS;
}

#define SHOAL__ENV_RANGE(lo_, hi_) .lo = (double)(lo_), .hi = (double)(hi_)
#define SHOAL__ENV_NAMES(...)                                                                                          \
    .names = (const shoal__env_name_t[])                                                                               \
    {                                                                                                                  \
        __VA_ARGS__, { NULL, 0 }                                                                                       \
    }
#define SHOAL__ENV_PARSER(fn) .parse = (fn)
#define SHOAL__ENV_ANY .parse = NULL

const shoal__env_row_t shoal__env_rows[] = {
#define SHOAL__ENV_ROW(name_, kind_, def_, values_, field_, expect_, doc_)                                             \
    [SHOAL__ENV_##name_] = {.name = #name_,                                                                            \
                            .kind = SHOAL__ENV_KIND_##kind_,                                                           \
                            .def = def_,                                                                               \
                            values_,                                                                                   \
                            .field = #field_,                                                                          \
                            .off = offsetof(shoal__settings_t, field_),                                                \
                            .size = sizeof(((shoal__settings_t *)0)->field_),                                          \
                            .expect = expect_,                                                                         \
                            .doc = doc_},
    SHOAL_ENV_TABLE(SHOAL__ENV_ROW)
#undef SHOAL__ENV_ROW
};

/* Each row's field has the type of its kind (a STRING's parser may fill
 * a field of its own). */
#define SHOAL__ENV_TYPE_SIZE(f) _Generic((f), size_t : 1, default : 0)
#define SHOAL__ENV_TYPE_INT(f) _Generic((f), int : 1, default : 0)
#define SHOAL__ENV_TYPE_DOUBLE(f) _Generic((f), double : 1, default : 0)
#define SHOAL__ENV_TYPE_ENUM(f) _Generic((f), int : 1, default : 0)
#define SHOAL__ENV_TYPE_LIST(f) _Generic((f), unsigned : 1, default : 0)
#define SHOAL__ENV_TYPE_STRING(f) 1
#define SHOAL__ENV_TYPE_BOOL(f) _Generic((f), bool : 1, default : 0)
#define SHOAL__ENV_TYPE_CHECK(name_, kind_, def_, values_, field_, expect_, doc_)                                      \
    _Static_assert(SHOAL__ENV_TYPE_##kind_(((shoal__settings_t *)0)->field_),                                          \
                   "SHOAL_" #name_ ": shoal__settings_t." #field_ " is not of the type of a " #kind_);
SHOAL_ENV_TABLE(SHOAL__ENV_TYPE_CHECK)
#undef SHOAL__ENV_TYPE_CHECK

const shoal__env_row_t *shoal__env_find(const char *name)
{
    for (size_t i = 0; i < SHOAL__ENV_COUNT; i++)
        if (strcmp(shoal__env_rows[i].name, name) == 0) return &shoal__env_rows[i];
    return NULL;
}

/* A field of shoal_config_t: its name, else NULL. */
const char *shoal__env_cfg_field(const shoal__env_row_t *row)
{
    return strncmp(row->field, "cfg.", 4) == 0 ? row->field + 4 : NULL;
}

/* The variable's value as set (NULL: unset). */
bool shoal__env_per_instance(shoal__env_key_t key)
{
    /* Process-wide: logging, the unknown-variable report, and what the
     * topology code reads for itself (SHOAL_TOPO_FILE, SHOAL_NVML_LIBRARY). */
    return key != SHOAL__ENV_DEBUG && key != SHOAL__ENV_DEBUG_SUBSYS && key != SHOAL__ENV_WARN_UNKNOWN_ENV &&
           key != SHOAL__ENV_TOPO_FILE && key != SHOAL__ENV_NVML_LIBRARY;
}

const char *shoal__env_var_named(shoal__env_key_t key, const char *prefix, char *buf, size_t len)
{
    if (prefix != NULL && prefix[0] != '\0' && shoal__env_per_instance(key)) {
        snprintf(buf, len, "SHOAL_%s_%s", prefix, shoal__env_rows[key].name);
        if (getenv(buf) != NULL) return buf;
    }
    snprintf(buf, len, "SHOAL_%s", shoal__env_rows[key].name);
    return buf;
}

const char *shoal__env_raw_named(shoal__env_key_t key, const char *prefix)
{
    char full[128];
    return getenv(shoal__env_var_named(key, prefix, full, sizeof(full)));
}

const char *shoal__env_raw(shoal__env_key_t key) { return shoal__env_raw_named(key, NULL); }

/* The variable's value without surrounding blanks; its default when unset
 * or blank. A value too long to trim comes back as it is, for the parser
 * to refuse. */
const char *shoal__env_value_named(shoal__env_key_t key, const char *prefix)
{
    static _Thread_local char bufs[4][256];
    static _Thread_local unsigned next;
    const char *v = shoal__env_raw_named(key, prefix);

    if (v != NULL) {
        const char *t = shoal__trim(v, bufs[next++ % 4], sizeof(bufs[0]));
        if (t == NULL) return v;
        if (*t != '\0') return t;
    }
    return shoal__env_rows[key].def;
}

const char *shoal__env_value(shoal__env_key_t key) { return shoal__env_value_named(key, NULL); }

bool shoal__env_is_set_named(shoal__env_key_t key, const char *prefix)
{
    const char *v = shoal__env_raw_named(key, prefix);
    if (v == NULL) return false;
    while (isspace((unsigned char)*v)) v++;
    return *v != '\0';
}

bool shoal__env_is_set(shoal__env_key_t key) { return shoal__env_is_set_named(key, NULL); }

/* name in names (case ignored): its entry, else NULL. */
static const shoal__env_name_t *shoal__env_name(const shoal__env_name_t *names, const char *name)
{
    for (; names->name != NULL; names++)
        if (strcasecmp(names->name, name) == 0) return names;
    return NULL;
}

/* v (not NULL) into the row's field of s, which is left alone on error. */
static int shoal__env_parse_row(const shoal__env_row_t *row, const char *v, shoal__settings_t *s, char *why,
                                size_t why_len)
{
    void *dest = (char *)s + row->off;

    if (row->parse != NULL) return row->parse(v, dest, row->size, why, why_len);
    if (v[0] == '\0') { /* unset, no default */
        memset(dest, 0, row->size);
        return SHOAL_SUCCESS;
    }
    switch (row->kind) {
    case SHOAL__ENV_KIND_SIZE: {
        size_t x;
        if (shoal__parse_size(v, &x) != SHOAL_SUCCESS || (double)x < row->lo || (double)x > row->hi) break;
        *(size_t *)dest = x;
        return SHOAL_SUCCESS;
    }
    case SHOAL__ENV_KIND_INT: {
        long x;
        if (shoal__parse_int(v, &x) != SHOAL_SUCCESS || (double)x < row->lo || (double)x > row->hi) break;
        *(int *)dest = (int)x;
        return SHOAL_SUCCESS;
    }
    case SHOAL__ENV_KIND_DOUBLE: {
        double x;
        if (shoal__parse_double(v, &x) != SHOAL_SUCCESS || x < row->lo || x > row->hi) break;
        *(double *)dest = x;
        return SHOAL_SUCCESS;
    }
    case SHOAL__ENV_KIND_ENUM: {
        const shoal__env_name_t *n = shoal__env_name(row->names, v);
        if (n == NULL) break;
        *(int *)dest = (int)n->value;
        return SHOAL_SUCCESS;
    }
    case SHOAL__ENV_KIND_LIST: {
        char buf[256], *save = NULL, *tok;
        unsigned mask = 0;
        int n = 0;
        if (strlen(v) >= sizeof(buf)) break;
        snprintf(buf, sizeof(buf), "%s", v);
        for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save), n++) {
            const shoal__env_name_t *name = shoal__env_name(row->names, tok);
            if (name == NULL) break;
            mask |= (unsigned)name->value;
        }
        if (tok != NULL || n == 0) break;
        *(unsigned *)dest = mask;
        return SHOAL_SUCCESS;
    }
    case SHOAL__ENV_KIND_STRING:
        if (strlen(v) >= row->size) break;
        memcpy(dest, v, strlen(v) + 1);
        return SHOAL_SUCCESS;
    case SHOAL__ENV_KIND_BOOL: {
        int b = shoal__parse_bool(v);
        if (b < 0) break;
        *(bool *)dest = b;
        return SHOAL_SUCCESS;
    }
    }
    return SHOAL_ERR_ENV;
}

/* What a valid value of the row looks like, into buf. */
static const char *shoal__env_expect_text(const shoal__env_row_t *row, char *buf, size_t len)
{
    size_t n = 0, count = 0;

    if (row->expect != NULL) return row->expect;
    if (row->kind == SHOAL__ENV_KIND_BOOL) return "y or n (yes/no, 1/0, on/off, true/false)";
    if (row->names == NULL) return "a valid value";
    while (row->names[count].name != NULL) count++;
    buf[0] = '\0';
    for (size_t i = 0; i < count && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s",
                              i == 0           ? ""
                              : i + 1 == count ? " or "
                                               : ", ",
                              row->names[i].name);
    if (row->def[0] == '\0' && n < len) snprintf(buf + n, len - n, " (or unset)");
    return buf;
}

/* Which variables the last shoal__env_load of this thread found invalid,
 * and what each expects: shoal_env_print marks them. */
static _Thread_local char shoal__env_expect[SHOAL__ENV_COUNT][96];

const char *shoal__env_invalid(shoal__env_key_t key) { return shoal__env_expect[key]; }

int shoal__env_load_named(shoal__settings_t *s, const char *prefix)
{
    memset(s, 0, sizeof(*s));
    memset(shoal__env_expect, 0, sizeof(shoal__env_expect));
    for (size_t i = 0; i < SHOAL__ENV_COUNT; i++) {
        const shoal__env_row_t *row = &shoal__env_rows[i];
        const char *v = shoal__env_value_named((shoal__env_key_t)i, prefix);
        char why[160] = "", text[96], var[128];
        const char *expect;

        /* The default first (tests/unit/test_env_unit.c: each is valid), so
         * that an invalid value leaves it. */
        shoal__env_parse_row(row, row->def, s, why, sizeof(why));
        if (v == row->def || shoal__env_parse_row(row, v, s, why, sizeof(why)) == SHOAL_SUCCESS) continue;
        expect = why[0] != '\0' ? why : shoal__env_expect_text(row, text, sizeof(text));
        snprintf(shoal__env_expect[i], sizeof(shoal__env_expect[0]), "%s", expect);
        shoal__env_var_named((shoal__env_key_t)i, prefix, var, sizeof(var));
        /* A long value is cut, so that the name and what is expected show. */
        if (s->cfg.env_error[0] == '\0')
            snprintf(s->cfg.env_error, sizeof(s->cfg.env_error), "%s=%.64s%s is invalid: expected %s", var, v,
                     strlen(v) > 64 ? "..." : "", expect);
        if (s->error[0] == '\0' && shoal__env_cfg_field(row) == NULL)
            snprintf(s->error, sizeof(s->error), "%s=%.64s%s is invalid: expected %s", var, v,
                     strlen(v) > 64 ? "..." : "", expect);
    }
    return s->cfg.env_error[0] != '\0' ? SHOAL_ERR_ENV : SHOAL_SUCCESS;
}

int shoal__env_load(shoal__settings_t *s) { return shoal__env_load_named(s, NULL); }
