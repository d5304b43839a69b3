/* What the environment table gives the program: shoal_config_init, the
 * INFO lines that say where each setting came from, the report of unknown
 * SHOAL_* variables, shoal_env_print and README.md's table; and which knob
 * sets the heap size, for the messages that suggest changing it. */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/shoal_env.h"
#include "base/shoal_instance.h"

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

/* Is name (without SHOAL_) <PREFIX>_<NAME> for a variable a named instance
 * may set? (shoal_config_init_named; the names are the program's.) */
static bool shoal__env_named_var(const char *name)
{
    for (size_t i = 0; i < SHOAL__ENV_COUNT; i++) {
        size_t ln = strlen(name), lv = strlen(shoal__env_rows[i].name);
        if (!shoal__env_per_instance((shoal__env_key_t)i) || ln < lv + 2) continue;
        if (name[ln - lv - 1] == '_' && strcmp(name + ln - lv, shoal__env_rows[i].name) == 0) return true;
    }
    return false;
}
static pthread_once_t shoal__env_unknown_once = PTHREAD_ONCE_INIT;

/* SHOAL_* variables that are not in the table (a misspelt SHOAL_HEAPSIZE
 * would otherwise be ignored without a word): one line each on stderr,
 * with the nearest real name, once per process, unless
 * SHOAL_WARN_UNKNOWN_ENV says n. */
static void shoal__env_report_unknown(void)
{
    shoal__settings_t set;

    shoal__env_load(&set);
    if (!set.warn_unknown) return;
    for (char **e = environ; e != NULL && *e != NULL; e++) {
        const char *eq = strchr(*e, '='), *best = NULL;
        size_t len = eq ? (size_t)(eq - *e) : strlen(*e), best_d = SIZE_MAX;
        char name[64];
        if (len <= 6 || strncmp(*e, "SHOAL_", 6) != 0) continue;
        if (len - 6 >= sizeof(name)) {
            char shown[49];
            for (size_t i = 0; i < 48; i++) shown[i] = (unsigned char)(*e)[i] < 0x20 || (*e)[i] == 0x7f ? '?' : (*e)[i];
            shown[48] = '\0';
            fprintf(stderr,
                    "shoal: %s... is not a shoal variable and is ignored (SHOAL_WARN_UNKNOWN_ENV=n silences "
                    "this)\n",
                    shown);
            continue;
        }
        memcpy(name, *e + 6, len - 6);
        name[len - 6] = '\0';
        if (shoal__env_find(name) != NULL || shoal__env_named_var(name)) continue;
        for (char *c = name; *c; c++) /* one line, whatever the name holds */
            if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
        for (size_t i = 0; i < SHOAL__ENV_COUNT; i++) {
            size_t d = shoal__edit_distance(name, shoal__env_rows[i].name);
            if (d < best_d) best_d = d, best = shoal__env_rows[i].name;
        }
        /* Close enough to be a slip: a third of the name, at least 2. */
        if (best != NULL && best_d <= (strlen(best) / 3 > 2 ? strlen(best) / 3 : 2))
            fprintf(stderr,
                    "shoal: SHOAL_%s is not a shoal variable and is ignored; did you mean SHOAL_%s? "
                    "(SHOAL_WARN_UNKNOWN_ENV=n silences this)\n",
                    name, best);
        else
            fprintf(stderr,
                    "shoal: SHOAL_%s is not a shoal variable and is ignored (shoal_env_print lists them; "
                    "SHOAL_WARN_UNKNOWN_ENV=n silences this)\n",
                    name);
    }
}

/* INFO: each variable set to other than its default (for prefix). */
static void shoal__env_log_set(const char *prefix)
{
    for (size_t i = 0; i < SHOAL__ENV_COUNT; i++) {
        const shoal__env_row_t *row = &shoal__env_rows[i];
        const char *v = shoal__env_value_named((shoal__env_key_t)i, prefix);
        char var[128];
        if (v[0] != '\0' && strcmp(v, row->def) != 0)
            SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_ENV, "%s=%s (default %s)",
                       shoal__env_var_named((shoal__env_key_t)i, prefix, var, sizeof(var)), v,
                       row->def[0] ? row->def : "unset");
    }
}

/* A name's variables' prefix: upper case, into up; false when the name
 * is not 1 to 31 letters, digits and underscores. */
static bool shoal__env_prefix(const char *name, char *up, size_t len)
{
    size_t n = strlen(name);
    up[0] = '\0'; /* nothing of an invalid name is used */
    if (n == 0 || n >= len || n >= sizeof(((shoal_config_t *)0)->name)) return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if (!isalnum(c) && c != '_') return false;
    }
    for (size_t i = 0; i < n; i++) up[i] = (char)toupper((unsigned char)name[i]);
    up[n] = '\0';
    return true;
}

void shoal_config_init_named(shoal_config_t *cfg, const char *name)
{
    shoal__settings_t s;
    char prefix[64] = "";
    bool valid = true;

    pthread_once(&shoal__env_unknown_once, shoal__env_report_unknown);
    if (cfg == NULL) return;
    if (name != NULL && name[0] != '\0') valid = shoal__env_prefix(name, prefix, sizeof(prefix));
    shoal__env_load_named(&s, prefix);
    shoal__env_log_set(prefix);
    *cfg = s.cfg;
    if (valid) {
        snprintf(cfg->name, sizeof(cfg->name), "%s", prefix);
    } else {
        cfg->name[0] = '\0';
        /* A bad name is a bad setting: shoal_init refuses the config. */
        snprintf(cfg->env_error, sizeof(cfg->env_error),
                 "the instance name '%.40s%s' is invalid: expected 1 to %zu letters, digits and underscores (its "
                 "variables are SHOAL_<NAME>_<VARIABLE>)",
                 name, strlen(name) > 40 ? "..." : "", sizeof(cfg->name) - 1);
    }
}

void shoal_config_init(shoal_config_t *cfg) { shoal_config_init_named(cfg, NULL); }

bool shoal__config_name_valid(const shoal_config_t *cfg)
{
    char up[sizeof(cfg->name)];
    if (memchr(cfg->name, '\0', sizeof(cfg->name)) == NULL) return false;
    return cfg->name[0] == '\0' || shoal__env_prefix(cfg->name, up, sizeof(up));
}

void shoal__env_for_init(shoal_t sh, const shoal_config_t *cfg, shoal__settings_t *s)
{
    /* An invalid name reads no variable of its own (shoal_init refuses it). */
    const char *prefix = shoal__config_name_valid(cfg) ? cfg->name : "";
    char up[sizeof(cfg->name)] = "";

    if (prefix[0] != '\0') shoal__env_prefix(prefix, up, sizeof(up)); /* a name set by hand may be lower case */
    prefix = up;
    pthread_once(&shoal__env_unknown_once, shoal__env_report_unknown);
    shoal__env_load_named(s, prefix);
    shoal__env_log_set(prefix);
    for (size_t i = 0; i < SHOAL__ENV_COUNT; i++) {
        const shoal__env_row_t *row = &shoal__env_rows[i];
        const char *field = shoal__env_cfg_field(row);
        const void *mine, *env;
        char value[32], var[64];
        bool code, set;

        if (field == NULL) continue;
        mine = (const char *)cfg + (row->off - offsetof(shoal__settings_t, cfg));
        env = (const char *)s + row->off;
        switch (row->kind) {
        case SHOAL__ENV_KIND_SIZE:
            code = *(const size_t *)mine != *(const size_t *)env;
            snprintf(value, sizeof(value), "%zu", *(const size_t *)mine);
            break;
        case SHOAL__ENV_KIND_INT:
            code = *(const int *)mine != *(const int *)env;
            snprintf(value, sizeof(value), "%d", *(const int *)mine);
            break;
        case SHOAL__ENV_KIND_DOUBLE:
            code = *(const double *)mine != *(const double *)env;
            snprintf(value, sizeof(value), "%g", *(const double *)mine);
            break;
        case SHOAL__ENV_KIND_ENUM: {
            const shoal__env_name_t *n = row->names;
            while (n->name != NULL && n->value != *(const int *)mine) n++;
            code = *(const int *)mine != *(const int *)env;
            snprintf(value, sizeof(value), "%s", n->name ? n->name : "?");
            break;
        }
        default: /* no config field is of another kind */ continue;
        }
        set = shoal__env_is_set_named((shoal__env_key_t)i, prefix);
        shoal__env_var_named((shoal__env_key_t)i, prefix, var, sizeof(var));
        if (i == SHOAL__ENV_HEAP_SIZE) {
            sh->heap_size_from_code = code;
            sh->heap_size_var_set = set;
            snprintf(sh->heap_size_var, sizeof(sh->heap_size_var), "%s", var);
        }
        SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_ENV, "config %s = %s from %s%s%s", field, value,
                   code  ? "the program"
                   : set ? var
                         : "the default",
                   code && set ? ", which overrides " : "", code && set ? var : "");
    }
}

/* A doc as plain text: without its backquotes, in lines of at most 78
 * columns indented by 4. */
static void shoal__env_print_doc(FILE *out, const char *doc)
{
    size_t col = 0;

    while (*doc != '\0') {
        const char *word;
        size_t len = 0, n;
        while (*doc == ' ') doc++;
        word = doc;
        while (*doc != '\0' && *doc != ' ') len += *doc++ != '`';
        if (len == 0) continue;
        if (col > 0 && col + 1 + len > 78) {
            fputc('\n', out);
            col = 0;
        }
        fputs(col == 0 ? "    " : " ", out);
        col += col == 0 ? 4 : 1;
        for (n = 0; word + n < doc; n++)
            if (word[n] != '`') fputc(word[n], out);
        col += len;
    }
    fputc('\n', out);
}

void shoal_env_print(FILE *out)
{
    shoal_config_t cfg;

    if (out == NULL) out = stdout;
    shoal_config_init(&cfg); /* marks the invalid values */
    for (size_t i = 0; i < SHOAL__ENV_COUNT; i++) {
        const shoal__env_row_t *row = &shoal__env_rows[i];
        char full[64], shown[96];
        const char *set = shoal__env_raw((shoal__env_key_t)i), *def = row->def[0] ? row->def : "unset";
        size_t n = 0;
        snprintf(full, sizeof(full), "SHOAL_%s", row->name);
        if (set && *set) {
            /* As set, with control characters shown as '?' and cut short:
             * one line per variable whatever the value. */
            for (; set[n] && n < sizeof(shown) - 4; n++)
                shown[n] = (unsigned char)set[n] < 0x20 || set[n] == 0x7f ? '?' : set[n];
            snprintf(shown + n, sizeof(shown) - n, "%s", set[n] ? "..." : "");
            if (shoal__env_invalid((shoal__env_key_t)i)[0] != '\0')
                fprintf(out, "%-26s %-10s (set, INVALID: expected %s; shoal_init fails; default %s)\n", full, shown,
                        shoal__env_invalid((shoal__env_key_t)i), def);
            else
                fprintf(out, "%-26s %-10s (set; default %s)\n", full, shown, def);
        } else {
            fprintf(out, "%-26s %-10s (default)\n", full, row->def[0] ? row->def : "(unset)");
        }
        shoal__env_print_doc(out, row->doc);
    }
}

void shoal__env_markdown(FILE *out)
{
    fprintf(out, "| variable | default | meaning |\n|---|---|---|\n");
    for (size_t i = 0; i < SHOAL__ENV_COUNT; i++) {
        const shoal__env_row_t *row = &shoal__env_rows[i];
        fprintf(out, "| `SHOAL_%s` |%s%s%s| %s |\n", row->name, row->def[0] ? " `" : " ", row->def,
                row->def[0] ? "` " : "", row->doc);
    }
}

const char *shoal__heap_size_knob(shoal_t sh)
{
    static _Thread_local char buf[192];
    const char *var = sh->heap_size_var[0] ? sh->heap_size_var : "SHOAL_HEAP_SIZE";

    if (!sh->heap_size_from_code) return var;
    if (!sh->heap_size_var_set) return "the heap_size field of shoal_config_t (set by the program)";
    snprintf(buf, sizeof(buf), "the heap_size field of shoal_config_t (set by the program, which overrides %s)", var);
    return buf;
}
